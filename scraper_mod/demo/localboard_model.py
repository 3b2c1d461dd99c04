"""LocalBoard's data: its users, posts (with their edits), topics and private messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone


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
