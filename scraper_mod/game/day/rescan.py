"""The final full re-scan at a day's deadline: the day's topic read whole and the move
source read a last time, before the day is resolved; a partial read stops the resolution.
"""

from __future__ import annotations

from scraper_mod.errors import ConfigError, ForumError, MailboxError, RulesError
from scraper_mod.forum.poller import canonical_topic_url
from scraper_mod.game.context import GameContext
from scraper_mod.game.day.poll import poll_day_topics
from scraper_mod.game.night.intake import poll_moves


def final_scan(ctx: GameContext, day: int) -> None:
    """The final full re-scan of the day's topic and the last read of the move source.

    A topic that could not be read completely, or a move source that failed, stops the
    resolution: a day is never resolved on partial data."""
    if not ctx.topic_for_day(day):
        raise ConfigError(f"day {day} has no topic", path=str(ctx.game.path), key="days",
                          hint=f"add [[days]] number = {day} with its topic, or use --offline")
    for report in poll_day_topics(ctx, day, full=True):     # R2.17: the voting topic too
        if report.errors or not report.complete:
            first = report.errors[0] if report.errors else "the last page was not reached"
            raise ForumError(f"the final re-scan of day {day}'s topic failed: {first}",
                             url=report.topic,
                             hint="try again when the board answers, or resolve the stored "
                                  "posts with --offline")
    if ctx.game.moves.source:
        intake = poll_moves(ctx)
        if intake.fetch.errors:
            raise MailboxError(f"the last read of the moves failed: {intake.fetch.errors[0]}",
                               source=intake.fetch.source,
                               hint="try again, or resolve the stored moves with --offline")


def check_topic_read(ctx: GameContext, day: int) -> None:
    """Refuse to resolve offline a day whose topic was never read (issue 18 item 6): with no
    stored post it would count no vote and jail by the random list, silently."""
    topic = ctx.votes_topic_for_day(day)      # R2.17: the votes' topic
    if not topic or ctx.store.known_post_ids(canonical_topic_url(topic)):
        return      # no topic at all: the tally says so itself
    raise RulesError(f"day {day}'s topic {topic} was never read: resolved offline it would "
                     "count no vote and jail by the random list",
                     hint=f"read it first (scraper-mod poll {ctx.game.folder}, or resolve "
                          "without --offline), or add --force to resolve it without its votes")
