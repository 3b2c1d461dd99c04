"""The final full re-scan at a day's deadline: the day's topic read whole and the move
source read a last time, before the day is resolved; a partial read stops the resolution.
"""

from __future__ import annotations

from ..errors import ConfigError, ForumError, MailboxError
from ..moves.intake import poll_moves
from .context import GameContext
from .poll import poll_day


def final_scan(ctx: GameContext, day: int) -> None:
    """The final full re-scan of the day's topic and the last read of the move source.

    A topic that could not be read completely, or a move source that failed, stops the
    resolution: a day is never resolved on partial data."""
    if not ctx.topic_for_day(day):
        raise ConfigError(f"day {day} has no topic", path=str(ctx.game.path), key="days",
                          hint=f"add [[days]] number = {day} with its topic, or use --offline")
    report = poll_day(ctx, day, full=True)
    if report is not None and (report.errors or not report.complete):
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
