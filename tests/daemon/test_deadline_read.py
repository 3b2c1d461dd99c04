"""RULES R2.11 and the board session, on LocalBoard (phpBB 3.3's silent edits taught to it)
with everything real but the clock (the demo's ScriptedClock drives the daemon, the board's
Date header and the script of posts).

- The daemon reads the day's topic at the deadline itself; a vote posted at 19:59:45 as the
  topic's last post and changed at 20:00:20 without an edit notice counts as posted, and the
  host report names the silent edit. A board down at the deadline is said in the report.
- The final re-scan loses and doubles no post when the topic grows by a page, or loses a
  post, while the re-scan reads it.
- One login for a whole day of polls with the phpBB PM source; the command's session is
  ended; no session id is stored.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta

import requests
import responses
from stored_topic import current_posts
from test_schedule_live import MSK, msk, vote, write_game

from scraper_mod.cli import main
from scraper_mod.daemon.scheduler import Daemon
from scraper_mod.daemon.work import LiveOps
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.demo.world import ScriptedClock
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.model import post_from_json
from scraper_mod.forum.poller import canonical_topic_url, poll_topic
from scraper_mod.game.context import open_game
from scraper_mod.store import Store

SILENT_RU = "правка без отметки после срока"


def _world(tmp_path, *, per_page: int = 4, tail: str = ""):
    clock = ScriptedClock(msk(14, 18))
    board = LocalBoard(language="ru", clock=clock, per_page=per_page).start()
    t = board.add_topic("Живая проверка — День 1")
    board.add_post("Ведущий", 50, "День 1.", msk(13, 21), topic=t)
    # 3:3 between Петя and Коля until a last vote
    for i, (who, target) in enumerate([("Вася", "Петя"), ("Игорь", "Петю"), ("Маша", "Колю"),
                                       ("Ирина", "Коля"), ("Петя", "Колю"), ("Коля", "Петя")]):
        vote(board, t, who, target, msk(14, 9 + i))
    folder = write_game(tmp_path / "game", board, board.topic_url(t), tail=tail)
    return clock, board, t, folder


def test_a_silent_edit_of_the_last_post_after_the_deadline_counts_as_posted(tmp_path):
    clock, board, t, folder = _world(tmp_path)
    try:
        # Таня's vote breaks the tie for Коля at 19:59:45 as the topic's last post; at
        # 20:00:20 she turns it into a vote for Петя: phpBB writes no notice for that
        edits = []
        clock.schedule(msk(14, 19, 59, 45), lambda: edits.append(
            vote(board, t, "Таня", "Колю", msk(14, 19, 59, 45))))
        clock.schedule(msk(14, 20, 0, 20), lambda: edits.append(
            board.edit_post(edits[0], "[color=red]Петю[/color]")))
        ctx = open_game(folder, clock=clock)
        report = Daemon(ctx, ops=LiveOps()).run(until=msk(14, 20, 5))
        assert report.resolved == [1] and edits[1] is False      # no notice was written
        page = board.render_topic(t, 4)
        assert "Петю" in page and "редактировалось" not in page
        # the read at the deadline: the first request after it, at once, Таня's post in it
        key = canonical_topic_url(board.topic_url(t))
        read = ctx.store.deadline_read(key, msk(14, 20))
        assert read["status"] == "read" and 0 <= read["delay"] <= 2
        assert post_from_json(read["posts"][edits[0]]).colored[0].text == "Колю"
        # the re-scan read the edited text, and it did not count
        versions = [v for v in ctx.store.post_versions(key) if v.post_id == edits[0]]
        assert [post_from_json(v.data).colored[0].text for v in versions] == ["Колю", "Петю"]
        result = json.loads((folder / "out" / "day-1" / "result.json").read_text("utf-8"))
        assert result["lynched"] == {"player": "Коля", "role": "civilian", "by": "votes"}
        host = (folder / "out" / "day-1" / "host-report.txt").read_text("utf-8")
        assert SILENT_RU in host
        assert f"пост {edits[0]} (Таня): правка без отметки после срока" in host
        ctx.close()
    finally:
        board.stop()


def test_a_silent_edit_before_the_deadline_stands(tmp_path):
    clock, board, t, folder = _world(tmp_path)
    try:
        ids = []
        clock.schedule(msk(14, 19, 59, 5), lambda: ids.append(
            vote(board, t, "Таня", "Петю", msk(14, 19, 59, 5))))
        clock.schedule(msk(14, 19, 59, 50), lambda: board.edit_post(ids[0],
                                                                    "[color=red]Колю[/color]"))
        ctx = open_game(folder, clock=clock)
        assert Daemon(ctx, ops=LiveOps()).run(until=msk(14, 20, 5)).resolved == [1]
        result = json.loads((folder / "out" / "day-1" / "result.json").read_text("utf-8"))
        assert result["lynched"]["player"] == "Коля"             # as it stood at the deadline
        host = (folder / "out" / "day-1" / "host-report.txt").read_text("utf-8")
        assert SILENT_RU not in host
        ctx.close()
    finally:
        board.stop()


def test_a_board_down_at_the_deadline_is_said_in_the_report(tmp_path):
    clock, board, t, folder = _world(tmp_path)
    try:
        clock.schedule(msk(14, 19, 59, 50), lambda: setattr(board, "disabled", True))
        clock.schedule(msk(14, 20, 0, 30), lambda: setattr(board, "disabled", False))
        ctx = open_game(folder, clock=clock)
        report = Daemon(ctx, ops=LiveOps()).run(until=msk(14, 20, 5))
        assert report.resolved == [1]
        read = ctx.store.deadline_read(canonical_topic_url(board.topic_url(t)), msk(14, 20))
        assert read["status"] == "failed" and read["posts"] == {}
        assert any("read at the deadline FAILED" in e for e in report.errors)
        host = (folder / "out" / "day-1" / "host-report.txt").read_text("utf-8")
        assert "на момент срока тему прочитать не удалось" in host
        ctx.close()
    finally:
        board.stop()


# -- the final re-scan while the topic moves ----------------------------------------------

def _rescan_while(board: LocalBoard, t: int, action, *, after: int) -> tuple[Store, object]:
    """A full re-scan of topic ``t`` whose ``after``-th page request is followed by
    ``action`` (the board changes between two of the scan's requests)."""
    store = Store(":memory:")
    session = requests.Session()
    count = {"n": 0}

    def hook(resp, *args, **kwargs):
        if "viewtopic.php" in resp.url:
            count["n"] += 1
            if count["n"] == after:
                action()
    client = ForumClient(session, base_url=board.url, min_delay=0, sleep=lambda s: None)
    poll_topic(client, store, board.topic_url(t), now=board.now)   # known before the day ends
    session.hooks["response"].append(hook)
    count["n"] = 0
    report = poll_topic(client, store, board.topic_url(t), now=board.now, full=True)
    return store, report


def test_the_re_scan_loses_and_doubles_nothing_when_the_topic_grows_by_a_page(tmp_path):
    clock, board, t, folder = _world(tmp_path)      # 7 posts, 4 a page: pages 1 and 2
    try:
        start = len(board.topics[t].posts)
        late = []

        def grow():                                  # 5 posts at once: page 2 fills, page 3
            for i in range(5):
                late.append(board.add_post("Таня", 307, f"пост {i}", msk(14, 19, 50, i),
                                           topic=t))
        store, report = _rescan_while(board, t, grow, after=1)
        assert report.complete and report.page_count == 3
        key = canonical_topic_url(board.topic_url(t))
        ids = [p.post_id for p in current_posts(store, key)]
        assert len(ids) == len(set(ids)) == start + 5
        assert ids == [p.post_id for p in board.topics[t].posts]
        assert report.deleted == ()
    finally:
        board.stop()


def test_the_re_scan_loses_no_post_when_one_before_it_is_deleted_meanwhile(tmp_path):
    clock, board, t, folder = _world(tmp_path)
    try:
        first_reply = board.topics[t].posts[1].post_id
        # page 1 is read, then a post on it goes: every later post moves back by one
        store, report = _rescan_while(board, t, lambda: board.delete_post(first_reply),
                                      after=1)
        key = canonical_topic_url(board.topic_url(t))
        ids = [p.post_id for p in current_posts(store, key)]
        # the post that moved back onto page 1 after it was read is not lost (looked up by
        # its id), none is doubled; the deleted one was seen by this scan, the next finds it
        assert report.complete and report.deleted == ()
        assert len(ids) == len(set(ids))
        assert ids == sorted([first_reply] + [p.post_id for p in board.topics[t].posts])
        client = ForumClient(base_url=board.url, min_delay=0, sleep=lambda s: None)
        again = poll_topic(client, store, board.topic_url(t), now=board.now, full=True)
        assert again.deleted == (first_reply,)
        assert [p.post_id for p in current_posts(store, key)] == [
            p.post_id for p in board.topics[t].posts]
    finally:
        board.stop()


# -- one session ----------------------------------------------------------------------------

PM_SOURCE = ('\n[moves]\nsource = "phpbb_pm"\n')


def test_a_day_of_polls_with_the_pm_source_logs_in_once_and_stores_no_session(
        tmp_path, monkeypatch):
    clock = ScriptedClock(msk(14, 18))
    board = LocalBoard(language="ru", clock=clock, per_page=4, username="Ведущий",
                       password="host-pass").start()
    try:
        t = board.add_topic("Живая проверка — День 1")
        board.add_post("Ведущий", 50, "День 1.", msk(13, 21), topic=t)
        vote(board, t, "Вася", "Петя", msk(14, 9))
        board.send_pm("Вася", 301, "ход", "убить Петя", msk(13, 23), to_id=50)
        folder = write_game(tmp_path / "game", board, board.topic_url(t))
        toml = (folder / "game.toml").read_text("utf-8")
        toml = toml.replace('[moves]\nsource = "maildir"\npath = "moves"\n', "").replace(
            "retries = 1\n", 'retries = 1\nusername = "Ведущий"\n') + PM_SOURCE
        (folder / "game.toml").write_text(toml, "utf-8")
        monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", "host-pass")
        ctx = open_game(folder, clock=clock)
        ops = LiveOps()
        daemon = Daemon(ctx, ops=ops)
        daemon.run(until=msk(14, 19))                # 12 polls, 5 minutes apart
        client = ops.client(ctx)
        assert daemon.report.polls >= 12 and not daemon.report.errors
        assert board.logins == 1 and client.logins == 1
        before, polls_before = client.requests, daemon.report.polls
        daemon.run(until=msk(14, 19, 20))            # idle polls: the topic and the inbox
        polls = daemon.report.polls
        assert polls - polls_before >= 4
        assert client.requests - before == 2 * (polls - polls_before)
        assert board.logins == 1
        # nothing stored carries the session id (links, the login form, URLs)
        sids = set(board.sessions)
        for _, url, _, _, body in ctx.store.fetches():
            assert "sid=" not in url or not re.search(r"sid=[0-9a-f]{32}", url)
            assert not any(s.encode() in body for s in sids)
        for m in ctx.store.messages():
            assert not any(s.encode() in m.raw for s in sids)
        assert polls > 12
        ctx.close()
    finally:
        board.stop()


def test_a_command_ends_its_board_session(tmp_path, monkeypatch, capsys):
    board = LocalBoard(language="ru", per_page=4, username="Ведущий",
                       password="host-pass").start()
    try:
        now = datetime.now(MSK)
        t = board.add_topic("Живая проверка — День 1")
        board.add_post("Ведущий", 50, "День 1.", now - timedelta(minutes=5), topic=t)
        folder = write_game(tmp_path / "game", board, board.topic_url(t),
                            game_extra=f"start = {now:%Y-%m-%d}\nday_start = \"00:00\"\n"
                                       "deadline = \"23:59\"\n")
        toml = (folder / "game.toml").read_text("utf-8").replace(
            "retries = 1\n", 'retries = 1\nusername = "Ведущий"\n')
        (folder / "game.toml").write_text(toml, "utf-8")
        monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", "host-pass")
        assert main(["poll", str(folder)]) == 0, capsys.readouterr().err
        assert board.logins == 1 and board.logouts == 1
        assert set(board.sessions.values()) == {1}   # no logged-in session is left
    finally:
        board.stop()


def test_a_good_read_at_the_deadline_is_kept_and_a_failed_one_replaced(tmp_path):
    store = Store(tmp_path / "state.sqlite3")
    key, deadline = "http://board.example/viewtopic.php?t=4", msk(14, 20)
    store.save_deadline_read(key, deadline, status="failed", posts={}, error="HTTP 503")
    assert store.deadline_read(key, deadline)["status"] == "failed"
    store.save_deadline_read(key, deadline, status="read", posts={7: {"post_id": 7}},
                             read_at=deadline + timedelta(seconds=1), delay=1.0)
    store.save_deadline_read(key, deadline, status="failed", posts={}, error="later")
    got = store.deadline_read(key, deadline)
    assert got["status"] == "read" and got["posts"] == {7: {"post_id": 7}}
    assert got["delay"] == 1.0 and got["read_at"] == deadline + timedelta(seconds=1)
    assert store.deadline_read(key, msk(15, 20)) is None
    store.close()


def test_logout_sends_the_sessions_sid_once_and_drops_the_cookies():
    base = "http://board.example/"
    logout = base + "ucp.php?mode=logout&sid=0123456789abcdef0123456789abcdef"
    client = ForumClient(base_url=base, username="admin", password="pw", min_delay=0,
                         sleep=lambda s: None)
    client.session.cookies.set("phpbb3_abc_sid", "0123456789abcdef0123456789abcdef")
    assert client.logout() is False              # never logged in: nothing to end
    client.session.cookies.set("phpbb3_abc_sid", "0123456789abcdef0123456789abcdef")
    client.logins = 1
    with responses.RequestsMock() as rsps:
        rsps.add(responses.GET, logout, status=302, headers={"Location": base + "index.php"})
        assert client.logout() is True
    assert len(client.session.cookies) == 0
    client.session.cookies.set("phpbb3_abc_sid", "0123456789abcdef0123456789abcdef")
    with responses.RequestsMock() as rsps:     # a board that is down: one try, no retries
        rsps.add(responses.GET, logout, status=503)
        assert client.logout() is False           # not ended; the board ends it in time
        assert len(rsps.calls) == 1
    assert client.slept == []
