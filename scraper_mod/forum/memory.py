"""``MemoryBoard``: a ``Board`` (forum/engine.py) that lives in memory, for tests and the demo.

It behaves as the real boards do where the game depends on it (phpBB 3.3 unless said):

- post ids grow across the board; a topic's pages hold ``per_page`` posts (10, as the test
  boards), page ``start`` shows posts ``start .. start+per_page-1`` of the visible ones;
- an edit makes a new version; its notice («Last edited by X at T, edited N times», with the
  reason) shows unless the author edited the topic's **last** post or a moderator edited
  without a reason (phpBB's ``submit_post``); ``edit_grace`` seconds after posting an
  author's edit shows no notice either (SMF's 90 s, 0 here by default);
- a deleted post vanishes: later posts move up a place, its feed entry goes;
- the feed lists the topic's newest ``feed_limit`` posts, times to the second (published,
  updated = last edit or the post time);
- a locked topic refuses a member's reply and edit ("locked"); a moderator's go through;
- the account (``account``, a moderator unless ``moderator=False``) posts, opens topics,
  edits, locks and sends PMs; players act through the ``player_*`` methods;
- the clock is the board's own: ``at=`` on each action, else ``now`` (settable, ``advance``).

Bodies are BBCode, rendered to the HTML the engines' parsers read and walked by
forum/markup.py's ``walk_body``: colours, bold, quotes, spoilers, code and signatures come out
as on a real board.
"""

from __future__ import annotations

import copy
import html
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Callable
from urllib.parse import parse_qs, urlsplit

import lxml.html

from ..errors import ForumError, LoginRequiredError, TopicNotFoundError
from .feed import FeedEntry
from .fetched import FetchResult
from .html import MOSCOW
from .markup import walk_body
from .model import Post, TopicPage
from .pms import PmRowProblem, PmSummary, PrivateMessage
from .posting import Posted, PostRefused, same_text

__all__ = ["MemoryBoard", "render_bbcode"]

BASE_URL = "http://board.memory.invalid/"

_TAGS = [
    (re.compile(r"\[color=([#\w]{1,30})\]", re.I), r'<span style="color: \1">'),
    (re.compile(r"\[/color\]", re.I), "</span>"),
    (re.compile(r"\[b\]", re.I), "<strong>"),
    (re.compile(r"\[/b\]", re.I), "</strong>"),
    (re.compile(r"\[i\]", re.I), "<em>"),
    (re.compile(r"\[/i\]", re.I), "</em>"),
    (re.compile(r"\[quote(?:=&quot;?([^\]]*?)&quot;?)?\]", re.I), r"<blockquote><cite>\1</cite>"),
    (re.compile(r"\[/quote\]", re.I), "</blockquote>"),
    (re.compile(r"\[spoiler(?:=[^\]]*)?\]", re.I), "<details><summary>Spoiler</summary>"),
    (re.compile(r"\[/spoiler\]", re.I), "</details>"),
    (re.compile(r"\[code\]", re.I), "<pre><code>"),
    (re.compile(r"\[/code\]", re.I), "</code></pre>"),
]


def render_bbcode(text: str) -> str:
    """The HTML a board renders for a body in BBCode (the tags the vote rules care for)."""
    out = html.escape(text, quote=True)
    for rx, sub in _TAGS:
        out = rx.sub(sub, out)
    return out.replace("\n", "<br>")


@dataclass
class _Version:
    text: str
    at: datetime


@dataclass
class _Post:
    post_id: int
    topic_id: int
    author: str
    author_id: int
    versions: list[_Version]
    edited_at: datetime | None = None
    edited_by: str | None = None
    edit_count: int = 0
    edit_reason: str | None = None
    deleted: bool = False

    @property
    def text(self) -> str:
        return self.versions[-1].text

    @property
    def posted_at(self) -> datetime:
        return self.versions[0].at


@dataclass
class _Topic:
    topic_id: int
    forum_id: int
    title: str
    post_ids: list[int] = field(default_factory=list)
    locked: bool = False


@dataclass
class _Pm:
    msg_id: int
    author: str
    to: str
    subject: str
    text: str
    at: datetime
    unread: bool = True


