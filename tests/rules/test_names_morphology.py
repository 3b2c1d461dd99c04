"""R2.3 with a dictionary: the inflected singular forms of Russian words used as nicks come
from pymorphy3 (``scraper_mod.morphology.inflect``, injected into the pure name index), so the
words the hand-written declension gets wrong match too: Заяц → Зайца, Лев → Льва, Боец →
Бойца, Мать → Матери, Дочь → Дочери, Лёд → Льда. The Latin-ending, prefix and near-miss
matching are unchanged, and plural forms add no collisions."""

from __future__ import annotations

import pytest

from scraper_mod.morphology import inflect
from scraper_mod.moves.targets import matcher_for
from scraper_mod.rules.model import Player
from scraper_mod.rules.names import Match, NameIndex, name_index

PLAYERS = [("Заяц", ()), ("Лев", ()), ("Боец", ()), ("Мать", ()), ("Дочь", ()), ("Лёд", ()),
           ("NightOwl", ()), ("Ёжик в тумане", ()), ("Маша_2", ()), ("Светлана", ())]
INDEX = NameIndex(PLAYERS, inflect=inflect)

DICTIONARY_FORMS = [
    ("Зайца", "Заяц"), ("зайцу", "Заяц"), ("Зайцем", "Заяц"),
    ("Льва", "Лев"), ("Львом", "Лев"), ("Льву", "Лев"),
    ("Бойца", "Боец"), ("Бойцом", "Боец"),
    ("Матери", "Мать"), ("Матерью", "Мать"),
    ("Дочери", "Дочь"), ("Дочерью", "Дочь"),
    ("Льда", "Лёд"), ("Льдом", "Лёд"), ("льду", "Лёд"),
]


@pytest.mark.parametrize("text, player", DICTIONARY_FORMS)
def test_r2_3_dictionary_forms_match(text, player):
    assert INDEX.match(text) == Match(player, "inflected", text)
    assert matcher_for([Player(nick=n) for n, _ in PLAYERS])(text) == (player,)


@pytest.mark.parametrize("text, player", DICTIONARY_FORMS[::3])
def test_r2_3_the_hand_written_declension_alone_misses_them(text, player):
    """Why the dictionary is there: without it these forms name nobody (or the wrong one)."""
    assert NameIndex(PLAYERS).match(text) != Match(player, "inflected", text)


@pytest.mark.parametrize("text, player, how", [
    ("NightOwl'а", "NightOwl", "inflected"),        # a Latin nick with a Russian ending
    ("Ёжика в тумане", "Ёжик в тумане", "inflected"),
    ("Машу_2", "Маша_2", "inflected"),
    ("Светлану", "Светлана", "inflected"),
    ("Свет", "Светлана", "prefix"),
    ("Светалана", "Светлана", "near"),              # a typo
    ("Свтелану", "Светлана", "near"),               # a typo of an inflected form
])
def test_r2_3_latin_ending_prefix_and_near_miss_keep_working(text, player, how):
    assert INDEX.match(text) == Match(player, how, text)


@pytest.mark.parametrize("text", ["Зайцы", "Зайцами", "Львов", "Дочерей", "Матерям"])
def test_r2_3_plural_forms_are_not_the_player(text):
    assert not INDEX.match(text)


def test_r2_3_only_singular_oblique_forms_are_given():
    assert inflect("заяц") == {"зайца", "зайцу", "зайцем", "зайце"}
    assert "маш" not in inflect("маша")                  # the vocative is no case of a name
    assert inflect("кысь") == frozenset()                # unknown: left to the hand-written rules


def test_r2_3_a_shared_index_with_the_dictionary_is_built_once():
    assert name_index(PLAYERS, inflect=inflect) is name_index(list(PLAYERS), inflect=inflect)
    assert name_index(PLAYERS, inflect=inflect) is not name_index(PLAYERS)


def test_r2_3_a_real_day_counts_votes_written_in_dictionary_forms(tmp_path):
    """The real topic «День 1 — голосование» with Алексей renamed Лев and every vote for him
    written «Льва» (or «Лев»): the day's count gives Лев exactly Алексей's votes."""
    import dataclasses
    from datetime import datetime
    from pathlib import Path
    from zoneinfo import ZoneInfo

    from test_votes_fixture import versions_of

    from scraper_mod.clock import FakeClock
    from scraper_mod.game.context import open_game
    from scraper_mod.game.day.tally import tally_day

    msk = ZoneInfo("Europe/Moscow")
    root = Path(__file__).resolve().parents[2]
    toml = (root / "fixtures" / "games" / "day1" / "game.toml").read_text(encoding="utf-8")
    (tmp_path / "game.toml").write_text(toml.replace('"Алексей"', '"Лев"'),
                                        encoding="utf-8")
    original = versions_of("prosilver-ru")
    alexei = NameIndex([(n, ()) for n in ("Алексей", "NightOwl", "Маша_2")])

    def lev(post):
        colored = tuple(dataclasses.replace(c, text="Льва" if i % 2 == 0 else "Лев")
                        if getattr(alexei.match(c.text), "player", None) == "Алексей" else c
                        for i, c in enumerate(post.colored))
        return dataclasses.replace(post, colored=colored,
                                   author="Лев" if post.author == "Алексей" else post.author)
    renamed = [(lev(p), seen) for p, seen in original]
    assert any(c.text == "Льва" for p, _ in renamed for c in p.colored)
    clock = FakeClock(datetime(2024, 4, 9, 21, 0, tzinfo=msk))
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (fixture / "game.toml").write_text(toml, encoding="utf-8")
    counts = {}
    for folder, versions in ((fixture, original), (tmp_path, renamed)):
        c = open_game(folder, clock=clock)
        try:
            counts[folder] = {x["target"]: x["votes"]
                              for x in tally_day(c, 1, versions=versions).to_json()["counts"]}
        finally:
            c.close()
    before, after = counts[fixture], counts[tmp_path]
    assert before["Алексей"] >= 4
    assert after == {("Лев" if k == "Алексей" else k): v for k, v in before.items()}
