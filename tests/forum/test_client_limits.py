"""Issue 18 (items 2, 3, 12): what a slow, huge or redirecting board can do to the fetch.

Real HTTP servers on 127.0.0.1, written byte by byte on raw sockets (a board that sends one
byte at a time, a page that never ends, a redirect to another host), and the real
``ForumClient`` with small limits so each test takes a few seconds at most.
"""

from __future__ import annotations

import logging
import socket
import threading
import time

import pytest
import requests

from scraper_mod.errors import FetchError
from scraper_mod.forum.client import ForumClient


class RawServer:
    """An HTTP server on 127.0.0.1 whose every answer is ``handler(conn, request_bytes)``,
    one request per connection (the answers say ``Connection: close`` where it matters)."""

    def __init__(self, handler) -> None:
        self.handler = handler
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.requests: list[bytes] = []
        self.sent = 0
        self._stop = False
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            self.requests.append(data)
            try:
                self.handler(self, conn, data)
            except OSError:
                pass   # the client hung up: what the limits are for

    def send(self, conn: socket.socket, data: bytes) -> None:
        conn.sendall(data)
        self.sent += len(data)

    def close(self) -> None:
        self._stop = True
        self.sock.close()


@pytest.fixture
def servers():
    made: list[RawServer] = []

    def make(handler) -> RawServer:
        made.append(RawServer(handler))
        return made[-1]
    yield make
    for s in made:
        s.close()


def client(port: int, host: str = "127.0.0.1", **kw) -> ForumClient:
    kw.setdefault("min_delay", 0)
    kw.setdefault("backoff", 0.05)
    return ForumClient(requests.Session(), base_url=f"http://{host}:{port}/", **kw)


PAGE = b"<html><body><div class='postbody'>" + "Голос".encode() + b"</div></body></html>"


def one_byte_a_tick(tick: float):
    """A board that sends its headers, then its body one byte every ``tick`` seconds (its
    Content-Length true: it would finish, very late)."""
    def handler(srv: RawServer, conn: socket.socket, _req: bytes) -> None:
        body = PAGE * 50
        srv.send(conn, b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                       b"Content-Length: %d\r\n\r\n" % len(body))
        for i in range(len(body)):
            srv.send(conn, body[i:i + 1])
            time.sleep(tick)
    return handler


def test_item2_a_board_sending_one_byte_at_a_time_is_given_up_with_a_clear_error(servers):
    """Was: `posts` hung past 150 s on a board sending one byte a second (each byte came
    within requests' read timeout). Now each request has a wall-clock limit, body included,
    and is retried; the page has one too."""
    srv = servers(one_byte_a_tick(0.05))      # 3,500 bytes: 175 s to send them all
    c = client(srv.port, timeout=5, retries=2, request_time_limit=0.6, page_time_limit=30)
    started = time.monotonic()
    with pytest.raises(FetchError) as ei:
        c.get("viewtopic.php?t=1")
    took = time.monotonic() - started
    assert took < 6, took                      # 3 attempts of 0.6 s, two short waits (not 175 s)
    msg = str(ei.value)
    assert "not answered within the request time limit of 0.6 s ([forum] request_time_limit)" \
        in msg and "after 3 attempts" in msg and "viewtopic.php?t=1" in msg
    assert len(srv.requests) == 3              # the usual retries
    assert c.requests == 3


def test_item2_the_page_time_limit_bounds_all_attempts(servers):
    srv = servers(one_byte_a_tick(0.05))
    c = client(srv.port, timeout=5, retries=20, request_time_limit=0.5, page_time_limit=1.2,
               backoff=0.1)
    started = time.monotonic()
    with pytest.raises(FetchError) as ei:
        c.get_page("viewtopic.php?t=1")
    assert time.monotonic() - started < 4
    assert "the page time limit of 1.2 s ([forum] page_time_limit) is reached" in str(ei.value)
    assert len(srv.requests) < 5               # not 21 attempts


def test_a_slow_but_steady_board_within_the_limits_is_read(servers):
    srv = servers(one_byte_a_tick(0.0005))
    c = client(srv.port, timeout=5, request_time_limit=20)
    assert c.get("viewtopic.php?t=1").body == PAGE * 50