class MemoryBoard:
    """A board in memory, through one account (``account``, user id ``account_id``)."""

    engine = "memory"
    can_post = True

    def __init__(self, *, account: str = "admin", account_id: int = 2, moderator: bool = True,
                 per_page: int = 10, feed_limit: int = 15, first_post_id: int = 1,
                 first_topic_id: int = 1, now: datetime | None = None,
                 board_tz: tzinfo = MOSCOW, edit_grace: float = 0.0,
                 base_url: str = BASE_URL) -> None:
        self.account = account
        self.moderator = moderator
        self.per_page = per_page
        self.feed_limit = feed_limit
        self.board_tz = board_tz
        self.edit_grace = timedelta(seconds=edit_grace)
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        self._clock = [now or datetime(2024, 4, 9, 12, 0, tzinfo=timezone.utc)]
        self.logged_in = False
        self.users: dict[str, int] = {account: account_id}
        self.moderators: set[str] = {account} if moderator else set()
        self.topics: dict[int, _Topic] = {}
        self.posts: dict[int, _Post] = {}
        self.pms: dict[int, _Pm] = {}
        self._next = {"post": first_post_id, "topic": first_topic_id, "pm": 1,
                      "user": max(account_id, 57) + 1}

    @property
    def now(self) -> datetime:
        """The board's clock (shared by every account's view of the board)."""
        return self._clock[0]

    @now.setter
    def now(self, value: datetime) -> None:
        self._clock[0] = value

    def as_account(self, nick: str, *, moderator: bool | None = None) -> MemoryBoard:
        """The same board seen through another account (a player's, by default not a
        moderator): what one writes the other reads."""
        view = copy.copy(self)
        view.account = nick
        view.logged_in = False
        view.moderator = nick in self.moderators if moderator is None else moderator
        if view.moderator:
            self.moderators.add(nick)
        self.add_user(nick)
        return view

    def _take(self, kind: str) -> int:
        n = self._next[kind]
        self._next[kind] = n + 1
        return n

    # -- the board's clock and members ----------------------------------------------------
    def advance(self, **delta: float) -> datetime:
        """Move the board's clock on (``seconds=…``, ``minutes=…``); the new time."""
        self.now = self.now + timedelta(**delta)
        return self.now

    def add_user(self, nick: str, user_id: int | None = None) -> int:
        if nick not in self.users:
            self.users[nick] = user_id if user_id is not None else self._next["user"]
            self._next["user"] = max(self._next["user"], self.users[nick]) + 1
        return self.users[nick]

    def _at(self, at: datetime | None) -> datetime:
        if at is not None:
            if at.tzinfo is None:
                raise ValueError("at= must be an aware datetime")
            self.now = max(self.now, at)
            return at
        return self.now

    # -- what players do ------------------------------------------------------------------
    def add_topic(self, title: str, *, forum_id: int = 3, author: str | None = None,
                  text: str = "", at: datetime | None = None) -> int:
        """A topic opened by ``author`` (the account when None) with its first post."""
        tid = self._take("topic")
        self.topics[tid] = _Topic(tid, forum_id, title)
        self._add_post(tid, author or self.account, text or title, at)
        return tid

    def player_topic(self, nick: str, forum_id: int, subject: str, text: str, *,
                     at: datetime | None = None) -> int:
        return self.add_topic(subject, forum_id=forum_id, author=nick, text=text, at=at)

    def player_post(self, nick: str, topic_id: int, text: str, *,
                    at: datetime | None = None) -> int:
        """A player's reply; its post id. A locked topic refuses a member's reply."""
        topic = self._topic(topic_id)
        if topic.locked and nick not in self.moderators:
            raise self._refused("locked", "this topic is locked", topic_id)
        return self._add_post(topic_id, nick, text, at)

    def player_edit(self, nick: str, post_id: int, text: str, *, reason: str = "",
                    at: datetime | None = None) -> bool:
        """A player's edit; whether the board wrote its notice (False: a silent edit)."""
        return self._edit(nick, post_id, text, reason, at)

    def player_delete(self, nick: str, post_id: int) -> None:
        """The post vanishes (its author or a moderator deletes it)."""
        p = self._post(post_id)
        if nick != p.author and nick not in self.moderators:
            raise self._refused("no-permission", f"{nick} may not delete post {post_id}",
                                post_id)
        p.deleted = True

    def player_pm(self, nick: str, subject: str, text: str, *, to: str | None = None,
                  at: datetime | None = None) -> int:
        """A PM from ``nick`` to ``to`` (the account when None); its id."""
        self.add_user(nick)
        return self._add_pm(nick, to or self.account, subject, text, at)

    def pms_to(self, nick: str) -> list[tuple[int, str, str, str]]:
        """(id, sender, subject, text) of the PMs ``nick`` received, oldest first."""
        return [(m.msg_id, m.author, m.subject, m.text) for m in self.pms.values()
                if m.to == nick]

    def lock_topic(self, topic_id: int, locked: bool = True) -> None:
        self._topic(topic_id).locked = locked

    # -- the board's own steps ------------------------------------------------------------
    def _topic(self, topic_id: int) -> _Topic:
        topic = self.topics.get(int(topic_id))
        if topic is None:
            raise TopicNotFoundError("the requested topic does not exist",
                                     url=self.topic_url(topic_id))
        return topic

    def _post(self, post_id: int) -> _Post:
        p = self.posts.get(int(post_id))
        if p is None or p.deleted:
            raise self._refused("no-post", f"post {post_id} does not exist", post_id)
        return p

    def _refused(self, kind: str, message: str, what: int) -> PostRefused:
        hints = {"locked": "the topic is locked: unlock it, or give the account moderator "
                           "rights there",
                 "no-recipient": "the nick is not a board user: check [[players]] nick"}
        return PostRefused(kind, f"the board refused: {message}", url=self.base_url,
                           hint=hints.get(kind, ""))

    def _add_post(self, topic_id: int, nick: str, text: str, at: datetime | None) -> int:
        pid = self._take("post")
        self.posts[pid] = _Post(pid, topic_id, nick, self.add_user(nick),
                                [_Version(text, self._at(at))])
        self.topics[topic_id].post_ids.append(pid)
        return pid

    def _edit(self, nick: str, post_id: int, text: str, reason: str,
              at: datetime | None) -> bool:
        p = self._post(post_id)
        mod = nick in self.moderators
        if nick != p.author and not mod:
            raise self._refused("no-permission", f"{nick} may not edit post {post_id}", post_id)
        if self.topics[p.topic_id].locked and not mod:
            raise self._refused("locked", "this topic is locked", p.topic_id)
        when = self._at(at)
        p.versions.append(_Version(text, when))
        visible = self._visible(p.topic_id)
        last = visible[-1].post_id == p.post_id
        silent = ((nick == p.author and (last or when - p.posted_at <= self.edit_grace))
                  or (mod and nick != p.author and not reason))
        if not silent:
            p.edited_at, p.edited_by = when, nick
            p.edit_count += 1
            p.edit_reason = reason or None
        return not silent

    def _add_pm(self, author: str, to: str, subject: str, text: str,
                at: datetime | None) -> int:
        mid = self._take("pm")
        self.pms[mid] = _Pm(mid, author, to, subject, text, self._at(at))
        return mid

    def _visible(self, topic_id: int) -> list[_Post]:
        return [self.posts[i] for i in self._topic(topic_id).post_ids
                if not self.posts[i].deleted]

    def _model(self, p: _Post, page_url: str) -> Post:
        doc = lxml.html.fragment_fromstring(render_bbcode(p.text), create_parent="div")
        parts = walk_body(doc)
        return Post(post_id=p.post_id, author=p.author, author_id=p.author_id,
                    posted_at=p.posted_at, precision="second", earliest=p.posted_at,
                    latest=p.posted_at, page_url=page_url, edited_at=p.edited_at,
                    edited_by=p.edited_by, edit_count=p.edit_count,
                    edit_reason=p.edit_reason, colored=tuple(parts.colored),
                    bold=tuple(parts.bold), hidden=tuple(parts.hidden),
                    quotes=tuple(parts.quotes), text=parts.text())

    # -- reading ----------------------------------------------------------------------------
    def topic_url(self, topic_id: int, start: int = 0) -> str:
        return f"{self.base_url}topic/{int(topic_id)}" + (f"?start={int(start)}" if start else "")

    def read_topic_page(self, topic_id: int, start: int = 0) -> TopicPage:
        topic = self._topic(topic_id)
        visible = self._visible(topic_id)
        count = max(1, -(-len(visible) // self.per_page))
        start = max(0, min(int(start), (count - 1) * self.per_page))
        start -= start % self.per_page
        url = self.topic_url(topic_id, start)
        nxt = start + self.per_page
        return TopicPage(topic_id=topic.topic_id, title=topic.title, locked=topic.locked,
                         page=start // self.per_page + 1, page_count=count,
                         next_url=self.topic_url(topic_id, nxt) if nxt < len(visible) else None,
                         posts=tuple(self._model(p, url)
                                     for p in visible[start:start + self.per_page]),
                         style="memory", language="ru", url=url)

    def read_topic(self, topic_id: int) -> list[TopicPage]:
        pages = [self.read_topic_page(topic_id)]
        while pages[-1].next_url:
            pages.append(self.read_topic_page(topic_id, pages[-1].page * self.per_page))
        return pages

    def feed_entries(self, topic_id: int) -> list[FeedEntry]:
        topic = self._topic(topic_id)
        newest = sorted(self._visible(topic_id), key=lambda p: p.post_id,
                        reverse=True)[:self.feed_limit]
        return [FeedEntry(post_id=p.post_id, published=p.posted_at,
                          updated=p.versions[-1].at if len(p.versions) > 1 else p.posted_at,
                          author=p.author, title=f"Re: {topic.title}") for p in newest]

    def _summary(self, m: _Pm) -> PmSummary:
        return PmSummary(msg_id=m.msg_id, subject=m.subject, author=m.author,
                         author_id=self.users.get(m.author), sent_at=m.at, earliest=m.at,
                         latest=m.at, precision="second", unread=m.unread,
                         url=self.pm_url(m.msg_id))

    def _need_login(self) -> None:
        if not self.logged_in:
            raise LoginRequiredError("the board asks for a login", url=self.base_url)

    def pm_inbox(self) -> list[PmSummary]:
        self.login()
        return [self._summary(m) for m in sorted(self.pms.values(), key=lambda m: -m.msg_id)
                if m.to == self.account]

    def read_pm(self, msg_id: int) -> PrivateMessage:
        self.login()
        m = self.pms.get(int(msg_id))
        if m is None or m.to != self.account:
            raise ForumError(f"no private message {msg_id} in the inbox", url=self.pm_url(msg_id))
        m.unread = False
        return self._message(m)

    def _message(self, m: _Pm) -> PrivateMessage:
        doc = lxml.html.fragment_fromstring(render_bbcode(m.text), create_parent="div")
        parts = walk_body(doc)
        return PrivateMessage(msg_id=m.msg_id, author=m.author,
                              author_id=self.users.get(m.author), sent_at=m.at,
                              earliest=m.at, latest=m.at, precision="second",
                              subject=m.subject, text=parts.text(), bold=tuple(parts.bold),
                              url=self.pm_url(m.msg_id))

    def pm_rows(self, folder: str = "inbox") -> tuple[list[PmSummary], list[PmRowProblem]]:
        return self.pm_inbox(), []

    def fetch_pm(self, msg_id: int) -> FetchResult:
        self._need_login()
        m = self.pms.get(int(msg_id))
        if m is None or m.to != self.account:
            raise ForumError(f"no private message {msg_id} in the inbox", url=self.pm_url(msg_id))
        body = json.dumps({"msg_id": m.msg_id, "author": m.author, "to": m.to,
                           "subject": m.subject, "text": m.text, "at": m.at.isoformat()},
                          ensure_ascii=False).encode()
        return FetchResult(url=self.pm_url(msg_id), status=200, body=body, fetched_at=self.now)

    def parse_pm(self, body: bytes, *, msg_id: int, url: str,
                 fetched_at: datetime) -> PrivateMessage:
        d = json.loads(body)
        return self._message(_Pm(d["msg_id"], d["author"], d["to"], d["subject"], d["text"],
                                 datetime.fromisoformat(d["at"])))

    # -- the account ------------------------------------------------------------------------
    def login(self) -> None:
        self.logged_in = True

    def logout(self) -> bool:
        was, self.logged_in = self.logged_in, False
        return was

    def reply(self, topic_id: int, text: str) -> Posted:
        self.login()
        pid = self.player_post(self.account, topic_id, text)
        return Posted(pid, self.post_url(pid))

    def new_topic(self, forum_id: int, subject: str, text: str) -> tuple[int | None, Posted]:
        self.login()
        tid = self.add_topic(subject, forum_id=forum_id, text=text)
        pid = self.topics[tid].post_ids[0]
        return tid, Posted(pid, self.post_url(pid))

    def edit(self, post_id: int, text: str, *, reason: str = "") -> Posted:
        self.login()
        self._edit(self.account, post_id, text, reason, None)
        return Posted(int(post_id), self.post_url(post_id))

    def send_pm(self, nick: str, subject: str, text: str, *,
                member_id: int | None = None) -> Posted:
        # as on phpBB, a username changes only by an administrator: the PM goes by the name
        self.login()
        if nick not in self.users:
            raise self._refused("no-recipient", f"no board user {nick!r}", 0)
        mid = self._add_pm(self.account, nick, subject, text, None)
        return Posted(mid, self.pm_url(mid))

    def lock(self, topic_id: int) -> None:
        self.login()
        topic = self._topic(topic_id)
        if not self.moderator:
            raise self._refused("no-permission", f"no lock tool on topic {topic_id}", topic_id)
        topic.locked = True

    # -- after a crash ----------------------------------------------------------------------
    def own_posts(self, topic_id: int, *, limit: int = 30,
                  first: bool = False) -> list[tuple[int, str]]:
        pages = self.read_topic(topic_id)
        pages = pages[:1] if first else pages[-2:]
        mine = [(p.post_id, p.text) for pg in pages for p in pg.posts
                if p.author == self.account]
        return sorted(mine, reverse=True)[:limit]

    def sent_pms(self) -> list[tuple[int, str, str]]:
        return [(m.msg_id, m.to, m.subject) for m in sorted(self.pms.values(),
                                                             key=lambda m: -m.msg_id)
                if m.author == self.account]

    def find_reply(self, topic_id: int, text: str) -> int | None:
        return next((pid for pid, shown in self.own_posts(topic_id)
                     if same_text(text, shown)), None)

    def find_topic(self, forum_id: int, subject: str, text: str) -> tuple[int, int] | None:
        for t in sorted(self.topics.values(), key=lambda t: -t.topic_id):
            if t.forum_id != forum_id or t.title != subject or not t.post_ids:
                continue
            first = self.posts[t.post_ids[0]]
            if first.author == self.account and same_text(text, first.text):
                return t.topic_id, first.post_id
        return None

    def find_pm(self, nick: str, subject: str, text: str) -> int | None:
        return next((m.msg_id for m in sorted(self.pms.values(), key=lambda m: -m.msg_id)
                     if m.author == self.account and m.to == nick and m.subject == subject
                     and same_text(text, m.text)), None)

    # -- addresses --------------------------------------------------------------------------
    def _id_in(self, url: str, kind: str) -> int | None:
        if not url.startswith(self.base_url):
            return None
        m = re.fullmatch(rf"{kind}/(\d+)", urlsplit(url).path.strip("/"))
        return int(m.group(1)) if m else None

    def topic_key(self, url: str) -> str:
        tid = self._id_in(url, "topic")
        if tid is None:
            raise ForumError("not a topic address of this board", url=url,
                             hint=f"a topic's address is {self.base_url}topic/N")
        return self.topic_url(tid)

    def topic_id_of(self, url: str) -> int | None:
        return self._id_in(url, "topic")

    def forum_id_of(self, url: str) -> int | None:
        return self._id_in(url, "forum")

    def forum_url(self, forum_id: int) -> str:
        return f"{self.base_url}forum/{int(forum_id)}"

    def post_url(self, post_id: int) -> str:
        return f"{self.base_url}post/{int(post_id)}"

    def pm_url(self, msg_id: int) -> str:
        return f"{self.base_url}pm/{int(msg_id)}"

    def forum_topics(self, forum_url: str) -> list[tuple[int, str, str]]:
        fid = self.forum_id_of(forum_url)
        return [(t.topic_id, t.title, self.topic_url(t.topic_id))
                for t in sorted(self.topics.values(), key=lambda t: -t.topic_id)
                if t.forum_id == fid]

    # -- the poller's steps -----------------------------------------------------------------
    def page_url(self, topic_url: str, start: int) -> str:
        return self.topic_url(int(self.topic_id_of(self.topic_key(topic_url)) or 0), start)

    def fetch_topic_page(self, url: str, *, on_fetch: Callable[[FetchResult], None] | None
                         = None) -> tuple[FetchResult, TopicPage]:
        tid = self.topic_id_of(url.split("?")[0])
        post = self._id_in(url, "post")
        start = int((parse_qs(urlsplit(url).query).get("start") or ["0"])[0])
        if post is not None:
            p = self.posts.get(post)
            if p is None or p.deleted:
                raise TopicNotFoundError("the requested post does not exist", url=url)
            tid = p.topic_id
            start = [q.post_id for q in self._visible(tid)].index(post)
        if tid is None:
            raise TopicNotFoundError("not a topic of this board", url=url)
        page = self.read_topic_page(tid, start)
        body = json.dumps([q.to_json() for q in page.posts], ensure_ascii=False).encode()
        res = FetchResult(url=page.url, status=200, body=body, fetched_at=self.now)
        if on_fetch is not None:
            on_fetch(res)
        return res, page

    def post_page_url(self, key: str, post_id: int) -> str:
        return self.post_url(post_id)

    def poll_feed_url(self, key: str, topic_id: int, last_page: tuple[bytes, str, str]
                      ) -> str | None:
        return None     # the pages give every time to the second

    def parse_feed(self, res: FetchResult, topic_id: int) -> list[FeedEntry]:
        return self.feed_entries(topic_id)
