"""Polling an open game's day topics: the one poll path of the commands (``scraper-mod poll``,
``tally``, the re-scan) and the daemon (``daemon/work.py``'s ``LiveOps``).

``poll_day(ctx, day, full=..., client=..., board=...)``: the topic of the day from the game,
the game's client (or one for the topic's board when the game names none), the game's
``Board`` when the caller has it (the daemon: ``game_board``), ``forum.poller.poll_topic``.
``poll_day_topics`` reads the day's voting topic too, when the house has one (R2.17).
"""

from __future__ import annotations

from dataclasses import replace

from scraper_mod.errors import ConfigError, TopicNotFoundError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.engine import Board
from scraper_mod.forum.poller import PollReport, canonical_topic_url, poll_topic
from scraper_mod.game.context import GameContext
from scraper_mod.game.setup.connect import client_for_game, game_client

__all__ = ["poll_day", "poll_day_topics"]


def poll_day(ctx: GameContext, day: int | None = None, *, full: bool = False,
             client: ForumClient | None = None,
             board: Board | None = None) -> PollReport | None:
    """Poll the topic of ``day`` (default: the current day) of an open game; a full re-scan
    when ``full``. ``board``: the game's Board (default: the one the topic's address names).

    Returns None when the day has no topic yet.
    """
    if day is None:
        day = ctx.calendar().day_at(ctx.now())
    url = ctx.topic_for_day(day) if day else None
    if not url:
        return None
    return _poll(ctx, url, full=full, client=client, board=board)


def poll_day_topics(ctx: GameContext, day: int | None = None, *, full: bool = False,
                    client: ForumClient | None = None,
                    board: Board | None = None) -> list[PollReport]:
    """Poll the day's topic and, when the house has one, its voting topic (R2.17), in that
    order; empty when the day has no topic yet."""
    if day is None:
        day = ctx.calendar().day_at(ctx.now())
    urls = [u for u in (ctx.topic_for_day(day), ctx.vote_topic_for_day(day)) if u] if day \
        else []
    return [_poll(ctx, u, full=full, client=client, board=board) for u in urls]


def _poll(ctx: GameContext, url: str, *, full: bool, client: ForumClient | None,
          board: Board | None = None) -> PollReport:
    if client is None:
        client = (game_client(ctx) if ctx.game.forum.url else
                  client_for_game(ctx.game, ctx.clock, topic_url=url))
    if client is None:  # pragma: no cover - client_for_game raises instead
        raise ConfigError("no forum configured", key="forum.url")
    try:
        report = poll_topic(client, ctx.store, url, now=ctx.now, full=full,
                            board_tz=ctx.game.timezone, board=board)
    except TopicNotFoundError as e:
        e.hint = _where_from(ctx, url)
        got = getattr(e, "report", None)
        if got is not None:
            setattr(e, "report", replace(got, errors=_rehint(ctx, url, got.errors)))
        raise
    if any(TopicNotFoundError.hint in x for x in report.errors):
        report = replace(report, errors=_rehint(ctx, url, report.errors))
    return report


def _where_from(ctx: GameContext, url: str) -> str:
    """Issue 39: a topic that does not exist: fix it where its address came from — the
    command line (``day open``, or the autopilot that opened it) or game.toml."""
    key = canonical_topic_url(url)
    stored = {canonical_topic_url(u): (d, what) for what in ("day_topics", "vote_topics")
              for d, u in ctx.store.get(what, {}).items()}
    if key in stored:
        day, what = stored[key]
        return (f"the address of day {day}'s topic came from the command line (`scraper-mod "
                f"day open`) or the autopilot, not from game.toml: give the right one with "
                f"`scraper-mod day open {ctx.game.folder} {day} URL`")
    return ("check the topic's address in game.toml ([[days]] topic"
            + (" or vote_topic" if any(d.vote_topic for d in ctx.game.days) else "") + ")")


def _rehint(ctx: GameContext, url: str, errors: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(x.replace(TopicNotFoundError.hint, _where_from(ctx, url)) for x in errors)
