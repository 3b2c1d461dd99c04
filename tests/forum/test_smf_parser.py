"""SMF 2.1 pages (fixtures/smf/, captured from the real SMF 2.1.4 board) against their truth.

Each ``<page>.truth.json`` is derived from what fixtures/smf/capture.py posted
(``derive_truth.py``); the pages are read as the adapter reads them (forum/smf/parse.py).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from scraper_mod.errors import ForumError, ParseError
from scraper_mod.forum.engine import detect_engine
from scraper_mod.forum.feed import parse_topic_feed
from scraper_mod.forum.html import MOSCOW
from scraper_mod.forum.smf.parse import (
    parse_smf_pm_list,
    parse_smf_pms,
    parse_smf_topic_page,
    smf_msg_id,
    strip_session,
)

ROOT = Path(__file__).resolve().parents[2]
SMF = ROOT / "fixtures" / "smf"
BASE = "http://127.0.0.1:8231/"


def _truth(name: str) -> dict:
    return json.loads((SMF / (name.rsplit(".", 1)[0] + ".truth.json")).read_text("utf-8"))


def _args(name: str) -> dict:
    t = _truth(name)["fetched"]
    return {"url": t["url"].replace("BOARD/", BASE),
            "fetched_at": datetime.fromisoformat(t["date"]), "board_tz": MOSCOW}


def _read(name: str):
    return parse_smf_topic_page((SMF / name).read_bytes(), **_args(name))


def test_truth_files_are_what_derive_truth_makes():
    import importlib.util
    spec = importlib.util.spec_from_file_location("derive_smf", SMF / "derive_truth.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    derived = mod.derive(json.loads((SMF / "truth.json").read_text("utf-8")))
    assert len(derived) == 12
    for name, data in derived.items():
        assert _truth(name) == json.loads(json.dumps(data, ensure_ascii=False)), name


@pytest.mark.parametrize("name", ["topic-p1.html", "topic-p1-fulldates.html", "topic-p2.html"])
def test_topic_pages_match_what_was_posted(name):
    truth = _truth(name)
    page = _read(name)
    assert (page.topic_id, page.title, page.locked, page.page, page.page_count) == (
        truth["topic_id"], truth["title"], False, truth["page"], truth["page_count"])
    assert page.next_url == (f"{BASE}index.php?topic=2.15" if truth["page"] == 1 else None)
    assert [p.post_id for p in page.posts] == [p["id"] for p in truth["posts"]]
    for post, want in zip(page.posts, truth["posts"]):
        assert (post.author, post.author_id) == (want["author"], want["author_id"])
        assert [[c.color, c.text] for c in post.colored] == want["colored"], post.post_id
        assert list(post.bold) == want["bold"], post.post_id
        assert [[h.color, h.text, h.where] for h in post.hidden] == want["hidden"], post.post_id
        assert list(post.quotes) == want["quotes"], post.post_id
        assert (post.edited_by, post.edit_reason) == (want["edited_by"], want["edit_reason"])
        assert post.edit_count == (1 if want["edited_by"] else 0)
        # the page shows the minute in Moscow time: the real second lies in it
        assert post.precision == "minute"
        after = datetime.fromisoformat(want["posted_after"])
        before = datetime.fromisoformat(want["posted_before"])
        assert post.earliest <= before and after <= post.latest, post.post_id
        assert post.latest - post.earliest == timedelta(seconds=59)
        assert post.posted_at.utcoffset() == timedelta(hours=3)


def test_edits_within_the_grace_period_leave_no_notice():
    by_id = {p.post_id: p for p in _read("topic-p1.html").posts}
    quiet, late, moderated = by_id[8], by_id[9], by_id[4]
    assert quiet.edited_at is None and [c.text for c in quiet.colored] == ["Кот"]
    assert late.edited_by == "Ёжик в тумане" and late.edited_at > late.earliest
    assert moderated.edited_by == "admin" and moderated.edit_reason == "опечатка"
    assert moderated.text == "Голосую Вася. (исправлено ведущим)"


def test_literal_spoiler_code_quote_and_signature_are_not_own_words():
    by_id = {p.post_id: p for p in _read("topic-p1.html").posts}
    assert by_id[7].text == "Зоя"                       # [spoiler]…[/spoiler] left out
    assert by_id[6].text == "Так голосуют:\nА мой голос: Кот"   # the code block left out
    assert "Code" not in by_id[6].text and "Select" not in by_id[6].text
    assert by_id[5].text == "Не согласен. Алексей"      # the quote and its «Quote from»
    assert by_id[13].text == "Вася — жирный не голос. NightOwl"  # no signature
    assert by_id[15].text == 'Разговор 1: Кот & <b>не тег</b> "кавычки"'


def test_deleted_post_is_gone_and_later_ones_move_up():
    truth = json.loads((SMF / "truth.json").read_text("utf-8"))
    ids = [p.post_id for name in ("topic-p1.html", "topic-p2.html") for p in _read(name).posts]
    assert truth["deleted"] not in ids
    assert ids == sorted(ids) and len(ids) == len(truth["posts"]) - 1


def test_full_dates_and_today_give_the_same_minutes():
    today = _read("topic-p1.html").posts
    full = _read("topic-p1-fulldates.html").posts
    assert [(p.post_id, p.earliest) for p in today] == [(p.post_id, p.earliest) for p in full]
    assert b"<strong>Today</strong>" in (SMF / "topic-p1.html").read_bytes()
    assert b"Dec 03, 2026, " in (SMF / "topic-p1-fulldates.html").read_bytes()


def test_locked_topic():
    page = _read("locked.html")
    assert (page.topic_id, page.title, page.locked, len(page.posts)) == (3, "День 2", True, 1)


def test_feed_gives_each_message_its_second():
    truth = _truth("feed-atom.xml")
    body = (SMF / "feed-atom.xml").read_bytes()
    entries = parse_topic_feed(body, url=BASE,
                               post_id=lambda *c: smf_msg_id(*c, topic_id=truth["topic_id"]))
    want = {p["id"]: p for p in truth["posts"]}
    assert sorted(e.post_id for e in entries) == sorted(want)     # not topic 3's message
    for e in entries:
        w = want[e.post_id]
        assert e.author == w["author"]
        assert datetime.fromisoformat(w["posted_after"]) <= e.published <= \
            datetime.fromisoformat(w["posted_before"]), e.post_id
    every = parse_topic_feed(body, url=BASE, post_id=smf_msg_id)
    assert len(every) == len(entries) + 1


def test_smf_msg_id_and_session_ids():
    link = "http://b/index.php?topic=2.msg22#msg22"
    assert smf_msg_id(link) == 22 and smf_msg_id(link, topic_id=2) == 22
    assert smf_msg_id(link, topic_id=3) is None
    assert smf_msg_id("tag:127.0.0.1,2026-12-03:msg=23") == 23
    assert smf_msg_id("http://b/viewtopic.php?p=5#p5") is None
    assert strip_session("http://b/index.php?PHPSESSID=abc123&topic=2.0") == \
        "http://b/index.php?topic=2.0"


def test_pm_inbox_rows_and_messages():
    truth = _truth("admin-inbox.html")
    body = (SMF / "admin-inbox.html").read_bytes()
    rows = parse_smf_pm_list(body, **_args("admin-inbox.html"))
    pms = parse_smf_pms(body, **_args("admin-inbox.html"))
    assert [(r.msg_id, r.author, r.subject) for r in rows] == \
        [(p["id"], p["from"], p["subject"]) for p in truth["pms"]]
    assert [(m.msg_id, m.author, m.subject, m.text) for m in pms] == \
        [(p["id"], p["from"], p["subject"], p["text"]) for p in truth["pms"]]
    assert rows[-1].unread and not rows[0].unread
    for m, p in zip(pms, truth["pms"]):
        assert m.earliest <= datetime.fromisoformat(p["before"])
        assert datetime.fromisoformat(p["after"]) <= m.latest
    assert pms[0].bold == ("проверить",)


def test_pm_sent_folder():
    want = _truth("admin-sent.html")["sent"]
    body = (SMF / "admin-sent.html").read_bytes()
    rows = parse_smf_pm_list(body, **_args("admin-sent.html"))
    assert [(r.msg_id, r.author, r.subject) for r in rows] == \
        [(w["id"], w["to"], w["subject"]) for w in want]


@pytest.mark.parametrize("name", ["missing-topic.html", "deleted-msg.html", "guest-pm.html",
                                  "member-locked-reply.html", "front.html"])
def test_error_pages_are_one_clear_line(name):
    truth = _truth(name)
    with pytest.raises(ForumError) as got:
        _read(name)
    assert type(got.value).__name__ == truth["error"]
    line = str(got.value)
    assert "\n" not in line and truth["says"] in line and BASE in line


def test_cut_off_and_garbage_pages():
    body = (SMF / "topic-p1.html").read_bytes()
    with pytest.raises(ParseError, match="cut off"):
        parse_smf_topic_page(body[:len(body) // 2], **_args("topic-p1.html"))
    with pytest.raises(ParseError):
        parse_smf_topic_page(b"\x00\xff garbage", **_args("topic-p1.html"))
    with pytest.raises(ParseError, match="SMF personal-message"):
        parse_smf_pm_list(body, **_args("topic-p1.html"))


def test_detect_engine():
    assert detect_engine((SMF / "front.html").read_bytes()) == "smf"
    assert detect_engine((SMF / "topic-p1.html").read_bytes()) == "smf"
    phpbb = next((ROOT / "fixtures" / "phpbb" / "phpbb-3.3.15" / "prosilver-ru").glob("*.html"))
    assert detect_engine(phpbb.read_bytes()) == "phpbb"
    assert detect_engine(b"<html><body>nginx 502</body></html>") is None


@pytest.mark.parametrize("html, colored, hidden", [
    # as SMF renders [color=red][spoiler]Вася[/color] Кот[/spoiler] [color=red]Зоя[/color]
    ('<span style="color: red;" class="bbc_color">[spoiler]Вася</span> Кот[/spoiler] '
     '<span style="color: red;" class="bbc_color">Зоя</span>', [["red", "Зоя"]],
     [["red", "Вася", "spoiler"]]),
    # never closed: hidden to the end of the body
    ('[SPOILER=ход]<span style="color: red;" class="bbc_color">Кот</span>',
     [], [["red", "Кот", "spoiler"]]),
    # two spoilers and plain words between them
    ('[spoiler]<span style="color: red;" class="bbc_color">А</span>[/spoiler] '
     '<span style="color: blue;" class="bbc_color">Б</span> [spoiler]В[/spoiler]',
     [["blue", "Б"]], [["red", "А", "spoiler"]]),
])
def test_literal_spoiler_markers(html, colored, hidden):
    page = (SMF / "locked.html").read_bytes().replace(
        "Закрыто.".encode(), html.encode())
    post = parse_smf_topic_page(page, **_args("locked.html")).posts[0]
    assert [[c.color, c.text] for c in post.colored] == colored
    assert [[h.color, h.text, h.where] for h in post.hidden] == hidden
    assert "spoiler" not in post.text.lower()
