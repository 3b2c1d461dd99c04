"""The move source a game's ``[moves]`` names (``source_for``): a Maildir or queue folder under
the game folder, an IMAP mailbox, or the host's phpBB private messages over the game's board
client. The sources themselves are ``moves/``'s; this is where the game file picks one.
"""

from __future__ import annotations

import ssl
from datetime import datetime, timedelta
from typing import Callable, cast

from ..errors import ConfigError, MailboxError
from ..forum.client import ForumClient
from ..moves.sources import ForumPmSource, ImapSource, MaildirSource, MoveSource, QueueSource
from .config import Game
from .connect import client_for_game, game_engine

__all__ = ["FORUM_PM", "game_since", "source_for"]

FORUM_PM = ("forum_pm", "phpbb_pm")     # the board's PMs; "phpbb_pm" is the old name
_PMS_CHECKED: set = set()               # (board, account) whose PMs were found usable


def game_since(game: Game) -> datetime:
    """From when a mailbox's mail can belong to the game: a day before day 1 starts (role
    cards may go out early). Older mail, a host's everyday mailbox, is never stored."""
    start = datetime.combine(game.start, game.day_start, tzinfo=game.timezone)
    return start - timedelta(days=1)


def source_for(game: Game, *, client_factory: Callable[[], ForumClient] | None = None,
               ssl_context: ssl.SSLContext | None = None) -> MoveSource:
    """The move source configured in a game's ``[moves]``."""
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
        client = client_factory() if client_factory is not None else client_for_game(game)
        source = ForumPmSource(client, game.forum.url, board_tz=game.timezone, since=since,
                               engine=game_engine(game, client))
        # a board whose PMs can be switched off (FluxBB) says so at once, with the fix (once
        # a process: every poll makes a new source)
        check = getattr(source.board, "pms_available", None)
        checked = (game.forum.url, game.forum.username)
        why = check() if check is not None and checked not in _PMS_CHECKED else None
        if check is not None and not why:
            _PMS_CHECKED.add(checked)
        if why:
            raise ConfigError(f"moves by PM are impossible: {why}", path=str(game.path),
                              key="moves.source",
                              hint='switch the board\'s PMs on, or set [moves] source = '
                                   '"maildir", "imap" or "queue"',
                              ru=f"ходы в ЛС невозможны: {why} (включите ЛС на форуме или "
                                 'задайте [moves] source = "maildir", "imap" или "queue")')
        return source
    raise MailboxError(f"unknown move source {m.source!r}")
