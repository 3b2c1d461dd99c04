"""The writer reads phpBB 3.3.15's real answer pages (saved from the real board into
fixtures/phpbb/answers/): each refusal is its own error kind, the PM's id from the refresh."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from scraper_mod.forum.client import FetchResult
from scraper_mod.forum.phpbb.writer import (
    _refresh_url,
    board_message,
    classify_refusal,
    forum_id_of,
    topic_id_of,
)
from scraper_mod.forum.posting import read_form

ANSWERS = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb" / "answers"
BOARD = "http://127.0.0.1:8291/"


def page(name: str, url: str = BOARD + "posting.php?mode=reply&t=2") -> FetchResult:
    return FetchResult(url=url, status=200, body=(ANSWERS / name).read_bytes(),
                       fetched_at=datetime(2026, 12, 2, 20, 0, tzinfo=timezone.utc))


@pytest.mark.parametrize("name, kind, transient, words", [
    ("locked_reply.html", "locked", False, "This topic is locked"),
    ("long_answer.html", "too-long", False, "maximum number of allowed characters is 60000"),
    ("notopic_answer.html", "no-topic", False, "The requested topic does not exist"),
    ("pm_unknown.html", "no-recipient", False, "requested users to be added do not exist"),
    ("guest_reply.html", "no-permission", False, "You need to login"),
])
def test_each_real_refusal_is_its_own_error(name, kind, transient, words):
    err = classify_refusal(page(name), what="a reply in topic 2")
    assert err is not None and err.kind == kind and err.transient is transient
    assert words in str(err) and str(err).startswith(BOARD + "posting.php?mode=reply&t=2: ")
    assert "\n" not in str(err) and err.hint


def test_a_real_wrong_password_page_is_no_posting_refusal_but_the_login_form():
    answer = page("login_answer.html", BOARD + "ucp.php?mode=login")
    assert read_form(answer, "login") is not None
    assert "You have specified an incorrect password" in board_message(answer.body)


def test_the_sent_pm_page_gives_the_message_id_and_success_pages_are_no_refusal():
    sent = page("pm_sent.html", BOARD + "ucp.php?i=pm&mode=compose&action=post")
    assert _refresh_url(sent) == BOARD + "ucp.php?i=pm&mode=view&p=1"
    assert classify_refusal(sent, what="a PM") is None
    assert classify_refusal(page("lock_done.html"), what="a lock") is None


def test_the_real_lock_confirm_form_is_read_with_its_hidden_fields():
    form = read_form(page("lock_confirm.html", BOARD + "mcp.php?f=3&t=2&quickmod=1&action=lock"),
                     "confirm")
    assert form is not None and "confirm_key=" in form.action
    assert form.fields["action"] == "lock" and form.fields["topic_id_list[0]"] == "2"
    assert {"confirm_uid", "sess", "sid"} <= set(form.fields)


def test_topic_and_forum_ids_from_urls():
    assert topic_id_of(BOARD + "viewtopic.php?t=40") == 40
    assert topic_id_of(BOARD + "viewforum.php?f=4") is None
    assert forum_id_of(BOARD + "viewforum.php?f=4") == 4
    assert forum_id_of(BOARD + "viewtopic.php?t=4") is None
