"""Polling an open game's day topic: the one poll path of the commands (``scraper-mod poll``,
``tally``, the re-scan) and the daemon (``daemon/work.py``'s ``LiveOps``).

``poll_day(ctx, day, full=..., client=..., board=...)``: the topic of the day from the game,
the game's client (or one for the topic's board when the game names none), the game's
``Board`` when the caller has it (the daemon: ``game_board``), ``forum.poller.poll_topic``.
"""

from __future__ import annotations

from ..errors import ConfigError
from ..forum.client import ForumClient
from ..forum.engine import Board
from ..forum.poller import PollReport, poll_topic
from .connect import client_for_game, game_client
from .context import GameContext

__all__ = ["poll_day"]


def poll_day(ctx: GameContext, day: int | None = None, *, full: bool = False,
             client: ForumClient | None = None,
             board: Board | None = None) -> PollReport | None:
    """Poll the topic of ``day`` (default: the current day) of an open game; a full re-scan
    when ``full``. ``board``: the game's Board (default: the one the topic's address names).

    Returns None when the day has no topic yet.
    """
    now = ctx.now()
    if day is None:
        day = ctx.calendar().day_at(now)
    url = ctx.topic_for_day(day) if day else None
    if not url:
        return None
    if client is None:
        client = (game_client(ctx) if ctx.game.forum.url else
                  client_for_game(ctx.game, ctx.clock, topic_url=url))
    if client is None:  # pragma: no cover - client_for_game raises instead
        raise ConfigError("no forum configured", key="forum.url")
    return poll_topic(client, ctx.store, url, now=ctx.now, full=full,
                      board_tz=ctx.game.timezone, board=board)
