"""Private messages (the host's inbox and message pages) against pm/README.md's truth."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from test_parser_helpers import BOARD, moscow, page, truth

from scraper_mod.errors import LoginRequiredError, NotABoardPageError, ParseError
from scraper_mod.forum.phpbb.pm import parse_pm_inbox, parse_pm_view

PM = truth()["pm"]
MSGS = {m["msg_id"]: m for m in PM["messages"]}
INBOXES = [("pm/prosilver-ru", "inbox.html", True), ("pm/prosilver-ru", "inbox_after_reading.html",
                                                     False),
           ("pm/prosilver-en", "inbox.html", True),
           ("pm/prosilver-en", "inbox_dateformat_D_M_d_Y_g_i_a.html", True),
           ("pm/subsilver2-port-gorski-ru", "inbox.html", True),
           ("pm/subsilver2-port-gorski-ru", "inbox_after_reading.html", False)]
VIEW_IDS = [1, 2, 3, 4, 6, 7, 8, 9]


@pytest.mark.parametrize("folder,name,unread", INBOXES)
def test_inbox_rows(folder, name, unread):
    body, url, fetched_at = page(folder, name)
    rows = parse_pm_inbox(body, url=url, fetched_at=fetched_at)
    assert [r.msg_id for r in rows] == PM["inbox_order"]
    for r in rows:
        m = MSGS[r.msg_id]
        assert (r.subject, r.author, r.author_id) == (m["subject"], m["author"], m["author_id"])
        exact = moscow(m["sent_moscow"])
        assert r.precision == "minute"          # PM pages never show seconds
        assert r.earliest == r.sent_at == exact.replace(second=0)
        assert r.latest == exact.replace(second=59)
        assert r.unread is unread
        style = "style=2&" if "subsilver2" in folder else ""
        assert r.url == f"{BOARD}/ucp.php?{style}i=pm&mode=view&f=0&p={r.msg_id}"


def test_deadline_messages_by_minute():
    """R2.6 with minutes only: 19:59:58 shows 19:59 (before 20:00), 20:00:30 shows 20:00."""
    body, url, fetched_at = page("pm/prosilver-ru", "inbox.html")
    rows = {r.msg_id: r for r in parse_pm_inbox(body, url=url, fetched_at=fetched_at)}
    deadline = moscow("2024-04-09 20:00:00")
    assert rows[8].latest < deadline
    assert rows[9].earliest >= deadline


@pytest.mark.parametrize("style", ["prosilver-ru", "subsilver2-port-gorski-ru"])
@pytest.mark.parametrize("msg_id", VIEW_IDS)
def test_view_pages(style, msg_id):
    body, url, fetched_at = page(f"pm/{style}", f"view_p{msg_id}.html")
    pm = parse_pm_view(body, url=url, fetched_at=fetched_at)
    m = MSGS[msg_id]
    assert pm.msg_id == msg_id
    assert (pm.author, pm.author_id, pm.subject) == (m["author"], m["author_id"], m["subject"])
    assert pm.text == m["text"]
    exact = moscow(m["sent_moscow"])
    assert pm.precision == "minute"
    assert pm.earliest <= exact <= pm.latest
    assert pm.url == url


def test_reply_with_quote_keeps_only_own_words():
    for style in ("prosilver-ru", "subsilver2-port-gorski-ru"):
        body, url, fetched_at = page(f"pm/{style}", "view_p6.html")
        pm = parse_pm_view(body, url=url, fetched_at=fetched_at)
        assert pm.text == "проверить NightOwl"
        assert "Вася" not in pm.text          # the host's example inside the quote
    body, url, fetched_at = page("pm/prosilver-ru", "view_p6.html")
    assert parse_pm_view(body, url=url, fetched_at=fetched_at).quoted_msg_ids == (5,)


def test_bold_move_is_kept_as_text_and_bold():
    body, url, fetched_at = page("pm/prosilver-ru", "view_p4.html")
    pm = parse_pm_view(body, url=url, fetched_at=fetched_at)
    assert pm.text == "проверить Big Joe" and pm.bold == ("проверить Big Joe",)


@pytest.mark.parametrize("folder,name", [
    ("pm/prosilver-ru", "login_required_inbox.html"),
    ("pm/prosilver-ru", "login_required_inbox_nocookie.html"),
    ("pm/subsilver2-port-gorski-ru", "login_required_inbox.html"),
    ("pm/prosilver-ru", "login_page_ucp_mode_login.html"),
])
def test_login_pages(folder, name):
    body, url, fetched_at = page(folder, name)
    with pytest.raises(LoginRequiredError) as e:
        parse_pm_inbox(body, url=url, fetched_at=fetched_at)
    assert url in str(e.value)
    with pytest.raises(LoginRequiredError):
        parse_pm_view(body, url=url, fetched_at=fetched_at)


def test_relative_dates_on_the_night_itself():
    """Polled on the night, phpBB shows «Сегодня, HH:MM» and «N минут назад»."""
    body, url, _ = page("pm/prosilver-ru", "inbox.html")
    body = body.replace("09 апр 2024, 19:59".encode(), "Сегодня, 19:59".encode())
    body = body.replace("09 апр 2024, 20:00".encode(), "менее минуты назад".encode())
    now = datetime(2024, 4, 9, 17, 0, 40, tzinfo=timezone.utc)     # 20:00:40 MSK
    rows = {r.msg_id: r for r in parse_pm_inbox(body, url=url, fetched_at=now)}
    assert rows[8].precision == "minute" and rows[8].earliest == moscow("2024-04-09 19:59:00")
    assert rows[9].precision == "relative"
    assert rows[9].earliest <= moscow("2024-04-09 20:00:30") <= rows[9].latest
    with pytest.raises(ParseError, match="board's clock"):
        parse_pm_inbox(body, url=url)


def test_truncated_and_topic_pages_are_refused():
    body, url, fetched_at = page("pm/prosilver-ru", "inbox.html")
    with pytest.raises(ParseError, match="truncated"):
        parse_pm_inbox(body[: len(body) * 2 // 3], url=url, fetched_at=fetched_at)
    body, url, fetched_at = page("prosilver-ru", "guest_viewtopic_t4_start0.html")
    with pytest.raises(ParseError):
        parse_pm_view(body, url=url, fetched_at=fetched_at)
    with pytest.raises(NotABoardPageError):
        parse_pm_inbox(b"\x00garbage", url=url)


def test_naive_fetch_time_refused():
    body, url, _ = page("pm/prosilver-ru", "inbox.html")
    with pytest.raises(ParseError, match="timezone-aware"):
        parse_pm_inbox(body, url=url, fetched_at=datetime(2024, 4, 9) + timedelta(hours=20))
