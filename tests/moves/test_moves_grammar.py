"""The night-move grammar (issue 5): Russian and English, forgiving, targets matched like
votes (R2.3), several moves per message, the murder story (R5.2) and the secret code."""

from __future__ import annotations

import pytest
from servers.movegame import PLAYERS

from scraper_mod.moves.grammar import find_codes, parse_moves, text_has_code, verb_kind
from scraper_mod.moves.targets import matcher_for
from scraper_mod.rules.model import MoveKind, Player

K, H, C, F = MoveKind.KILL, MoveKind.HEAL, MoveKind.CHECK, MoveKind.FREEZE


@pytest.fixture(scope="module")
def match():
    return matcher_for([Player(n, aliases=tuple(a)) for n, _r, _c, a, _code in PLAYERS])


def moves(text, match):
    return [(m.kind, m.target) for m in parse_moves(text, match).moves]


@pytest.mark.parametrize("text, expected", [
    ("убить Вася", [(K, "Вася")]),
    ("Убиваем: Васю", [(K, "Вася")]),
    ("убью Машу_2!", [(K, "Маша_2")]),
    ("kill Vasya", [(K, "Вася")]),                 # an alias
    ("KILL masha", [(K, "Маша_2")]),
    ("лечу Машу", [(H, "Маша_2")]),
    ("Лечить doc holiday", [(H, "doc_Holiday")]),
    ("heal Big Joe", [(H, "Big Joe")]),
    ("проверить Big Joe", [(C, "Big Joe")]),
    ("Проверяю Алексея.", [(C, "Алексей")]),
    ("check NightOwl", [(C, "NightOwl")]),
    ("заморозить NightOwl", [(F, "NightOwl")]),
    ("морожу Ёжика в тумане", [(F, "Ёжик в тумане")]),
    ("freeze Игрок-7", [(F, "Игрок-7")]),
    ("Заморозка: Игрока 7", [(F, "Игрок-7")]),
    ("убить Bаcя", [(K, "Вася")]),                 # Latin look-alike letters
])
def test_one_move_in_many_spellings(text, expected, match):
    assert moves(text, match) == expected


def test_several_moves_one_per_line_and_on_one_line(match):
    assert moves("Ход 1: убить Big Joe\nХод 2: проверить Алексея", match) == \
        [(K, "Big Joe"), (C, "Алексей")]
    assert moves("Ход 1: убить Big Joe / Ход 2: проверить Алексея", match) == \
        [(K, "Big Joe"), (C, "Алексей")]
    assert moves("убить Васю и заморозить Машу", match) == [(K, "Вася"), (F, "Маша_2")]


def test_a_verb_alone_is_a_move_without_target(match):
    for text, kind in (("лечить", H), ("проверяю", C), ("морожу", F)):
        (m,) = parse_moves(text, match).moves
        assert (m.kind, m.target, m.problem) == (kind, None, "no_target")


def test_unknown_and_ambiguous_targets_are_reported_not_guessed(match):
    (m,) = parse_moves("убить Петю", match).moves
    assert (m.kind, m.target, m.problem, m.written) == (K, None, "unknown_target", "Петю")


def test_self_reference_is_marked_for_the_sender(match):
    (m,) = parse_moves("лечу себя", match).moves
    assert m.self_ref and m.target is None and m.kind is H
    assert parse_moves("heal myself", match).moves[0].self_ref


def test_negated_verb_is_not_a_move(match):
    assert moves("не убивайте Васю, убить Игрока-7", match) == [(K, "Игрок-7")]


def test_chatter_without_moves(match):
    assert moves("Привет! Спасибо за игру, до вечера.", match) == []
    # a verb in a long sentence with nothing after it is not a move
    assert moves("я пока не знаю кого проверить", match) == []


def test_story_runs_over_lines_and_is_not_parsed_as_moves(match):
    p = parse_moves("Убиваем: NightOwl\nистория: его нашли в парке,\nубийство так и не "
                    "раскрыли.\nкод: BJ-33", match)
    assert [(m.kind, m.target) for m in p.moves] == [(K, "NightOwl")]
    assert p.story == "его нашли в парке,\nубийство так и не раскрыли."
    assert p.codes == ("BJ-33",)


def test_story_ends_at_a_move_line(match):
    p = parse_moves("История: утопили в пруду.\nубить Алексея", match)
    assert p.story == "утопили в пруду."
    assert moves("История: утопили в пруду.\nубить Алексея", match) == [(K, "Алексей")]


def test_story_in_english(match):
    p = parse_moves("kill Masha\nstory: found in the river", match)
    assert p.story == "found in the river" and moves("kill Masha", match) == [(K, "Маша_2")]


def test_code_anywhere_and_not_taken_for_a_move(match):
    assert find_codes("лечу Машу, код: KR7-QZ") == ("KR7-QZ",)
    assert find_codes("Code=abc123") == ("abc123",)
    assert text_has_code("ход\nлечу Машу KR7-QZ", "kr7-qz")
    assert not text_has_code("KR7-QZZ", "KR7-QZ")
    assert moves("код: убить", match) == []


def test_verb_table():
    assert verb_kind("Убиваем") is K and verb_kind("лечение") is H
    assert verb_kind("проверка") is C and verb_kind("заморозка") is F
    assert verb_kind("привет") is None


def test_filler_word_before_the_name(match):
    assert moves("убить игрока Васю", match) == [(K, "Вася")]
    assert moves("проверить игрока Big Joe", match) == [(C, "Big Joe")]


@pytest.mark.parametrize("text, expected", [
    ("стреляю в Васю", [(K, "Вася")]),
    ("мафия убивает Машу", [(K, "Маша_2")]),
    ("Доктор лечит Алексея", [(H, "Алексей")]),
    ("protect NightOwl", [(H, "NightOwl")]),
    ("Night move: kill Masha", [(K, "Маша_2")]),
    ("Проверка — Big Joe", [(C, "Big Joe")]),
])
def test_more_ways_players_write(text, expected, match):
    assert moves(text, match) == expected


def test_a_bare_verb_in_the_subject_only_labels_the_move(match):
    assert moves("Проверка\nпроверить Big Joe", match) == [(C, "Big Joe")]
    assert moves("Re: заморозка\nЗаморозить Машу", match) == [(F, "Маша_2")]


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = ["убить", "лечу", "проверить", "заморозить", "kill", "Вася", "Васю", "Big", "Joe",
          "Ёжика", "в", "тумане", "история:", "код:", "XYZ", "не", "\n", "/", ";", "Ход", "1:",
          "себя", "игрока", "—", "Маша_2", "Игрок-7"]


@settings(max_examples=150, deadline=None)
@given(words=st.lists(st.one_of(st.sampled_from(_WORDS), st.text(max_size=8)), max_size=30))
def test_any_text_parses_to_moves_with_known_targets(words, match):
    p = parse_moves(" ".join(words), match)
    nicks = {n for n, *_ in PLAYERS}
    for m in p.moves:
        assert m.target is None or m.target in nicks
        assert (m.target is None) == bool(m.problem) or m.self_ref


def test_a_nick_that_reads_like_a_verb():
    m = matcher_for([Player("Killer"), Player("Лечила"), Player("Вася")])
    assert [(x.kind, x.target) for x in parse_moves("kill Killer", m).moves] == [(K, "Killer")]
    assert [(x.kind, x.target) for x in parse_moves("проверить Лечилу", m).moves] == \
        [(C, "Лечила")]
    assert [(x.kind, x.target) for x in parse_moves("Killer: убить Васю", m).moves] == \
        [(K, "Вася")]
