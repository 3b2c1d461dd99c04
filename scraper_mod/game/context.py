"""Opening a game: the loaded game file, its state store, the clock, the calendar.

The service functions (tallying, move intake, resolution, the daemon) take a ``GameContext``.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Callable, Iterator

from scraper_mod.game.setup.config import Game, load_game

from ..clock import Clock, SystemClock
from ..errors import ConfigError, StorageError
from ..forum.client import ForumClient
from ..forum.engine import Board, board_for_url, engine_named, quote_links
from ..forum.gameboard import board_for, client_for
from ..rules.calendar import Calendar
from ..rules.deal import effective_duty, effective_players, effective_random_list
from ..rules.state import GameState, initial_state
from ..store import BACKUPS_DIR, Store

MEMO_SIZE = 1024       # values a game remembers at most (``GameContext.memo``)


@dataclass(eq=False)
class GameContext:
    """One open game, and what the game keeps while it is open (one object per game, made
    by ``open_game`` and passed down; nothing of a game is kept anywhere else). A context
    manager: ``with open_game(folder) as ctx:`` closes the game (its store) at the end.

    - ``client``: the game's one board session (made on first use from ``[forum]``, by
      forum/gameboard.py), shared by the topic reader, the PM move source and the writer;
    - ``board``: the game's one ``Board`` on that client, opened once with the engine the game
      file names (or its addresses, or, once, the board's front page); every read and write of
      the game goes through it, and every link to a post is its ``post_url``;
    - ``memo``: what the game derives from its own values and keeps while it is open (the
      name index of a list of names, the move matcher of a list of players: ``remember``);
    - ``letters``: each stored message as read (``moves/intake.py``), so a poll that brings
      one new letter decodes one."""

    game: Game
    store: Store
    clock: Clock = field(default_factory=SystemClock)
    client: ForumClient | None = field(default=None, repr=False)
    boards: dict[Any, Any] = field(default_factory=dict, repr=False)   # game/setup/connect.py
    letters: dict[int, tuple[Any, Any]] = field(default_factory=dict, repr=False)
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)
    _board: Board | None = field(default=None, repr=False)

    def remember(self, key: Any, make: Callable[[], Any]) -> Any:
        """``make()``, made once per ``key`` while the game is open (``memo``)."""
        if key not in self.memo:
            if len(self.memo) >= MEMO_SIZE:
                self.memo.clear()
            self.memo[key] = make()
        return self.memo[key]

    def __enter__(self) -> GameContext:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def board_addresses(self, *more: str | None) -> list[str | None]:
        """The board addresses the game names (its forum, its topics), which tell its engine
        without asking the board."""
        g = self.game
        topics = list(self.store.get("day_topics", {}).values())
        return [*more, g.forum.forum, *(d.topic for d in g.days), *topics,
                g.publish.results_topic, g.publish.results_forum]

    def forum_client(self) -> ForumClient:
        """The game's one client (made on first use from ``[forum]``); a ConfigError naming
        ``[forum] url`` when the game names no board."""
        if not self.game.forum.url:
            raise ConfigError("no [forum] url: the daemon has no board to read",
                              path=str(self.game.path), key="forum.url",
                              hint='e.g. url = "https://forum.example.org/"')
        if self.client is None:
            self.client = client_for(self.game.forum, self.clock)
        return self.client

    def topic_client(self, topic: str) -> ForumClient:
        """The client that reads ``topic``: the game's, else (no ``[forum] url``) one for the
        topic's board, made once and kept on the context."""
        if self.game.forum.url:
            return self.forum_client()
        key = ("client", topic)
        if key not in self.boards:
            self.boards[key] = client_for(self.game.forum, self.clock, topic_url=topic)
        return self.boards[key]

    @property
    def board(self) -> Board:
        """The game's one ``Board`` (opened on first use, see the class)."""
        return self.open_board()

    def open_board(self, *hints: str | None) -> Board:
        """The game's one ``Board``, opened on first use; ``hints``: more addresses of the
        game's board that may tell its engine without a request (a day's topic)."""
        if self._board is None:
            self._board = board_for(self.game.forum, self.forum_client(),
                                    board_tz=self.game.timezone,
                                    moves_source=self.game.moves.source,
                                    addresses=self.board_addresses(*hints))
        return self._board

    def quote_links(self) -> dict[str, str]:
        """The board's own addresses inside a rendered post (posts/bbcode.py's ``links``),
        for the engine the game names (no request)."""
        if self._board is not None:
            return quote_links(self._board.engine)
        return quote_links(engine_named(self.game.forum.engine, self.board_addresses()))

    def topic_board(self, topic: str) -> Board:
        """The ``Board`` that reads ``topic``: the game's, else (no ``[forum] url``) the
        board of the topic's address, opened once and kept on the context."""
        if self.game.forum.url:
            return self.open_board(topic)
        key = ("topic", topic)
        if key not in self.boards:
            self.boards[key] = board_for_url(self.topic_client(topic), topic,
                                             board_tz=self.game.timezone,
                                             engine=self.game.forum.engine)
        return self.boards[key]

    def post_links(self, topic: str | None = None) -> Callable[[int], str] | None:
        """A post's permanent link on the game's board (its ``Board.post_url``): the board
        of ``[forum] url``, else the board of ``topic``; None when the game names neither."""
        if self.game.forum.url:
            return self.open_board(topic).post_url
        return self.topic_board(topic).post_url if topic else None

    def now(self) -> datetime:
        return self.clock.now()

    def calendar(self) -> Calendar:
        """The game's calendar (R1) with moved deadlines from [[days]] and the store."""
        moved = {d.number: d.deadline for d in self.game.days if d.deadline is not None}
        moved.update({int(k): datetime.fromisoformat(v)
                      for k, v in self.store.get("moved_deadlines", {}).items()})
        g = self.game
        return Calendar(start=g.start, day_start=g.day_start, deadline=g.deadline,
                        tz=g.timezone, merge_weekends=g.rules.merge_weekends,
                        weekend_days=g.rules.weekend_days, moved=moved)

    def initial_state(self) -> GameState:
        """The state before day 1: the game file's players with the dealt roles, the duty
        mafioso and the random list (``scraper-mod deal``'s, unless the game file gives them)."""
        deal = self.store.get("deal")
        return initial_state(effective_players(self.game, deal), effective_duty(self.game, deal),
                             effective_random_list(self.game, deal) or ())

    def topic_for_day(self, day: int) -> str | None:
        """The day's topic URL: from the store (``day open``/discovery), else [[days]]."""
        topics = self.store.get("day_topics", {})
        if str(day) in topics:
            return topics[str(day)]
        spec = self.game.day(day)
        return spec.topic if spec else None

    def vote_topic_for_day(self, day: int) -> str | None:
        """R2.17: the day's voting topic URL (store, else [[days]] vote_topic), or None when
        the house votes in the day's topic."""
        topics = self.store.get("vote_topics", {})
        if str(day) in topics:
            return topics[str(day)]
        spec = self.game.day(day)
        return spec.vote_topic if spec else None

    def votes_topic_for_day(self, day: int) -> str | None:
        """The topic whose posts are the day's votes: the voting topic, else the day's."""
        return self.vote_topic_for_day(day) or self.topic_for_day(day)

    def set_vote_topic_for_day(self, day: int, url: str) -> None:
        topics = self.store.get("vote_topics", {})
        topics[str(day)] = url
        self.store.put("vote_topics", topics)

    def set_topic_for_day(self, day: int, url: str) -> None:
        topics = self.store.get("day_topics", {})
        topics[str(day)] = url
        self.store.put("day_topics", topics)

    def close(self) -> None:
        self.store.close()


def check_state_owner(game: Game, store: Store) -> None:
    """Refuse a state file that belongs to another game (copied with an old game folder):
    its posts, moves and results would mix into this game's. The state remembers the game's
    title, start date and players; any two of them may change (a game renamed and postponed,
    a substitute player), not all three. A state without that record is judged by the
    players of its last resolved day."""
    want = {"title": game.title, "start": game.start.isoformat(),
            "players": sorted(p.nick for p in game.players)}
    have = store.get("game")
    mismatch = None
    if have is not None and have != want:
        if all(have.get(k) != want[k] for k in want):
            mismatch = f"the game {have.get('title')!r} starting {have.get('start')}"
    elif have is None:
        resolved = store.resolutions()
        if resolved:
            nicks = set(resolved[max(resolved)].get("state", {}).get("roles", {}))
            players = {p.nick for p in game.players}
            if nicks and len(nicks & players) * 2 < len(nicks):
                mismatch = f"another game (players {', '.join(sorted(nicks)[:3])}, ...)"
    if mismatch:
        raise StorageError(f"this state file belongs to {mismatch}, not to "
                           f"{game.title!r} starting {want['start']}", path=str(game.state_path),
                           hint="move it away to start this game fresh, or check that this is "
                                "the right game folder and its [game] title and start")
    if have != want:
        try:
            store.put("game", want)
        except sqlite3.OperationalError:  # a read-only state still reads
            pass


def _refuse_linked_state(game: Game) -> None:
    """The game's state is its own file: a ``state.sqlite3`` (or its -wal/-shm) that is a
    symbolic link, to another game's state say, is refused, never followed; so is a state
    with a second name (a hard link)."""
    for suffix in ("", "-wal", "-shm"):
        path = Path(str(game.state_path) + suffix)
        if path.is_symlink():
            raise StorageError(f"the state file is a symbolic link (to {os.readlink(path)}); "
                               "a game's state is never read through a link", path=str(path),
                               hint="each game keeps its own state.sqlite3: remove the link, "
                                    "or copy the file if this game should continue from it")
        if suffix == "" and path.is_file() and path.stat().st_nlink > 1:
            raise StorageError("the state file is a hard link shared with another file "
                               f"({path.stat().st_nlink} names); another game's state would "
                               "mix into this one", path=str(path),
                               hint="each game keeps its own state.sqlite3: copy it instead")


def open_game(arg: str | Path, *, clock: Clock | None = None,
              readonly: bool = False) -> GameContext:
    """Load the game file and open (creating if needed) its state store.

    ``readonly``: for the commands that only read (``status``, ``tally --offline``): the state
    is opened so that nothing can be written (a read-only mount, a copy of someone's game);
    a game with no state yet reads as empty. Otherwise the secret files an older version
    left readable by others are tightened (``tighten_secret_files``)."""
    game = load_game(arg)
    _refuse_linked_state(game)
    store = Store(game.state_path, readonly=readonly)
    try:
        check_state_owner(game, store)
        if not readonly:
            tighten_secret_files(game)
    except BaseException:
        store.close()
        raise
    return GameContext(game=game, store=store, clock=clock or SystemClock())


def secret_files(game: Game) -> Iterator[Path]:
    """Every file scraper-mod writes that holds roles, moves or the random list: the role
    cards, the random list and its salt, each day's folder (private messages, the host
    report), the answers to night moves, the state's backups."""
    out = game.out_dir
    roots = [out / "role-cards", game.folder / game.moves.outbox,
             game.state_path.parent / BACKUPS_DIR]
    roots += sorted(out.glob("day-*")) if out.is_dir() else []
    secret = out / "random-list.secret.txt"
    if secret.is_file() and not secret.is_symlink():
        yield secret
    for root in roots:
        if not root.is_dir() or root.is_symlink():
            continue
        yield root
        for p in root.rglob("*"):
            if not p.is_symlink():
                yield p


def tighten_secret_files(game: Game) -> list[Path]:
    """Make the secret files an older scraper-mod left readable by others (0644) readable by
    the owner only (files 0600, folders 0700); returns what it changed. Never follows a link;
    a file it may not change is left alone (a read-only copy)."""
    changed = []
    for p in secret_files(game):
        try:
            mode = os.lstat(p).st_mode
            if mode & 0o077:
                os.chmod(p, 0o700 if stat.S_ISDIR(mode) else 0o600)
                changed.append(p)
        except OSError:
            pass
    return changed
