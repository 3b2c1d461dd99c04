"""LocalBoard: a small phpBB 3.3.15 look-alike on 127.0.0.1, for tests, the demo and benches.

A real threaded HTTP server (``http.server``) holding mutable topics and rendering them as
phpBB 3.3.15 prosilver pages, faithful to the markup of the real pages the parser is checked
against (``div.post#pNN``, ``dl.postprofile``, ``<time datetime>``, ``div.content``,
``blockquote``/``cite`` quotes, ``span style="color:…"``, ``strong.text-strong``, the edit
notice ``div.notice``, pagination with ``start=``, ``viewforum.php`` listings,
``ucp.php?mode=login`` with a real form and a cookie session). The post blocks of the real
topic, rebuilt on a LocalBoard, come out byte for byte as phpBB rendered them
(tests/test_localboard.py)::

    with LocalBoard(language="ru", clock=clock) as board:
        t = board.add_topic("День 1 — голосование")
        board.add_post("Вася", 58, "[color=red]Маша_2[/color]", clock.now())
        client = ForumClient(base_url=board.url, ...)

Private messages: ``send_pm(...)`` fills the inbox of a user (the host by default), served at
``ucp.php?i=pm&folder=inbox`` and ``ucp.php?i=pm&mode=view&f=0&p=N`` to that user once logged in.

Failure injection: ``fail_next(n, status=503, retry_after=...)``, ``truncate_next(n)``,
``drop_next(n)`` (close the connection without an answer), each optionally only for requests
matching ``match=``; ``disabled = True`` (the "board is unavailable" page);
``expire_sessions()``. The ``Date`` header comes from the injected clock,
so a simulated clock gives the board a simulated time too. ``requests`` logs every request.

Boards without ``<time datetime>`` (``time_tags=False``: prosilver before 3.2.9, and what the
parser reads of subsilver2) show post times to the minute, or with ``relative_dates=True``
as «35 минут назад». ``feed=True`` switches on phpBB 3.3's Atom feeds: topic pages link them
in their ``<head>`` and ``app.php/feed/topic/N`` serves the topic's newest ``feed_limit``
posts (15, phpBB's default), newest first, with ``<published>``/``<updated>`` to the second
in the board's offset, built like the real feed in fixtures/phpbb/phpbb-3.3.15/. With
``feed=False`` (the default here, so a poll costs page requests only) every ``app.php/feed…``
URL answers phpBB's 404 "feeds are not available".
"""

from __future__ import annotations

import hashlib
import html
import re
import secrets
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import parse_qs, quote, urlsplit
from zoneinfo import ZoneInfo

from ..posts.plural import ru_plural_word
from .localboard_forms import PostingForms

# -- language strings (from phpBB 3.3.15 en and the official ru pack, as seen on real pages) --

_STR = {
    "ru": {
        "months": "янв фев мар апр май июн июл авг сен окт ноя дек".split(),
        "posts": "Сообщения", "joined": "Зарегистрирован", "by": "", "wrote": "писал(а)",
        "view_quoted": "Просмотреть процитированное сообщение", "quote": "Цитата",
        "quote_title": "Ответить с цитатой", "post": "Сообщение", "top": "Вернуться к началу",
        "reply": "Ответить", "locked": "Тема закрыта",
        "locked_title": "Тема закрыта, вы не можете редактировать и оставлять сообщения в ней.",
        "next": "След.", "prev": "Пред.", "page": "Страница", "of": "из",
        "spoiler": "Спойлер", "code": "Код", "select_all": "Выделить всё",
        "reason": "Причина", "info": "Информация", "login": "Вход", "logout": "Выход",
        "register": "Регистрация", "index": "Список форумов", "topics": "Темы",
        "replies": "Ответы", "views": "Просмотры", "last_post": "Последнее сообщение",
        "no_topic": "Запрошенной темы не существует.",
        "no_forum": "Форум, который вы выбрали, не существует.",
        "disabled": "Извините, но конференция в настоящий момент недоступна",
        "login_forum": "Для просмотра этого форума вы должны быть авторизованы.",
        "username": "Имя пользователя", "password": "Пароль", "remember": "Запомнить меня",
        "hide": "Скрыть моё пребывание на конференции в этот раз",
        "bad_password": "Вы ввели неверный пароль. Проверьте правильность ввода и повторите "
                        "попытку. Если проблема не решается, обратитесь к администратору "
                        "конференции.",
        "bad_user": "Вы ввели неверное имя пользователя. Проверьте его и попробуйте ещё раз.",
        "bad_form": "Представленная форма недействительна. Попробуйте отправить её снова.",
        "timezone": "Часовой пояс", "tz_title": "Европа/Москва",
        "today": "Сегодня", "yesterday": "Вчера", "less_minute": "менее минуты назад",
        "ucp": "Личный раздел", "view_messages": "Просмотр сообщений", "inbox": "Входящие",
        "message": "Сообщение", "mark": "Отметить", "sent": "Отправлено", "from": "От",
        "to": "Получатель", "login_ucp": "Пожалуйста, авторизуйтесь для входа в ваш личный "
                                         "раздел.", "new_pm": "Новое ЛС",
        "feed": "Канал", "feed_new": "Новые темы", "feed_forum": "Форум", "feed_topic": "Тема",
        "feed_stats": "Статистика: Добавлено ",
        "no_feed": "Ленты новостей на этой конференции недоступны.",
        "powered": 'Создано на основе <a href="https://www.phpbb.com/">phpBB</a>&reg; Forum '
                   'Software &copy; phpBB Limited',
    },
    "en": {
        "months": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(),
        "days": "Mon Tue Wed Thu Fri Sat Sun".split(),
        "posts": "Posts", "joined": "Joined", "by": "by", "wrote": "wrote",
        "view_quoted": "View quoted post", "quote": "Quote", "quote_title": "Reply with quote",
        "post": "Post", "top": "Top", "reply": "Post Reply", "locked": "Locked",
        "locked_title": "This topic is locked, you cannot edit posts or make further replies.",
        "next": "Next", "prev": "Previous", "page": "Page", "of": "of",
        "spoiler": "Spoiler", "code": "Code", "select_all": "Select all",
        "reason": "Reason", "info": "Information", "login": "Login", "logout": "Logout",
        "register": "Register", "index": "Board index", "topics": "Topics",
        "replies": "Replies", "views": "Views", "last_post": "Last post",
        "no_topic": "The requested topic does not exist.",
        "no_forum": "The forum you selected does not exist.",
        "disabled": "Sorry but this board is currently unavailable.",
        "login_forum": "The board requires you to be registered and logged in to view this "
                       "forum.",
        "username": "Username", "password": "Password", "remember": "Remember me",
        "hide": "Hide my online status this session",
        "bad_password": "You have specified an incorrect password. Please check your password "
                        "and try again. If you continue to have problems please contact the "
                        "Board Administrator.",
        "bad_user": "You have specified an incorrect username. Please check your username "
                    "and try again. If you continue to have problems please contact the "
                    "Board Administrator.",
        "bad_form": "The submitted form was invalid. Try submitting again.",
        "timezone": "All times are", "tz_title": "Europe/Moscow",
        "today": "Today", "yesterday": "Yesterday", "less_minute": "less than a minute ago",
        "ucp": "User Control Panel", "view_messages": "View messages", "inbox": "Inbox",
        "message": "Message", "mark": "Mark", "sent": "Sent", "from": "From", "to": "To",
        "login_ucp": "Please login in order to access the User Control Panel.",
        "new_pm": "New PM",
        "feed": "Feed", "feed_new": "New Topics", "feed_forum": "Forum", "feed_topic": "Topic",
        "feed_stats": "Statistics: Posted by",
        "no_feed": "Feeds are not available on this board.",
        "powered": 'Powered by <a href="https://www.phpbb.com/">phpBB</a>&reg; Forum Software '
                   '&copy; phpBB Limited',
    },
}


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


# -- BBCode -> prosilver HTML ---------------------------------------------------------------

_TAG_RE = re.compile(r"\[(/?)(b|i|u|color|quote|spoiler|code)((?:=|\s)[^\[\]]*)?\]",
                     re.IGNORECASE)
