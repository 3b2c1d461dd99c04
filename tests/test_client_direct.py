"""ForumClient's GETs straight through urllib3 (``forum/direct.py``, issue 16): the same
answers, cookies and errors as through the requests session, over real HTTP on 127.0.0.1,
and the session's own path wherever the direct one would send something else."""

from __future__ import annotations

import http.server
import socket
import threading
from datetime import datetime, timezone

import pytest
import requests
import responses

from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.errors import FetchError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.direct import DirectGet
from scraper_mod.forum.poller import poll_topic
from scraper_mod.store import Store


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str]]           # (path, the Cookie header sent)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.seen.append((self.path, self.headers.get("Cookie", "")))
        if self.path == "/moved":
            self._answer(302, b"", [("Location", "/page?from=moved")])
        elif self.path == "/login":
            self._answer(200, b"welcome", [("Set-Cookie", "phpbb3_sid=abc123; path=/; HttpOnly"),
                                           ("Set-Cookie", "phpbb3_u=58; path=/")])
        elif self.path == "/elsewhere":
            self._answer(200, b"not for us", [("Set-Cookie", "x=1; domain=other.example; path=/")])
        else:
            self._answer(200, "страница «{}»".format(self.path).encode("utf-8"),
                         [("Content-Type", "text/html; charset=UTF-8")])

    def _answer(self, status: int, body: bytes, headers: list[tuple[str, str]]) -> None:
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server():
    handler = type("H", (_Handler,), {"seen": []})
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv, handler.seen
    srv.shutdown()
    srv.server_close()


def _client(srv, session: requests.Session | None = None) -> ForumClient:
    return ForumClient(session or requests.Session(), base_url=f"http://127.0.0.1:{srv.server_port}/",
                       min_delay=0)


class CountingSession(requests.Session):
    """A session with its own ``send``: the client must send through it."""

    def __init__(self) -> None:
        super().__init__()
        self.sent = 0

    def send(self, request, **kw):
        self.sent += 1
        return super().send(request, **kw)


@pytest.fixture
def session_sends(monkeypatch):
    """Every GET the requests session sends itself (requests.Session.send, counted)."""
    calls: list[str] = []
    original = requests.Session.send

    def send(self, request, **kw):
        calls.append(request.method)
        return original(self, request, **kw)
    monkeypatch.setattr(requests.Session, "send", send)
    return calls


def test_a_get_goes_direct_and_reads_as_through_the_session(server, session_sends):
    srv, seen = server
    direct = _client(srv).get("page?a=1")
    assert session_sends == []                       # not through requests.Session.send
    counting = CountingSession()
    via_session = _client(srv, counting).get("page?a=1")
    assert counting.sent == 1
    assert direct.body == via_session.body == "страница «/page?a=1»".encode("utf-8")
    assert (direct.status, direct.url) == (via_session.status, via_session.url) == (
        200, f"http://127.0.0.1:{srv.server_port}/page?a=1")
    assert direct.headers["Content-Type"] == via_session.headers["Content-Type"]
    assert direct.board_date is not None and direct.board_date == direct.fetched_at
    assert seen == [("/page?a=1", ""), ("/page?a=1", "")]


def test_a_redirect_is_followed_and_the_connection_kept(server, session_sends):
    srv, seen = server
    c = _client(srv)
    r = c.get("moved")
    assert r.url.endswith("/page?from=moved") and r.body.startswith("страница".encode())
    c.get("page?again")
    assert [p for p, _ in seen] == ["/moved", "/page?from=moved", "/page?again"]
    assert session_sends == []


def test_the_boards_cookies_are_kept_and_sent_back(server, session_sends):
    srv, seen = server
    c = _client(srv)
    c.get("login")
    assert {k: v for k, v in c.session.cookies.items()} == {"phpbb3_sid": "abc123",
                                                            "phpbb3_u": "58"}
    c.get("page")
    assert sorted(seen[-1][1].split("; ")) == ["phpbb3_sid=abc123", "phpbb3_u=58"]
    c.get("elsewhere")            # a cookie for another domain is refused, as requests does
    assert "x" not in c.session.cookies.keys()
    assert session_sends == []


