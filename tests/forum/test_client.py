"""ForumClient against `responses`: retries, back-off, Retry-After, pacing, login, errors.

Every wait goes through an injected fake clock, so nothing here sleeps.
"""

from __future__ import annotations

import logging
import re
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path
from urllib.parse import parse_qs

import pytest
import requests
import responses

from scraper_mod import __version__
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.errors import (
    BoardDisabledError,
    FetchError,
    LoginRequiredError,
    TopicNotFoundError,
)
from scraper_mod.forum.client import (
    ForumClient,
    find_login_form,
    parse_http_date,
    retry_after_seconds,
)

BASE = "https://forum.example.org/"
TOPIC = BASE + "viewtopic.php?t=4"
SECRET = "s3cr3t-Пароль!"
BOARD_NOW = datetime(2024, 4, 9, 16, 59, 30, tzinfo=timezone.utc)
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb"


class FakeTime:
    """sleep() advances monotonic(); records every wait."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.sleeps: list[float] = []

    def sleep(self, s: float) -> None:
        self.sleeps.append(round(s, 6))
        self.t += s

    def monotonic(self) -> float:
        return self.t

    def now(self) -> datetime:
        return BOARD_NOW + timedelta(seconds=self.t - 1000.0)


@pytest.fixture
def ft() -> FakeTime:
    return FakeTime()


def make_client(ft: FakeTime, **kw) -> ForumClient:
    kw.setdefault("min_delay", 0)
    return ForumClient(requests.Session(), base_url=BASE, sleep=ft.sleep,
                       monotonic=ft.monotonic, now=ft.now, **kw)


def date_header(t: datetime) -> str:
    return format_datetime(t.astimezone(timezone.utc), usegmt=True)


# A board (not started: only its renderer) for realistic pages.
_board = LocalBoard(language="ru")
_tid = _board.add_topic("День 1 — голосование", topic_id=4)
_board.add_post("Вася", 58, "[color=red]Маша_2[/color]", BOARD_NOW)
_board._server = type("S", (), {"server_address": ("127.0.0.1", 8033)})()  # for .url only


def topic_html() -> str:
    return _board.render_topic(4)


def login_html(error: str | None = None, *, sid: str = "9b13b0d7c2dfe91c979a0f0a9f453a3f",
               redirect: str = "./ucp.php?mode=login", heading: str | None = None) -> str:
    return _board.render_login(sid=sid, redirect=redirect, error=error, heading=heading,
                               index_redirect=heading is None)


def fixture(name: str) -> bytes:
    path = FIXTURES / name
    if not path.exists():
        pytest.skip(f"fixture {name} not copied yet")
    return path.read_bytes()


# -- plain GETs -------------------------------------------------------------------------------

@responses.activate
def test_user_agent_timeout_and_board_clock(ft):
    responses.add(responses.GET, TOPIC, body=topic_html(),
                  headers={"Date": "Tue, 09 Apr 2024 17:35:05 GMT"})
    c = make_client(ft, timeout=12)
    r = c.get("viewtopic.php?t=4")
    sent = responses.calls[0].request
    assert sent.headers["User-Agent"] == f"scraper-mod/{__version__} (+forum mafia host tool)"
    assert r.status == 200 and r.url == TOPIC
    assert r.fetched_at == datetime(2024, 4, 9, 17, 35, 5, tzinfo=timezone.utc)
    assert r.board_date == r.fetched_at
    assert r.requested_at == BOARD_NOW
    assert c.requests == 1 and ft.sleeps == []


@responses.activate
def test_timeout_passed_to_session(ft):
    seen = {}

    class Spy(requests.Session):
        def send(self, *a, **kw):
            seen.update(kw)
            return super().send(*a, **kw)
    responses.add(responses.GET, TOPIC, body="x")
    ForumClient(Spy(), base_url=BASE, timeout=7.5, min_delay=0, sleep=ft.sleep,
                monotonic=ft.monotonic).get(TOPIC)
    assert seen["timeout"] == 7.5


@responses.activate
def test_fetched_at_falls_back_to_injected_now_without_date(ft):
    responses.add(responses.GET, TOPIC, body="x", headers={"Date": "not a date"})
    r = make_client(ft).get(TOPIC)
    assert r.board_date is None and r.fetched_at == BOARD_NOW


@responses.activate
def test_404_is_returned_by_get_not_raised(ft):
    responses.add(responses.GET, TOPIC, body="<html>gone</html>", status=404)
    r = make_client(ft).get(TOPIC)
    assert r.status == 404 and r.body == b"<html>gone</html>"


# -- retries and back-off ---------------------------------------------------------------------

@responses.activate
def test_5xx_retried_with_exponential_backoff(ft):
    for status in (500, 502, 503):
        responses.add(responses.GET, TOPIC, body="busy", status=status)
    responses.add(responses.GET, TOPIC, body=topic_html())
    c = make_client(ft)
    r = c.get(TOPIC)
    assert r.status == 200
    assert ft.sleeps == [1.0, 2.0, 4.0]
    assert c.requests == 4 and len(responses.calls) == 4


@responses.activate
def test_gives_up_after_retries_with_clear_error(ft):
    responses.add(responses.GET, TOPIC, body="busy", status=503)
    c = make_client(ft, retries=3)
    with pytest.raises(FetchError) as ei:
        c.get(TOPIC)
    assert "HTTP 503 after 4 attempts" in str(ei.value) and TOPIC in str(ei.value)
    assert ft.sleeps == [1.0, 2.0, 4.0]  # no pointless wait after the last attempt
    assert len(responses.calls) == 4


@responses.activate
def test_backoff_is_capped(ft):
    responses.add(responses.GET, TOPIC, body="busy", status=500)
    c = make_client(ft, retries=8, max_backoff=10)
    with pytest.raises(FetchError):
        c.get(TOPIC)
    assert ft.sleeps == [1, 2, 4, 8, 10, 10, 10, 10]


@responses.activate
def test_connection_errors_retried(ft):
    responses.add(responses.GET, TOPIC, body=requests.ConnectionError("reset by peer"))
    responses.add(responses.GET, TOPIC, body=requests.exceptions.ReadTimeout("slow"))
    responses.add(responses.GET, TOPIC, body=topic_html())
    c = make_client(ft)
    assert c.get(TOPIC).status == 200
    assert ft.sleeps == [1.0, 2.0]


@responses.activate
def test_connection_errors_exhausted(ft):
    responses.add(responses.GET, TOPIC, body=requests.ConnectionError("refused"))
    with pytest.raises(FetchError) as ei:
        make_client(ft, retries=2).get(TOPIC)
    assert "ConnectionError after 3 attempts" in str(ei.value)
    assert "check that the board is reachable" in str(ei.value)


@responses.activate
def test_429_retry_after_seconds_honoured(ft):
    responses.add(responses.GET, TOPIC, body="slow down", status=429,
                  headers={"Retry-After": "7"})
    responses.add(responses.GET, TOPIC, body=topic_html())
    make_client(ft).get(TOPIC)
    assert ft.sleeps == [7.0]


@responses.activate
def test_503_retry_after_http_date_counted_from_board_clock(ft):
    board = datetime(2024, 4, 9, 17, 0, 0, tzinfo=timezone.utc)
    responses.add(responses.GET, TOPIC, body="maintenance", status=503,
                  headers={"Date": date_header(board),
                           "Retry-After": date_header(board + timedelta(seconds=12))})
    responses.add(responses.GET, TOPIC, body=topic_html())
    make_client(ft).get(TOPIC)
    assert ft.sleeps == [12.0]


@responses.activate
def test_retry_after_too_long_fails_at_once(ft):
    responses.add(responses.GET, TOPIC, body="down", status=503,
                  headers={"Retry-After": "3600"})
    with pytest.raises(FetchError) as ei:
        make_client(ft).get(TOPIC)
    assert "retry after 3600 s" in str(ei.value)
    assert ft.sleeps == [] and len(responses.calls) == 1


def test_retry_after_parsing():
    now = datetime(2024, 4, 9, 17, 0, tzinfo=timezone.utc)
    assert retry_after_seconds("120", now=now) == 120
    assert retry_after_seconds(" 0 ", now=now) == 0
    assert retry_after_seconds("Tue, 09 Apr 2024 17:01:30 GMT", now=now) == 90
    assert retry_after_seconds("Tue, 09 Apr 2024 16:00:00 GMT", now=now) == 0  # past
    assert retry_after_seconds("soon", now=now) is None
    assert retry_after_seconds(None, now=now) is None
    assert parse_http_date("Wed, 02 Dec 2026 13:13:42 GMT") == datetime(
        2026, 12, 2, 13, 13, 42, tzinfo=timezone.utc)
    assert parse_http_date("garbage") is None


# -- pacing ---------------------------------------------------------------------------------------

@responses.activate
def test_min_delay_between_requests(ft):
    responses.add(responses.GET, TOPIC, body=topic_html())
    c = make_client(ft, min_delay=2.5)
    c.get(TOPIC)
    assert ft.sleeps == []           # the first request never waits
    ft.t += 1.0                      # one second of work in between
    c.get(TOPIC)
    assert ft.sleeps == [1.5]
    ft.t += 10
    c.get(TOPIC)
    assert ft.sleeps == [1.5]        # long enough apart: no wait


@responses.activate
def test_min_delay_also_spaces_retries(ft):
    responses.add(responses.GET, TOPIC, body="x", status=500)
    responses.add(responses.GET, TOPIC, body=topic_html())
    c = make_client(ft, min_delay=3)
    c.get(TOPIC)
    # back-off 1 s, then 2 s more to reach the 3 s minimum gap
    assert ft.sleeps == [1.0, 2.0]


def test_bad_base_url():
    with pytest.raises(Exception) as ei:
        ForumClient(base_url="forum.example.org")
    assert "not an http(s) URL" in str(ei.value)


# -- login ------------------------------------------------------------------------------------

def _form(call) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(call.request.body).items()}


@responses.activate
def test_login_sends_the_forms_hidden_fields(ft):
    responses.add(responses.GET, BASE + "ucp.php?mode=login", body=login_html())
    responses.add(responses.POST, BASE + "ucp.php?mode=login", status=302,
                  headers={"Location": BASE + "index.php?sid=0123456789abcdef0123456789abcdef",
                           "Set-Cookie": "phpbb3_x_sid=0123456789abcdef0123456789abcdef; path=/"})
    c = make_client(ft, username="admin", password=SECRET)
    c.login()
    form = _form(responses.calls[1])
    assert form["username"] == "admin" and form["password"] == SECRET
    assert form["sid"] == "9b13b0d7c2dfe91c979a0f0a9f453a3f"
    assert re.fullmatch(r"[0-9a-f]{40}", form["form_token"])
    assert form["creation_time"].isdigit()
    assert form["redirect"] == "index.php"   # the last of the two, as PHP reads it
    assert form["login"] == "Вход"
    assert "autologin" not in form and "viewonline" not in form
    assert ft.sleeps == [1.0]  # phpBB rejects a form posted in the second it was made
    assert c.logins == 1
    assert c.session.cookies.get("phpbb3_x_sid") == "0123456789abcdef0123456789abcdef"


@responses.activate
def test_login_refused_names_the_reason_never_the_password(ft, caplog):
    caplog.set_level(logging.DEBUG)
    responses.add(responses.GET, BASE + "ucp.php?mode=login", body=login_html())
    responses.add(responses.POST, BASE + "ucp.php?mode=login",
                  body=login_html(error="Вы ввели неверный пароль. Проверьте правильность."))
    c = make_client(ft, username="admin", password=SECRET)
    with pytest.raises(LoginRequiredError) as ei:
        c.login()
    msg = str(ei.value)
    assert "refused the login as 'admin'" in msg and "неверный пароль" in msg
    assert "SCRAPER_MOD_FORUM_PASSWORD" in msg
    assert SECRET not in msg and SECRET not in repr(ei.value)
    assert SECRET not in caplog.text and SECRET not in repr(c)
    assert c.logins == 0


def test_password_from_environment(monkeypatch, ft):
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", SECRET)
    c = make_client(ft, username="admin")
    assert c.can_login
    assert SECRET not in repr(c) and SECRET not in str(vars(c).get("username"))
    monkeypatch.delenv("SCRAPER_MOD_FORUM_PASSWORD")
    assert not make_client(ft, username="admin").can_login


@responses.activate
def test_expired_session_logs_in_again_once(ft, caplog):
    caplog.set_level(logging.DEBUG)
    responses.add(responses.GET, TOPIC, body=login_html(
        heading="Для просмотра этого форума вы должны быть авторизованы.",
        redirect="./viewtopic.php?t=4"))
    responses.add(responses.GET, BASE + "ucp.php?mode=login", body=login_html())
    responses.add(responses.POST, BASE + "ucp.php?mode=login", status=302,
                  headers={"Location": BASE + "viewtopic.php?t=4"})
    responses.add(responses.GET, TOPIC, body=topic_html())
    seen = []
    c = make_client(ft, username="admin", password=SECRET)
    r = c.get_page(TOPIC, on_fetch=lambda res: seen.append((res.url, res.status)))
    assert b'id="p1"' in r.body
    assert [(m, u) for m, u in ((x.request.method, x.request.url) for x in responses.calls)] == [
        ("GET", TOPIC), ("GET", BASE + "ucp.php?mode=login"),
        ("POST", BASE + "ucp.php?mode=login"), ("GET", TOPIC)]
    assert len(seen) == 4 and c.logins == 1 and c.requests == 4
    assert SECRET not in caplog.text


@responses.activate
def test_still_login_form_after_login_is_an_error(ft):
    page = login_html(heading="Для просмотра этого форума вы должны быть авторизованы.")
    responses.add(responses.GET, TOPIC, body=page)
    responses.add(responses.GET, BASE + "ucp.php?mode=login", body=login_html())
    responses.add(responses.POST, BASE + "ucp.php?mode=login", status=302,
                  headers={"Location": BASE})
    c = make_client(ft, username="bot", password=SECRET)
    with pytest.raises(LoginRequiredError) as ei:
        c.get_page(TOPIC)
    assert "still asked to log in" in str(ei.value) and SECRET not in str(ei.value)
    assert len(responses.calls) == 4  # one relogin, not a loop


@responses.activate
def test_login_required_without_credentials(ft, monkeypatch):
    monkeypatch.delenv("SCRAPER_MOD_FORUM_PASSWORD", raising=False)
    responses.add(responses.GET, TOPIC, body=login_html(
        heading="Для просмотра этого форума вы должны быть авторизованы."))
    with pytest.raises(LoginRequiredError) as ei:
        make_client(ft).get_page(TOPIC)
    assert "logged-in users only" in str(ei.value) and TOPIC in str(ei.value)
    assert "SCRAPER_MOD_FORUM_PASSWORD" in str(ei.value)


def test_find_login_form_ignores_topic_pages():
    assert find_login_form(topic_html().encode(), url=TOPIC) is None
    form = find_login_form(login_html().encode(), url=BASE + "ucp.php?mode=login")
    assert form.action == BASE + "ucp.php?mode=login"
    assert set(form.hidden) == {"redirect", "creation_time", "form_token", "sid"}


@pytest.mark.parametrize("name,action,redirect", [
    ("phpbb-3.3.15/pm/prosilver-ru/login_required_inbox.html",
     BASE + "ucp.php?mode=login", "./ucp.php?folder=inbox&i=pm"),
    ("phpbb-3.3.15/pm/prosilver-ru/login_required_inbox_nocookie.html",
     BASE + "ucp.php?mode=login&sid=5181cc33ff6022df6e68ceeea1eeb205",
     "./ucp.php?folder=inbox&i=pm&sid=5181cc33ff6022df6e68ceeea1eeb205"),
    ("phpbb-3.3.15/pm/subsilver2-port-gorski-ru/login_required_inbox.html",
     BASE + "ucp.php?style=2&mode=login", "./ucp.php?folder=inbox&i=pm&style=2&style=2"),
    ("phpbb-3.3.15/pm/prosilver-ru/login_page_ucp_mode_login.html",
     BASE + "ucp.php?mode=login", "index.php"),   # two redirect inputs: the last one
    ("phpbb-3.3.15/prosilver-en/guest_viewforum_f5_login_required.html",
     BASE + "ucp.php?mode=login", "./viewforum.php?f=5"),
])
def test_real_login_forms(name, action, redirect):
    form = find_login_form(fixture(name), url=BASE + "ucp.php?i=pm&folder=inbox")
    assert form.action == action and form.hidden["redirect"] == redirect
    assert set(form.hidden) == {"redirect", "creation_time", "form_token", "sid"}
    assert form.submit_name == "login"


@pytest.mark.parametrize("name", [
    "phpbb-3.3.15/prosilver-ru/guest_viewtopic_t4_start0.html",
    "phpbb-3.3.15/subsilver2-port-gorski-ru/guest_viewtopic_t4_start0.html",
    "phpbb-3.3.15/pm/prosilver-ru/inbox.html",
    "phpbb-3.3.15/prosilver-ru/guest_viewforum_f3.html",
])
def test_pages_without_a_login_form(name):
    assert find_login_form(fixture(name), url=TOPIC) is None


# -- error pages (the real phpBB 3.3.15 pages) ----------------------------------------------

@pytest.mark.parametrize("name,status,error", [
    ("phpbb-3.3.15/prosilver-ru/guest_viewtopic_t9999_not_found.html", 404, TopicNotFoundError),
    ("phpbb-3.3.15/prosilver-en/guest_viewtopic_t9999_not_found.html", 404, TopicNotFoundError),
    ("phpbb-3.3.15/prosilver-ru/guest_viewtopic_t4_board_disabled.html", 200,
     BoardDisabledError),
    ("phpbb-3.3.15/prosilver-en/guest_viewtopic_t4_board_disabled.html", 200,
     BoardDisabledError),
    ("phpbb-3.3.15/prosilver-ru/guest_viewtopic_t7_login_required.html", 200,
     LoginRequiredError),
    ("phpbb-3.3.15/prosilver-en/guest_viewtopic_t7_login_required.html", 200,
     LoginRequiredError),
])
@responses.activate
def test_error_pages_map_to_errors(ft, name, status, error, monkeypatch):
    monkeypatch.delenv("SCRAPER_MOD_FORUM_PASSWORD", raising=False)
    responses.add(responses.GET, TOPIC, body=fixture(name), status=status)
    with pytest.raises(error) as ei:
        make_client(ft).get_page(TOPIC)
    assert TOPIC in str(ei.value)


@responses.activate
def test_real_topic_page_passes_get_page(ft):
    body = fixture("phpbb-3.3.15/prosilver-ru/guest_viewtopic_t4_start0.html")
    responses.add(responses.GET, TOPIC, body=body)
    assert make_client(ft).get_page(TOPIC).body == body


# -- header parsing never fails ---------------------------------------------------------------

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st


@given(st.text(max_size=60))
def test_header_parsing_never_raises(value):
    now = datetime(2024, 4, 9, 17, 0, tzinfo=timezone.utc)
    wait = retry_after_seconds(value, now=now)
    assert wait is None or wait >= 0
    t = parse_http_date(value)
    assert t is None or t.tzinfo is not None


@responses.activate
@pytest.mark.parametrize("status,body", [
    (404, "<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found"
          "</h1></center><hr><center>nginx/1.22.1</center></body></html>"),
    (403, "<html><head><title>403 Forbidden</title></head><body>Forbidden</body></html>"),
    (410, ""),
])
def test_a_web_servers_own_error_page_names_the_status(ft, status, body):
    """Not phpBB's «topic does not exist» but the web server's own error: the message says
    the HTTP status and what to check, not "not a phpBB page"."""
    responses.get(TOPIC, body=body, status=status, content_type="text/html")
    with pytest.raises(FetchError) as e:
        make_client(ft).get_page(TOPIC)
    assert f"HTTP {status}" in str(e.value) and TOPIC in str(e.value)
    assert "check the URL" in str(e.value)


@responses.activate
def test_phpbbs_own_404_is_still_topic_not_found(ft):
    page = (FIXTURES / "phpbb-3.3.15" / "prosilver-ru" / "guest_viewtopic_t9999_not_found.html")
    responses.get(TOPIC, body=page.read_bytes(), status=404, content_type="text/html")
    with pytest.raises(TopicNotFoundError):
        make_client(ft).get_page(TOPIC)


@responses.activate
def test_a_repeated_get_carries_the_cookies_the_board_set_since(ft):
    """A GET of the same URL is sent as prepared before only while the session's cookies
    and headers are the same: a cookie the board set, one the client dropped, a header added
    between two GETs all reach the next request, and a cookie that has expired leaves it."""
    responses.add(responses.GET, TOPIC, body="a", headers={"Set-Cookie": "bb_sid=one; Path=/"})
    responses.add(responses.GET, TOPIC, body="b", headers={"Set-Cookie": "bb_sid=two; Path=/"})
    responses.add(responses.GET, TOPIC, body="c")
    responses.add(responses.GET, TOPIC, body="d")
    responses.add(responses.GET, TOPIC, body="e")
    responses.add(responses.GET, TOPIC, body="f")
    responses.add(responses.GET, TOPIC, body="g")
    c = make_client(ft)
    bodies = [c.get(TOPIC).body]
    bodies.append(c.get(TOPIC).body)          # sends bb_sid=one
    bodies.append(c.get(TOPIC).body)          # sends bb_sid=two
    c.session.cookies.clear()
    bodies.append(c.get(TOPIC).body)          # sends none
    c.session.headers["X-Test"] = "1"
    bodies.append(c.get(TOPIC).body)          # the new header
    c.session.cookies.set("bb_sid", "three", domain="forum.example.org", path="/",
                          expires=int(time.time()) + 2)
    bodies.append(c.get(TOPIC).body)
    time.sleep(2.1)                           # the cookie has expired: not sent any more
    bodies.append(c.get(TOPIC).body)
    assert bodies == [b"a", b"b", b"c", b"d", b"e", b"f", b"g"]
    sent = [(call.request.headers.get("Cookie"), call.request.headers.get("X-Test"))
            for call in responses.calls]
    assert sent == [(None, None), ("bb_sid=one", None), ("bb_sid=two", None), (None, None),
                    (None, "1"), ("bb_sid=three", "1"), (None, "1")]


# -- the QA pass: pacing --------------------------------------------------------------------------


def test_the_full_scan_is_never_paced_slower_than_the_days_polls():
    """[forum] full_scan_delay (default 0.5 s) speeds up the deadline's re-scan; with
    min_delay = 0 (a local board, the tests' games) it made the re-scan the slow one."""
    assert ForumClient(base_url="http://127.0.0.1/", min_delay=0,
                       full_scan_delay=0.5).full_scan_delay == 0
    assert ForumClient(base_url="http://127.0.0.1/", min_delay=1.0,
                       full_scan_delay=0.5).full_scan_delay == 0.5
    assert ForumClient(base_url="http://127.0.0.1/", min_delay=2.0).full_scan_delay == 2.0
