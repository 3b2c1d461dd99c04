"""Issue 31, phase 2: the services reach either engine through forum/engine.py's ``Board``.

Fast tests on the SMF pages of fixtures/smf/ (captured from the real SMF 2.1.4 board, each
with its truth) and on phpBB addresses: the engine an address names, the topic keys, post
links, the forum-PM source over SMF's inbox (stored as fetched, read back by the engine the
source names), the poller over an SMF topic with its feed, and the game file's names.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
import responses

from scraper_mod.errors import ForumError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.engine import (
    board_for_url,
    engine_of_url,
    forum_id_of,
    open_board,
    parse_stored_pm,
    topic_id_of,
    topic_key,
)
from scraper_mod.forum.phpbb.links import post_link, topic_root
from scraper_mod.forum.poller import canonical_topic_url, poll_topic, read_at_deadline
from scraper_mod.moves.sources import ForumPmSource
from scraper_mod.store import Store

ROOT = Path(__file__).resolve().parents[2]
SMF = ROOT / "fixtures" / "smf"
BASE = "http://127.0.0.1:8231/"       # where fixtures/smf/ was captured


def _page(name: str) -> bytes:
    return (SMF / name).read_bytes()


def _truth(name: str) -> dict:
    return json.loads((SMF / name).read_text(encoding="utf-8"))


def test_the_address_names_the_engine_and_the_topic_key():
    assert engine_of_url("http://f.example/index.php?topic=12.30") == "smf"
    assert engine_of_url("http://f.example/index.php?board=2.0") == "smf"
    assert engine_of_url("http://f.example/viewtopic.php?f=2&t=5&start=25") == "phpbb"
    assert engine_of_url("http://f.example/") is None
    assert topic_key("http://f.example/index.php?PHPSESSID=abc&topic=12.30") == \
        "http://f.example/index.php?topic=12"
    assert canonical_topic_url("http://f.example/b/viewtopic.php?f=2&t=5&start=25&sid=x") == \
        "http://f.example/b/viewtopic.php?t=5"
    assert topic_id_of("http://f.example/index.php?topic=12.0") == 12
    assert forum_id_of("http://f.example/index.php?board=3.0") == 3
    assert forum_id_of("http://f.example/viewforum.php?f=4") == 4
    with pytest.raises(ForumError, match="viewtopic.php"):
        topic_key("http://f.example/index.php?action=pm")


def test_post_links_on_either_engine():
    assert post_link(topic_root("http://f.example/index.php?topic=12.0"), 7) == \
        "http://f.example/index.php?msg=7"
    assert post_link(topic_root("http://f.example/b/viewtopic.php?t=3"), 9) == \
        "http://f.example/b/viewtopic.php?p=9#p9"
    client = ForumClient(base_url=BASE)
    smf = board_for_url(client, BASE + "index.php?topic=2.0")
    assert (smf.engine, smf.post_url(5), smf.forum_url(2), smf.page_url(BASE + "index.php?topic=2.15", 30)) \
        == ("smf", BASE + "index.php?msg=5", BASE + "index.php?board=2.0",
            BASE + "index.php?topic=2.30")
    php = board_for_url(client, BASE + "viewtopic.php?t=2")
    assert (php.engine, php.post_url(5), php.forum_url(2)) == (
        "phpbb", BASE + "viewtopic.php?p=5#p5", BASE + "viewforum.php?f=2")


@responses.activate
def test_the_poller_reads_an_smf_topic_and_its_feed_into_the_store(tmp_path):
    """Both pages of an SMF topic stored under its ?topic=T key; the posts minute-precise
    on the page get their second from the board's feed (R2.6)."""
    date = "Thu, 03 Dec 2026 17:44:42 GMT"
    responses.get(BASE + "index.php?topic=2.0", body=_page("topic-p1.html"),
                  headers={"Date": date})
    responses.get(BASE + "index.php?topic=2.15", body=_page("topic-p2.html"),
                  headers={"Date": date})
    responses.get(BASE + "index.php?action=.xml;type=atom;board=2;limit=255",
                  body=_page("feed-atom.xml"), headers={"Date": date})
    store = Store(tmp_path / "s.sqlite3")
    now = datetime(2026, 12, 3, 17, 45, tzinfo=timezone.utc)
    client = ForumClient(base_url=BASE, min_delay=0, sleep=lambda s: None)
    report = poll_topic(client, store, BASE + "index.php?topic=2.0", now=now, full=True)
    assert report.ok and report.complete and report.pages == (1, 2), report.summary()
    assert report.feed == "read" and report.refined
    key = BASE + "index.php?topic=2"
    on_pages = {p["id"] for name in ("topic-p1", "topic-p2")
                for p in _truth(f"{name}.truth.json")["posts"]}
    assert store.known_post_ids(key) == on_pages
    feed = {p["id"]: (datetime.fromisoformat(p["posted_after"]),
                      datetime.fromisoformat(p["posted_before"]))
            for p in _truth("feed-atom.truth.json")["posts"] if p["id"] in on_pages}
    exact = {v.data["post_id"]: datetime.fromisoformat(v.data["posted_at"])
             for v in store.post_versions(key) if v.data["precision"] == "second"}
    assert feed and set(exact) == set(feed) == set(report.refined)
    assert all(feed[pid][0] <= t <= feed[pid][1] for pid, t in exact.items())
    read = read_at_deadline(client, store, BASE + "index.php?topic=2.0",
                            deadline=now, now=now)
    # R2.11 reads the last known page (2) at the deadline
    last = {p["id"] for p in _truth("topic-p2.truth.json")["posts"]}
    assert read.status == "read" and set(read.posts) == last


