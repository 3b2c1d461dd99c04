"""Which topic of the game forum is a day's topic (RULES R12.5, docs/security.md).

``[forum] forum`` with ``title_pattern`` lets the daemon find a day's topic the host opened by
hand. Players and other games share that forum, so a topic is the day's only when it is the
game's own:

- its title matches ``title_pattern`` for the day («День 2», never «День 12») and is the
  game's own title: the title ``[publish] title_template`` gives for the day, or
  ``[game] title``, a separator, then the day («Мафия #7. День 2: …», never «Мафия #71. День
  2», «Мафия #7 2 — День 2» nor a player's «День 2 — кто мафия?»);
- its first post is by the host's account (``[forum] username``, else ``[game] host``;
  by its forum user id when the board shows one for the account) and was written at or after
  the day's start (R1.2: the newspaper's time), never an older topic;
- no other day of this game uses it (``[[days]]``, ``day open``, found before).

Several that pass: the newest. A topic the game file names, or ``scraper-mod day open``
gives, is the day's whatever its title (the host said so).
"""

from __future__ import annotations

import re
from typing import cast

from scraper_mod.errors import ConfigError, ForumError
from scraper_mod.forum.engine import Board
from scraper_mod.forum.poller import canonical_topic_url
from scraper_mod.game.context import GameContext

__all__ = ["own_day_topic", "topic_title_regex", "is_own_title"]


def topic_title_regex(pattern: str, day: int) -> re.Pattern:
    """``[forum] title_pattern`` with ``{n}`` replaced by the day number."""
    try:
        return re.compile(pattern.replace("{n}", str(day)), re.IGNORECASE)
    except re.error as e:
        raise ConfigError(f"not a valid regular expression: {e}", key="forum.title_pattern",
                          hint=r'e.g. "День\s*{n}\b" ({n} is the day number)') from None


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold().replace("ё", "е")


def is_own_title(ctx: GameContext, day: int, title: str) -> bool:
    """The topic title is day ``day``'s of this game (see the module)."""
    g = ctx.game
    if not topic_title_regex(g.forum.title_pattern, day).search(title):
        return False
    got = _norm(title)
    if got == _norm(g.publish.title_template.format(title=g.title, day=day)):
        return True
    own = _norm(g.title)
    if not own or not got.startswith(own):
        return False
    rest = got[len(own):].lstrip(" .,:;—–-|/")   # «Мафия #7. День 2», not «Мафия #7 2 …»
    return rest != got[len(own):] and bool(
        topic_title_regex(g.forum.title_pattern, day).match(rest))


def _account(ctx: GameContext) -> str:
    return _norm(ctx.game.forum.username or ctx.game.host or "")


def own_day_topic(ctx: GameContext, day: int, board: Board) -> str | None:
    """Day ``day``'s topic among the topics of ``[forum] forum`` (see the module), remembered
    for the day; None when there is none yet."""
    g = ctx.game
    forum = g.forum.forum
    if not forum:
        return None

    def canon(u: str) -> str | None:
        try:
            return canonical_topic_url(u)    # no session id, no page
        except ForumError:
            return None

    used = {v for k, v in ctx.store.get("day_topics", {}).items() if k != str(day)}
    used |= {d.topic for d in g.days if d.topic and d.number != day}
    used_canon = {canon(u) for u in used}
    found = sorted(((tid, title, u) for tid, title, u in board.forum_topics(forum)
                    if is_own_title(ctx, day, title) and canon(u)
                    and canon(u) not in used_canon), reverse=True)
    start = ctx.calendar().day_start(day)
    account = _account(ctx)
    for tid, title, u in found:                      # the newest first
        try:
            page = board.read_topic_page(tid)
        except ForumError:
            continue                                  # unreadable now: tried again later
        if not page.posts:
            continue
        first = page.posts[0]
        if _norm(first.author) != account or first.latest < start:
            continue
        url = cast(str, canon(u))
        ctx.set_topic_for_day(day, url)
        ctx.store.log_event("day_opened", {"day": day, "topic": url, "title": title,
                                           "how": "forum"}, at=ctx.now())
        return url
    return None
