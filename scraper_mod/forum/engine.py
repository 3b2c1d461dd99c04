"""The seam between the game and a forum engine: what the game needs of a board.

``Board`` is the interface an engine's adapter gives (phpBB 3.3: the modules of forum/ today;
SMF 2.1: forum/smf/board.py's ``SmfBoard``). What it returns is engine-neutral:
forum/model.py's ``TopicPage``/``Post``, forum/feed.py's ``FeedEntry``, forum/pms.py's
``PmSummary``/``PrivateMessage``, forum/posting.py's ``Posted``; so the poller, the rules and
the store read every engine alike. ``rules/`` and ``game/`` import nothing of an engine.

``[forum] engine = "phpbb" | "smf" | "fluxbb"`` names the engine; ``detect_engine`` tells it from the
board's front page when the game file leaves it out.
"""

from __future__ import annotations

import re
from datetime import datetime, tzinfo
from typing import Callable, Literal, Protocol, runtime_checkable
from urllib.parse import urlsplit

from scraper_mod.forum.html import MOSCOW
from scraper_mod.forum.phpbb.board import PhpbbBoard, phpbb_topic_key
from scraper_mod.forum.phpbb.pm import parse_pm_view
from scraper_mod.forum.phpbb.writer import forum_id_of as phpbb_forum_id
from scraper_mod.forum.phpbb.writer import topic_id_of as phpbb_topic_id
from scraper_mod.forum.pms import PmRowProblem, PmSummary, PrivateMessage
from scraper_mod.forum.posting import Posted

from ..errors import ForumError
from .client import FetchResult, ForumClient
from .feed import FeedEntry
from .fluxbb.board import FluxbbBoard, parse_fluxbb_pm
from .fluxbb.links import fluxbb_forum_id, fluxbb_topic_id, fluxbb_topic_key, is_fluxbb_url
from .model import TopicPage
from .smf.board import SmfBoard
from .smf.links import is_smf_url, smf_board_id, smf_topic_id, smf_topic_key
from .smf.parse import parse_smf_pm

Engine = Literal["phpbb", "smf", "fluxbb"]
ENGINES: tuple[Engine, ...] = ("phpbb", "smf", "fluxbb")

__all__ = ["Board", "Engine", "ENGINES", "detect_engine", "engine_of", "open_board",
           "engine_of_url", "board_for_url", "topic_key", "topic_id_of", "forum_id_of"]


