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
