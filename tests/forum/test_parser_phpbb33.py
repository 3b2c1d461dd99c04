"""The parser on every real phpBB 3.3.15 topic page, against the README ground truth.

Six captures of topic t=4 (prosilver ru/en, the subSilver2 port ru/en, and ru with the board
clock at 2024-04-09 20:35 so that dates are relative), two pages each, 40 posts.
"""

from __future__ import annotations

from datetime import timedelta, timezone

import pytest
from test_parser_helpers import BOARD, V33, moscow, page, truth

from scraper_mod.forum.phpbb.parse import parse_forum_page, parse_topic_file, parse_topic_page

TRUTH = truth()["topic"]
POSTS = TRUTH["posts"]
FOLDERS = {
    # folder: (style, language, has <time datetime>, dates relative)
    "prosilver-ru": ("prosilver", "ru", True, False),
    "prosilver-en": ("prosilver", "en", True, False),
    "prosilver-ru-relative-dates": ("prosilver", "ru", True, True),
    "subsilver2-port-gorski-ru": ("subsilver2", "ru", False, False),
    "subsilver2-port-gorski-en": ("subsilver2", "en", False, False),
    "subsilver2-port-gorski-ru-relative-dates": ("subsilver2", "ru", False, True),
}
CASES = [(f, start) for f in FOLDERS for start in (0, 25)]


def _parse(folder, start):
    body, url, fetched_at = page(folder, f"guest_viewtopic_t4_start{start}.html")
    return parse_topic_page(body, url=url, fetched_at=fetched_at), url, fetched_at


@pytest.fixture(scope="module")
def parsed():
    return {(f, s): _parse(f, s) for f, s in CASES}


@pytest.mark.parametrize("folder,start", CASES)
def test_page_level_fields(parsed, folder, start):
    tp, url, _ = parsed[folder, start]
    style, lang, _, _ = FOLDERS[folder]
    assert tp.topic_id == 4
    assert tp.title == TRUTH["title"]
    assert tp.locked is False
    assert tp.page == (1 if start == 0 else 2)
    assert tp.page_count == 2
    assert tp.style == style
    assert tp.language == lang
    assert tp.url == url
    if start == 0:
        extra = "style=2&" if style == "subsilver2" else ""
        assert tp.next_url == f"{BOARD}/viewtopic.php?{extra}t=4&start=25"
    else:
        assert tp.next_url is None


@pytest.mark.parametrize("folder,start", CASES)
def test_ids_authors_and_user_ids(parsed, folder, start):
    tp, _, _ = parsed[folder, start]
    want = [p for p in POSTS if p["start"] == start]
    assert [p.post_id for p in tp.posts] == [p["post_id"] for p in want]
    assert [p.author for p in tp.posts] == [p["author"] for p in want]
    assert [p.author_id for p in tp.posts] == [p["author_id"] for p in want]
    assert all(p.page_url == tp.url for p in tp.posts)


@pytest.mark.parametrize("folder,start", CASES)
def test_post_times(parsed, folder, start):
    """R2.6: seconds where the page has <time datetime>; else the shown minute; relative
    forms resolved against the board clock of the fetch (fetch_log.tsv Date header)."""
    tp, _, fetched_at = parsed[folder, start]
    _, _, has_seconds, relative = FOLDERS[folder]
    want = {p["post_id"]: p for p in POSTS}
    for post in tp.posts:
        w = want[post.post_id]
        exact = moscow(w["time_moscow"])
        assert post.earliest <= exact <= post.latest, (post.post_id, post.earliest, post.latest)
        assert post.posted_at == post.earliest
        assert post.earliest.utcoffset() == timedelta(hours=3)
        if has_seconds:
            assert post.precision == "second"
            assert post.posted_at == exact == post.latest
        elif relative and "назад" in w["shown_ru_relative"]:
            assert post.precision == "relative"
            # «N минут назад» = floor((now - t)/60): a range of one minute plus render slack
            assert post.latest - post.earliest <= timedelta(seconds=62)
            assert post.latest <= fetched_at
        else:
            assert post.precision == "minute"
            assert post.earliest == exact.replace(second=0)
            assert post.latest == exact.replace(second=59)


def test_deadline_posts_in_relative_subsilver2_straddle_the_minute(parsed):
    """19:59:30 shown «35 минут назад» at 20:35:06 cannot be placed on one side of 20:00."""
    tp, _, _ = parsed["subsilver2-port-gorski-ru-relative-dates", 25]
    p96 = next(p for p in tp.posts if p.post_id == 96)
    deadline = moscow("2024-04-09 20:00:00")
    assert p96.precision == "relative"
    assert p96.earliest < deadline <= p96.latest
    p97 = next(p for p in tp.posts if p.post_id == 97)   # 20:00:10, «34 минуты назад»
    assert p97.earliest >= deadline - timedelta(seconds=3)


@pytest.mark.parametrize("folder,start", CASES)
def test_edits(parsed, folder, start):
    tp, _, _ = parsed[folder, start]
    want = {p["post_id"]: p for p in POSTS}
    for post in tp.posts:
        e = want[post.post_id]["edit"]
        if e is None:
            assert (post.edited_at, post.edited_by, post.edit_count, post.edit_reason) == \
                (None, None, 0, None)
        else:
            assert post.edited_by == e["by"]
            assert post.edit_count == e["count"]
            assert post.edit_reason == e["reason"]
            # the notice shows minutes only, always as an absolute date
            assert post.edited_at == moscow(e["at_moscow"]).replace(second=0)
    if start == 0:
        assert sum(p.edit_count for p in tp.posts) == 1