def test_a_board_that_is_down_fails_as_through_the_session():
    with socket.socket() as s:               # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    errors = []
    for session in (requests.Session(), CountingSession()):
        c = ForumClient(session, base_url=f"http://127.0.0.1:{port}/", min_delay=0, retries=1,
                        sleep=lambda s: None)
        with pytest.raises(FetchError) as ei:
            c.get("page")
        errors.append(str(ei.value))
    assert errors[0] == errors[1]
    assert "ConnectionError: [Errno 111] Connection refused after 2 attempts" in errors[0]


def test_what_the_session_would_send_otherwise_goes_through_it(monkeypatch):
    s = requests.Session()
    prep = s.prepare_request(requests.Request("GET", "http://board.example/viewtopic.php?t=1"))
    assert DirectGet.usable(s, prep, {})
    post = s.prepare_request(requests.Request("POST", "http://board.example/x", data={"a": 1}))
    assert not DirectGet.usable(s, post, {})
    assert not DirectGet.usable(CountingSession(), prep, {})
    assert not DirectGet.usable(s, prep, {"proxies": {"http": "http://proxy:3128"}})
    assert DirectGet.usable(s, prep, {"proxies": {"https": "http://proxy:3128"}})
    assert not DirectGet.usable(s, prep, {"cert": "/etc/client.pem"})
    tls = s.prepare_request(requests.Request("GET", "https://board.example/viewtopic.php?t=1"))
    assert DirectGet.usable(s, tls, {"verify": True})
    assert not DirectGet.usable(s, tls, {"verify": False})
    assert not DirectGet.usable(s, tls, {"verify": "/etc/ssl/own-ca.pem"})
    hooked = requests.Session()
    hooked.hooks["response"].append(lambda r, **kw: r)
    assert not DirectGet.usable(hooked, prep, {})
    mounted = requests.Session()
    mounted.mount("http://board.example/", requests.adapters.HTTPAdapter(max_retries=3))
    assert not DirectGet.usable(mounted, prep, {})
    with responses.RequestsMock() as mock:     # a test's mock of requests sees every GET
        mock.add(responses.GET, "http://board.example/viewtopic.php?t=1", body="mocked")
        assert not DirectGet.usable(s, prep, {})
        c = ForumClient(s, base_url="http://board.example/", min_delay=0)
        assert c.get("viewtopic.php?t=1").body == b"mocked"


def test_a_poll_of_a_local_board_goes_direct_in_one_board_session(session_sends):
    """LocalBoard keeps a visitor's session by cookie as phpBB does: the poll's pages go
    direct, and the board's session cookie, set on the first page, is sent back after."""
    clock_now = datetime(2024, 4, 9, 12, 0, tzinfo=timezone.utc)
    board = LocalBoard(language="ru", per_page=15).start()
    try:
        tid = board.add_topic("День 1")
        for n in range(20):
            board.add_post("Вася", 58, f"[color=red]Маша_{n}[/color]", clock_now, topic=tid)
        c = ForumClient(base_url=board.url, min_delay=0)
        store = Store(":memory:")
        report = poll_topic(c, store, board.topic_url(tid), now=lambda: clock_now)
        assert len(report.new_posts) == 20
        sids = [v for k, v in c.session.cookies.items() if k.endswith("_sid")]
        assert len(sids) == 1
        board.add_post("Маша_2", 59, "[color=red]Вася[/color]", clock_now, topic=tid)
        report = poll_topic(c, store, board.topic_url(tid), now=lambda: clock_now)
        assert len(report.new_posts) == 1
        assert [v for k, v in c.session.cookies.items() if k.endswith("_sid")] == sids
        assert session_sends == []
    finally:
        board.stop()
