"""R2.6 on the real SMF board (issue 39 item 4): a topic longer than the board's feed.

SMF's Atom feed lists at most 255 messages (the newest), its pages show minutes. A topic of
260 posts read by the poller: the 255 the feed lists get their second, the oldest 5 keep their
minute range (never a second), each range holding the time the feed would have given (before
the oldest listed post, after the topic's start). A fresh board per test (tests/conftest.py's
``real_smf_board``); skipped without SCRAPER_MOD_SMF_BOARD.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from conftest import SMF_GAME_BOARD_ID

from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.poller import poll_topic
from scraper_mod.store import Store

POSTS = 260


def test_R2_6_a_topic_of_260_posts_keeps_minutes_where_the_feed_ends(real_smf_board, tmp_path):
    began = datetime.now(timezone.utc).replace(microsecond=0)
    vasya = real_smf_board.player("Вася")
    tid = vasya.new_topic(SMF_GAME_BOARD_ID, "День 1", "[b]Длинный день[/b]")
    t0 = time.monotonic()
    ids = [vasya.reply(tid, f"пост {i}: голосую за [color=red]Маша_2[/color]")
           for i in range(POSTS - 1)]
    assert time.monotonic() - t0 < 120, "the board posts too slowly for this test"
    store = Store(tmp_path / "s.sqlite3")
    client = ForumClient(base_url=real_smf_board.url, min_delay=0, sleep=lambda s: None)
    report = poll_topic(client, store, real_smf_board.topic_url(tid),
                        now=datetime.now(timezone.utc), full=True)
    assert report.ok and report.complete and len(report.pages) == 18, report.summary()
    assert report.feed == "read" and len(report.refined) == 255
    key = real_smf_board.url + f"index.php?topic={tid}"
    latest = {}
    for v in store.post_versions(key):
        latest[v.data["post_id"]] = v.data
    assert len(latest) == POSTS and set(ids) <= set(latest)
    exact = {pid: datetime.fromisoformat(d["posted_at"]) for pid, d in latest.items()
             if d["precision"] == "second"}
    assert set(exact) == set(report.refined) == set(sorted(latest)[-255:])
    oldest_exact = min(exact.values())
    for pid in sorted(latest)[:5]:              # not in the feed: the page's minute only
        d = latest[pid]
        earliest, last = (datetime.fromisoformat(d["earliest"]),
                          datetime.fromisoformat(d["latest"]))
        assert d["precision"] == "minute", d
        assert earliest.second == 0 and last - earliest < timedelta(minutes=1)
        assert earliest <= oldest_exact and last >= began - timedelta(minutes=1)
