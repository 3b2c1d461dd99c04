"""What is stored of a board page carries no session id (issue 18, item 5): phpBB 3.3.15's
own pages, as fetched with a fresh session (sid in every link, in the login form)."""

from __future__ import annotations

import re
from pathlib import Path

from scraper_mod.forum.client import find_login_form
from scraper_mod.forum.phpbb.pm import parse_pm_view
from scraper_mod.forum.session import scrub_body, scrub_url

PM = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb" / "phpbb-3.3.15" / "pm" / \
    "prosilver-ru"
SID = re.compile(rb"[0-9a-f]{32}")


def test_the_login_form_and_links_lose_their_session_id_and_nothing_else():
    raw = (PM / "login_page_ucp_mode_login.html").read_bytes()
    form = find_login_form(raw, url="http://board.example/ucp.php?mode=login")
    assert SID.fullmatch(form.hidden["sid"].encode())
    clean = scrub_body(raw)
    assert form.hidden["sid"].encode() not in clean
    assert find_login_form(clean, url="http://board.example/ucp.php?mode=login").hidden[
        "sid"] == ""
    # only the session id went: the rest of the page is byte for byte the same
    assert clean == raw.replace(form.hidden["sid"].encode(), b"")


def test_a_private_message_page_still_reads_the_same_without_its_session_id():
    raw = (PM / "view_p1.html").read_bytes()
    assert re.search(rb"sid=[0-9a-f]{32}", raw)
    clean = scrub_body(raw)
    assert not re.search(rb"sid=[0-9a-f]{32}", clean)
    a = parse_pm_view(raw, url="http://board.example/ucp.php?i=pm&mode=view&f=0&p=1")
    b = parse_pm_view(clean, url="http://board.example/ucp.php?i=pm&mode=view&f=0&p=1")
    assert (a.msg_id, a.author, a.text, a.sent_at) == (b.msg_id, b.author, b.text, b.sent_at)


def test_urls_lose_the_session_id():
    url = "http://board.example/viewtopic.php?t=4&sid=0123456789abcdef0123456789abcdef&start=10"
    assert scrub_url(url) == "http://board.example/viewtopic.php?t=4&sid=&start=10"
    assert scrub_url("http://board.example/viewtopic.php?t=4") == \
        "http://board.example/viewtopic.php?t=4"


def test_a_command_ends_the_sessions_it_opened_and_leaves_those_it_found(tmp_path):
    """``main`` logs out of the boards the command logged in to, not out of sessions the
    process already held when it began (a process running several commands: tests)."""
    from datetime import datetime, timezone

    from scraper_mod.cli import main
    from scraper_mod.clock import FakeClock
    from scraper_mod.demo.localboard import LocalBoard
    from scraper_mod.forum.client import ForumClient
    from scraper_mod.forum.session import end_sessions, logged_in, session_id

    clock = FakeClock(datetime(2024, 4, 9, 12, 0, tzinfo=timezone.utc))
    with LocalBoard(language="ru", clock=clock, username="host", password="pw") as board:
        def client() -> ForumClient:
            return ForumClient(base_url=board.url, username="host", password="pw",
                               min_delay=0, sleep=clock.sleep, now=clock.now,
                               monotonic=lambda: clock.now().timestamp())
        before = logged_in()      # what earlier tests of the run left: not ours to end
        found, opened = client(), client()
        found.login()
        try:
            assert main(["status", str(tmp_path / "no-game")]) == 1   # a command, ending
            assert logged_in() == (*before, found) and session_id(found)
            opened.login()
            assert end_sessions(keep=[*before, found]) == 1
            assert logged_in() == (*before, found) and session_id(found)
            assert not session_id(opened)
            assert board.request_count("/ucp.php?mode=logout") == 1
        finally:
            end_sessions(keep=before)
        assert logged_in() == before and not session_id(found)
        assert board.request_count("/ucp.php?mode=logout") == 2
