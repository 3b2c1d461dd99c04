"""LocalBoard: a small phpBB 3.3.15 look-alike on 127.0.0.1, for tests, the demo and benches.

A real threaded HTTP server (``http.server``) holding mutable topics and rendering them as
phpBB 3.3.15 prosilver pages, faithful to the markup of the real pages the parser is checked
against (``div.post#pNN``, ``dl.postprofile``, ``<time datetime>``, ``div.content``,
``blockquote``/``cite`` quotes, ``span style="color:…"``, ``strong.text-strong``, the edit
notice ``div.notice``, pagination with ``start=``, ``viewforum.php`` listings,
``ucp.php?mode=login`` with a real form and a cookie session). The post blocks of the real
topic, rebuilt on a LocalBoard, come out byte for byte as phpBB rendered them
(tests/demo/test_localboard.py)::

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

import re
import secrets
import socket
import sys
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import format_datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

from ..clock import Clock
from .localboard_forms import PostingForms
from .localboard_model import BoardPM, BoardPost, BoardTopic, BoardUser
from .localboard_pages import BoardPages
from .localboard_pm import PMPages
from .localboard_text import STRINGS, esc


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


class LocalBoard(PostingForms, BoardPages, PMPages):
    """A phpBB 3.3.15 prosilver look-alike on 127.0.0.1 (see the module docstring)."""

    cookie_name = "phpbb3_local"

    def __init__(self, *, language: str = "ru", timezone_name: str = "Europe/Moscow",
                 clock: Clock | Callable[[], datetime] | None = None, per_page: int = 25,
                 title: str = "Mafia Test Board",
                 forum_id: int = 3, forum_name: str | None = None,
                 username: str | None = None, password: str | None = None,
                 relative_dates: bool = False, time_tags: bool = True,
                 first_post_id: int = 1, feed: bool = False, feed_limit: int = 15,
                 custom_bbcodes: tuple[str, ...] = ("spoiler",)) -> None:
        if language not in STRINGS:
            raise ValueError(f"language must be one of {sorted(STRINGS)}")
        self.language = language
        self.s = STRINGS[language]
        self.tz = ZoneInfo(timezone_name)
        self.now = _now_from(clock)
        self.per_page = per_page
        self.title = title
        self.relative_dates = relative_dates
        self.time_tags = time_tags   # False: no <time datetime> (prosilver before 3.2.9)
        self.feed = feed             # True: phpBB's Atom feeds (linked from topic pages)
        self.feed_limit = feed_limit  # phpBB's feed_limit_post
        # the board's own BBCodes (posts/bbcode.CUSTOM_TAGS): the real fixture board has spoiler
        self.custom_bbcodes = custom_bbcodes
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
        self._conns: set[socket.socket] = set()   # the connections open now (keep-alive)
        self.connections = 0                        # connections accepted in all
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
        self._server = _Server(("127.0.0.1", 0), Handler)
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
        # the connections kept alive end with the board, as a stopped server's do
        with self._lock:
            conns, self._conns = list(self._conns), set()
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
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
            links = "".join(f'<li><a href="./viewforum.php?f={f}" class="forumtitle">{esc(n)}'
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


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        # a client that hung up mid-answer (a page left unread, a test's dropped connection)
        # is not the board's error: a web server logs it quietly, not with a traceback
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    board: LocalBoard
    server_version = "LocalBoard/1.0"
    sys_version = ""
    # HTTP/1.1 with keep-alive, as a board behind Apache or nginx answers (every answer has
    # its Content-Length); an idle connection is closed after a while, as theirs are
    protocol_version = "HTTP/1.1"
    timeout = 30
    # the headers and the body are two writes: without TCP_NODELAY (which Apache and nginx
    # set) the body waits for the client's delayed ACK, 40 ms a page on Linux
    disable_nagle_algorithm = True

    def setup(self) -> None:
        super().setup()
        with self.board._lock:
            self.board._conns.add(self.connection)
            self.board.connections += 1

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            with self.board._lock:
                self.board._conns.discard(self.connection)

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
