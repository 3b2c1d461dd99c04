"""The seam between the game and a forum engine: what the game needs of a board.

``Board`` is the interface an engine's adapter gives (phpBB 3.3: the modules of forum/ today;
SMF 2.1: forum/smf/board.py's ``SmfBoard``). What it returns is engine-neutral:
forum/model.py's ``TopicPage``/``Post``, forum/feed.py's ``FeedEntry``, forum/pm.py's
``PmSummary``/``PrivateMessage``, forum/writer.py's ``Posted``; so the poller, the rules and
the store read every engine alike. ``rules/`` and ``game/`` import nothing of an engine.

``[forum] engine = "phpbb" | "smf"`` names the engine; ``detect_engine`` tells it from the
board's front page when the game file leaves it out.
"""

from __future__ import annotations

import re
from datetime import tzinfo
from typing import Literal, Protocol, runtime_checkable

from ..errors import ForumError
from .client import ForumClient
from .feed import FeedEntry
from .model import TopicPage
from .parse.html import MOSCOW
from .phpbb_board import PhpbbBoard
from .pm import PmSummary, PrivateMessage
from .smf.board import SmfBoard
from .writer import Posted

Engine = Literal["phpbb", "smf"]
ENGINES: tuple[Engine, ...] = ("phpbb", "smf")

__all__ = ["Board", "Engine", "ENGINES", "detect_engine", "engine_of", "open_board"]


@runtime_checkable
class Board(Protocol):
    """One board, through one account (the host's), as the game uses it."""

    engine: str                    # "phpbb" | "smf"

    # -- reading ---------------------------------------------------------------------------
    def topic_url(self, topic_id: int, start: int = 0) -> str:
        """The address of a topic's page that starts with its ``start``-th post."""
        ...

    def read_topic_page(self, topic_id: int, start: int = 0) -> TopicPage:
        """One page of a topic, parsed; errors are one ``ForumError`` line."""
        ...

    def read_topic(self, topic_id: int) -> list[TopicPage]:
        """Every page of a topic, oldest first."""
        ...

    def feed_entries(self, topic_id: int) -> list[FeedEntry]:
        """The topic's posts the board's feed lists, each with its time to the second
        (R2.6 when the pages show minutes)."""
        ...

    def pm_inbox(self) -> list[PmSummary]:
        """The account's PM inbox, as its first page lists it."""
        ...

    def read_pm(self, msg_id: int) -> PrivateMessage:
        """One PM of the inbox: sender, time, subject, the sender's own words."""
        ...

    # -- the account -----------------------------------------------------------------------
    def login(self) -> None:
        """Log in with the board's own form (the password from the environment)."""
        ...

    def logout(self) -> bool:
        """End the board session; whether one was ended."""
        ...

    # -- writing (R12): "posted" means the board named the new id and shows it -------------
    def reply(self, topic_id: int, text: str) -> Posted:
        ...

    def new_topic(self, forum_id: int, subject: str, text: str) -> tuple[int | None, Posted]:
        """Open a topic; its id and its first post."""
        ...

    def edit(self, post_id: int, text: str, *, reason: str = "") -> Posted:
        ...

    def send_pm(self, nick: str, subject: str, text: str) -> Posted:
        ...

    def lock(self, topic_id: int) -> None:
        """Lock a topic (a moderator account); a locked topic is left as it is."""
        ...

    # -- after a crash: what the account already posted ------------------------------------
    def own_posts(self, topic_id: int, *, limit: int = 30,
                  first: bool = False) -> list[tuple[int, str]]:
        """(post id, plain text) of the account's posts on a topic's first page
        (``first``) or its last two pages, newest first."""
        ...

    def sent_pms(self) -> list[tuple[int, str, str]]:
        """(message id, recipients, subject) of the account's sent PMs."""
        ...


_SMF_MARKS = (re.compile(rb"var\s+smf_scripturl\s*="), re.compile(rb"simplemachines\.org", re.I),
              re.compile(rb"""<generator[^>]*>SMF<""", re.I))
_PHPBB_MARKS = (re.compile(rb"phpbb\.com", re.I), re.compile(rb"viewforum\.php\?"),
                re.compile(rb"""name=["']generator["'][^>]*phpBB""", re.I))


def detect_engine(front_page: bytes) -> Engine | None:
    """The engine that rendered a board's front page (its index or any page of it), or None
    when neither phpBB nor SMF marks it. SMF: its ``smf_scripturl`` script variable or the
    «Powered by SMF» link; phpBB: the «Powered by phpBB» link or its ``viewforum.php`` links."""
    if any(rx.search(front_page) for rx in _SMF_MARKS):
        return "smf"
    if any(rx.search(front_page) for rx in _PHPBB_MARKS):
        return "phpbb"
    return None


def engine_of(client: ForumClient, configured: str | None = None) -> Engine:
    """``[forum] engine`` when the game file gives it, else the engine of the board's front
    page (one GET of ``[forum] url``). A board that is neither is one clear error."""
    if configured is not None:
        if configured not in ENGINES:
            raise ForumError(f"[forum] engine = {configured!r} is not an engine scraper-mod "
                             "knows", hint="use engine = \"phpbb\" or \"smf\"")
        return configured
    page = client.get(client.base_url)
    found = detect_engine(page.body)
    if found is None:
        raise ForumError(f"cannot tell the board's engine from its front page "
                         f"(HTTP {page.status})", url=page.url,
                         hint='check [forum] url, or set [forum] engine = "phpbb" or "smf"')
    return found


def open_board(client: ForumClient, engine: str, *, board_tz: tzinfo = MOSCOW,
               password: str | None = None) -> Board:
    """The ``Board`` of ``engine`` ("phpbb" | "smf", see ``engine_of``) on ``client``.
    ``password``: SMF's login (else ``SCRAPER_MOD_FORUM_PASSWORD``); phpBB's is the client's."""
    if engine == "phpbb":
        return PhpbbBoard(client, board_tz=board_tz)
    if engine == "smf":
        return SmfBoard(client, board_tz=board_tz, password=password)
    raise ForumError(f"no adapter for the engine {engine!r}", hint='use "phpbb" or "smf"')
