"""The FluxBB adapter on the real FluxBB_by_Visman 1.5.11 board, piece by piece: the engine
told by the front page, the login's 3 s rule, Merge Post on the host's and the players'
posts, PMs switched off refused at load with the fix."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pytest
from conftest import BOARD_ADMIN, FLUXBB_GAME_FORUM_ID
from test_fluxbb_evening_e2e import env, write_game

from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.engine import engine_of, open_board
from scraper_mod.forum.posting import PostRefused


def _host(board):
    return open_board(ForumClient(base_url=board.url, username="admin", min_delay=0), "fluxbb",
                      password=BOARD_ADMIN[1])


def test_engine_login_reading_and_merged_votes(real_fluxbb_board):
    board = real_fluxbb_board
    client = ForumClient(base_url=board.url, min_delay=0)
    assert engine_of(client) == "fluxbb"            # [forum] engine left out
    host = _host(board)
    t0 = time.monotonic()
    host.login()
    assert time.monotonic() - t0 >= 3               # the board's rule, waited out, no captcha
    tid, first = host.new_topic(FLUXBB_GAME_FORUM_ID, "День 1", "Голосуем.")
    vasya = board.player("Вася")
    pid = vasya.reply(tid, "[color=red]Кот[/color]")
    time.sleep(1.2)
    assert vasya.reply(tid, "[color=red]Лиса[/color]") == pid and vasya.last_merged
    masha = board.player("Маша_2").reply(tid, "[color=red]Вася[/color]")
    pages = host.read_topic(tid)
    posts = {p.post_id: p for p in pages[0].posts}
    assert set(posts) == {first.id, pid, masha}
    merged = posts[pid]
    assert [[c.text for c in x.colored] for x in merged.parts] == [["Кот"], ["Лиса"]]
    assert merged.parts[1].after >= 1 and merged.precision == "second"
    feed = {e.post_id: e for e in host.feed_entries(tid)}
    assert feed[pid].published == merged.posted_at      # the feed keeps the first time
    # a silent moderator edit leaves no notice; a member's edit always does
    host.edit(masha, "[color=red]Big Joe[/color]")
    board.player("Вася").edit(pid, "[color=red]Кот[/color]")
    posts = {p.post_id: p for p in host.read_topic_page(tid).posts}
    assert posts[masha].edit_count == 0 and posts[masha].colored[0].text == "Big Joe"
    assert posts[pid].edited_by == "Вася" and posts[pid].edited_at is not None
    host.lock(tid)
    assert host.read_topic_page(tid).locked
    # the board sends no PM to oneself: an alert to the host's own nick says the fix
    with pytest.raises(PostRefused) as refused:
        host.send_pm("admin", "Оповещение", "проверка")
    assert refused.value.kind == "to-self" and "alert_to" in (refused.value.hint or "")
    # R12.5: by member id, a PM reaches the member whatever name the game file has for him
    host.send_pm("Маша (старый ник)", "Проверка", "по номеру", member_id=4)
    assert ("Маша_2", "Проверка") in {(r.author, r.subject) for r in host.pm_rows("sent")[0]}


def test_pms_switched_off_are_refused_at_load_with_the_fix(real_fluxbb_board, tmp_path):
    board = real_fluxbb_board
    admin = board.player("admin")
    page = admin.get("admin_loader.php?plugin=AP_PMS_New.php")
    form = admin._form(page, "example")
    form.remove("enable_pms")
    admin._submit(form, "show_text")
    assert "pmsnew.php" not in admin.get("index.php").text      # the PM menu is gone
    day1 = admin.new_topic(FLUXBB_GAME_FORUM_ID, "Проверка. День 1", "День 1 начался.")
    deadline = datetime.now(timezone.utc) + timedelta(hours=1)
    game = write_game(tmp_path / "game", board, day1, day1, deadline=deadline)
    got = subprocess.run([sys.executable, "-m", "scraper_mod", "poll", str(game)],
                         capture_output=True, text=True, timeout=120, env=env())
    out = got.stdout + got.stderr
    assert got.returncode != 0, out
    assert "Traceback" not in out
    assert "moves.source" in out and "PMS New" in out and '"maildir"' in out, out


def test_a_deleted_post_is_found_gone_and_merged_pieces_are_stored(real_fluxbb_board):
    """The poller over FluxbbBoard: every page read, a merged addition is a new version of
    its post (with its pieces), a deleted post (later ones renumber, ``?pid=`` answers 404)
    is found gone by the full scan."""
    from datetime import datetime, timezone

    from scraper_mod.forum.poller import canonical_topic_url, poll_topic, stored_posts
    from scraper_mod.store import Store

    board = real_fluxbb_board
    host = _host(board)
    tid, _ = host.new_topic(FLUXBB_GAME_FORUM_ID, "День 1", "Голосуем.")
    vasya, masha = board.player("Вася"), board.player("Маша_2")
    gone = masha.reply(tid, "[color=red]Вася[/color]")
    pid = vasya.reply(tid, "[color=red]Кот[/color]")
    url = board.topic_url(tid)
    store = Store(":memory:")
    now = lambda: datetime.now(timezone.utc)  # noqa: E731
    poll_topic(host.client, store, url, now=now, full=True, board=host)
    time.sleep(1.1)
    vasya.reply(tid, "[color=red]Лиса[/color]")         # merged into pid
    masha.delete(gone)
    report = poll_topic(host.client, store, url, now=now, full=True, board=host)
    key = canonical_topic_url(url)
    assert gone in store.deleted_posts(key), report
    versions = [p for p, _ in stored_posts(store, key) if p.post_id == pid]
    assert [len(v.parts) for v in versions] == [0, 2]
    assert [c.text for c in versions[-1].colored] == ["Кот", "Лиса"]
