"""LocalBoard's data: its users, posts (with their edits), topics and private messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable
from zoneinfo import ZoneInfo

if TYPE_CHECKING:
    from ..posts.bbcode import BBCodeRenderer


@dataclass
class BoardUser:
    user_id: int
    name: str
    colour: str | None = None          # "AA0000" for administrators
    rank: str | None = None
    signature: str | None = None       # BBCode
    joined: datetime = datetime(2023, 9, 1, 10, 0, tzinfo=timezone.utc)
    posts: int | None = None           # the profile's post count (default: counted here)
    online: bool = False               # prosilver marks the posts of online users


@dataclass
class BoardPost:
    post_id: int
    topic_id: int
    author: str
    author_id: int
    posted_at: datetime
    body: str                          # BBCode
    subject: str = ""
    edited_at: datetime | None = None
    edited_by: str | None = None
    edit_count: int = 0
    edit_reason: str | None = None


@dataclass
class BoardTopic:
    topic_id: int
    forum_id: int
    title: str
    posts: list[BoardPost] = field(default_factory=list)
    locked: bool = False
    views: int = 0
    sticky: bool = False


@dataclass
class BoardPM:
    msg_id: int
    author: str
    author_id: int
    to_id: int
    sent_at: datetime
    subject: str
    body: str                          # BBCode
    read: bool = False


class BoardBase:
    """What LocalBoard's mixins (pages, PM pages, posting forms) use of the board: its state,
    set by ``LocalBoard.__init__``, and the methods one mixin calls on another. Declarations
    only: nothing here exists at run time but the class."""

    language: str
    s: dict[str, Any]                  # the board language's strings
    tz: ZoneInfo
    now: Callable[[], datetime]
    per_page: int
    title: str
    relative_dates: bool
    time_tags: bool
    feed: bool
    feed_limit: int
    custom_bbcodes: tuple[str, ...]     # the board's own BBCodes ("spoiler", "table")
    forums: dict[int, str]
    users: dict[int, BoardUser]
    topics: dict[int, BoardTopic]
    pms: dict[int, BoardPM]
    login_user: str | None
    _form_salt: str

    if TYPE_CHECKING:
        @property
        def url(self) -> str: ...

        def format_date(self, t: datetime, *, relative: bool | None = None) -> str: ...

        def _user_link(self, uid: int, name: str) -> str: ...

        def _bbcode(self) -> BBCodeRenderer: ...

        def _page(self, *, title: str, section: str, body: str, canonical: str | None = None,
                  user: int = 1, redirect: str = "index.php",
                  topic: BoardTopic | None = None) -> str: ...

        def render_message(self, text: str, *, section: str = "viewtopic",
                           user: int = 1) -> str: ...

        def _form_token(self, sid: str, creation: int) -> str: ...

        def add_post(self, author: str, author_id: int, body: str,
                     posted_at: datetime | None = None, *, topic: int | None = None,
                     post_id: int | None = None) -> int: ...

        def find_post(self, post_id: int) -> BoardPost: ...

        def lock(self, topic: int | None = None, locked: bool = True) -> None: ...

        def send_pm(self, author: str, author_id: int, subject: str, body: str,
                    sent_at: datetime | None = None, *, to_id: int = 2,
                    msg_id: int | None = None) -> int: ...
