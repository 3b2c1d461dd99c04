"""FluxBB_by_Visman 1.5.11 pages saved from the real board (fixtures/fluxbb/, see
../shared/fluxbb-board) read into the neutral values: posts to the second, edits, quotes,
spoilers and code out of votes, merged replies as pieces, PM dialogs, errors."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from scraper_mod.errors import ForumError, TopicNotFoundError
from scraper_mod.forum.engine import detect_engine, engine_of_url, topic_key
from scraper_mod.forum.feed import parse_topic_feed
from scraper_mod.forum.fluxbb.board import parse_fluxbb_pm
from scraper_mod.forum.fluxbb.links import (
    fluxbb_forum_id,
    fluxbb_post_id,
    fluxbb_topic_id,
    fluxbb_topic_key,
)
from scraper_mod.forum.fluxbb.parse import (
    dialog_marks,
    fluxbb_feed_post_id,
    merge_after_seconds,
    parse_fluxbb_dialog,
    parse_fluxbb_dialog_list,
    parse_fluxbb_topic_page,
)
from scraper_mod.forum.html import MOSCOW
from scraper_mod.forum.model import post_from_json

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "fluxbb"
# the pages were saved at 07:29:57 UTC on 2026-12-05 (their Date header)
FETCHED = datetime(2026, 12, 5, 7, 29, 57, tzinfo=timezone.utc)
URL = "http://127.0.0.1:8391/viewtopic.php?id=2"


def _page(name: str, url: str = URL):
    return parse_fluxbb_topic_page((FIX / name).read_bytes(), url=url, fetched_at=FETCHED,
                                   board_tz=MOSCOW)


def test_topic_page_posts_times_to_the_second_and_authors():
    page = _page("topic-guest.html")
    assert (page.topic_id, page.title, page.locked, page.page, page.page_count) == \
        (2, "День 1", False, 1, 1)
    ids = [p.post_id for p in page.posts]
    assert ids == [2, 3, 4, 5, 6, 7]
    first = page.posts[0]
    assert (first.author, first.author_id) == ("admin", 2)
    assert first.posted_at == datetime(2026, 12, 5, 10, 29, 20, tzinfo=MOSCOW)
    assert first.precision == "second" and first.earliest == first.latest


def test_edit_notice_is_the_edit_time_and_not_the_text():
    post = {p.post_id: p for p in _page("topic-guest.html").posts}[5]
    assert post.edited_by == "Вася" and post.edit_count == 1
    assert post.edited_at == datetime(2026, 12, 5, 10, 29, 23, tzinfo=MOSCOW)
    assert post.text == "вот Big Joe" and "Отредактировано" not in post.text
    assert [(c.color, c.text) for c in post.colored] == [("green", "Big Joe")]


def test_a_moderators_silent_edit_leaves_no_notice():
    post = {p.post_id: p for p in _page("topic-guest.html").posts}[4]
    assert post.edit_count == 0 and post.edited_at is None
    assert "правка ведущего" in post.text


def test_quote_spoiler_and_code_are_not_votes_R2_2():
    """R2.2: colored text in a quote, a spoiler ([spoiler] is a quotebox too) or code is
    set aside; only the own «Вася» is colored text of the post."""
    post = {p.post_id: p for p in _page("topic-guest.html").posts}[6]
    assert [(c.color, c.text) for c in post.colored] == [("blue", "Вася")]
    where = {(h.text, h.where) for h in post.hidden}
    assert ("Кот", "quote") in where and ("Маша_2", "quote") in where
    assert ("Лиса", "spoiler") in where
    assert "Зоя" not in post.text and "Скрытый текст" not in post.text
    assert "Добавлено" not in " ".join(h.text for h in post.hidden)   # marks in quotes dropped


def test_merged_reply_pieces_with_their_marks():
    """A reply merged into the author's previous post: the pieces with the seconds their
    «Добавлено спустя 02 с:» marks give; the marks are not the author's words (nor grey
    colored text)."""
    post = {p.post_id: p for p in _page("topic-guest.html").posts}[3]
    assert [p.after for p in post.parts] == [0, 2, 2]
    assert [[(c.color, c.text) for c in p.colored] for p in post.parts] == \
        [[("red", "Кот")], [("#FF0000", "Маша_2")], []]
    assert [p.text for p in post.parts] == ["Голосую: Кот", "Перегол: Маша_2", "и ещё слово"]
    assert "Добавлено" not in post.text
    assert all(c.color != "#808080" for c in post.colored)
    assert post.edit_count == 0
    # the pieces survive the store's JSON, written as dataclasses.asdict would
    assert post_from_json(post.to_json()) == post
    want = asdict(post)
    for k in ("posted_at", "earliest", "latest", "edited_at"):
        want[k] = want[k].isoformat() if want[k] is not None else None
    assert repr(post.to_json()) == repr(want)


def test_merge_mark_seconds():
    assert merge_after_seconds("Добавлено спустя 1 ч 05 мин 03 с:") == 3903
    assert merge_after_seconds("Добавлено спустя 02 с:") == 2
    assert merge_after_seconds("Добавлено спустя 1 дн 10 мин:") == 87000
    assert merge_after_seconds("Added later 2 h:") == 7200
    assert merge_after_seconds("Голосую 1 ч:") is None
    assert merge_after_seconds("Добавлено спустя:") is None


def test_same_second_merge_has_no_mark():
    """Saved from the real board: Зоя's two replies in one second merged with no mark, only
    ``<p>…</p><br /><p>…</p>``: two pieces, the second at the same second."""
    page = parse_fluxbb_topic_page((FIX / "merged-same-second.html").read_bytes(), url=URL,
                                   fetched_at=FETCHED, board_tz=MOSCOW)
    post = next(p for p in page.posts if p.author == "Зоя")
    assert [(x.after, x.text, [c.text for c in x.colored]) for x in post.parts] == [
        (0, "Кот 0", ["Кот"]), (0, "нет, Лиса 0", ["Лиса"])]


def test_pages_and_a_locked_topic():
    p1 = _page("long-p1.html", "http://127.0.0.1:8391/viewtopic.php?id=3")
    p2 = _page("long-p2.html", "http://127.0.0.1:8391/viewtopic.php?id=3&p=2")
    assert (p1.page, p1.page_count, p1.next_url, len(p1.posts)) == \
        (1, 2, "viewtopic.php?id=3&p=2", 25)
    assert (p2.page, p2.page_count, p2.next_url, len(p2.posts)) == (2, 2, None, 3)
    assert p1.locked and p2.locked


def test_a_deleted_post_is_one_line():
    with pytest.raises(TopicNotFoundError, match="Неверный запрос"):
        _page("post-missing.html", "http://127.0.0.1:8391/viewtopic.php?pid=999")


def test_feed_gives_each_post_to_the_second_in_utc():
    entries = parse_topic_feed((FIX / "feed-topic-2.xml").read_bytes(), url="feed",
                               post_id=fluxbb_feed_post_id)
    by_id = {e.post_id: e for e in entries}
    assert set(by_id) == {2, 3, 4, 5, 6, 7}
    page = {p.post_id: p for p in _page("topic-guest.html").posts}
    for pid, e in by_id.items():
        assert e.published == page[pid].posted_at      # the same instant as the page shows
    assert by_id[3].author == "Вася"


def test_pm_dialog_and_list():
    body = (FIX / "pm-dialog-admin.html").read_bytes()
    d = parse_fluxbb_dialog(body, url="u", fetched_at=FETCHED, board_tz=MOSCOW)
    assert d.subject == "Ход"
    assert [(m.msg_id, m.author, m.text) for m in d.messages] == \
        [(1, "Вася", "проверяю Машу_2"), (2, "admin", "Принято"), (3, "Вася", "спасибо")]
    assert d.messages[0].bold == ("Машу_2",)
    assert d.messages[0].sent_at == datetime(2026, 12, 5, 10, 29, 23, tzinfo=MOSCOW)
    assert parse_fluxbb_pm(body, msg_id=3, url="u", fetched_at=FETCHED).text == "спасибо"
    rows = parse_fluxbb_dialog_list((FIX / "pm-list-admin.html").read_bytes(),
                                    url="http://h/pmsnew.php?mdl=list", fetched_at=FETCHED,
                                    board_tz=MOSCOW, me="admin")
    assert [(r.msg_id, r.subject, r.author, r.unread) for r in rows] == [(1, "Ход", "Вася", True)]


def test_addresses_and_the_topic_key():
    url = "http://b.example/forum/viewtopic.php?id=12&p=3"
    assert fluxbb_topic_id(url) == 12 and fluxbb_topic_key(url) == \
        "http://b.example/forum/viewtopic.php?id=12"
    assert fluxbb_post_id("http://b.example/viewtopic.php?pid=7#p7") == 7
    assert fluxbb_forum_id("http://b.example/viewforum.php?id=2") == 2
    assert engine_of_url(url) == "fluxbb" and topic_key(url).endswith("viewtopic.php?id=12")
    assert engine_of_url("http://b.example/viewtopic.php?t=12") == "phpbb"
    with pytest.raises(ForumError, match="не адрес темы FluxBB") as e:
        fluxbb_topic_key("http://b.example/index.php?topic=3.0")
    assert "viewtopic.php?id=12" in (e.value.hint or "")


def test_engine_detected_from_the_front_page():
    assert detect_engine((FIX / "index.html").read_bytes()) == "fluxbb"
    assert detect_engine((FIX / "feed-topic-2.xml").read_bytes()) == "fluxbb"


def test_yesterday_and_older_dates():
    body = (FIX / "topic-guest.html").read_bytes().replace(
        "Сегодня 10:29:20".encode(), "2026-12-01 20:27:45".encode(), 1).replace(
        "Сегодня 10:29:23".encode(), "Вчера 23:59:59".encode(), 1)
    posts = parse_fluxbb_topic_page(body, url=URL, fetched_at=FETCHED, board_tz=MOSCOW).posts
    assert posts[0].posted_at == datetime(2026, 12, 1, 20, 27, 45, tzinfo=MOSCOW)
    assert posts[2].posted_at == datetime(2026, 12, 4, 23, 59, 59, tzinfo=MOSCOW)
    assert posts[2].posted_at + timedelta(seconds=1) == datetime(2026, 12, 5, tzinfo=MOSCOW)


def test_dialog_rows_mark_their_replies_and_last_message():
    """The PM source opens a dialog again only when its row in the list changed."""
    body = (FIX / "pm-list-admin.html").read_bytes()
    assert dialog_marks(body) == {1: "2|Сегодня 10:29:23от Вася"}
    read = body.replace(b'class="rowodd inew"', b'class="rowodd"').replace(
        "[ <a href=\"pmsnew.php?mdl=topic&amp;tid=1&amp;action=new\"".encode(), b"[ <a href=\"x\"")
    assert dialog_marks(read) == dialog_marks(body)          # read or not: the same row
    more = body.replace(b'<td class="tc3">2</td>', b'<td class="tc3">3</td>')
    assert dialog_marks(more) != dialog_marks(body)


def test_a_signature_is_not_a_vote_R2_2():
    """Pilot's signature «Мой выбор: [color=red]Кот[/color]» follows his (merged) post as
    ``div.postsignature.postmsg`` (saved from the real board): set aside as a signature, by
    the post and by its last piece."""
    page = parse_fluxbb_topic_page((FIX / "signature.html").read_bytes(), url=URL,
                                   fetched_at=FETCHED, board_tz=MOSCOW)
    post = next(p for p in page.posts if p.author == "Pilot")
    assert post.colored == () and post.text == "просто текст\nпросто текст 2"
    assert [(h.text, h.where) for h in post.hidden] == [("Кот", "signature")]
    assert [(x.after, x.text) for x in post.parts] == [(0, "просто текст"),
                                                        (8, "просто текст 2")]
    assert [(h.text, h.where) for h in post.parts[-1].hidden] == [("Кот", "signature")]
    assert post.parts[0].hidden == ()
