"""The replay speed-ups change no result: cached letters, shared name indexes and the
hand-written ``Post.to_json`` give exactly what the uncached, generic code gave."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.forum.model import post_from_json
from scraper_mod.forum.parser import parse_topic_page
from scraper_mod.moves import intake
from scraper_mod.rules.model import Player
from scraper_mod.rules.names import NameIndex, name_index
from scraper_mod.store import Store

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PAGES = sorted((FIXTURES / "phpbb" / "phpbb-3.3.15").glob("*/guest_viewtopic_t4_start*.html"))
MAIL = FIXTURES / "mail"
T0 = datetime(2024, 4, 9, 12, 0, tzinfo=timezone.utc)


def _asdict_json(post) -> dict:
    """``Post.to_json`` as it was first written, with ``dataclasses.asdict``."""
    d = asdict(post)
    for k in ("posted_at", "earliest", "latest", "edited_at"):
        if d[k] is not None:
            d[k] = d[k].isoformat()
    return d


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name + "/" + p.name)
def test_post_to_json_is_what_asdict_gave(page):
    parsed = parse_topic_page(page.read_bytes(), url=page.name, fetched_at=T0,
                              board_tz=ZoneInfo("Europe/Moscow"))
    assert parsed.posts
    for post in parsed.posts:
        got, want = post.to_json(), _asdict_json(post)
        # same keys in the same order, same values, same containers (tuples stay tuples)
        assert repr(got) == repr(want)
        assert post_from_json(got) == post


def test_the_fixture_pages_hold_every_kind_of_post_field():
    """The pages above cover colored, hidden, bold, quoted and edited posts."""
    posts = [p for page in PAGES for p in parse_topic_page(
        page.read_bytes(), url=page.name, fetched_at=T0,
        board_tz=ZoneInfo("Europe/Moscow")).posts]
    assert any(p.colored for p in posts) and any(p.hidden for p in posts)
    assert any(p.edited_at for p in posts) and any(p.quotes for p in posts)


PLAYERS = (Player("Вася", aliases=("Василий",)), Player("Маша_2"), Player("Big Joe"),
           Player("Ёжик в тумане"), Player("Павел"), Player("Red Fox", alive=False))
WRITTEN = ["Васю", "василия", "маше 2", "Маше_2", "big joe", "Ежика в тумане", "Павла",
           "Red Fox", "Biq Joe", "Ва", "Пав", "Никто", "", "за Васю", "Вася, Маша"]


def test_R2_3_a_shared_name_index_matches_like_a_fresh_one():
    shared = name_index(PLAYERS)
    assert name_index(list(PLAYERS)) is shared          # built once per list of names
    assert name_index(PLAYERS[:3]) is not shared
    fresh = NameIndex(PLAYERS)
    assert shared.players == fresh.players
    for text in WRITTEN:
        assert shared.match(text) == fresh.match(text), text
        assert shared.match_all(text) == fresh.match_all(text), text


def _game_ctx(store: Store):
    from scraper_mod.game.config import MovesConfig
    return SimpleNamespace(store=store, game=SimpleNamespace(moves=MovesConfig()))


def test_letters_are_decoded_once_per_store_and_equal_to_a_fresh_read(monkeypatch):
    store = Store(":memory:")
    names = sorted(p.name for p in MAIL.iterdir() if p.suffix in (".eml", ".bin"))
    for i, name in enumerate(names):
        at = T0 + timedelta(minutes=i)
        store.add_message("maildir:/m", name, (MAIL / name).read_bytes(), received_at=at,
                          stored_at=at)
    fresh = [intake.read_letter(m) for m in store.messages()]
    reads: list[int] = []
    real = intake.read_letter
    monkeypatch.setattr(intake, "read_letter",
                        lambda m, **kw: reads.append(m.id) or real(m, **kw))
    first, dups1 = intake._letters(_game_ctx(store))
    second, dups2 = intake._letters(_game_ctx(store))
    assert sorted(reads) == sorted(m.id for m in store.messages())   # each read once
    assert first == second and dups1 == dups2
    assert dups1, "the duplicate delivery in fixtures/mail is recognised"
    assert first == [letter for letter in fresh if letter.message_id not in dups1]
    # another store with the same message ids holds other mail: read afresh, not mixed up
    other = Store(":memory:")
    for i, name in enumerate(reversed(names)):
        at = T0 + timedelta(minutes=i)
        other.add_message("maildir:/m", name, (MAIL / name).read_bytes(), received_at=at,
                          stored_at=at)
    theirs, their_dups = intake._letters(_game_ctx(other))
    assert theirs == [letter for letter in (real(m) for m in other.messages())
                      if letter.message_id not in their_dups]