@runtime_checkable
class Board(Protocol):
    """One board, through one account (the host's), as the game uses it."""

    engine: str                    # "phpbb" | "smf" | "fluxbb"

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

    def pm_rows(self, folder: str = "inbox") -> tuple[list[PmSummary], list[PmRowProblem]]:
        """The inbox's rows, and the rows that could not be read (never hiding the others)."""
        ...

    def fetch_pm(self, msg_id: int) -> FetchResult:
        """The page that shows one PM, as fetched (the move source stores it first)."""
        ...

    def parse_pm(self, body: bytes, *, msg_id: int, url: str,
                 fetched_at: datetime) -> PrivateMessage:
        """PM ``msg_id`` read from a page ``fetch_pm`` fetched (or one stored)."""
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

    def find_reply(self, topic_id: int, text: str) -> int | None:
        """The id of the account's post on the topic holding ``text``, else None."""
        ...

    def find_topic(self, forum_id: int, subject: str, text: str) -> tuple[int, int] | None:
        """(topic id, first post id) of a topic titled ``subject`` the account opened in the
        forum with ``text``, else None."""
        ...

    def find_pm(self, nick: str, subject: str, text: str) -> int | None:
        """The id of a PM the account sent to ``nick`` with ``subject`` and ``text``."""
        ...

    # -- addresses: what the services keep and show ----------------------------------------
    def topic_key(self, url: str) -> str:
        """The store's name of the topic any of whose pages is at ``url`` (no page, no
        session); a ``ForumError`` line for an address that is not a topic's."""
        ...

    def topic_id_of(self, url: str) -> int | None:
        """The topic id of a topic address of this engine, else None."""
        ...

    def forum_id_of(self, url: str) -> int | None:
        """The forum (SMF: board) id of a forum address of this engine, else None."""
        ...

    def forum_url(self, forum_id: int) -> str:
        ...

    def post_url(self, post_id: int) -> str:
        """A post's permanent link."""
        ...

    def pm_url(self, msg_id: int) -> str:
        ...

    def forum_topics(self, forum_url: str) -> list[tuple[int, str, str]]:
        """(topic id, title, topic address) of the topics a forum's first page lists."""
        ...

    # -- the poller's steps (forum/poller.py) ---------------------------------------------
    def page_url(self, topic_url: str, start: int) -> str:
        """The address of the page of the topic at ``topic_url`` that starts at ``start``."""
        ...

    def fetch_topic_page(self, url: str, *, on_fetch: Callable[[FetchResult], None] | None
                         = None) -> tuple[FetchResult, TopicPage]:
        """GET one topic page (``on_fetch`` sees every answer first) and parse it."""
        ...

    def post_page_url(self, key: str, post_id: int) -> str:
        """The page that shows post ``post_id``, on the board of topic ``key`` (the poller
        asks it whether a post a full scan missed is really gone)."""
        ...

    def poll_feed_url(self, key: str, topic_id: int, last_page: tuple[bytes, str, str]
                      ) -> str | None:
        """The feed that dates the topic's posts to the second, from the last page read
        (body, URL, style); None when the board has none."""
        ...

    def parse_feed(self, res: FetchResult, topic_id: int) -> list[FeedEntry]:
        """The feed's entries of the topic."""
        ...


_SMF_MARKS = (re.compile(rb"var\s+smf_scripturl\s*="), re.compile(rb"simplemachines\.org", re.I),
              re.compile(rb"""<generator[^>]*>SMF<""", re.I))
_FLUXBB_MARKS = (re.compile(rb"<generator>FluxBB<", re.I),
                 re.compile(rb'id="poweredby"[^>]*>[^<]{0,80}FluxBB'))
_PHPBB_MARKS = (re.compile(rb"phpbb\.com", re.I), re.compile(rb"viewforum\.php\?"),
                re.compile(rb"""name=["']generator["'][^>]*phpBB""", re.I))


def engine_of_url(url: str) -> Engine | None:
    """The engine whose address ``url`` is: SMF's ``index.php?topic=T.S`` / ``?board=B.0``,
    phpBB's ``viewtopic.php`` / ``viewforum.php``; None for an address of neither shape."""
    if is_smf_url(url):
        return "smf"
    if is_fluxbb_url(url):
        return "fluxbb"
    if re.search(r"/(viewtopic|viewforum|ucp|memberlist)\.php$", urlsplit(url).path):
        return "phpbb"
    return None


def topic_key(url: str) -> str:
    """The store's name of a topic from any address of its pages (``Board.topic_key`` of
    the engine the address names; an address of neither shape is phpBB's error line)."""
    engine = engine_of_url(url)
    if engine == "fluxbb":
        return fluxbb_topic_key(url)
    return smf_topic_key(url) if engine == "smf" else phpbb_topic_key(url)


def topic_id_of(url: str) -> int | None:
    """The topic id of a phpBB or SMF topic address, else None."""
    engine = engine_of_url(url)
    if engine == "fluxbb":
        return fluxbb_topic_id(url)
    return smf_topic_id(url) if engine == "smf" else phpbb_topic_id(url)


def forum_id_of(url: str) -> int | None:
    """The forum (SMF: board) id of a phpBB or SMF forum address, else None."""
    engine = engine_of_url(url)
    if engine == "fluxbb":
        return fluxbb_forum_id(url)
    return smf_board_id(url) if engine == "smf" else phpbb_forum_id(url)


