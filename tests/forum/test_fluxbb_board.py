"""FluxbbBoard over pages saved from the real FluxBB board (fixtures/fluxbb/), no network:
the login waits out the board's 3 s rule and never answers a captcha, a reply is «posted»
only when the board's redirect names the post and its page shows it, the host's reply leaves
the merge box unticked, refusals and switched-off PMs are one line with the fix."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

import pytest
import requests
import responses

from scraper_mod.errors import ForumError, LoginRequiredError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.engine import open_board
from scraper_mod.forum.fluxbb.board import LOGIN_WAIT, FluxbbBoard
from scraper_mod.forum.posting import PostRefused

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "fluxbb"
# the pages were saved from the board on port 8391: their links are relative or name it
BASE = "http://127.0.0.1:8391/"


def _page(name: str) -> bytes:
    return (FIX / name).read_bytes()


def _board(slept: list) -> FluxbbBoard:
    client = ForumClient(requests.Session(), base_url=BASE, username="admin", min_delay=0,
                         sleep=slept.append, retries=0)
    board = open_board(client, "fluxbb", password="adminpass1")
    assert isinstance(board, FluxbbBoard)
    return board


def _login_pages(*, captcha: bool = False) -> None:
    if captcha:
        responses.add(responses.GET, BASE + "login.php", body=_page("login-captcha.html"))
    responses.add(responses.GET, BASE + "login.php", body=_page("login-guest.html"))
    responses.add(responses.POST, BASE + "login.php?action=in",
                  body=b'<html><head><meta http-equiv="refresh" content="1;URL=index.php" />'
                       b"</head><body></body></html>")
    responses.add(responses.GET, BASE + "index.php", body=_page("login-logged.html"))


@responses.activate
def test_login_waits_the_boards_3_seconds_and_sends_a_browsers_headers():
    slept: list = []
    board = _board(slept)
    _login_pages()
    board.login()
    assert LOGIN_WAIT in slept and LOGIN_WAIT >= 3
    post = next(c.request for c in responses.calls if c.request.method == "POST")
    sent = parse_qs(post.body)
    assert sent["req_username"] == ["admin"] and sent["req_password"] == ["adminpass1"]
    assert sent["form_key"] and sent["csrf_hash"]          # the form's one-time fields
    headers = post.headers
    assert "Mozilla/5.0" in headers["User-Agent"] and "Gecko" in headers["User-Agent"]
    assert "scraper-mod" in headers["User-Agent"]
    assert headers["Origin"] == BASE.rstrip("/") and headers["Accept-Language"]


@responses.activate
def test_a_captcha_is_waited_out_never_answered():
    slept: list = []
    board = _board(slept)
    _login_pages(captcha=True)
    board.login()
    assert slept[0] == board.captcha_wait and LOGIN_WAIT in slept
    posts = [c.request for c in responses.calls if c.request.method == "POST"]
    assert len(posts) == 1                                  # only the form without captcha


@responses.activate
def test_a_wrong_password_is_one_line():
    board = _board([])
    responses.add(responses.GET, BASE + "login.php", body=_page("login-guest.html"))
    responses.add(responses.POST, BASE + "login.php?action=in", body=_page("login-guest.html")
                  .replace(b'<div id="brdmain">', '<div id="brdmain"><div id="posterror" '
                           'class="block"><ul class="error-list"><li>Неверное имя и/или '
                           "пароль.</li></ul></div>".encode()))
    responses.add(responses.GET, BASE + "index.php", body=_page("index.html"))
    with pytest.raises(LoginRequiredError, match="Неверное имя и/или пароль") as e:
        board.login()
    assert "SCRAPER_MOD_FORUM_PASSWORD" in (e.value.hint or "")


@responses.activate
def test_a_reply_is_posted_when_the_redirect_names_it_and_its_page_shows_it():
    board = _board([])
    _login_pages()
    responses.add(responses.GET, BASE + "post.php?tid=2", body=_page("reply-form-admin.html"))
    responses.add(responses.POST, BASE + "post.php?action=post&tid=2",
                  body=_page("redirect-reply.html").replace(b"pid=39#p39", b"pid=7#p7"))
    responses.add(responses.GET, BASE + "viewtopic.php?pid=7", body=_page("topic-guest.html"))
    posted = board.reply(2, "[b]Итог часа[/b]")
    assert posted.id == 7 and posted.url == BASE + "viewtopic.php?pid=7#p7"
    sent = parse_qs(next(c.request for c in responses.calls
                         if c.request.method == "POST" and "post.php" in c.request.url).body)
    assert sent["req_message"] == ["[b]Итог часа[/b]"]
    assert "merge" not in sent                     # the host's posts are never merged


@responses.activate
def test_a_closed_topic_refuses_the_reply_in_one_line():
    board = _board([])
    _login_pages()
    responses.add(responses.GET, BASE + "post.php?tid=3", body=_page("no-permission.html"),
                  status=403)
    with pytest.raises(PostRefused, match="нет прав") as e:
        board.reply(3, "x")
    assert e.value.kind == "locked" and not e.value.transient


@responses.activate
def test_pms_switched_off_say_so_with_the_fix():
    board = _board([])
    _login_pages()
    responses.add(responses.GET, BASE + "pmsnew.php?mdl=list", body=_page("no-permission.html"),
                  status=403)
    why = board.pms_available()
    assert why and "нет прав" in why and "PMS New" in why and '"maildir"' in why


@responses.activate
def test_the_pm_inbox_is_the_messages_others_wrote():
    board = _board([])
    _login_pages()
    responses.add(responses.GET, BASE + "pmsnew.php?mdl=list", body=_page("pm-list-admin.html"))
    responses.add(responses.GET, BASE + "pmsnew.php?mdl=topic&tid=1",
                  body=_page("pm-dialog-admin.html"))
    rows, problems = board.pm_rows()
    assert not problems
    assert [(r.msg_id, r.author, r.subject) for r in rows] == [(1, "Вася", "Ход"),
                                                               (3, "Вася", "Ход")]
    assert rows[0].url == BASE + "pmsnew.php?mdl=topic&pid=1#p1"
    assert [r.msg_id for r in board.pm_rows("sent")[0]] == [2]


@responses.activate
def test_a_profile_zone_other_than_the_games_is_one_line_not_a_shift():
    """The pages show the viewer's zone (here the board's UTC+3), the feed UTC: read with a
    game in UTC every vote would move by 3 hours; it is said once, with the fix."""
    from datetime import timezone

    responses.add(responses.GET, BASE + "viewtopic.php?id=2", body=_page("topic-guest.html"))
    responses.add(responses.GET, BASE + "extern.php?action=feed&tid=2&type=atom&show=50",
                  body=_page("feed-topic-2.xml"))
    client = ForumClient(requests.Session(), base_url=BASE, min_delay=0, sleep=lambda s: None,
                         retries=0)
    board = FluxbbBoard(client, board_tz=timezone.utc)
    with pytest.raises(ForumError, match=r"\+3\.0 ч: форум показывает гостям") as e:
        board.read_topic_page(2)
    assert "Админка" in (e.value.hint or "") and "[game] timezone" in (e.value.hint or "")
    same = _board([])               # the game's zone is the board's: read, checked once
    assert [p.post_id for p in same.read_topic_page(2).posts] == [2, 3, 4, 5, 6, 7]
    same.read_topic_page(2)
    feeds = [c for c in responses.calls if "extern.php" in c.request.url]
    assert len(feeds) == 2          # one for each board, not one a page
