"""A game's connection to its board: the ``ForumClient`` made from ``[forum]`` on the game's
clock, and the one client a game context shares (``game_client``) for the topic reader, the
phpBB PM move source and the forum writer. The session's lifetime (login, logout, scrubbing
session ids) is ``forum.session``'s.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable
from urllib.parse import urljoin

from ..clock import Clock, SystemClock
from ..errors import ConfigError
from ..forum.client import ForumClient
from ..forum.engine import Board, Engine, engine_of, engine_of_url, open_board
from .config import Game
from .context import GameContext

if TYPE_CHECKING:
    import requests

__all__ = ["client_for_game", "game_board", "game_client", "game_engine", "make_client"]

def client_for_game(game: Game, clock: Clock | None = None, *, topic_url: str | None = None,
                    session: requests.Session | None = None) -> ForumClient:
    """A ForumClient for the game's ``[forum]`` settings, with the game's clock injected."""
    f = game.forum
    base = f.url
    if not base and topic_url:
        base = urljoin(topic_url, "./")
    if clock is None:
        clock = SystemClock()
    if isinstance(clock, SystemClock):
        monotonic: Callable[[], float] = time.monotonic
    else:
        game_clock = clock
        monotonic = lambda: game_clock.now().timestamp()  # noqa: E731 - a simulated clock
    return ForumClient(session, base_url=base or "", username=f.username,
                       min_delay=f.min_delay, full_scan_delay=f.full_scan_delay,
                       timeout=f.timeout, retries=f.retries,
                       max_page_size=f.max_page_size, request_time_limit=f.request_time_limit,
                       page_time_limit=f.page_time_limit,
                       sleep=clock.sleep, monotonic=monotonic, now=clock.now)


def game_client(ctx: GameContext) -> ForumClient:
    """The one ``ForumClient`` of a game context (``ctx.client``, made on first use from
    ``[forum]``)."""
    if ctx.client is None:
        ctx.client = client_for_game(ctx.game, ctx.clock)
    return ctx.client


def make_client(ctx: GameContext) -> ForumClient:
    """The game's client (``game_client``), or a ConfigError naming ``[forum] url`` when the
    game has no board to read."""
    if not ctx.game.forum.url:
        raise ConfigError("no [forum] url: the daemon has no board to read",
                          path=str(ctx.game.path), key="forum.url",
                          hint='e.g. url = "https://forum.example.org/"')
    return game_client(ctx)


def game_engine(game: Game, client: ForumClient) -> Engine:
    """The game's forum engine: ``[forum] engine``, else the one the game's topic and forum
    addresses name (``viewtopic.php?t=`` / ``index.php?topic=``), else the board's front
    page tells it (one GET, ``forum.engine.engine_of``)."""
    if game.forum.engine is not None:
        return engine_of(client, game.forum.engine)
    if game.moves.source == "phpbb_pm":
        return "phpbb"
    for url in (game.forum.forum, *(d.topic for d in game.days), game.publish.results_topic,
                game.publish.results_forum):
        found = engine_of_url(url) if url else None
        if found is not None:
            return found
    return engine_of(client)


def game_board(ctx: GameContext, client: ForumClient | None = None) -> Board:
    """The game's board through its engine's adapter (``forum.engine.Board``), on the
    game's one client (``make_client``) unless ``client`` is given."""
    client = client or make_client(ctx)
    key = (id(client), ctx.game.forum.engine)
    cached = ctx.boards.get(key)
    if cached is None:
        cached = ctx.boards[key] = open_board(client, game_engine(ctx.game, client),
                                              board_tz=ctx.game.timezone)
    return cached