_COLOR_RE = re.compile(r"^(#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{3}|[A-Za-z]{3,20})$")
_ATTR_RE = re.compile(r'([a-z_]+)=("([^"]*)"|[^\s"]+)')


# phpBB's default smilies (a few): code -> (image, width, height, title)
_SMILIES = {
    ":D": ("icon_e_biggrin.gif", 15, 17, "Very Happy"),
    ":)": ("icon_e_smile.gif", 15, 17, "Smile"),
    ";)": ("icon_e_wink.gif", 15, 17, "Wink"),
    ":(": ("icon_e_sad.gif", 15, 17, "Sad"),
    ":P": ("icon_razz.gif", 15, 15, "Razz"),
    ":?": ("icon_e_confused.gif", 15, 17, "Confused"),
}
_SMILEY_RE = re.compile(r"(?<![^\s>])(" + "|".join(re.escape(k) for k in _SMILIES) + r")(?=\s|$|<)")


def _smilies(html_text: str) -> str:
    def img(m: re.Match) -> str:
        file, w, h, title = _SMILIES[m.group(1)]
        return (f'<img class="smilies" src="./images/smilies/{file}" width="{w}" height="{h}" '
                f'alt="{m.group(1)}" title="{title}">')
    return _SMILEY_RE.sub(img, html_text)


@dataclass
class _Node:
    tag: str                        # "" for the root
    arg: str = ""
    raw: str = ""                   # the opening tag as written (for unclosed tags)
    children: list = field(default_factory=list)


def _parse_bbcode(src: str) -> _Node:
    root = _Node("")
    stack = [root]
    pos = 0
    for m in _TAG_RE.finditer(src):
        if m.start() < pos:
            continue
        top = stack[-1]
        closing, tag, arg = m.group(1) == "/", m.group(2).lower(), (m.group(3) or "")
        if top.tag == "code" and not (closing and tag == "code"):
            continue  # nothing is parsed inside [code]
        if m.start() > pos:
            top.children.append(src[pos:m.start()])
        pos = m.end()
        if closing:
            if any(n.tag == tag for n in stack[1:]):
                while True:
                    node = stack.pop()
                    if node.tag == tag:
                        break
                    # an inner tag left open: keep its text literally
                    parent = stack[-1]
                    parent.children.remove(node)
                    parent.children.append(node.raw)
                    parent.children.extend(node.children)
            else:
                top.children.append(m.group(0))
            continue
        if tag == "color" and not _COLOR_RE.match(arg.lstrip("=").strip()):
            top.children.append(m.group(0))
            continue
        node = _Node(tag, arg, m.group(0))
        top.children.append(node)
        stack.append(node)
    stack[-1].children.append(src[pos:])
    while len(stack) > 1:  # unclosed tags are text
        node = stack.pop()
        parent = stack[-1]
        i = parent.children.index(node)
        parent.children[i:i + 1] = [node.raw, *node.children]
    return root


def _quote_attrs(arg: str) -> tuple[str | None, dict[str, str]]:
    arg = arg.strip()
    name = None
    if arg.startswith("="):
        rest = arg[1:]
        if rest.startswith('"'):
            end = rest.find('"', 1)
            name, rest = (rest[1:end], rest[end + 1:]) if end > 0 else (rest[1:], "")
        else:
            name, _, rest = rest.partition(" ")
        arg = rest
    attrs = {m.group(1): (m.group(3) if m.group(3) is not None else m.group(2))
             for m in _ATTR_RE.finditer(arg)}
    return name, attrs


class BBCodeRenderer:
    """The tiny BBCode subset players use, rendered as phpBB 3.3's s9e formatter does."""

    def __init__(self, *, strings: dict, format_date: Callable[[datetime], str],
                 user_ids: dict[str, int] | None = None) -> None:
        self.s = strings
        self.format_date = format_date
        self.user_ids = user_ids or {}

    def render(self, src: str) -> str:
        src = src.replace("\r\n", "\n").strip("\n")
        return self._children(_parse_bbcode(src).children)

    def _text(self, text: str) -> str:
        return _smilies(_esc(text)).replace("\n", "<br>\n")

    def _children(self, children, *, in_block: bool = False) -> str:
        """Render children; s9e keeps a line break next to a block tag (after ``[/quote]``,
        after ``[quote]`` and before ``[/quote]``) as a bare newline, without ``<br>``."""
        out = []
        after_block = in_block
        last = len(children) - 1
        for i, c in enumerate(children):
            if isinstance(c, str):
                head = tail = ""
                if after_block and c.startswith("\n"):
                    head, c = "\n", c[1:]
                if in_block and i == last and c.endswith("\n"):
                    tail, c = "\n", c[:-1]
                out.append(head + self._text(c) + tail)
                after_block = False
            else:
                out.append(self._node(c))
                after_block = c.tag in ("quote", "spoiler", "code")
        return "".join(out)

    def _node(self, n: _Node) -> str:
        inner = lambda: self._children(n.children)  # noqa: E731
        if n.tag == "b":
            return f'<strong class="text-strong">{inner()}</strong>'
        if n.tag == "i":
            return f'<em class="text-italics">{inner()}</em>'
        if n.tag == "u":
            return f'<span style="text-decoration:underline">{inner()}</span>'
        if n.tag == "color":
            return f'<span style="color:{_esc(n.arg.lstrip("=").strip())}">{inner()}</span>'
        if n.tag == "spoiler":
            return (f'<div class="spoiler"><div class="spoiler-title"><strong>'
                    f'{self.s["spoiler"]}</strong></div><div class="spoiler-body">{inner()}'
                    f'</div></div>')
        if n.tag == "code":
            text = "".join(c if isinstance(c, str) else c.raw for c in n.children).strip("\n")
            return (f'<div class="codebox"><p>{self.s["code"]}: <a href="#" '
                    f'onclick="selectCode(this); return false;">{self.s["select_all"]}</a></p>'
                    f'<pre><code>{_esc(text)}</code></pre></div>')
        if n.tag == "quote":
            name, attrs = _quote_attrs(n.arg)
            body = self._children(n.children, in_block=True)
            if name is None:
                return f'<blockquote class="uncited"><div>{body}</div></blockquote>'
            uid = attrs.get("user_id") or (str(self.user_ids[name]) if name in self.user_ids
                                           else None)
            who = (f'<a href="./memberlist.php?mode=viewprofile&amp;u={uid}">{_esc(name)}</a>'
                   if uid else _esc(name))
            cite = f"{who} {self.s['wrote']}:"
            pid = attrs.get("post_id")
            link = ""
            if pid and pid.isdigit():
                link = (f' <a href="./viewtopic.php?p={pid}#p{pid}" aria-label="'
                        f'{self.s["view_quoted"]}" data-post-id="{pid}" onclick="if(document.'
                        f'getElementById(hash.substr(1)))href=hash"><i class="icon '
                        f'fa-arrow-circle-up fa-fw" aria-hidden="true"></i></a>')
            mid = attrs.get("msg_id")
            if not link and mid and mid.isdigit():   # a quoted private message
                link = (f' <a href="./ucp.php?i=pm&amp;mode=view&amp;p={mid}" aria-label="'
                        f'{self.s["view_quoted"]}" data-msg-id="{mid}"><i class="icon '
                        f'fa-arrow-circle-up fa-fw" aria-hidden="true"></i></a>')
            when = ""
            if attrs.get("time", "").isdigit():
                t = datetime.fromtimestamp(int(attrs["time"]), timezone.utc)
                when = f'<span class="responsive-hide">{self.format_date(t)}</span>'
            open_ = f'<blockquote cite="./viewtopic.php?p={pid}#p{pid}">' if pid else "<blockquote>"
            return f"{open_}<div><cite>{cite}{link}{when}</cite>{body}</div></blockquote>"
        return n.raw + inner()  # pragma: no cover - every parsed tag is handled above


# -- the board's data -------------------------------------------------------------------------

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


@dataclass
class _Failure:
    kind: str                          # "status" | "truncate" | "drop"
    status: int = 503
    retry_after: str | None = None
    match: str | None = None           # only requests whose target contains this


def _now_from(clock) -> Callable[[], datetime]:
    if clock is None:
        return lambda: datetime.now(timezone.utc)
    if hasattr(clock, "now"):
        return clock.now
    return clock