@responses.activate
def test_the_forum_pm_source_reads_smfs_inbox_and_the_intake_reads_it_back(tmp_path):
    """``ForumPmSource`` on SMF: each new PM stored as the inbox page that shows it, under
    ``smf_pm:<board>``; what was stored is read back by SMF's parser (the intake's way)."""
    truth = _truth("admin-inbox.truth.json")
    responses.get(BASE + "index.php?action=pm", body=_page("admin-inbox.html"),
                  headers={"Date": "Thu, 03 Dec 2026 17:44:42 GMT"})
    client = ForumClient(base_url=BASE, username="admin", min_delay=0, sleep=lambda s: None)
    src = ForumPmSource(open_board(client, "smf"), BASE)
    src.board._session = ("x", "1")     # logged in (the login is the e2e tier's)
    store = Store(tmp_path / "s.sqlite3")
    report = src.fetch_new(store, now=datetime(2026, 12, 3, 17, 45, tzinfo=timezone.utc))
    assert src.name == "smf_pm:" + BASE.rstrip("/") and not report.errors
    assert len(report.new) == len(truth["pms"])
    got = []
    for m in store.messages(src.name):
        pm = parse_stored_pm(m.source, m.raw, key=m.key, received_at=m.received_at)
        got.append((pm.msg_id, pm.author, pm.subject, pm.text))
    assert got == [(p["id"], p["from"], p["subject"], p["text"]) for p in truth["pms"]]


def test_the_game_file_takes_forum_pm_and_smf_addresses(tmp_path):
    from scraper_mod.game.day.days import check_topic_url
    from scraper_mod.game.setup.config import load_game
    check_topic_url(BASE + "index.php?topic=12.0")
    game = tmp_path / "game.toml"
    game.write_text(f"""[game]
title = "Проверка"
start = 2026-12-03
host = "admin"

[forum]
url = "{BASE}"
forum = "{BASE}index.php?board=2.0"

[moves]
source = "forum_pm"

[[players]]
nick = "Вася"
role = "boss"

[[players]]
nick = "Кот"
role = "civilian"

[[players]]
nick = "Лиса"
role = "civilian"

[[days]]
number = 1
topic = "{BASE}index.php?topic=2.0"
""", encoding="utf-8")
    g = load_game(game)
    assert g.moves.source == "forum_pm" and g.days[0].topic.endswith("topic=2.0")
    from scraper_mod.game.setup.connect import game_engine
    assert game_engine(g, ForumClient(base_url=BASE)) == "smf"     # told by the addresses


def test_a_text_sent_is_known_on_the_board_whatever_the_tags_left_as_spacing():
    from scraper_mod.forum.posting import same_text
    assert same_text("[b]Ваша проверка[/b]: Маша_2 — мафия.", "Ваша проверка: Маша_2 — мафия.")
    assert not same_text("[b]Ваша проверка[/b]: Кот — мирный.", "Ваша проверка: Маша_2 — мафия.")
