"""The move words of R14's roles (issue 37): the grammar is built from the dealt roles and
the house's ``[roles.words]``; the seed's game reads exactly the seed's four moves."""

from __future__ import annotations

import pytest
from servers.movegame import PLAYERS

from scraper_mod.moves.grammar import parse_moves, verb_kind
from scraper_mod.moves.targets import matcher_for
from scraper_mod.rules.model import MoveKind, Player, Role
from scraper_mod.rules.roles import kinds_dealt, move_words

ALL = move_words(None, kinds_dealt(list(Role)))


@pytest.fixture(scope="module")
def match():
    return matcher_for([Player(n, aliases=tuple(a)) for n, _r, _c, a, _code in PLAYERS])


def read(text, match, words=ALL):
    return [(m.kind, m.target, m.target2, m.problem)
            for m in parse_moves(text, match, words=words).moves]


@pytest.mark.parametrize("text, expected", [
    ("блокирую Васю", [(MoveKind.BLOCK, "Вася", None, "")]),
    ("Блокировать: Машу", [(MoveKind.BLOCK, "Маша_2", None, "")]),
    ("охраняю Big Joe", [(MoveKind.GUARD, "Big Joe", None, "")]),
    ("прикрываю Машу", [(MoveKind.GUARD, "Маша_2", None, "")]),
    ("навещаю Алексея", [(MoveKind.BLOCK, "Алексей", None, "")]),
    ("guard Masha", [(MoveKind.GUARD, "Маша_2", None, "")]),
    ("защитить Джо", [(MoveKind.DEFEND, "Big Joe", None, "")]),
    ("сравнить Васю и Машу", [(MoveKind.COMPARE, "Вася", "Маша_2", "")]),
    ("Сравниваю Ёжика в тумане с Алексеем", [(MoveKind.COMPARE, "Ёжик в тумане", "Алексей", "")]),
    ("compare Vasya and Masha", [(MoveKind.COMPARE, "Вася", "Маша_2", "")]),
    ("застрелить Игрока 7", [(MoveKind.KILL, "Игрок-7", None, "")]),
    ("Помиловать!", [(MoveKind.PARDON, None, None, "")]),
    ("забрать Васю", [(MoveKind.TAKE, "Вася", None, "")]),
])
def test_R14_move_words(text, expected, match):
    """R14 table: the default move words of each role (R14.2: what the answer confirms)."""
    assert read(text, match) == expected


def test_R14_compare_needs_two(match):
    """R14 Journalist: «сравнить X» with one name is a move without its second target."""
    [(kind, target, target2, problem)] = read("сравнить Васю", match)
    assert (kind, target, target2, problem) == (MoveKind.COMPARE, "Вася", None, "no_target")


def test_R14_3_house_words_and_the_seed_grammar(match):
    """R14.3: ``[roles.words]`` adds a house's words; a seed game reads none of R14's words
    («блокирую» is no move there), so the seed's answers stay as they were."""
    house = move_words({MoveKind.BLOCK: ("торможу",)}, kinds_dealt([Role.PUTANA]))
    assert read("торможу Машу", match, house) == [(MoveKind.BLOCK, "Маша_2", None, "")]
    assert read("блокирую Машу", match, words=None) == []
    assert verb_kind("забираю") is None and verb_kind("забираю", ALL) is MoveKind.TAKE
