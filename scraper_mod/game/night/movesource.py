"""The move source a game's ``[moves]`` names (``source_for``): a Maildir or queue folder under
the game folder, an IMAP mailbox, or the host's private messages on the game's board (through
its ``Board``). The sources themselves are ``moves/``'s; this is where the game file picks one.
"""

from __future__ import annotations

import ssl
from datetime import datetime, timedelta
from typing import Callable, cast

from scraper_mod.errors import ConfigError, MailboxError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.engine import Board
from scraper_mod.forum.gameboard import OLD_PM_SOURCE
from scraper_mod.game.setup.config import Game
from scraper_mod.game.setup.connect import client_for_game, open_game_board
from scraper_mod.moves.sources import (
    ForumPmSource,
    ImapSource,
    MaildirSource,
    MoveSource,
    QueueSource,
)

__all__ = ["FORUM_PM", "game_since", "source_for"]

FORUM_PM = ("forum_pm", OLD_PM_SOURCE)     # the board's PMs, and their old name


def game_since(game: Game) -> datetime:
    """From when a mailbox's mail can belong to the game: a day before day 1 starts (role
    cards may go out early). Older mail, a host's everyday mailbox, is never stored."""
    start = datetime.combine(game.start, game.day_start, tzinfo=game.timezone)
    return start - timedelta(days=1)


def source_for(game: Game, *, client_factory: Callable[[], ForumClient] | None = None,
               ssl_context: ssl.SSLContext | None = None,
               board_factory: Callable[[], Board] | None = None) -> MoveSource:
    """The move source configured in a game's ``[moves]``; the board's PMs through the
    game's ``Board`` (``board_factory``: the game context's), else one opened on
    ``client_factory``'s client."""
    m = game.moves
    if m.source is None:
        raise ConfigError("no move source configured", path=str(game.path), key="moves.source",
                          hint='set source = "maildir", "imap", "queue" or "forum_pm"')
    folder = game.folder / m.path
    since = game_since(game)
    if m.source == "maildir":
        return MaildirSource(folder, since=since, max_size=m.max_message_size)
    if m.source == "queue":
        return QueueSource(folder, max_size=m.max_message_size)
    if m.source == "imap":
        return ImapSource(cast(str, m.host), port=m.port, username=m.username, folder=m.folder,
                          security=m.security, ssl_context=ssl_context, since=since,
                          max_size=m.max_message_size)
    if m.source in FORUM_PM:
        if not game.forum.url:
            raise ConfigError("the PM source needs the board", path=str(game.path),
                              key="forum.url")
        if board_factory is not None:
            board = board_factory()
        else:
            client = client_factory() if client_factory is not None else client_for_game(game)
            board = open_game_board(game, client)
        # a board whose PMs can be switched off says so at once, with the fix
        check = getattr(board, "pms_available", None)
        why = check() if check is not None else None
        if why:
            raise ConfigError(f"moves by PM are impossible: {why}", path=str(game.path),
                              key="moves.source",
                              hint='switch the board\'s PMs on, or set [moves] source = '
                                   '"maildir", "imap" or "queue"',
                              ru=f"ходы в ЛС невозможны: {why} (включите ЛС на форуме или "
                                 'задайте [moves] source = "maildir", "imap" или "queue")')
        return ForumPmSource(board, game.forum.url, since=since)
    raise MailboxError(f"unknown move source {m.source!r}")
