"""Judging night moves by docs/rules.md R5 (pure): who may send what, target validity, the last
move before the deadline, the Boss over the duty mafioso, and the night's orders."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from servers.movegame import MSK, PLAYERS

from scraper_mod.rules.model import MoveKind, Player, Role, RuleOptions
from scraper_mod.rules.moves import MoveRequest, identify, judge_moves, orders_from_moves
from scraper_mod.rules.state import initial_state

K, H, C, F = MoveKind.KILL, MoveKind.HEAL, MoveKind.CHECK, MoveKind.FREEZE
DEADLINE = datetime(2024, 4, 9, 20, 0, tzinfo=MSK)
ADDR = {nick: contact for nick, _r, contact, _a, _c in PLAYERS}
CODE = {nick: code for nick, _r, _c, _a, code in PLAYERS}
GAME_PLAYERS = tuple(Player(n, Role(r), c, tuple(a), code=code)
                     for n, r, c, a, code in PLAYERS)


def state(**changes):
    s = initial_state(GAME_PLAYERS, "Big Joe", [p.nick for p in GAME_PLAYERS])
    return s.evolve(**changes) if changes else s


_ids = iter(range(1, 10**6))


def req(nick_or_addr, kind, target, at="2024-04-09 12:00:00", **kw):
    sender = ADDR.get(nick_or_addr, nick_or_addr)
    t = datetime.fromisoformat(at).replace(tzinfo=MSK)
    return MoveRequest(message_id=kw.pop("message_id", next(_ids)), received_at=t,
                       sender=sender, kind=kind, target=target, **kw)


def judge(requests, st=None, options=RuleOptions(), **kw):
    return judge_moves(requests, state=st or state(), deadline=DEADLINE, options=options,
                       players=GAME_PLAYERS, **kw)


def one(request, **kw):
    (m,) = judge([request], **kw)
    return m.status, m.reason


# -- R5.1: who sent it, when, the last one counts ------------------------------------------

def test_R5_1_sender_must_be_the_players_contact():
    assert one(req("vasya@evil.example", K, "Алексей")) == ("unknown_sender", "unknown_sender")
    assert one(req("VASYA@Example.org", K, "Алексей")) == ("counted", "")
    m = judge([req("vasya@evil.example", K, "Алексей")])[0]
    assert m.player == "vasya@evil.example" and m.role is None


def test_R5_1_code_required_when_the_game_uses_codes():
    assert one(req("Вася", K, "Алексей"), require_code=True) == ("unknown_sender", "code_missing")
    wrong = req("Вася", K, "Алексей", has_code=frozenset({"Big Joe"}))
    assert one(wrong, require_code=True) == ("unknown_sender", "code_missing")
    ok = req("Вася", K, "Алексей", has_code=frozenset({"Вася"}))
    assert one(ok, require_code=True) == ("counted", "")


def test_R5_1_forum_pm_sender_is_the_author():
    m = MoveRequest(1, DEADLINE - timedelta(hours=1), "doc_holiday", H, "Маша_2", via="pm")
    assert one(m) == ("counted", "")
    assert identify("doc_Holiday", GAME_PLAYERS, via="mail") is None


def test_R5_1_last_move_before_the_deadline_counts():
    ms = judge([req("doc_Holiday", H, "Маша_2", "2024-04-09 12:00:00"),
                req("doc_Holiday", H, "Алексей", "2024-04-09 19:59:59"),
                req("doc_Holiday", H, "Big Joe", "2024-04-09 20:00:00")])
    assert [(m.target, m.status) for m in ms] == [
        ("Маша_2", "replaced"), ("Алексей", "counted"), ("Big Joe", "late")]
    assert orders_from_moves(ms, state(), RuleOptions()).heal == "Алексей"


def test_R5_1_a_late_move_alone_is_a_miss():
    ms = judge([req("doc_Holiday", H, "Маша_2", "2024-04-09 20:00:30")])
    assert ms[0].status == "late"
    assert orders_from_moves(ms, state(), RuleOptions()).heal is None


def test_R5_1_judged_in_order_received_not_given():
    a = req("doc_Holiday", H, "Алексей", "2024-04-09 19:00:00")
    b = req("doc_Holiday", H, "Маша_2", "2024-04-09 18:00:00")
    ms = judge([a, b])
    assert [(m.target, m.status) for m in ms] == [("Маша_2", "replaced"), ("Алексей", "counted")]


def test_R5_1_an_invalid_later_move_leaves_the_earlier_one_standing():
    ms = judge([req("doc_Holiday", H, "Маша_2", "2024-04-09 12:00:00"),
                req("doc_Holiday", H, None, "2024-04-09 13:00:00", problem="unknown_target")])
    assert [(m.status, m.reason) for m in ms] == [("counted", ""), ("invalid", "unknown_target")]


def test_R5_1_message_without_a_move_and_unreadable_message():
    assert one(req("Маша_2", None, None)) == ("invalid", "no_move")
    assert one(req("Маша_2", None, None, problem="unreadable")) == ("invalid", "unreadable")


def test_R5_1_dead_sender_cannot_move():
    s = state(alive=state().alive - {"doc_Holiday"})
    assert one(req("doc_Holiday", H, "Маша_2"), st=s) == ("invalid", "sender_dead")


# -- R4/R5: the role must make that move -----------------------------------------------------

@pytest.mark.parametrize("nick, kind", [
    ("Маша_2", K), ("Маша_2", H), ("Маша_2", C), ("Ёжик в тумане", K), ("doc_Holiday", K),
    ("Алексей", H), ("Big Joe", F), ("Игрок-7", F), ("Игрок-7", H), ("Вася", C)])
def test_R4_role_cannot_make_the_move(nick, kind):
    assert one(req(nick, kind, "Маша_2")) == ("invalid", "role_cannot")


# -- R5.2 the mafia kill -------------------------------------------------------------------

@pytest.mark.parametrize("target, reason", [
    ("Вася", "target_is_mafia"), ("Big Joe", "target_is_mafia"),
    ("Ёжик в тумане", "target_is_vsb")])
def test_R5_2_mafia_kill_invalid_targets(target, reason):
    assert one(req("Big Joe", K, target)) == ("invalid", reason)


def test_R5_2_mafia_kill_dead_or_unknown_target():
    s = state(alive=state().alive - {"Маша_2"})
    assert one(req("Big Joe", K, "Маша_2"), st=s) == ("invalid", "target_dead")
    assert one(req("Big Joe", K, None, problem="unknown_target")) == ("invalid", "unknown_target")
    assert one(req("Big Joe", K, None, problem="ambiguous_target")) == \
        ("invalid", "ambiguous_target")
    assert one(req("Big Joe", K, "Петя")) == ("invalid", "unknown_target")


def test_R5_2_duty_mafiosos_move_with_story():
    ms = judge([req("Big Joe", K, "Алексей", story="утонул в пруду")])
    o = orders_from_moves(ms, state(), RuleOptions())
    assert (o.mafia_kill, o.mafia_by, o.mafia_story) == ("Алексей", "Big Joe", "утонул в пруду")


def test_R5_2_the_boss_overrides_the_duty_mafioso():
    ms = judge([req("Big Joe", K, "Алексей", "2024-04-09 12:00:00", story="в пруду"),
                req("Вася", K, "Маша_2", "2024-04-09 11:00:00")])
    by = {m.player: (m.status, m.reason) for m in ms}
    assert by == {"Big Joe": ("replaced", "overridden_by_boss"), "Вася": ("counted", "")}
    o = orders_from_moves(ms, state(), RuleOptions())
    assert (o.mafia_kill, o.mafia_by) == ("Маша_2", "Вася")
    assert o.mafia_story == "в пруду"   # the duty mafioso still writes the story


def test_R5_2_same_target_from_boss_and_duty_keeps_both_for_the_kill():
    ms = judge([req("Big Joe", K, "Алексей", "2024-04-09 12:00:00"),
                req("Вася", K, "Алексей", "2024-04-09 13:00:00")])
    o = orders_from_moves(ms, state(), RuleOptions())
    assert (o.mafia_kill, o.mafia_by, o.mafia_also) == ("Алексей", "Вася", ("Big Joe",))


def test_R5_2_ordinary_mafioso_does_not_count_while_duty_or_boss_alive():
    extra = GAME_PLAYERS + (Player("Тень", Role.MAFIA, "ten@example.org"),)
    s = initial_state(extra, "Big Joe", [p.nick for p in extra])
    ms = judge_moves([req("ten@example.org", K, "Алексей")], state=s, deadline=DEADLINE,
                     options=RuleOptions(), players=extra)
    assert (ms[0].status, ms[0].reason) == ("invalid", "not_duty")
    assert orders_from_moves(ms, s, RuleOptions()).mafia_kill is None


def test_R5_2_duty_dead_the_boss_counts():
    s = state(alive=state().alive - {"Big Joe"})
    ms = judge([req("Вася", K, "Алексей")], st=s)
    assert orders_from_moves(ms, s, RuleOptions()).mafia_kill == "Алексей"
    assert one(req("Big Joe", K, "Алексей"), st=s) == ("invalid", "sender_dead")


def test_R5_2_duty_and_boss_dead_last_move_of_any_living_mafioso():
    extra = GAME_PLAYERS + (Player("Тень", Role.MAFIA, "ten@example.org"),
                            Player("Гром", Role.MAFIA, "grom@example.org"))
    s = initial_state(extra, "Big Joe", [p.nick for p in extra])
    s = s.evolve(alive=s.alive - {"Big Joe", "Вася"})
    ms = judge_moves([req("ten@example.org", K, "Алексей", "2024-04-09 15:00:00"),
                      req("grom@example.org", K, "Маша_2", "2024-04-09 16:00:00")],
                     state=s, deadline=DEADLINE, options=RuleOptions(), players=extra)
    assert [(m.player, m.status) for m in ms] == [("Тень", "replaced"), ("Гром", "counted")]
    o = orders_from_moves(ms, s, RuleOptions())
    assert (o.mafia_kill, o.mafia_by) == ("Маша_2", "Гром")


def test_R5_2_option_mafia_consensus():
    opts = RuleOptions(mafia_consensus=True)
    agree = judge([req("Big Joe", K, "Алексей"), req("Вася", K, "Алексей")], options=opts)
    assert orders_from_moves(agree, state(), opts).mafia_kill == "Алексей"
    disagree = judge([req("Big Joe", K, "Алексей"), req("Вася", K, "Маша_2")], options=opts)
    assert orders_from_moves(disagree, state(), opts).mafia_kill is None
    alone = judge([req("Big Joe", K, "Алексей")], options=opts)
    assert orders_from_moves(alone, state(), opts).mafia_kill is None


def test_R5_2_story_only_message_is_kept():
    ms = judge([req("Big Joe", K, "Алексей", "2024-04-09 12:00:00"),
                req("Big Joe", None, None, "2024-04-09 13:00:00", story="нашли в парке")])
    assert [(m.status, m.reason) for m in ms] == [("counted", ""), ("counted", "story")]
    assert orders_from_moves(ms, state(), RuleOptions()).mafia_story == "нашли в парке"


# -- R5.3 the maniac -----------------------------------------------------------------------

def test_R5_3_maniac_kills_anyone_alive_but_himself():
    assert one(req("Игрок-7", K, "Вася")) == ("counted", "")
    assert one(req("Игрок-7", K, "Ёжик в тумане")) == ("counted", "")
    assert one(req("Игрок-7", K, "Игрок-7")) == ("invalid", "self_target")
    s = state(alive=state().alive - {"Вася"})
    assert one(req("Игрок-7", K, "Вася"), st=s) == ("invalid", "target_dead")
    ms = judge([req("Игрок-7", K, "Вася")])
    o = orders_from_moves(ms, state(), RuleOptions())
    assert (o.maniac_kill, o.maniac, o.mafia_kill) == ("Вася", "Игрок-7", None)


# -- R5.4 the freeze -----------------------------------------------------------------------

def test_R5_4_boss_freezes_a_living_non_mafioso():
    assert one(req("Вася", F, "Алексей")) == ("counted", "")
    assert one(req("Вася", F, "Ёжик в тумане")) == ("counted", "")
    assert one(req("Вася", F, "Big Joe")) == ("invalid", "target_is_mafia")
    assert one(req("Вася", F, "Вася")) == ("invalid", "target_is_mafia")
    s = state(alive=state().alive - {"Маша_2"})
    assert one(req("Вася", F, "Маша_2"), st=s) == ("invalid", "target_dead")


def test_R5_4_freeze_and_kill_are_separate_moves_of_the_boss():
    ms = judge([req("Вася", F, "Алексей"), req("Вася", K, "Маша_2")])
    assert [m.status for m in ms] == ["counted", "counted"]
    o = orders_from_moves(ms, state(), RuleOptions())
    assert (o.freeze, o.boss, o.mafia_kill) == ("Алексей", "Вася", "Маша_2")


# -- R5.5 the check ------------------------------------------------------------------------

def test_R5_5_commissar_checks():
    ms = judge([req("Алексей", C, "Big Joe")])
    o = orders_from_moves(ms, state(), RuleOptions())
    assert (o.check, o.checker) == ("Big Joe", "Алексей")
    assert one(req("Алексей", C, "Алексей")) == ("invalid", "self_target")


def test_R5_5_sergeant_checks_only_after_promotion():
    assert one(req("NightOwl", C, "Big Joe")) == ("invalid", "not_commissar")
    promoted = state(alive=state().alive - {"Алексей"}, commissar="NightOwl", sergeant=None)
    assert one(req("NightOwl", C, "Big Joe"), st=promoted) == ("counted", "")
    ms = judge([req("NightOwl", C, "Big Joe")], st=promoted)
    assert orders_from_moves(ms, promoted, RuleOptions()).checker == "NightOwl"


def test_R5_5_option_no_rechecks():
    s = state(checked=frozenset({"Big Joe"}))
    assert one(req("Алексей", C, "Big Joe"), st=s) == ("counted", "")
    assert one(req("Алексей", C, "Big Joe"), st=s,
               options=RuleOptions(allow_rechecks=False)) == ("invalid", "recheck")


# -- R5.6 the heal -------------------------------------------------------------------------

def test_R5_6_doctor_heals_others_without_limit_and_himself_once():
    assert one(req("doc_Holiday", H, "Маша_2")) == ("counted", "")
    assert one(req("doc_Holiday", H, "doc_Holiday")) == ("counted", "")
    used = state(doctor_self_heals_used=1)
    assert one(req("doc_Holiday", H, "doc_Holiday"), st=used) == ("invalid", "self_heal_limit")
    assert one(req("doc_Holiday", H, "doc_Holiday"), st=used,
               options=RuleOptions(doctor_self_heals=2)) == ("counted", "")


def test_R5_6_same_patient_twice():
    s = state(last_heal_target="Маша_2")
    assert one(req("doc_Holiday", H, "Маша_2"), st=s) == ("counted", "")
    assert one(req("doc_Holiday", H, "Маша_2"), st=s,
               options=RuleOptions(doctor_same_patient_twice=False)) == ("invalid", "same_patient")


def test_R5_6_heal_of_the_dead_is_invalid():
    s = state(alive=state().alive - {"Маша_2"})
    assert one(req("doc_Holiday", H, "Маша_2"), st=s) == ("invalid", "target_dead")


# -- properties ----------------------------------------------------------------------------

NICKS = [p.nick for p in GAME_PLAYERS]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(NICKS), st.sampled_from(list(MoveKind)),
                          st.sampled_from(NICKS + [None]), st.integers(0, 60 * 26)),
                max_size=25))
def test_R5_1_at_most_one_counted_move_per_player_and_kind_and_deterministic(items):
    start = datetime(2024, 4, 8, 21, 0, tzinfo=MSK)
    reqs = [MoveRequest(i + 1, start + timedelta(minutes=m), ADDR[n], k, t)
            for i, (n, k, t, m) in enumerate(items)]
    ms = judge(reqs)
    assert len(ms) == len(reqs)
    counted = [(m.player, m.kind) for m in ms if m.status == "counted"]
    assert len(counted) == len(set(counted))
    assert all(m.status == "late" for m in ms if m.received_at >= DEADLINE)
    assert judge(list(reversed(reqs))) == ms
    o = orders_from_moves(ms, state(), RuleOptions())
    if o.mafia_kill is not None:
        assert o.mafia_kill in state().alive and not state().roles[o.mafia_kill].is_mafia
        assert state().roles[o.mafia_kill] is not Role.VSB