class LocalBoard(PostingForms):
    """A phpBB 3.3.15 prosilver look-alike on 127.0.0.1 (see the module docstring)."""

    cookie_name = "phpbb3_local"

    def __init__(self, *, language: str = "ru", timezone_name: str = "Europe/Moscow",
                 clock=None, per_page: int = 25, title: str = "Mafia Test Board",
                 forum_id: int = 3, forum_name: str | None = None,
                 username: str | None = None, password: str | None = None,
                 relative_dates: bool = False, time_tags: bool = True,
                 first_post_id: int = 1, feed: bool = False, feed_limit: int = 15) -> None:
        if language not in _STR:
            raise ValueError(f"language must be one of {sorted(_STR)}")
        self.language = language
        self.s = _STR[language]
        self.tz = ZoneInfo(timezone_name)
        self.now = _now_from(clock)
        self.per_page = per_page
        self.title = title
        self.relative_dates = relative_dates
        self.time_tags = time_tags   # False: no <time datetime> (prosilver before 3.2.9)
        self.feed = feed             # True: phpBB's Atom feeds (linked from topic pages)
        self.feed_limit = feed_limit  # phpBB's feed_limit_post
        self.forums: dict[int, str] = {forum_id: forum_name or
                                       ("Игра" if language == "ru" else "Game")}
        self.default_forum = forum_id
        self.users: dict[int, BoardUser] = {}
        self.topics: dict[int, BoardTopic] = {}
        self._next_post_id = first_post_id
        self.pms: dict[int, BoardPM] = {}
        self._current_topic: int | None = None
        # authentication
        self.login_user = username
        self._password = password
        self.sessions: dict[str, int] = {}      # sid -> user id (1 = guest)
        self._form_salt = secrets.token_hex(8)
        self.failed_logins = 0
        self.logins = 0                          # successful logins (the board's own count)
        self.logouts = 0                         # sessions ended with ucp.php?mode=logout
        # failure injection and the request log
        self.disabled = False
        self._failures: list[_Failure] = []
        self.requests: list[tuple[str, str]] = []
        self._lock = threading.RLock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.add_user("admin", 2, colour="AA0000", rank="Site Admin")

    # -- the model ------------------------------------------------------------------------
    def add_user(self, name: str, user_id: int, *, colour: str | None = None,
                 rank: str | None = None, signature: str | None = None,
                 joined: datetime | None = None, posts: int | None = None,
                 online: bool = False) -> BoardUser:
        """Register a user (posts create unknown users on the fly)."""
        with self._lock:
            u = BoardUser(user_id, name, colour, rank, signature, posts=posts, online=online)
            if joined is not None:
                u.joined = joined
            self.users[user_id] = u
            return u

    def add_topic(self, title: str, *, topic_id: int | None = None,
                  forum_id: int | None = None, sticky: bool = False) -> int:
        """Open a topic; later ``add_post`` calls without ``topic`` go to it."""
        with self._lock:
            tid = topic_id or (max(self.topics, default=0) + 1)
            self.topics[tid] = BoardTopic(tid, forum_id or self.default_forum, title,
                                          sticky=sticky)
            self._current_topic = tid
            return tid

    def _topic(self, topic: int | None) -> BoardTopic:
        tid = topic if topic is not None else self._current_topic
        if tid is None or tid not in self.topics:
            raise KeyError(f"no topic {tid}")
        return self.topics[tid]

    def add_post(self, author: str, author_id: int, body: str,
                 posted_at: datetime | None = None, *, topic: int | None = None,
                 post_id: int | None = None) -> int:
        """Post ``body`` (BBCode) as ``author``; returns the post id."""
        with self._lock:
            t = self._topic(topic)
            if author_id not in self.users:
                self.add_user(author, author_id)
            pid = post_id if post_id is not None else self._next_post_id
            self._next_post_id = max(self._next_post_id, pid + 1)
            subject = t.title if not t.posts else f"Re: {t.title}"
            when = posted_at or self.now()
            t.posts.append(BoardPost(pid, t.topic_id, author, author_id,
                                     when.replace(microsecond=0), body, subject))
            t.posts.sort(key=lambda p: (p.posted_at, p.post_id))
            return pid

    def find_post(self, post_id: int) -> BoardPost:
        for t in self.topics.values():
            for p in t.posts:
                if p.post_id == post_id:
                    return p
        raise KeyError(f"no post {post_id}")

    def edit_post(self, post_id: int, body: str, *, edited_at: datetime | None = None,
                  reason: str | None = None, editor: str | None = None,
                  moderator: bool | None = None, notice: bool | None = None) -> bool:
        """Edit a post as phpBB 3.3 does (``submit_post``, its edit cases): the new text, and
        the edit notice (time, count, editor, reason) only where phpBB writes one: when a
        reason is given, or when someone without moderator rights edits a post that is not
        the topic's last (nor its only) post. The author's edit of the last post and a
        moderator's edit without a reason leave no trace. ``moderator`` defaults to "the
        editor is ``admin``". ``notice=True``/``False`` overrides the rule (a scenario that
        needs the notice phpBB writes for a post further up). Returns whether a notice was
        written.
        """
        with self._lock:
            p = self.find_post(post_id)
            editor = editor or p.author
            if moderator is None:
                moderator = editor == "admin"
            posts = self.topics[p.topic_id].posts
            last_or_only = posts[-1] is p
            p.body = body
            if notice is None:
                notice = bool(reason) or (not moderator and not last_or_only)
            if notice:
                p.edited_at = (edited_at or self.now()).replace(microsecond=0)
                p.edit_count += 1
                p.edit_reason = reason
                p.edited_by = editor
                return True
            return False

    def delete_post(self, post_id: int) -> None:
        """Remove a post (soft deletes look the same to a guest)."""
        with self._lock:
            p = self.find_post(post_id)
            self.topics[p.topic_id].posts.remove(p)

    def lock(self, topic: int | None = None, locked: bool = True) -> None:
        """Lock (or with ``locked=False`` unlock) a topic."""
        with self._lock:
            self._topic(topic).locked = locked

    def send_pm(self, author: str, author_id: int, subject: str, body: str,
                sent_at: datetime | None = None, *, to_id: int = 2,
                msg_id: int | None = None) -> int:
        """A private message (ЛС) from ``author`` to user ``to_id`` (the host, by default)."""
        with self._lock:
            if author_id not in self.users:
                self.add_user(author, author_id)
            mid = msg_id if msg_id is not None else max(self.pms, default=0) + 1
            self.pms[mid] = BoardPM(mid, author, author_id, to_id,
                                    (sent_at or self.now()).replace(microsecond=0), subject, body)
            return mid

    def inbox_url(self) -> str:
        return f"{self.url}ucp.php?i=pm&folder=inbox"

    def pm_url(self, msg_id: int) -> str:
        return f"{self.url}ucp.php?i=pm&mode=view&f=0&p={msg_id}"

    def topic_url(self, topic: int | None = None, *, start: int = 0) -> str:
        t = self._topic(topic)
        return f"{self.url}viewtopic.php?t={t.topic_id}" + (f"&start={start}" if start else "")

    # -- failure injection ----------------------------------------------------------------
    def fail_next(self, n: int = 1, *, status: int = 503,
                  retry_after: int | str | None = None, match: str | None = None) -> None:
        """The next ``n`` requests get HTTP ``status`` (with ``Retry-After`` if given).

        ``match``: only requests whose path and query contain this text (e.g. ``"start=25"``).
        """
        with self._lock:
            self._failures += [_Failure("status", status,
                                        None if retry_after is None else str(retry_after),
                                        match) for _ in range(n)]

    def truncate_next(self, n: int = 1, *, match: str | None = None) -> None:
        """The next ``n`` pages are cut in the middle (a complete HTTP answer, broken HTML)."""
        with self._lock:
            self._failures += [_Failure("truncate", match=match) for _ in range(n)]

    def drop_next(self, n: int = 1, *, match: str | None = None) -> None:
        """The next ``n`` connections are closed without an answer."""
        with self._lock:
            self._failures += [_Failure("drop", match=match) for _ in range(n)]

    def expire_sessions(self) -> None:
        """Forget every logged-in session (as phpBB does after session_length)."""
        with self._lock:
            self.sessions.clear()

    def request_count(self, path_prefix: str = "") -> int:
        with self._lock:
            return sum(1 for _, p in self.requests if p.startswith(path_prefix))

    # -- the server -----------------------------------------------------------------------
    def start(self) -> "LocalBoard":
        if self._server is not None:
            return self
        board = self

        class Handler(_Handler):
            pass
        Handler.board = board
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        name="LocalBoard", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "LocalBoard":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("LocalBoard is not started")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """The board root, e.g. ``http://127.0.0.1:40123/``."""
        return f"http://127.0.0.1:{self.port}/"

    # -- dates ----------------------------------------------------------------------------
    def format_date(self, t: datetime, *, relative: bool | None = None) -> str:
        """A date as the board shows it (ru ``|d M Y|, H:i``, en ``D M d, Y g:i a``)."""
        local = t.astimezone(self.tz)
        if self.language == "en":
            hour = local.hour % 12 or 12
            return (f"{self.s['days'][local.weekday()]} {self.s['months'][local.month - 1]} "
                    f"{local.day:02d}, {local.year} {hour}:{local.minute:02d} "
                    f"{'am' if local.hour < 12 else 'pm'}")
        if relative if relative is not None else self.relative_dates:
            now = self.now().astimezone(self.tz)
            delta = (now - local).total_seconds()
            if 0 <= delta < 3600:
                minutes = int(delta // 60)
                if minutes == 0:
                    return self.s["less_minute"]
                return f"{minutes} {ru_plural_word(minutes, 'минуту', 'минуты', 'минут')} назад"
            if local.date() == now.date():
                return f"{self.s['today']}, {local:%H:%M}"
            if local.date() == now.date() - timedelta(days=1):
                return f"{self.s['yesterday']}, {local:%H:%M}"
        return f"{local.day:02d} {self.s['months'][local.month - 1]} {local.year}, {local:%H:%M}"

    # -- rendering ------------------------------------------------------------------------
    def _user_link(self, uid: int, name: str) -> str:
        u = self.users.get(uid)
        if u and u.colour:
            return (f'<a href="./memberlist.php?mode=viewprofile&amp;u={uid}" '
                    f'style="color: #{u.colour};" class="username-coloured">{_esc(name)}</a>')
        return (f'<a href="./memberlist.php?mode=viewprofile&amp;u={uid}" class="username">'
                f'{_esc(name)}</a>')

    def _bbcode(self) -> BBCodeRenderer:
        ids = {u.name: u.user_id for u in self.users.values()}
        return BBCodeRenderer(strings=self.s, format_date=self.format_date, user_ids=ids)

    def _feed_links(self, topic: BoardTopic | None = None) -> str:
        """The Atom feed links phpBB 3.3 puts in a page's <head> when feeds are on."""
        if not self.feed:
            return ""
        s = self.s

        def link(title: str, href: str) -> str:
            return (f'<link rel="alternate" type="application/atom+xml" '
                    f'title="{_esc(s["feed"])} - {_esc(title)}" href="{href}">')
        out = (f'\t{link(self.title, "/app.php/feed")}\t\t\t'
               f'{link(s["feed_new"], "/app.php/feed/topics")}\t\t')
        if topic is not None:
            forum = self.forums.get(topic.forum_id, "")
            forum_link = link(f'{s["feed_forum"]} - {forum}', f"/app.php/feed/forum/{topic.forum_id}")
            topic_link = link(f'{s["feed_topic"]} - {topic.title}',
                              f"/app.php/feed/topic/{topic.topic_id}")
            out += f"{forum_link}\t{topic_link}\t"
        return out + "\n"

    def _page(self, *, title: str, section: str, body: str, canonical: str | None = None,
              user: int = 1, redirect: str = "index.php", topic: BoardTopic | None = None) -> str:
        s = self.s
        canon = (f'\t<link rel="canonical" href="{_esc(canonical)}">\n' if canonical else "")
        canon = self._feed_links(topic) + canon
        if user == 1:
            login = (f'\t\t\t<li class="rightside"  data-skip-responsive="true">\n'
                     f'\t\t\t<a href="./ucp.php?mode=login&amp;redirect={quote(redirect)}" '
                     f'title="{s["login"]}" accesskey="x" role="menuitem">\n'
                     f'\t\t\t\t<i class="icon fa-power-off fa-fw" aria-hidden="true"></i>'
                     f'<span>{s["login"]}</span>\n\t\t\t</a>\n\t\t</li>\n')
        else:
            name = self.users[user].name if user in self.users else self.login_user or "?"
            login = (f'\t\t\t<li id="username_logged_in" class="rightside no-bulletin">'
                     f'<span class="username">{_esc(name)}</span> '
                     f'<a href="./ucp.php?mode=logout" title="{s["logout"]}">{s["logout"]}'
                     f'</a></li>\n')
        return f"""<!DOCTYPE html>
<html dir="ltr" lang="{self.language}">
<head>
<meta charset="utf-8" />
<meta http-equiv="X-UA-Compatible" content="IE=edge">
<meta name="viewport" content="width=device-width, initial-scale=1" />

<title>{_esc(title)}</title>

{canon}
<!--
	phpBB style name: prosilver
	Based on style:   prosilver (this is the default phpBB3 style)
	Original author:  Tom Beddard ( http://www.subBlue.com/ )
	Modified by:
-->

<link href="./styles/prosilver/theme/stylesheet.css?assets_version=1" rel="stylesheet">
</head>
<body id="phpbb" class="nojs notouch section-{section} ltr ">


<div id="wrap" class="wrap">
	<a id="top" class="top-anchor" accesskey="t"></a>
	<div id="page-header">
		<div class="headerbar" role="banner">
					<div class="inner">

			<div id="site-description" class="site-description">
		<a id="logo" class="logo" href="./index.php" title="{s["index"]}">
					<span class="site_logo"></span>
				</a>
				<h1>{_esc(self.title)}</h1>
				<p>Local phpBB 3.3 test board</p>
			</div>

			</div>
					</div>
				<div class="navbar" role="navigation">
	<div class="inner">

	<ul id="nav-main" class="nav-main linklist" role="menubar">
{login}	</ul>

	<ul id="nav-breadcrumbs" class="nav-breadcrumbs linklist navlinks" role="menubar">
		<li class="breadcrumbs" itemscope itemtype="https://schema.org/BreadcrumbList">
							<span class="crumb" itemtype="https://schema.org/ListItem" itemprop="itemListElement" itemscope><a itemprop="item" href="./index.php" accesskey="h" data-navbar-reference="index"><i class="icon fa-home fa-fw"></i><span itemprop="name">{s["index"]}</span></a><meta itemprop="position" content="1" /></span>
					</li>
	</ul>

	</div>
</div>
	</div>

	
	<a id="start_here" class="anchor"></a>
	<div id="page-body" class="page-body" role="main">
		
		
{body}
			</div>


<div id="page-footer" class="page-footer" role="contentinfo">
	<div class="navbar" role="navigation">
	<div class="inner">

	<ul id="nav-footer" class="nav-footer linklist" role="menubar">
		<li class="breadcrumbs">
									<span class="crumb"><a href="./index.php" data-navbar-reference="index"><i class="icon fa-home fa-fw" aria-hidden="true"></i><span>{s["index"]}</span></a></span>					</li>
		
				<li class="rightside">{s["timezone"]}: <span title="{s["tz_title"]}">{self._utc_offset()}</span></li>
							</ul>

	</div>
</div>

	<div class="copyright">
				<p class="footer-row">
			<span class="footer-copyright">{s["powered"]}</span>
		</p>
			</div>
</div>

</body>
</html>
"""

    def _utc_offset(self) -> str:
        off = self.now().astimezone(self.tz).utcoffset() or timedelta(0)
        minutes = int(off.total_seconds() // 60)
        sign = "+" if minutes >= 0 else "-"
        return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"

    def render_message(self, text: str, *, section: str = "viewtopic", user: int = 1) -> str:
        """phpBB's information page (no such topic, board disabled)."""
        body = (f'<div class="panel" id="message">\n\t<div class="inner">\n\t<h2 '
                f'class="message-title">{self.s["info"]}</h2>\n\t<p>{_esc(text)}</p>\n'
                f'\t\t</div>\n</div>\n')
        return self._page(title=f"{self.title} - {self.s['info']}", section=section,
                          body=body, user=user)

    def render_login(self, *, sid: str, redirect: str, heading: str | None = None,
                     error: str | None = None, section: str = "ucp",
                     index_redirect: bool = False) -> str:
        """The login form (``ucp.php?mode=login`` or a "login required" page).

        The real ``ucp.php?mode=login`` page carries a second hidden ``redirect``
        (``index.php``) after ``sid``; PHP takes the last one (``index_redirect=True``).
        """
        s = self.s
        creation = int(self.now().timestamp())
        token = self._form_token(sid, creation)
        err = f'\t\t<div class="error">{_esc(error)}</div>\n' if error else ""
        extra = '<input type="hidden" name="redirect" value="index.php" />\n' if index_redirect else ""
        body = f"""<form action="./ucp.php?mode=login" method="post" id="login" data-focus="username">
<div class="panel">
	<div class="inner">

	<div class="content">
		<h2 class="login-title">{_esc(heading or s["login"])}</h2>

		<fieldset class="fields1">
{err}				<dl>
			<dt><label for="username">{s["username"]}:</label></dt>
			<dd><input type="text" tabindex="1" name="username" id="username" size="25" value="" class="inputbox autowidth" autocomplete="username" /></dd>
		</dl>
		<dl>
			<dt><label for="password">{s["password"]}:</label></dt>
			<dd><input type="password" tabindex="2" id="password" name="password" size="25" class="inputbox autowidth" autocomplete="current-password" /></dd>
					</dl>
						<dl>
			<dt>&nbsp;</dt>
			<dd><label for="autologin"><input type="checkbox" name="autologin" id="autologin" tabindex="4" /> {s["remember"]}</label></dd>			<dd><label for="viewonline"><input type="checkbox" name="viewonline" id="viewonline" tabindex="5" /> {s["hide"]}</label></dd>
		</dl>
		
		<input type="hidden" name="redirect" value="{_esc(redirect)}" />
<input type="hidden" name="creation_time" value="{creation}" />
<input type="hidden" name="form_token" value="{token}" />

		
		<dl>
			<dt>&nbsp;</dt>
			<dd><input type="hidden" name="sid" value="{sid}" />
{extra}<input type="submit" name="login" tabindex="6" value="{s["login"]}" class="button1" /></dd>
		</dl>
		</fieldset>
	</div>

		</div>
</div>

</form>
"""
        return self._page(title=f"{self.title} - {s['login']}", section=section, body=body)

    def _form_token(self, sid: str, creation: int) -> str:
        return hashlib.sha1(f"{creation}{self._form_salt}login{sid}".encode()).hexdigest()

    def _pagination(self, base: str, total_posts: int, start: int) -> str:
        s = self.s
        if self.language == "ru":
            count = f"{total_posts} " + ru_plural_word(total_posts, "сообщение", "сообщения",
                                                   "сообщений")
        else:
            count = f"{total_posts} post" + ("" if total_posts == 1 else "s")
        pages = max(1, -(-total_posts // self.per_page))
        on = start // self.per_page + 1
        if pages == 1:
            return (f'\t\t\t<div class="pagination">\n\t\t\t{count}\n\t\t\t\t\t\t&bull; '
                    f'{s["page"]} <strong>1</strong> {s["of"]} <strong>1</strong>\n'
                    f'\t\t\t\t\t</div>\n')

        def href(n: int) -> str:
            return base if n == 1 else f"{base}&amp;start={(n - 1) * self.per_page}"
        start_page = min(max(1, on - 2), pages - 4) if pages > 5 else 1
        end_page = max(min(pages, on + 2), 5) if pages > 5 else pages
        items = []
        if on > 1:
            items.append(f'\t\t\t<li class="arrow previous"><a class="button button-icon-only" '
                         f'href="{href(on - 1)}" rel="prev" role="button"><i class="icon '
                         f'fa-chevron-left fa-fw" aria-hidden="true"></i><span class="sr-only">'
                         f'{s["prev"]}</span></a></li>')
        numbers = list(range(start_page, end_page + 1))
        if start_page > 1:
            numbers = [1, None] + numbers if start_page > 2 else [1] + numbers
        if end_page < pages:
            numbers = numbers + ([None, pages] if end_page < pages - 1 else [pages])
        for n in numbers:
            if n is None:
                items.append('\t\t\t<li class="ellipsis" role="separator"><span>…</span></li>')
            elif n == on:
                items.append(f'\t\t\t<li class="active"><span>{n}</span></li>')
            else:
                items.append(f'\t\t\t\t<li><a class="button" href="{href(n)}" role="button">'
                             f'{n}</a></li>')
        if on < pages:
            items.append(f'\t\t\t\t<li class="arrow next"><a class="button button-icon-only" '
                         f'href="{href(on + 1)}" rel="next" role="button"><i class="icon '
                         f'fa-chevron-right fa-fw" aria-hidden="true"></i><span class="sr-only">'
                         f'{s["next"]}</span></a></li>')
        return (f'\t\t\t<div class="pagination">\n\t\t\t{count}\n\t\t\t\t\t\t\t<ul>\n'
                + "\n".join(items) + "\n\t</ul>\n\t\t\t\t\t</div>\n")

    def _action_bar(self, t: BoardTopic, pagination: str, where: str) -> str:
        s = self.s
        if t.locked:
            button = (f'\t\t\t<a href="./posting.php?mode=reply&amp;t={t.topic_id}" class="button" '
                      f'title="{s["locked_title"]}">\n\t\t\t\t\t\t\t<span>{s["locked"]}</span> '
                      f'<i class="icon fa-lock fa-fw" aria-hidden="true"></i>\n\t\t\t\t\t</a>\n')
        else:
            button = (f'\t\t\t<a href="./posting.php?mode=reply&amp;t={t.topic_id}" class="button" '
                      f'title="{s["reply"]}">\n\t\t\t\t\t\t\t<span>{s["reply"]}</span> '
                      f'<i class="icon fa-reply fa-fw" aria-hidden="true"></i>\n\t\t\t\t\t</a>\n')
        return f'<div class="action-bar bar-{where}">\n\t\n{button}\t\n{pagination}\t\t</div>\n'

    def _render_post(self, p: BoardPost, index: int, bb: BBCodeRenderer) -> str:
        s = self.s
        u = self.users.get(p.author_id) or BoardUser(p.author_id, p.author)
        link = self._user_link(p.author_id, p.author)
        posts_by = u.posts if u.posts is not None else sum(
            1 for t in self.topics.values() for q in t.posts if q.author_id == p.author_id)
        rank = (f'\t\t\t\t\t\t<dd class="profile-rank">{_esc(u.rank)}</dd>\t\t\t\n' if u.rank
                else "\t\t\t\t\t\t\t\t\t\n")
        by = s["by"]
        notice = ""
        if p.edit_count:
            editor_id = next((x.user_id for x in self.users.values() if x.name == p.edited_by),
                             p.author_id)
            elink = self._user_link(editor_id, p.edited_by or p.author)
            when = self.format_date(p.edited_at or p.posted_at, relative=False)
            if self.language == "ru":
                times = ru_plural_word(p.edit_count, "раз", "раза", "раз")
                text = (f"Последний раз редактировалось {elink} {when}, всего редактировалось "
                        f"{p.edit_count} {times}.")
            else:
                times = "time" if p.edit_count == 1 else "times"
                text = f"Last edited by {elink} on {when}, edited {p.edit_count} {times} in total."
            reason = (f'\n\t\t\t\t\t<br /><strong>{s["reason"]}:</strong> <em>'
                      f'{_esc(p.edit_reason)}</em>' if p.edit_reason else "")
            notice = (f'\t\t\t\t\t\t\t\t\t\t\t\t\t<div class="notice">\n\t\t\t\t\t{text}'
                      f'{reason}\t\t\t\t</div>\n\t\t\t\n')
        else:
            notice = "\t\t\t\t\t\t\t\t\t\n"
        sig = "\t\t\t\t\t\t\t\t\t\t\n"
        if u.signature:
            sig = (f'\t\t\t\t\t\t\t<div id="sig{p.post_id}" class="signature">'
                   f'{bb.render(u.signature)}</div>\t\t\t\n')
        shown = self.format_date(p.posted_at)
        iso = p.posted_at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")
        pid = p.post_id
        online = " online" if u.online else ""
        when = f'<time datetime="{iso}">{shown}</time>' if self.time_tags else shown
        return f"""			<div id="p{pid}" class="post has-profile bg{1 if index % 2 else 2}{online}">
		<div class="inner">

		<dl class="postprofile" id="profile{pid}">
			<dt class="{"has" if u.rank else "no"}-profile-rank no-avatar">
				<div class="avatar-container">
																			</div>
								{link}							</dt>

{rank}		<dd class="profile-posts"><strong>{s["posts"]}:</strong> <a href="./search.php?author_id={p.author_id}&amp;sr=posts">{posts_by}</a></dd>		<dd class="profile-joined"><strong>{s["joined"]}:</strong> {self.format_date(u.joined, relative=False)}</dd>		
		
						
						
		</dl>

		<div class="postbody">
						<div id="post_content{pid}">

					<h3 {'class="first"' if index == 0 else ""}>
						<a href="./viewtopic.php?p={pid}#p{pid}">{_esc(p.subject)}</a>
		</h3>

													<ul class="post-buttons">
																																									<li>
							<a href="./posting.php?mode=quote&amp;p={pid}" title="{s["quote_title"]}" class="button button-icon-only">
								<i class="icon fa-quote-left fa-fw" aria-hidden="true"></i><span class="sr-only">{s["quote"]}</span>
							</a>
						</li>
														</ul>
							
						<p class="author">
									<a class="unread" href="./viewtopic.php?p={pid}#p{pid}" title="{s["post"]}">
						<i class="icon fa-file fa-fw icon-lightgray icon-md" aria-hidden="true"></i><span class="sr-only">{s["post"]}</span>
					</a>
								<span class="responsive-hide">{by} <strong>{link}</strong> &raquo; </span>{when}
			</p>
			
			
			
			
			<div class="content">{bb.render(p.body)}</div>

			
			
{notice}						
{sig}						</div>

		</div>

				<div class="back2top">
						<a href="#top" class="top" title="{s["top"]}">
				<i class="icon fa-chevron-circle-up fa-fw icon-gray" aria-hidden="true"></i>
				<span class="sr-only">{s["top"]}</span>
			</a>
					</div>
		
		</div>
	</div>

"""

    def render_topic(self, topic_id: int, start: int = 0, *, user: int = 1) -> str:
        """One viewtopic page (``start`` is clamped to the last page, as phpBB does)."""
        t = self.topics[topic_id]
        total = len(t.posts)
        last_start = max(0, (total - 1) // self.per_page * self.per_page)
        start = min(max(0, start - start % self.per_page), last_start)
        page_no = start // self.per_page + 1
        base = f"./viewtopic.php?t={topic_id}"
        pag = self._pagination(base, total, start)
        bb = self._bbcode()
        posts = "".join(self._render_post(p, i, bb)
                        for i, p in enumerate(t.posts[start:start + self.per_page]))
        title = t.title + (f" - {self.s['page']} {page_no}" if page_no > 1 else "")
        body = (f'<h2 class="topic-title"><a href="{base}">{_esc(t.title)}</a></h2>\n\n\n'
                + self._action_bar(t, pag, "top") + "\n\n\n\n" + posts
                + self._action_bar(t, pag, "bottom")
                + f'\n<div class="action-bar actions-jump">\n\t\t<p class="jumpbox-return">\n'
                  f'\t\t<a href="./viewforum.php?f={t.forum_id}" class="left-box arrow-left" '
                  f'accesskey="r">\n\t\t\t<i class="icon fa-angle-left fa-fw icon-black" '
                  f'aria-hidden="true"></i><span>{_esc(self.forums.get(t.forum_id, ""))}'
                  f'</span>\n\t\t</a>\n\t</p>\n\t</div>\n')
        canonical = f"{self.url}viewtopic.php?t={topic_id}" + (f"&start={start}" if start else "")
        return self._page(title=f"{title} - {self.title}", section="viewtopic", body=body,
                          canonical=canonical, user=user, topic=t,
                          redirect=f"viewtopic.php?start={start}&t={topic_id}")

    def _feed_time(self, t: datetime) -> str:
        return t.astimezone(self.tz).isoformat(timespec="seconds")

    def render_topic_feed(self, topic_id: int) -> str:
        """The topic's Atom feed as phpBB 3.3 serves ``app.php/feed/topic/N``: the newest
        ``feed_limit`` posts, newest first; ``<published>`` is the post time, ``<updated>``
        the last edit (else the post time), both to the second with the board's offset."""
        t = self.topics[topic_id]
        root = self.url.rstrip("/")
        posts = sorted(t.posts, key=lambda p: (p.posted_at, p.post_id),
                       reverse=True)[:self.feed_limit]
        bb = self._bbcode()

        def cdata(text: str) -> str:
            return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"

        def absolute(fragment: str) -> str:
            # phpBB's feed helper: one line, quotes without their <cite>, absolute links
            fragment = re.sub(r"<blockquote[^>]*><div><cite>.*?</cite>",
                              '<blockquote class="uncited"><div>', fragment.replace("\n", ""),
                              flags=re.S)
            return re.sub(r'(href|src)="\./', lambda m: f'{m.group(1)}="{root}/', fragment)

        entries = []
        for p in posts:
            link = f"{root}/viewtopic.php?p={p.post_id}#p{p.post_id}"
            stats = (f'<p>{self.s["feed_stats"]} <a href="{root}/memberlist.php?mode=viewprofile'
                     f'&amp;u={p.author_id}">{_esc(p.author)}</a> — '
                     f'{self.format_date(p.posted_at, relative=False)}</p><hr />')
            entries.append(
                f"\t\t<entry>\n\t\t<author><name>{cdata(p.author)}</name></author>\n"
                f"\t\t<updated>{self._feed_time(p.edited_at or p.posted_at)}</updated>\n\n"
                f"\t\t<published>{self._feed_time(p.posted_at)}</published>\n"
                f"\t\t<id>{link}</id>\n\t\t<link href=\"{link}\"/>\n"
                f"\t\t<title type=\"html\">{cdata(p.subject)}</title>\n\n\t\t\n"
                f"\t\t<content type=\"html\" xml:base=\"{link}\">"
                f"{cdata(chr(10) + absolute(bb.render(p.body)) + stats + chr(10))}</content>\n"
                f"\t</entry>\n")
        newest = max((p.edited_at or p.posted_at for p in posts), default=None)
        feed_url = f"{root}/app.php/feed/topic/{topic_id}"
        lang = "ru" if self.language == "ru" else "en-gb"
        return (f'<?xml version="1.0" encoding="UTF-8"?>\n'
                f'<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="{lang}">\n'
                f'\t<link rel="self" type="application/atom+xml" href="{feed_url}" />\n\n'
                f'\t<title>{_esc(self.title)}</title>\n'
                f'\t<subtitle>Local phpBB 3.3 test board</subtitle>\n'
                f'\t<link href="{root}/index.php" />\n'
                + (f'\t<updated>{self._feed_time(newest)}</updated>\n' if newest else "")
                + f'\n\t<author><name>{cdata(self.title)}</name></author>\n'
                f'\t<id>{feed_url}</id>\n\n' + "".join(entries) + "\t</feed>\n")

    def render_forum(self, forum_id: int, *, user: int = 1) -> str:
        """The topic list of a forum (newest topic first, as phpBB sorts by last post)."""
        s = self.s
        never = datetime.min.replace(tzinfo=timezone.utc)
        topics = sorted((t for t in self.topics.values() if t.forum_id == forum_id),
                        key=lambda t: (t.sticky, max((p.posted_at for p in t.posts),
                                                     default=never)),
                        reverse=True)   # stickies first, then by last post
        rows = []
        for i, t in enumerate(topics):
            first = t.posts[0] if t.posts else None
            last = t.posts[-1] if t.posts else None
            poster = (f' {self._user_link(first.author_id, first.author)} &raquo; <time '
                      f'datetime="{first.posted_at.astimezone(timezone.utc):%Y-%m-%dT%H:%M:%S+00:00}">'
                      f'{self.format_date(first.posted_at)}</time>' if first else "")
            lastpost = (f'{self._user_link(last.author_id, last.author)} <a href="./viewtopic.php?'
                        f'p={last.post_id}#p{last.post_id}" title="{s["last_post"]}">'
                        f'</a><br /><time datetime="{last.posted_at.astimezone(timezone.utc):%Y-%m-%dT%H:%M:%S+00:00}">'
                        f'{self.format_date(last.posted_at)}</time>' if last else "")
            kind = "sticky" if t.sticky else "topic"
            state = f"{kind}_read_locked" if t.locked else f"{kind}_read"
            sticky = " sticky" if t.sticky else ""
            rows.append(f"""		<li class="row bg{2 if i % 2 else 1}{sticky}">
						<dl class="row-item {state}">
				<dt>
										<div class="list-inner">
																		<a href="./viewtopic.php?t={t.topic_id}" class="topictitle">{_esc(t.title)}</a>																								<br />
						<div class="topic-poster responsive-hide left-box">
							{poster}
						</div>
											</div>
				</dt>
				<dd class="posts">{max(0, len(t.posts) - 1)} <dfn>{s["replies"]}</dfn></dd>
				<dd class="views">{t.views} <dfn>{s["views"]}</dfn></dd>
				<dd class="lastpost">
					<span><dfn>{s["last_post"]} </dfn> {lastpost}
					</span>
				</dd>
			</dl>
					</li>
""")
        name = self.forums.get(forum_id, "")
        body = (f'<h2 class="forum-title"><a href="./viewforum.php?f={forum_id}">{_esc(name)}'
                f'</a></h2>\n\t\t\t<div class="forumbg">\n\t\t<div class="inner">\n'
                f'\t\t<ul class="topiclist">\n\t\t\t<li class="header">\n\t\t\t\t<dl '
                f'class="row-item">\n\t\t\t\t\t<dt><div class="list-inner">{s["topics"]}</div>'
                f'</dt>\n\t\t\t\t</dl>\n\t\t\t</li>\n\t\t</ul>\n\t\t<ul class="topiclist topics">\n'
                + "".join(rows) + "\t\t\t\t</ul>\n\t\t</div>\n\t</div>\n")
        return self._page(title=f"{name} - {self.title}", section="viewforum", body=body,
                          canonical=f"{self.url}viewforum.php?f={forum_id}", user=user)

    def render_pm_inbox(self, user: int) -> str:
        """The prosilver inbox (``ucp.php?i=pm&folder=inbox``), newest first."""
        s = self.s
        msgs = sorted((m for m in self.pms.values() if m.to_id == user),
                      key=lambda m: (m.sent_at, m.msg_id), reverse=True)
        rows = []
        for i, m in enumerate(msgs):
            href = f"./ucp.php?i=pm&amp;mode=view&amp;f=0&amp;p={m.msg_id}"
            by = f"{s['by']} " if s["by"] else ""
            rows.append(f"""					<li class="row bg{1 if i % 2 else 2}">
				<dl class="row-item {"pm_read" if m.read else "pm_unread"}">
					<dt>
						<a href="{href}" class="row-item-link"></a>						<div class="list-inner">

													<a href="{href}" class="topictitle">{_esc(m.subject)}</a>
																		 <br />
						 {by}{self._user_link(m.author_id, m.author)} &raquo; {self.format_date(m.sent_at)}
						</div>
					</dt>
															<dd class="mark"><input type="checkbox" name="marked_msg_id[]" value="{m.msg_id}" /></dd>
				</dl>
			</li>
""")
        body = f"""<h2 class="ucp-title">{s["ucp"]}</h2>
<div id="tabs" class="tabs">
	<ul>
		<li class="tab activetab"><a href="./ucp.php?i=pm">{s["view_messages"]}</a></li>
	</ul>
</div>
<div class="panel bg3">
	<div class="inner">
	<h2>{s["view_messages"]}: {s["inbox"]}</h2>
<form id="viewfolder" method="post" action="./ucp.php?i=pm&amp;mode=view&amp;action=view_folder&amp;f=0">

<div class="panel">
	<div class="inner">
	<div class="action-bar bar-top">
						<a href="./ucp.php?i=pm&amp;mode=compose" accesskey="n" class="button">
				<span>{s["new_pm"]}</span> <i class="icon fa-pencil fa-fw" aria-hidden="true"></i>
			</a>
		</div>
			<ul class="topiclist two-columns">
			<li class="header">
				<dl>
					<dt><div class="list-inner">{s["message"]}</div></dt>
					<dd class="mark">{s["mark"]}</dd>
				</dl>
			</li>
		</ul>
		<ul class="topiclist cplist pmlist responsive-show-all two-columns">

{"".join(rows)}		</ul>
	</div>
</div>
</form>
	</div>
</div>
"""
        unread = sum(1 for m in msgs if not m.read)
        prefix = f"({unread}) " if unread else ""
        return self._page(title=f"{prefix}{self.title} - {s['ucp']} - {s['view_messages']}",
                          section="ucp", body=body, user=user)

    def render_pm_view(self, msg_id: int, user: int) -> str | None:
        """One message's view page (``ucp.php?i=pm&mode=view&p=N``); marks it read."""
        m = self.pms.get(msg_id)
        if m is None or m.to_id != user:
            return None
        m.read = True
        s = self.s
        to = self.users.get(m.to_id)
        to_link = self._user_link(m.to_id, to.name if to else "?")
        bb = self._bbcode()
        html = bb.render(m.body)
        body = f"""<h2 class="ucp-title">{s["ucp"]}</h2>
<div class="panel bg3">
	<div class="inner">
<h2>{s["view_messages"]}: {s["inbox"]}</h2>
<form id="viewfolder" method="post" action="./ucp.php?i=ucp_pm&amp;mode=view&amp;action=view_message">
<div id="post-{m.msg_id}" class="post pm has-profile">
<div class="inner">
	<dl class="postprofile" id="profile{m.msg_id}">
		<dt class="no-profile-rank no-avatar">
						{self._user_link(m.author_id, m.author)}
					</dt>
	</dl>
	<div class="postbody">
		<h3 class="first">{_esc(m.subject)}</h3>
								<ul class="post-buttons">
										<li>
					<a href="./ucp.php?i=pm&amp;mode=compose&amp;action=quote&amp;f=0&amp;p={m.msg_id}" class="button button-icon-only">
						<i class="icon fa-quote-left fa-fw" aria-hidden="true"></i><span class="sr-only">{s["quote"]}</span>
					</a>
				</li>
								</ul>
		<p class="author">
			<strong>{s["sent"]}:</strong> {self.format_date(m.sent_at)}
			<br /><strong>{s["from"]}:</strong> {self._user_link(m.author_id, m.author)}
			<br /><strong>{s["to"]}:</strong> {to_link}&nbsp;					</p>
		<div class="content">{html}</div>
			</div>
	</div>
</div>
</form>
	</div>
</div>
"""
        return self._page(title=f"{self.title} - {s['ucp']} - {s['view_messages']}",
                          section="ucp", body=body, user=user)

    # -- request handling (called from the server threads) --------------------------------
    def _session(self, cookies: dict[str, str]) -> tuple[str, int, bool]:
        sid = cookies.get(f"{self.cookie_name}_sid", "")
        if sid in self.sessions:
            return sid, self.sessions[sid], False
        sid = secrets.token_hex(16)
        self.sessions[sid] = 1
        return sid, 1, True

    def handle(self, method: str, target: str, form: dict[str, str],
               cookies: dict[str, str]) -> tuple[int, dict[str, str], bytes, _Failure | None]:
        """Answer one request: (status, headers, body, failure to apply)."""
        with self._lock:
            self.requests.append((method, target))
            failure = next((f for f in self._failures
                            if f.match is None or f.match in target), None)
            if failure is not None:
                self._failures.remove(failure)
            if failure is not None and failure.kind in ("status", "drop"):
                headers = {}
                if failure.retry_after is not None:
                    headers["Retry-After"] = failure.retry_after
                body = b"<html><body><h1>Service Unavailable</h1></body></html>"
                return failure.status, headers, body, failure
            status, headers, text = self._route(method, target, form, cookies)
            return status, headers, text.encode("utf-8"), failure

    def _route(self, method: str, target: str, form: dict[str, str],
               cookies: dict[str, str]) -> tuple[int, dict[str, str], str]:
        parts = urlsplit(target)
        path = parts.path.rsplit("/", 1)[-1] or "index.php"
        q = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        sid, user, new = self._session(cookies)
        headers: dict[str, str] = {}
        if new:
            headers["Set-Cookie"] = (f"{self.cookie_name}_sid={sid}; path=/; HttpOnly")
        if self.disabled:
            return 200, headers, self.render_message(self.s["disabled"],
                                                     section=path.split(".")[0])
        posted = self.posting_route(method, path, q, form, sid, user, headers)
        if posted is not None:
            return posted
        if path == "ucp.php" and q.get("mode") == "login":
            if user != 1:   # phpBB sends a logged-in user to the index
                return 302, {**headers, "Location": f"{self.url}index.php"}, ""
            return self._login(method, q, form, sid, headers)
        if path == "ucp.php" and q.get("mode") == "logout":
            if user != 1 and q.get("sid") == sid:   # phpBB ends a session only with its sid
                self.sessions[sid] = 1
                self.logouts += 1
            return 302, {**headers, "Location": f"{self.url}index.php"}, ""
        if path == "ucp.php" and q.get("i") in ("pm", "ucp_pm"):
            if user == 1:
                return 200, headers, self.render_login(
                    sid=sid, redirect=f"./ucp.php?{parts.query}", heading=self.s["login_ucp"])
            if q.get("mode") == "view" and q.get("p", "").isdigit():
                page = self.render_pm_view(int(q["p"]), user)
                if page is None:
                    return 200, headers, self.render_message(
                        "Запрошенного сообщения не существует." if self.language == "ru"
                        else "The requested message does not exist.", section="ucp", user=user)
                return 200, headers, page
            return 200, headers, self.render_pm_inbox(user)
        needs_login = self._password is not None and user == 1
        if parts.path.startswith("/app.php/feed"):
            m = re.fullmatch(r"/app\.php/feed/topic/(\d+)/?", parts.path)
            if not self.feed:
                return 404, headers, self.render_message(self.s["no_feed"], section="feed")
            if m is None or int(m.group(1)) not in self.topics or needs_login:
                return 404, headers, self.render_message(self.s["no_topic"], section="feed")
            return 200, {**headers, "Content-Type": "application/atom+xml; charset=UTF-8"}, \
                self.render_topic_feed(int(m.group(1)))
        if path == "viewtopic.php":
            topic_id, start = self._topic_target(q)
            if topic_id is None:
                return 404, headers, self.render_message(self.s["no_topic"])
            if needs_login:
                return 200, headers, self.render_login(
                    sid=sid, redirect=f"./viewtopic.php?t={topic_id}",
                    heading=self.s["login_forum"], section="viewtopic")
            self.topics[topic_id].views += 1
            return 200, headers, self.render_topic(topic_id, start, user=user)
        if path == "viewforum.php":
            f = int(q["f"]) if q.get("f", "").isdigit() else None
            if f not in self.forums:
                return 404, headers, self.render_message(self.s["no_forum"], section="viewforum")
            if needs_login:
                return 200, headers, self.render_login(
                    sid=sid, redirect=f"./viewforum.php?f={f}", heading=self.s["login_forum"],
                    section="viewforum")
            return 200, headers, self.render_forum(f, user=user)
        if path == "index.php":
            links = "".join(f'<li><a href="./viewforum.php?f={f}" class="forumtitle">{_esc(n)}'
                            f'</a></li>\n' for f, n in sorted(self.forums.items()))
            return 200, headers, self._page(title=f"{self.title} - {self.s['index']}",
                                            section="index", user=user,
                                            body=f'<ul class="topiclist forums">\n{links}</ul>\n')
        return 404, headers, self.render_message(self.s["no_topic"])

    def _topic_target(self, q: dict[str, str]) -> tuple[int | None, int]:
        if q.get("t", "").isdigit() and int(q["t"]) in self.topics:
            start = int(q["start"]) if q.get("start", "").isdigit() else 0
            return int(q["t"]), start
        if q.get("p", "").isdigit():
            pid = int(q["p"])
            for t in self.topics.values():
                for i, p in enumerate(t.posts):
                    if p.post_id == pid:
                        return t.topic_id, i - i % self.per_page
        return None, 0

    def _login(self, method: str, q: dict, form: dict, sid: str,
               headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
        redirect = q.get("redirect") or "./ucp.php?mode=login"
        if method != "POST":
            return 200, headers, self.render_login(sid=sid, redirect=redirect,
                                                   index_redirect="redirect" not in q)
        creation = int(form["creation_time"]) if form.get("creation_time", "").isdigit() else 0
        diff = int(self.now().timestamp()) - creation
        token_ok = (form.get("form_token") == self._form_token(sid, creation)
                    and 0 < diff <= 7200)
        if not token_ok:
            return 200, headers, self.render_login(sid=sid, redirect=redirect,
                                                   error=self.s["bad_form"])
        if form.get("username") != self.login_user or self.login_user is None:
            self.failed_logins += 1
            return 200, headers, self.render_login(sid=sid, redirect=redirect,
                                                   error=self.s["bad_user"])
        if self._password is None or form.get("password") != self._password:
            self.failed_logins += 1
            return 200, headers, self.render_login(sid=sid, redirect=redirect,
                                                   error=self.s["bad_password"])
        uid = next((u.user_id for u in self.users.values() if u.name == self.login_user), None)
        if uid is None:
            uid = max(self.users) + 1
            self.add_user(self.login_user, uid)
        self.sessions.pop(sid, None)
        new_sid = secrets.token_hex(16)
        self.sessions[new_sid] = uid
        self.logins += 1
        target = form.get("redirect") or "index.php"
        target = target[2:] if target.startswith("./") else target
        sep = "&" if "?" in target else "?"
        return 302, {"Location": f"{self.url}{target}{sep}sid={new_sid}",
                     "Set-Cookie": f"{self.cookie_name}_sid={new_sid}; path=/; HttpOnly"}, ""


class _Handler(BaseHTTPRequestHandler):
    board: LocalBoard
    server_version = "LocalBoard/1.0"
    sys_version = ""

    def log_message(self, format, *args) -> None:  # noqa: A002 - http.server's name
        pass

    def _cookies(self) -> dict[str, str]:
        out = {}
        for part in (self.headers.get("Cookie") or "").split(";"):
            k, _, v = part.strip().partition("=")
            if k:
                out[k] = v
        return out

    def _answer(self, method: str) -> None:
        form: dict[str, str] = {}
        if method == "POST":
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8", "replace")
            form = {k: v[-1] for k, v in parse_qs(raw, keep_blank_values=True).items()}
        status, headers, body, failure = self.board.handle(method, self.path, form,
                                                           self._cookies())
        if failure is not None and failure.kind == "drop":
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        if failure is not None and failure.kind == "truncate":
            body = body[: max(1, len(body) // 2)]
        self.send_response(status, HTTPStatus(status).phrase if status in
                           HTTPStatus._value2member_map_ else "")
        headers = dict(headers)
        self.send_header("Content-Type", headers.pop("Content-Type", "text/html; charset=UTF-8"))
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Cache-Control", "private, no-cache=\"set-cookie\"")
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(body)

    def send_response(self, code, message=None) -> None:
        # http.server writes its own Date from the real clock; the board's clock is injected.
        self.log_request(code)
        self.send_response_only(code, message)
        self.send_header("Server", self.version_string())
        self.send_header("Date", format_datetime(
            self.board.now().astimezone(timezone.utc), usegmt=True))

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._answer("GET")

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer("HEAD")

    def do_POST(self) -> None:  # noqa: N802
        self._answer("POST")
