"""R2.3: matching a written name to a player, table-driven, on the nicks of the fixture topic
(phpBB 3.3.15 «День 1 — голосование»): Вася, Маша_2, Big Joe, Алексей, NightOwl, Игрок-7,
Ёжик в тумане, doc_Holiday."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scraper_mod.rules.model import Player
from scraper_mod.rules.names import Match, NameIndex, NoMatch, edit_distance, fold, match_nick

PLAYERS = [("Вася", ("Василий",)), ("Маша_2", ()), ("Big Joe", ("Джо",)), ("Алексей", ()),
           ("NightOwl", ("Сова",)), ("Игрок-7", ()), ("Ёжик в тумане", ()),
           ("doc_Holiday", ("Док",))]
INDEX = NameIndex(PLAYERS)


@pytest.mark.parametrize("text, player, how", [
    # exact, after folding case, spaces/underscores/hyphens, ё/е
    ("Вася", "Вася", "exact"),
    ("ВАСЯ", "Вася", "exact"),
    ("  Вася! ", "Вася", "exact"),
    ("«Вася»", "Вася", "exact"),
    ("big joe", "Big Joe", "exact"),
    ("Big_Joe", "Big Joe", "exact"),
    ("BigJoe", "Big Joe", "exact"),
    ("Игрок 7", "Игрок-7", "exact"),
    ("игрок7", "Игрок-7", "exact"),
    ("Ежик в тумане", "Ёжик в тумане", "exact"),
    ("ёжик_в_тумане", "Ёжик в тумане", "exact"),
    ("Маша 2", "Маша_2", "exact"),
    ("Doc Holiday", "doc_Holiday", "exact"),
    # Latin/Cyrillic look-alikes, both ways
    ("Big Jое", "Big Joe", "exact"),            # Cyrillic о, е
    ("Вig Joe", "Big Joe", "exact"),            # Cyrillic В
    ("NightОwl", "NightOwl", "exact"),          # Cyrillic О
    ("Aлeкcей", "Алексей", "exact"),            # Latin A, e, c
    ("BACЯ", "Вася", "exact"),                  # Latin B, A, C
    ("Mаша_2", "Маша_2", "exact"),              # Latin M
    # aliases
    ("Василий", "Вася", "alias"),
    ("джо", "Big Joe", "alias"),
    ("Сова", "NightOwl", "alias"),
    ("Док", "doc_Holiday", "alias"),
    # Russian inflected forms
    ("Васю", "Вася", "inflected"),
    ("Васе", "Вася", "inflected"),
    ("Васей", "Вася", "inflected"),
    ("Васи", "Вася", "inflected"),
    ("Алексея", "Алексей", "inflected"),
    ("Алексею", "Алексей", "inflected"),
    ("Алексеем", "Алексей", "inflected"),
    ("Маше_2", "Маша_2", "inflected"),
    ("Маши_2", "Маша_2", "inflected"),
    ("Машу_2", "Маша_2", "inflected"),
    ("Машей 2", "Маша_2", "inflected"),
    ("Ёжика в тумане", "Ёжик в тумане", "inflected"),
    ("Ежику в тумане", "Ёжик в тумане", "inflected"),
    ("Ёжиком в тумане", "Ёжик в тумане", "inflected"),
    ("Игрока-7", "Игрок-7", "inflected"),
    ("Игроку 7", "Игрок-7", "inflected"),
    ("Василия", "Вася", "inflected"),           # an alias inflects too
    ("Сову", "NightOwl", "inflected"),
    ("NightOwl'а", "NightOwl", "inflected"),    # Latin nick with a Russian ending
    ("Big Joe-ю", "Big Joe", "inflected"),
    ("doc_Holiday'ем", "doc_Holiday", "inflected"),
    # unique prefix (3 letters at least)
    ("Але", "Алексей", "prefix"),
    ("Night", "NightOwl", "prefix"),
    ("Ёжик", "Ёжик в тумане", "prefix"),
    ("doc", "doc_Holiday", "prefix"),
    # unique near-miss: 1 edit from 5 letters, 2 from 9
    ("Алесей", "Алексей", "near"),              # one letter dropped
    ("Алекесй", "Алексей", "near"),             # two letters swapped
    ("NigthOwl", "NightOwl", "near"),
    ("doc_Holliday", "doc_Holiday", "near"),    # one extra letter
    ("Ёжык в тумани", "Ёжик в тумане", "near"),  # two typos in a long nick
])
def test_r2_3_matches(text, player, how):
    assert INDEX.match(text) == Match(player, how, text)


@pytest.mark.parametrize("text", [
    "цветом",           # the host's colored word in the fixture topic
    "Ал",               # a prefix under three letters
    "Ва",
    "",
    "   ",
    "Петя",
    "Ваня",             # 1 edit from "Вася", but a 4-letter nick allows no typo
    "NightOwlzz",       # 2 edits from an 8-letter nick
])
def test_r2_3_nobody(text):
    r = INDEX.match(text)
    assert isinstance(r, NoMatch) and r.reason == "nobody" and not r


def test_r2_3_prefix_of_two_players_is_ambiguous():
    ix = NameIndex([("Маша_2", ()), ("Машенька", ()), ("Вася", ())])
    r = ix.match("Маш")
    assert r == NoMatch("ambiguous", ("Маша_2", "Машенька"), "Маш")


def test_r2_3_near_miss_of_two_players_is_ambiguous():
    ix = NameIndex([("Светлана", ()), ("Светлача", ())])
    r = ix.match("Светлаха")
    assert isinstance(r, NoMatch) and r.reason == "ambiguous"
    assert r.candidates == ("Светлана", "Светлача")


def test_r2_3_inflected_form_of_two_players_is_ambiguous():
    # "Саше" is an inflected form of both Саша and Саш (a hard-stem nick)... and of no other
    ix = NameIndex([("Саша", ()), ("Саш", ())])
    assert ix.match("Саше") == NoMatch("ambiguous", ("Саш", "Саша"), "Саше")


def test_r2_3_lookalike_folding_can_make_two_nicks_one():
    # "Cat" (Latin) and "Сат" (Cyrillic) look the same: nobody can tell which was meant
    ix = NameIndex([("Cat", ()), ("Сат", ())])
    r = ix.match("cat")
    assert isinstance(r, NoMatch) and r.reason == "ambiguous"


def test_r2_3_exact_beats_prefix_and_inflection():
    ix = NameIndex([("Вася", ()), ("Василиса", ()), ("Васе", ())])
    assert ix.match("Вася").player == "Вася"
    assert ix.match("Васе") == Match("Васе", "exact", "Васе")
    assert ix.match("Васил") == Match("Василиса", "prefix", "Васил")


@pytest.mark.parametrize("nick, forms", [
    ("Павел", ["Павла", "Павлу", "Павлом", "Павле"]),          # fleeting vowel
    ("Пирожок", ["Пирожка", "Пирожку", "Пирожком"]),
    ("Игорь", ["Игоря", "Игорю", "Игорем"]),
    ("Ольга", ["Ольги", "Ольге", "Ольгу", "Ольгой"]),
    ("Мария", ["Марии", "Марию", "Марией"]),
    ("Илья", ["Ильи", "Илье", "Илью", "Ильёй"]),
    ("Лёша", ["Лёши", "Леше", "Лёшу", "Лёшей"]),
    ("Серый", ["Серого", "Серому", "Серым"]),
    ("Рыжая", ["Рыжую", "Рыжей"]),
    ("Иван Петров", ["Ивана Петрова", "Ивану Петрову", "Иваном Петровым", "Ивана Петров"]),
])
def test_r2_3_inflection_of_common_nicks(nick, forms):
    ix = NameIndex([(nick, ()), ("Вася", ())])
    for form in forms:
        assert ix.match(form) == Match(nick, "inflected", form), form


def test_r2_3_match_nick_accepts_players_and_pairs():
    players = [Player(nick="Маша_2"), Player(nick="Вася", aliases=("Василий",))]
    assert match_nick("Василию", players) == Match("Вася", "inflected", "Василию")
    assert match_nick("Машу 2", [("Маша_2", [])]).player == "Маша_2"


@pytest.mark.parametrize("text, player", [
    ("за Васю", "Вася"), ("Голосую за Машу_2", "Маша_2"), ("голос: Алексей", "Алексей"),
    ("Мой голос — NightOwl", "NightOwl"), ("против Ёжика в тумане", "Ёжик в тумане"),
    ("vote Big Joe", "Big Joe"), ("I vote for doc_Holiday", "doc_Holiday"),
])
def test_r2_2_a_name_after_a_lead_in(text, player):
    (r,) = INDEX.match_all(text)
    assert r.player == player


def test_r2_4_match_all_splits_a_list_of_names():
    parts = INDEX.match_all("Вася, Маша_2")
    assert [p.player for p in parts] == ["Вася", "Маша_2"]
    assert [p.player for p in INDEX.match_all("Васю и Big Joe")] == ["Вася", "Big Joe"]
    assert [p.player for p in INDEX.match_all("за Васю и Big Joe")] == ["Вася", "Big Joe"]
    # a single name is one result
    assert INDEX.match_all("Ёжик в тумане") == [Match("Ёжик в тумане", "exact",
                                                       "Ёжик в тумане")]


@pytest.mark.parametrize("a, b", [("Ёжик", "ежик"), ("Big Joe", "bigjoe"), ("ABC", "авс"),
                                  ("Игрок-7", "игрок7"), ("doc_Holiday", "dосноliday")])
def test_fold(a, b):
    assert fold(a) == fold(b)


@pytest.mark.parametrize("a, b, d", [("алексей", "алесей", 1), ("алексей", "алекесй", 1),
                                     ("abc", "abc", 0), ("abcdef", "badcfe", 3),
                                     ("kitten", "sitting", 3)])
def test_edit_distance(a, b, d):
    assert edit_distance(a, b, 5) == d
    if d:
        assert edit_distance(a, b, d - 1) == d  # stops early: 'more than the limit'


# --- properties ------------------------------------------------------------------------------

_letters = st.sampled_from(list("абвгдежзиклмнопрстуфхцчшщыэюяabcdefghijklmnopqrstuvwxyz"
                                "АБВГДЕЁЖЗИКЛМНОПРСТУФХЦЧШЩЭЮЯ0123456789_- "))
_nicks = st.text(_letters, min_size=2, max_size=14).filter(lambda s: len(fold(s)) >= 2)


@settings(max_examples=150, deadline=None)
@given(st.lists(_nicks, min_size=1, max_size=12, unique_by=fold))
def test_r2_3_every_nick_matches_itself_exactly(nicks):
    ix = NameIndex([(n, ()) for n in nicks])
    for n in nicks:
        assert ix.match(n) == Match(n, "exact", n)
        assert ix.match(n.upper()).player == n


@settings(max_examples=150, deadline=None)
@given(_nicks)
def test_fold_is_idempotent(s):
    assert fold(fold(s)) == fold(s)