def endless(srv: RawServer, conn: socket.socket, _req: bytes) -> None:
    """A page that never ends (no Content-Length, the body until the connection closes)."""
    srv.send(conn, b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n")
    block = b"<p>" + b"x" * 65533
    while True:
        srv.send(conn, block)


def test_item3_a_page_that_never_ends_is_read_up_to_the_limit(servers):
    """Was: a 1 GiB page took 2.15 GB of memory before «not a phpBB page». Now reading stops
    past max_page_size, with an error naming the limit and the URL."""
    srv = servers(endless)
    c = client(srv.port, max_page_size=2 << 20, retries=3)
    with pytest.raises(FetchError) as ei:
        c.get("viewtopic.php?t=7")
    msg = str(ei.value)
    assert "the page is larger than the page size limit of 2 MiB ([forum] max_page_size)" in msg
    assert "viewtopic.php?t=7" in msg
    assert len(srv.requests) == 1              # not retried: another try gives the same page
    time.sleep(0.2)
    assert srv.sent < 12 << 20                 # the client stopped reading (socket buffers aside)


def test_item3_a_content_length_over_the_limit_is_refused_before_reading(servers):
    def big(srv, conn, _req):
        srv.send(conn, b"HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n" + b"x" * 1000)
        time.sleep(1)
    srv = servers(big)
    with pytest.raises(FetchError, match=r"1 GiB by its Content-Length\) \(\[forum\] "
                                         r"max_page_size\)"):
        client(srv.port).get("viewtopic.php?t=7")


def redirect_to(url: str):
    def handler(srv, conn, _req):
        srv.send(conn, b"HTTP/1.1 302 Found\r\nLocation: " + url.encode() +
                 b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    return handler


def ok(srv, conn, _req):
    srv.send(conn, b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
             % len(PAGE) + PAGE)


def test_item12_a_redirect_to_another_host_is_logged(servers, caplog):
    """Was followed without a word. Now logged (and followed: no session to protect)."""
    other = servers(ok)
    board = servers(redirect_to(f"http://localhost:{other.port}/elsewhere?sid=0123456789abcdef"
                                "0123456789abcdef"))
    with caplog.at_level(logging.WARNING):
        r = client(board.port).get("viewtopic.php?t=1")
    assert r.body == PAGE and r.url == f"http://localhost:{other.port}/elsewhere?sid=" \
        "0123456789abcdef0123456789abcdef"
    assert (f"http://127.0.0.1:{board.port}/viewtopic.php?t=1 redirects to another host: "
            f"http://localhost:{other.port}/elsewhere?sid=") in caplog.text
    assert "0123456789abcdef0123456789abcdef" not in caplog.text


def test_item12_a_redirect_to_another_host_is_refused_when_logged_in(servers):
    """The logged-in session's cookie must never go to another host: the redirect is not
    followed, and the other host gets no request."""
    other = servers(ok)
    board = servers(redirect_to(f"http://localhost:{other.port}/"))
    c = client(board.port)
    c.logins = 1                                # as after ForumClient.login()
    c.session.cookies.set("phpbb3_abc_sid", "0123456789abcdef0123456789abcdef",
                          domain="127.0.0.1", path="/")
    with pytest.raises(FetchError) as ei:
        c.get("viewtopic.php?t=1")
    assert "redirected to another host (localhost); not followed while logged in" in str(ei.value)
    assert other.requests == []


def test_a_redirect_on_the_same_host_is_followed(servers):
    board = servers(lambda srv, conn, req: (redirect_to("/viewtopic.php?t=2")
                                            if b"t=1" in req.split(b"\r\n")[0] else ok)(
        srv, conn, req))
    c = client(board.port)
    c.logins = 1
    c.session.cookies.set("phpbb3_abc_sid", "0" * 32, domain="127.0.0.1", path="/")
    r = c.get("viewtopic.php?t=1")
    assert r.body == PAGE and r.url.endswith("/viewtopic.php?t=2")


def test_a_redirect_loop_ends(servers):
    board = servers(redirect_to("/loop"))
    with pytest.raises(FetchError, match="more than 10 redirects"):
        client(board.port).get("loop")
