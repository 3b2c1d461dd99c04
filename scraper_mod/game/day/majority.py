"""The day topic's notice when a majority ends the vote (RULES R2.15, ``majority_ends_day``).

On autopilot (``[publish] mode = "auto"``), after each poll of an unresolved day, the count
of the stored posts is taken as of now; once it holds a majority, the notice
(«Набрано большинство: … Голосование окончено.», templates/majority.*.bbcode.j2) is posted
in the day topic, and the topic is locked when ``lock_day_topic`` is set. Both are
publications like the others (posted once, R12.2; the lock is the same one the newspaper's
plan would make, so it is not made twice). The night and the newspaper keep their time.
"""

from __future__ import annotations

import logging

from scraper_mod.errors import ScraperModError
from scraper_mod.game.context import GameContext
from scraper_mod.game.day.tally import tally_day
from scraper_mod.game.publishing.publish import Item, Outcome, game_id, publish_items
from scraper_mod.posts.plural import plural_ru
from scraper_mod.posts.render import render_text

__all__ = ["majority_items", "post_majority_notice"]

log = logging.getLogger(__name__)


def majority_items(ctx: GameContext, day: int, *, confirm: bool = False) -> list[Item]:
    """The notice (and the lock) owed to day ``day``'s topic, or none.

    ``confirm``: a majority seen in the stored posts is owed only after a full read of the
    topic (every page, ``poll_day(full=True)``) still shows it (R2.15): an ordinary poll
    reads the last page only, and an edit on an earlier page would be unseen. A read that
    fails owes nothing (raises: the next poll tries again)."""
    g = ctx.game
    topic = ctx.topic_for_day(day)
    if not g.rules.majority_ends_day or not topic or ctx.store.resolution(day) is not None:
        return []
    deadline = ctx.calendar().deadline(day)
    t = tally_day(ctx, day, as_of=min(ctx.now().replace(microsecond=0), deadline))
    m = t.tally.majority
    if m is None:
        return []
    if confirm and not _notice_done(ctx, day):
        t = tally_day(ctx, day, as_of=min(ctx.now().replace(microsecond=0), deadline),
                      poll=True, full=True)
        m = t.tally.majority
        if m is None:
            log.info("day %d: a majority in the stored posts is not confirmed by a full "
                     "read of the topic: no notice", day)
            return []
    lang = g.language if g.language in ("ru", "en") else "en"
    view = t._template_context(lang)
    votes = next(c.votes for c in t.tally.counts if c.target == m.target)
    text = render_text("majority", lang, "bbcode", target=m.target, votes=votes,
                       eligible=len(t.state.alive - t.state.frozen),
                       hm=m.at.astimezone(g.timezone).strftime("%H:%M"),
                       url=(view["majority"] or {}).get("url"), plural=plural_ru,
                       deadline_day=view["deadline_day"], deadline_hm=view["deadline_hm"],
                       deadline_zone=view["deadline_zone"])
    items = [Item(day, "majority", f"day-{day}", topic, text)]
    if g.publish.lock_day_topic:
        items.append(Item(day, "lock", f"day-{day}", topic, ""))
    return items


def _notice_done(ctx: GameContext, day: int) -> bool:
    """The notice is on the board already (nothing new is posted: no read is needed)."""
    rec = ctx.store.publication(game_id(ctx), day, "majority", f"day-{day}")
    return rec is not None and rec["status"] == "done"


def post_majority_notice(ctx: GameContext, day: int) -> list[Outcome]:
    """Post what ``majority_items`` owes (nothing outside ``mode = "auto"``)."""
    if ctx.game.publish.mode != "auto" or not ctx.game.rules.majority_ends_day:
        return []
    try:
        return publish_items(ctx, majority_items(ctx, day, confirm=True))
    except ScraperModError as e:     # the count failed: said, the poll goes on
        log.warning("day %d: the majority notice: %s", day, e)
        return []