def pm_engine_of(source: str) -> Engine | None:
    """The engine of a forum-PM move source's name (``phpbb_pm:…``, ``smf_pm:…``)."""
    return next((e for e in ENGINES if source.startswith(f"{e}_pm:")), None)


def parse_stored_pm(source: str, body: bytes, *, key: str, received_at: datetime,
                    board_tz: tzinfo = MOSCOW) -> PrivateMessage:
    """A PM the forum-PM source stored (its page as fetched, key ``pm/<id>``), read by the
    engine its source names."""
    if pm_engine_of(source) == "fluxbb":
        tail = key.rsplit("/", 1)[-1]
        return parse_fluxbb_pm(body, msg_id=int(tail) if tail.isdigit() else 0, url=key,
                               fetched_at=received_at, board_tz=board_tz)
    if pm_engine_of(source) == "smf":
        tail = key.rsplit("/", 1)[-1]
        return parse_smf_pm(body, msg_id=int(tail) if tail.isdigit() else 0, url=key,
                            fetched_at=received_at, board_tz=board_tz)
    return parse_pm_view(body, url=key, fetched_at=received_at, board_tz=board_tz)


def board_for_url(client: ForumClient, url: str, *, board_tz: tzinfo = MOSCOW,
                  engine: str | None = None) -> Board:
    """The ``Board`` that reads the topic at ``url``: ``engine`` when given, else the
    engine the address's shape names (phpBB when it names none: its own error line then)."""
    return open_board(client, engine or engine_of_url(url) or "phpbb", board_tz=board_tz)


def detect_engine(front_page: bytes) -> Engine | None:
    """The engine that rendered a board's front page (its index or any page of it), or None
    when neither phpBB, SMF nor FluxBB marks it. SMF: its ``smf_scripturl`` script variable
    or the «Powered by SMF» link; FluxBB: its «Под управлением FluxBB» footer
    (``p#poweredby``); phpBB: the «Powered by phpBB» link or its ``viewforum.php`` links."""
    if any(rx.search(front_page) for rx in _SMF_MARKS):
        return "smf"
    if any(rx.search(front_page) for rx in _FLUXBB_MARKS):
        return "fluxbb"
    if any(rx.search(front_page) for rx in _PHPBB_MARKS):
        return "phpbb"
    return None


def engine_of(client: ForumClient, configured: str | None = None) -> Engine:
    """``[forum] engine`` when the game file gives it, else the engine of the board's front
    page (one GET of ``[forum] url``). A board that is neither is one clear error."""
    if configured is not None:
        if configured not in ENGINES:
            raise ForumError(f"[forum] engine = {configured!r} is not an engine scraper-mod "
                             "knows", hint="use engine = " + " or ".join(f'"{e}"' for e in ENGINES))
        return configured
    page = client.get(client.base_url)
    found = detect_engine(page.body)
    if found is None:
        raise ForumError(f"cannot tell the board's engine from its front page "
                         f"(HTTP {page.status})", url=page.url,
                         hint="check [forum] url, or set [forum] engine = "
                              + " or ".join(f'"{e}"' for e in ENGINES))
    return found


def open_board(client: ForumClient, engine: str, *, board_tz: tzinfo = MOSCOW,
               password: str | None = None) -> Board:
    """The ``Board`` of ``engine`` ("phpbb" | "smf", see ``engine_of``) on ``client``.
    ``password``: SMF's login (else ``SCRAPER_MOD_FORUM_PASSWORD``); phpBB's is the client's."""
    if engine == "phpbb":
        return PhpbbBoard(client, board_tz=board_tz)
    if engine == "smf":
        return SmfBoard(client, board_tz=board_tz, password=password)
    if engine == "fluxbb":
        return FluxbbBoard(client, board_tz=board_tz, password=password)
    raise ForumError(f"no adapter for the engine {engine!r}",
                     hint="use " + " or ".join(f'"{e}"' for e in ENGINES))