@pytest.mark.parametrize("folder,start", CASES)
def test_bodies_colored_bold_quotes_hidden_text(parsed, folder, start):
    tp, _, _ = parsed[folder, start]
    want = {p["post_id"]: p for p in POSTS}
    for post in tp.posts:
        w = want[post.post_id]
        assert [[c.color, c.text] for c in post.colored] == w["colored"], post.post_id
        assert list(post.bold) == w["bold"], post.post_id
        assert list(post.quotes) == w["quotes"], post.post_id
        assert [[h.color, h.text, h.where, h.quoted_post_id] for h in post.hidden] == \
            w["hidden"], post.post_id
        assert post.text == w["text"], post.post_id


def test_admin_group_colour_is_not_a_vote(parsed):
    for key, (tp, _, _) in parsed.items():
        for p in tp.posts:
            if p.author == "admin":
                assert all(c.color != "#AA0000" for c in p.colored), key
                assert all(h.color != "#AA0000" for h in p.hidden), key


def test_same_posts_in_every_capture(parsed):
    """ru/en, prosilver/subsilver2, absolute/relative: the same content keys."""
    keys = {}
    for (folder, start), (tp, _, _) in parsed.items():
        for p in tp.posts:
            k = p.content_key()
            keys.setdefault(p.post_id, []).append((folder, k))
    for pid, ks in keys.items():
        assert len(ks) == 6
        first = ks[0][1]
        for folder, k in ks[1:]:
            assert k == first, (pid, folder)


def test_to_json_round_trip(parsed):
    from scraper_mod.forum.model import post_from_json
    tp, _, _ = parsed["prosilver-ru", 0]
    for p in tp.posts:
        assert post_from_json(p.to_json()) == p


def test_parse_topic_file_without_fetch_time(tmp_path):
    tp = parse_topic_file(V33 / "prosilver-ru-relative-dates" / "guest_viewtopic_t4_start25.html")
    # prosilver still has every second in <time datetime>
    assert [p.precision for p in tp.posts] == ["second"] * 15
    assert tp.posts[0].posted_at.utcoffset() == timedelta(hours=3)  # declared zone UTC+03:00
    from scraper_mod.errors import ParseError
    with pytest.raises(ParseError) as e:
        parse_topic_file(V33 / "subsilver2-port-gorski-ru-relative-dates" /
                         "guest_viewtopic_t4_start25.html")
    assert "post 88" in str(e.value) and "Сегодня, 18:02" in str(e.value)
    with pytest.raises(ParseError) as e:
        parse_topic_file(tmp_path / "missing.html")
    assert "missing.html" in str(e.value)


def test_parse_topic_file_absolute_dates_use_declared_zone():
    tp = parse_topic_file(V33 / "subsilver2-port-gorski-en" / "guest_viewtopic_t4_start0.html")
    assert tp.posts[0].posted_at == moscow("2024-04-08 21:00:00")
    assert tp.posts[0].posted_at.astimezone(timezone.utc).hour == 18


@pytest.mark.parametrize("folder", ["prosilver-ru", "prosilver-en", "subsilver2-port-gorski-ru",
                                    "prosilver-ru-relative-dates"])
def test_forum_page_lists_topics(folder):
    body, url, _ = page(folder, "guest_viewforum_f3.html")
    links = parse_forum_page(body, url=url)
    assert sorted((link.topic_id, link.title) for link in links) == [
        (3, "Игра 2 — правила и состав"), (4, "День 1 — голосование"), (5, "Флудилка игры 2")]
    day1 = next(link for link in links if link.topic_id == 4)
    extra = "style=2&" if "subsilver2" in folder else ""
    assert day1.url == f"{BOARD}/viewtopic.php?{extra}t=4"


def test_locked_topic():
    """A locked topic: phpBB 3.3 prosilver turns the reply button into «Тема закрыта» with a
    lock icon; the subSilver2 port shows the button_topic_locked image instead."""
    body, url, fetched_at = page("prosilver-ru", "guest_viewtopic_t4_start0.html")
    locked = body.replace(
        'title="Ответить">\n\t\t\t\t\t\t\t<span>Ответить</span> <i class="icon fa-reply fa-fw"'.encode(),
        'title="Тема закрыта">\n\t\t\t\t\t\t\t<span>Тема закрыта</span> <i class="icon fa-lock '
        'fa-fw"'.encode())
    assert locked != body
    assert parse_topic_page(locked, url=url, fetched_at=fetched_at).locked is True
    body, url, fetched_at = page("subsilver2-port-gorski-ru", "guest_viewtopic_t4_start0.html")
    locked = body.replace(
        'button_topic_reply" title="Ответить на тему">Ответить на тему'.encode(),
        'button_topic_locked" title="Тема закрыта">Тема закрыта'.encode())
    assert locked != body
    assert parse_topic_page(locked, url=url, fetched_at=fetched_at).locked is True
    # "blocked", "display: block" and the like elsewhere on a page are no lock
    assert parse_topic_page(body.replace(b"</body>", b"<p>blocked unlocked</p></body>"),
                            url=url, fetched_at=fetched_at).locked is False
