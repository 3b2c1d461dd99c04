"""Edit notices found by what they say, wherever a style places them (issue 12, R2.7).

Every style variant of fixtures/phpbb with the post's «Last edited by …» / «Последний раз
редактировалось …» notice moved into the post's own body cell, after the text
(derived in memory from the real captures by
fixtures/phpbb/derive_moved_notice.py): the edit time, editor and count are read, the notice's
words are neither the post's text nor a vote, and every other post reads as on the capture."""

from __future__ import annotations

import importlib.util
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.forum.phpbb.parse import declared_timezone, parse_topic_page

PHPBB = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb"
_spec = importlib.util.spec_from_file_location("derive_moved_notice",
                                               PHPBB / "derive_moved_notice.py")
derive = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(derive)
MSK = ZoneInfo("Europe/Moscow")
PLUS1 = timezone(timedelta(hours=1))
FETCHED = datetime(2024, 4, 10, 12, 0, tzinfo=timezone.utc)
V33 = "phpbb-3.3.15/{}/guest_viewtopic_t4_start0.html"
IGROK = (85, "Игрок-7", datetime(2024, 4, 9, 17, 5, tzinfo=MSK), 1)

# derived page -> (the capture it comes from, post id, editor, edit time, count, had a notice)
CASES = {
    "3.3-prosilver-en.html": (V33.format("prosilver-en"), *IGROK, True),
    "3.3-prosilver-ru.html": (V33.format("prosilver-ru"), *IGROK, True),
    "3.3-subsilver2-en-cell.html": (V33.format("subsilver2-port-gorski-en"), *IGROK, True),
    "3.3-subsilver2-ru-cell.html": (V33.format("subsilver2-port-gorski-ru"), *IGROK, True),
    "3.3-subsilver2-en-body.html": (V33.format("subsilver2-port-gorski-en"), *IGROK, True),
    "3.3-subsilver2-ru-body.html": (V33.format("subsilver2-port-gorski-ru"), *IGROK, True),
    "3.0-prosilver.html": ("other-versions/3.0.x-prosilver-en-ilovephilosophy.html", 2729877,
                           "Jakob", datetime(2019, 5, 26, 17, 35, tzinfo=PLUS1), 2, True),
    "3.2-allanstyle.html": ("other-versions/3.2.x-AllanStyle-SUBSILVER-en-dostips.html", 4554,
                            "jeb", datetime(2011, 1, 27, 17, 22, tzinfo=timezone(
                                timedelta(hours=-6))), 1, True),
    "3.0-subsilver2.html": ("other-versions/3.0.x-subsilver2-en-dildano-artwork-p1.html", 24,
                            "Nick", datetime(2009, 9, 27, 16, 20, tzinfo=PLUS1), 1, False),
    "2.0-subsilver.html": ("other-versions/2.0.x-subSilver-en-oldclassiccar.html", 87768,
                           "Journer", datetime(2012, 10, 9, 22, 30, tzinfo=PLUS1), 1, False),
}


def parse(body: bytes):
    return parse_topic_page(body, url="http://board.example/viewtopic.php?t=4",
                            board_tz=declared_timezone(body) or MSK, fetched_at=FETCHED)


def test_every_derived_page_is_tested():
    assert sorted(derive.DERIVED) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_edit_notice_in_the_body_cell_is_read(name):
    source, pid, by, at, count, had_notice = CASES[name]
    moved = {p.post_id: p for p in parse(derive.derived(name)).posts}
    orig = {p.post_id: p for p in parse((PHPBB / source).read_bytes()).posts}
    assert moved.keys() == orig.keys()
    p, o = moved[pid], orig[pid]
    assert (p.edited_by, p.edited_at, p.edit_count) == (by, at, count)
    if had_notice:           # the same edit as the stock layout gives
        assert (o.edited_by, o.edited_at, o.edit_count) == (by, at, count)
    # the notice's words are not the author's: not his text, not a vote, not bold
    for words in ("edited", "редактировал"):
        assert words not in p.text.lower()
    assert (p.text, p.colored, p.bold, p.hidden) == (o.text, o.colored, o.bold, o.hidden)
    for other in orig:
        if other != pid:
            assert moved[other] == orig[other]


def test_words_that_only_look_like_a_notice_stay_the_authors():
    """A player's own line starting like a notice, with no date, is his text (no error)."""
    body = (PHPBB / V33.format("subsilver2-port-gorski-en")).read_text(encoding="utf-8")
    body = body.replace('<div class="postbody">Хм. ',
                        '<div class="postbody">Хм.<br /><span>Last edited by nobody, ever</span> ', 1)
    tp = parse_topic_page(body.encode(), url="http://board.example/viewtopic.php?t=4",
                          board_tz=MSK, fetched_at=FETCHED)
    p = next(p for p in tp.posts if p.post_id == 85)
    assert "Last edited by nobody, ever" in p.text
    assert (p.edited_by, p.edit_count) == ("Игрок-7", 1)     # the real notice still read
