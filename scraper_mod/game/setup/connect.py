"""A game's connection to its board, as the services ask for it: the game's one client
and its one ``Board`` (``GameContext.forum_client``/``GameContext.board``: made once, by
forum/gameboard.py, from ``[forum]`` on the game's clock). The session's lifetime (login,
logout, scrubbing session ids) is ``forum.session``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scraper_mod.clock import Clock
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.engine import Board, Engine
from scraper_mod.forum.gameboard import board_for, client_for, engine_for
from scraper_mod.game.context import GameContext
from scraper_mod.game.setup.config import Game

if TYPE_CHECKING:
    import requests

__all__ = ["client_for_game", "game_board", "game_client", "game_engine", "make_client",
           "open_game_board"]


def client_for_game(game: Game, clock: Clock | None = None, *, topic_url: str | None = None,
                    session: requests.Session | None = None) -> ForumClient:
    """A ForumClient for the game's ``[forum]`` settings, with the game's clock injected."""
    return client_for(game.forum, clock, topic_url=topic_url, session=session)


def game_client(ctx: GameContext) -> ForumClient:
    """The one ``ForumClient`` of a game context (``ctx.client``, made on first use from
    ``[forum]``)."""
    if ctx.client is None:
        ctx.client = client_for(ctx.game.forum, ctx.clock)
    return ctx.client


def make_client(ctx: GameContext) -> ForumClient:
    """The game's client (``game_client``), or a ConfigError naming ``[forum] url`` when the
    game has no board to read."""
    return ctx.forum_client()


def game_engine(game: Game, client: ForumClient) -> Engine:
    """The game's forum engine: ``[forum] engine``, else the one the game's topic and forum
    addresses name, else the board's front page tells it (one GET,
    ``forum.engine.engine_of``)."""
    return engine_for(game.forum, client, moves_source=game.moves.source,
                      addresses=[*(d.topic for d in game.days), game.publish.results_topic,
                                 game.publish.results_forum])


def open_game_board(game: Game, client: ForumClient) -> Board:
    """A ``Board`` of the game's engine on ``client`` (a client not the game context's)."""
    return board_for(game.forum, client, board_tz=game.timezone, moves_source=game.moves.source,
                     addresses=[*(d.topic for d in game.days), game.publish.results_topic,
                                game.publish.results_forum])


def game_board(ctx: GameContext, client: ForumClient | None = None) -> Board:
    """The game's board (``ctx.board``, opened once); on another ``client`` (a test's, the
    daemon's own), that client's board of the game's engine, kept on the context."""
    if client is None or client is ctx.client:
        return ctx.board
    key = (id(client), ctx.game.forum.engine)
    cached = ctx.boards.get(key)
    if cached is None:
        cached = ctx.boards[key] = board_for(ctx.game.forum, client, board_tz=ctx.game.timezone,
                                             moves_source=ctx.game.moves.source,
                                             addresses=ctx.board_addresses())
    return cached
