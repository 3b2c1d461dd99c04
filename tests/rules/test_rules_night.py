"""Resolving a day (docs/rules.md R6) with the night moves' effects (R4.3, R5.2-R5.6, R8)."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.errors import RulesError
from scraper_mod.rules.calendar import Calendar
from scraper_mod.rules.model import CheckResult, Player, Role, RuleOptions
from scraper_mod.rules.night import NightOrders, check_recipients, resolve_day
from scraper_mod.rules.notes import Note
from scraper_mod.rules.state import GameState, initial_state, last_word_windows
from scraper_mod.rules.tally import Lynch

ROLES = {
    "Вася": Role.BOSS, "Big Joe": Role.MAFIA, "Кот": Role.MAFIA,
    "Алексей": Role.COMMISSAR, "NightOwl": Role.SERGEANT, "doc_Holiday": Role.DOCTOR,
    "Игрок-7": Role.MANIAC, "Ёжик в тумане": Role.VSB, "Маша_2": Role.CIVILIAN,
    "Лиса": Role.CIVILIAN, "Волк": Role.CIVILIAN,
}
ORDER = list(ROLES)


def start(**kw) -> GameState:
    players = [Player(n, r) for n, r in ROLES.items()]
    return initial_state(players, "Big Joe", ORDER, **kw)


def opts(**kw) -> RuleOptions:
    return dataclasses.replace(RuleOptions(), **kw)


def lynch(nick, by="votes") -> Lynch:
    return Lynch(player=nick, by=by, cursor=0)


MAFIA = dict(mafia_by="Big Joe", mafia_story="История убийства.")


def test_R6_1_lynched_player_dies_and_role_revealed_R2_9():
    """R2.9 / R6.1: the jailed player dies at once and his role is revealed."""
    res, after = resolve_day(1, start(), lynch("Кот"), NightOrders())
    assert (res.lynched.player, res.lynched.role, res.lynched.by) == ("Кот", Role.MAFIA, "votes")
    assert "Кот" not in after.alive and after.died_at["Кот"] == (1, "votes")
    assert res.to_json()["lynched"] == {"player": "Кот", "role": "mafia", "by": "votes"}


def test_R6_1_lynched_actor_move_void():
    """R6.1: the jailed Doctor's heal does nothing; the mafia's victim dies."""
    orders = NightOrders(mafia_kill="Лиса", **MAFIA, heal="Лиса", doctor="doc_Holiday")
    res, _ = resolve_day(1, start(), lynch("doc_Holiday"), orders)
    assert [d.player for d in res.killed] == ["Лиса"] and not res.saved
    assert Note("heal_by_gone", (("actor", "doc_Holiday"), ("why", "jailed"))) in res.notes


def test_R6_1_kills_heals_freezes_aimed_at_lynched_do_nothing():
    """R6.1: the mafia kill, the heal and the freeze aimed at the jailed Маша_2 do nothing."""
    orders = NightOrders(mafia_kill="Маша_2", **MAFIA, heal="Маша_2", doctor="doc_Holiday",
                         freeze="Маша_2", boss="Вася")
    res, after = resolve_day(1, start(), lynch("Маша_2"), orders)
    assert res.killed == () and not res.saved and res.frozen is None
    assert after.frozen_next_day is None and after.last_heal_target is None


def test_R6_1_duty_jailed_voids_mafia_kill_unless_another_mafioso_backs_it():
    """R6.1 with R5.2: the jailed duty mafioso's move is void; a Boss who sent the same target
    (``mafia_also``) keeps the kill."""
    res, _ = resolve_day(1, start(), lynch("Big Joe"), NightOrders(mafia_kill="Лиса", **MAFIA))
    assert res.killed == ()
    res, _ = resolve_day(1, start(), lynch("Big Joe"),
                         NightOrders(mafia_kill="Лиса", **MAFIA, mafia_also=("Вася",)))
    assert [d.player for d in res.killed] == ["Лиса"]


def test_R6_option_lynch_simultaneous():
    """R6 option lynch_first = false: the jailed Doctor's heal still saves; a kill aimed at the
    jailed player finds him dead once, by the lynch."""
    o = opts(lynch_first=False)
    orders = NightOrders(mafia_kill="Лиса", **MAFIA, heal="Лиса", doctor="doc_Holiday",
                         maniac_kill="Волк", maniac="Игрок-7")
    res, after = resolve_day(1, start(), lynch("doc_Holiday"), orders, o)
    assert res.saved and [d.player for d in res.killed] == ["Волк"]
    res, after = resolve_day(1, start(), lynch("Маша_2"),
                             NightOrders(mafia_kill="Маша_2", **MAFIA), o)
    assert res.killed == () and res.lynched.player == "Маша_2"
    assert after.died_at["Маша_2"] == (1, "votes")


def test_R5_2_mafia_kill_with_story():
    """R5.2: the mafia's victim dies; the murder story goes to the newspaper."""
    res, after = resolve_day(1, start(), None, NightOrders(mafia_kill="Лиса", **MAFIA))
    assert [(d.player, d.role, d.by) for d in res.killed] == [("Лиса", Role.CIVILIAN, "mafia")]
    assert res.story == "История убийства."
    assert after.died_at["Лиса"] == (1, "mafia")


@pytest.mark.parametrize("target", ["Кот", "Вася"])
def test_R5_2_mafia_target_mafioso_is_a_miss(target):
    """R5.2: a mafioso target is invalid: "the mafia killed no one"."""
    res, after = resolve_day(1, start(), None, NightOrders(mafia_kill=target, **MAFIA))
    assert res.killed == () and target in after.alive and not res.vsb_protected


def test_R5_2_mafia_target_vsb_is_a_miss_reported_as_vsb_protected():
    """R5.2: the VSB cannot be killed by the mafia: a miss, flagged for the host only."""
    res, after = resolve_day(1, start(), None, NightOrders(mafia_kill="Ёжик в тумане", **MAFIA))
    assert res.killed == () and res.vsb_protected and "Ёжик в тумане" in after.alive
    assert res.story is None
    assert "vsb" not in str(res.to_json()).lower()  # the public JSON never reveals him


def test_R5_2_mafia_target_dead_or_unknown_is_a_miss():
    s = start()
    _, s = resolve_day(1, s, lynch("Лиса"), NightOrders())
    res, _ = resolve_day(2, s, None, NightOrders(mafia_kill="Лиса", **MAFIA))
    assert res.killed == ()
    res, _ = resolve_day(2, s, None, NightOrders(mafia_kill="Петя", **MAFIA))
    assert res.killed == () and Note.of("mafia_kill_not_player", target="Петя") in res.notes


def test_R5_2_mafia_kill_from_non_mafioso_void():
    res, _ = resolve_day(1, start(), None, NightOrders(mafia_kill="Лиса", mafia_by="Волк"))
    assert res.killed == ()


def test_R5_3_maniac_kills_anyone_but_himself():
    """R5.3: the Maniac may kill a mafioso, the VSB, the Commissar; not himself."""
    for target, role in (("Вася", Role.BOSS), ("Ёжик в тумане", Role.VSB),
                         ("Алексей", Role.COMMISSAR)):
        res, _ = resolve_day(1, start(), None, NightOrders(maniac_kill=target, maniac="Игрок-7"))
        assert [(d.player, d.role, d.by) for d in res.killed] == [(target, role, "maniac")]
    res, _ = resolve_day(1, start(), None, NightOrders(maniac_kill="Игрок-7", maniac="Игрок-7"))
    assert res.killed == ()


def test_R4_3_vsb_death_reveals_vsb():
    """R4.3: the VSB's death reveals "ВСБ" (role vsb in the result)."""
    res, _ = resolve_day(1, start(), None,
                         NightOrders(maniac_kill="Ёжик в тумане", maniac="Игрок-7"))
    assert res.to_json()["killed"] == [{"player": "Ёжик в тумане", "role": "vsb",
                                        "by": "maniac"}]


def test_R6_3_killed_by_both_dies_once():
    """R6.3: a player killed by the mafia and the Maniac dies once."""
    res, after = resolve_day(1, start(), None, NightOrders(mafia_kill="Лиса", **MAFIA,
                                                           maniac_kill="Лиса", maniac="Игрок-7"))
    assert [(d.player, d.by) for d in res.killed] == [("Лиса", "mafia")]
    assert len(after.alive) == len(ROLES) - 1


def test_R5_6_heal_saves_from_both_kills_R6_3():
    """R5.6 / R6.3: the patient survives the mafia's and the Maniac's kill; saved is announced."""
    orders = NightOrders(mafia_kill="Лиса", **MAFIA, maniac_kill="Лиса", maniac="Игрок-7",
                         heal="Лиса", doctor="doc_Holiday")
    res, after = resolve_day(1, start(), None, orders)
    assert res.killed == () and res.saved and "Лиса" in after.alive


def test_R5_6_heal_without_attack_is_not_a_save():
    res, after = resolve_day(1, start(), None, NightOrders(heal="Лиса", doctor="doc_Holiday"))
    assert not res.saved and after.last_heal_target == "Лиса"


def test_R5_6_heal_does_not_stop_the_lynch():
    """R5.6: a heal does not stop the lynch (simultaneous option too)."""
    for o in (opts(), opts(lynch_first=False)):
        res, after = resolve_day(1, start(), lynch("Лиса"),
                                 NightOrders(heal="Лиса", doctor="doc_Holiday"), o)
        assert "Лиса" not in after.alive and not res.saved


def test_R5_6_self_heal_once_per_game():
    """R5.6: the Doctor may heal himself once a game."""
    kill_doc = NightOrders(mafia_kill="doc_Holiday", **MAFIA, heal="doc_Holiday",
                           doctor="doc_Holiday")
    res, s = resolve_day(1, start(), None, kill_doc)
    assert res.saved and s.doctor_self_heals_used == 1
    res, s = resolve_day(2, s, None, kill_doc)
    assert not res.saved and [d.player for d in res.killed] == ["doc_Holiday"]


def test_R5_6_option_self_heal_limit():
    """R5.6 option doctor_self_heals: 0 forbids it, 2 allows two."""
    kill_doc = NightOrders(mafia_kill="doc_Holiday", **MAFIA, heal="doc_Holiday",
                           doctor="doc_Holiday")
    res, _ = resolve_day(1, start(), None, kill_doc, opts(doctor_self_heals=0))
    assert not res.saved
    o = opts(doctor_self_heals=2)
    s = start()
    for day in (1, 2):
        res, s = resolve_day(day, s, None, kill_doc, o)
        assert res.saved
    res, s = resolve_day(3, s, None, kill_doc, o)
    assert not res.saved


def test_R5_6_same_patient_twice_allowed_by_default_and_option():
    """R5.6: the same patient on consecutive nights; option doctor_same_patient_twice=false."""
    orders = NightOrders(mafia_kill="Лиса", **MAFIA, heal="Лиса", doctor="doc_Holiday")
    s = start()
    for day in (1, 2):
        res, s = resolve_day(day, s, None, orders)
        assert res.saved
    o = opts(doctor_same_patient_twice=False)
    res, s = resolve_day(1, start(), None, orders, o)
    assert res.saved
    res, s2 = resolve_day(2, s, None, orders, o)
    assert not res.saved and "Лиса" not in s2.alive
    # a night with another patient in between makes Лиса healable again
    _, s = resolve_day(2, s, None, NightOrders(heal="Волк", doctor="doc_Holiday"), o)
    res, _ = resolve_day(3, s, None, orders, o)
    assert res.saved


def test_R5_4_freeze_voids_frozen_players_move_and_next_vote():
    """R5.4 / R6.2: the frozen Doctor's heal is void (the freeze applies before heals and
    kills); his vote tomorrow will not count."""
    orders = NightOrders(mafia_kill="Лиса", **MAFIA, heal="Лиса", doctor="doc_Holiday",
                         freeze="doc_Holiday", boss="Вася")
    res, after = resolve_day(1, start(), None, orders)
    assert res.frozen == "doc_Holiday" and not res.saved
    assert [d.player for d in res.killed] == ["Лиса"]
    assert after.frozen_next_day == "doc_Holiday"
    assert after.frozen_today() == frozenset({"doc_Holiday"})


def test_R5_4_freeze_voids_check_and_maniac_kill():
    orders = NightOrders(check="Кот", checker="Алексей", freeze="Алексей", boss="Вася")
    res, _ = resolve_day(1, start(), None, orders)
    assert res.checks == ()
    orders = NightOrders(maniac_kill="Лиса", maniac="Игрок-7", freeze="Игрок-7", boss="Вася")
    res, _ = resolve_day(1, start(), None, orders)
    assert res.killed == ()


def test_R5_4_freeze_holds_if_boss_dies_same_night():
    """R5.4: the freeze holds even if the Boss dies the same night."""
    orders = NightOrders(maniac_kill="Вася", maniac="Игрок-7", heal="Лиса",
                         doctor="doc_Holiday", freeze="doc_Holiday", boss="Вася")
    res, after = resolve_day(1, start(), None, orders)
    assert [d.player for d in res.killed] == ["Вася"]
    assert res.frozen == "doc_Holiday" and after.frozen_next_day == "doc_Holiday"


def test_R5_4_freeze_by_jailed_boss_void_and_on_mafioso_void():
    orders = NightOrders(freeze="doc_Holiday", boss="Вася")
    res, _ = resolve_day(1, start(), lynch("Вася"), orders)
    assert res.frozen is None
    res, _ = resolve_day(1, start(), None, NightOrders(freeze="Кот", boss="Вася"))
    assert res.frozen is None
    res, _ = resolve_day(1, start(), None, NightOrders(freeze="Лиса", boss="Кот"))
    assert res.frozen is None


def test_R5_4_frozen_next_day_lasts_one_day():
    _, s = resolve_day(1, start(), None, NightOrders(freeze="Лиса", boss="Вася"))
    assert s.frozen_today() == {"Лиса"}
    _, s = resolve_day(2, s, None, NightOrders())
    assert s.frozen_today() == frozenset()


@pytest.mark.parametrize("target,shown", [("Кот", "mafia"), ("Вася", "boss"),
                                          ("Ёжик в тумане", "civilian"),
                                          ("Игрок-7", "maniac"), ("Лиса", "civilian")])
def test_R5_5_check_exact_role_vsb_shows_civilian(target, shown):
    """R5.5: a check reveals the exact role, the VSB showing as "чиж" (civilian)."""
    res, after = resolve_day(1, start(), None, NightOrders(check=target, checker="Алексей"))
    assert res.checks == (CheckResult("Алексей", target, shown),)
    assert target in after.checked


@pytest.mark.parametrize("target,shown", [("Кот", "mafia"), ("Вася", "mafia"),
                                          ("Ёжик в тумане", "not_mafia"),
                                          ("Игрок-7", "not_mafia")])
def test_R5_5_option_binary_result(target, shown):
    """R5.5 option check_result = binary: "мафия / не мафия"."""
    res, _ = resolve_day(1, start(), None, NightOrders(check=target, checker="Алексей"),
                         opts(check_result="binary"))
    assert res.checks[0].result == shown


def test_R5_5_option_no_rechecks():
    """R5.5 option allow_rechecks = false: a second check of Кот is void."""
    o = opts(allow_rechecks=False)
    _, s = resolve_day(1, start(), None, NightOrders(check="Кот", checker="Алексей"), o)
    res, _ = resolve_day(2, s, None, NightOrders(check="Кот", checker="Алексей"), o)
    assert res.checks == ()
    res, _ = resolve_day(2, s, None, NightOrders(check="Кот", checker="Алексей"))
    assert res.checks[0].result == "mafia"


def test_R5_5_check_by_non_commissar_void():
    res, _ = resolve_day(1, start(), None, NightOrders(check="Кот", checker="NightOwl"))
    assert res.checks == ()


def test_R6_4_check_delivered_though_commissar_died_R6_5_promotion():
    """R6.4: the check is delivered though the Commissar died this night; R4.2 / R5.5: the
    same text goes to the Sergeant (the only link between them); R6.5: the Sergeant becomes
    Commissar and receives copies no more."""
    s = start()
    orders = NightOrders(mafia_kill="Алексей", **MAFIA, check="Кот", checker="Алексей")
    res, after = resolve_day(1, s, None, orders)
    assert [d.player for d in res.killed] == ["Алексей"]
    assert res.checks == (CheckResult("Алексей", "Кот", "mafia"),)
    assert check_recipients(res.checks[0], s) == ("Алексей", "NightOwl")
    assert res.promoted == "NightOwl"
    assert (after.commissar, after.sergeant) == ("NightOwl", None)
    assert after.roles["NightOwl"] is Role.SERGEANT  # the role itself never changes
    # the next night NightOwl checks
    res2, _ = resolve_day(2, after, None, NightOrders(check="Вася", checker="NightOwl"))
    assert res2.checks == (CheckResult("NightOwl", "Вася", "boss"),)
    assert check_recipients(res2.checks[0], after) == ("NightOwl",)


def test_R5_5_jailed_commissar_promotes_sergeant_check_void():
    res, after = resolve_day(1, start(), lynch("Алексей"),
                             NightOrders(check="Кот", checker="Алексей"))
    assert res.checks == () and res.promoted == "NightOwl" and after.commissar == "NightOwl"


def test_R5_5_commissar_and_sergeant_both_die_no_commissar():
    res, after = resolve_day(1, start(), lynch("NightOwl"),
                             NightOrders(mafia_kill="Алексей", **MAFIA))
    assert res.promoted is None and after.commissar is None and after.sergeant is None


def test_R5_5_sergeant_dies_first_then_commissar_no_promotion():
    _, s = resolve_day(1, start(), lynch("NightOwl"), NightOrders())
    assert s.sergeant is None and s.commissar == "Алексей"
    res, s = resolve_day(2, s, None, NightOrders(mafia_kill="Алексей", **MAFIA))
    assert res.promoted is None and s.commissar is None


def test_R8_deaths_recorded_and_R8_1_last_word_windows():
    """R8 / R8.1: deaths carry day and cause; the last word runs 12 hours (option) after the
    newspaper that announced the death, i.e. the next day's start."""
    orders = NightOrders(mafia_kill="Лиса", **MAFIA, maniac_kill="Волк", maniac="Игрок-7")
    res, s = resolve_day(1, start(), lynch("Маша_2", "random"), orders)
    assert s.died_at == {"Маша_2": (1, "random"), "Лиса": (1, "mafia"), "Волк": (1, "maniac")}
    msk = ZoneInfo("Europe/Moscow")
    cal = Calendar(start=date(2024, 4, 8), tz=msk)
    windows = last_word_windows(s, cal, hours=12)
    assert windows["Лиса"] == (datetime(2024, 4, 9, 21, 0, tzinfo=msk),
                               datetime(2024, 4, 10, 9, 0, tzinfo=msk))
    windows = last_word_windows(s, cal, hours=opts(last_word_hours=3).last_word_hours)
    assert windows["Маша_2"][1] == datetime(2024, 4, 10, 0, 0, tzinfo=msk)


def test_R6_result_alive_in_game_file_order_and_json():
    res, _ = resolve_day(1, start(), lynch("Лиса"), NightOrders())
    assert res.alive == tuple(n for n in ORDER if n != "Лиса")
    assert res.to_json()["alive"] == list(res.alive)


def test_R6_state_round_trips_through_json():
    orders = NightOrders(mafia_kill="Лиса", **MAFIA, freeze="Волк", boss="Вася",
                         check="Кот", checker="Алексей")
    _, s = resolve_day(1, start(), lynch("Маша_2", "random"), orders)
    assert GameState.from_json(s.to_json()) == s


def test_resolving_twice_the_same_day_is_refused():
    _, s = resolve_day(1, start(), None, NightOrders())
    with pytest.raises(RulesError, match="already resolved"):
        resolve_day(1, s, None, NightOrders())


def test_lynching_a_dead_player_is_refused():
    _, s = resolve_day(1, start(), lynch("Лиса"), NightOrders())
    with pytest.raises(RulesError, match="already dead"):
        resolve_day(2, s, lynch("Лиса"), NightOrders())


def test_R4_1_initial_state_duty_must_be_mafioso_and_roles_complete():
    """R4.1: the duty mafioso is one of the mafiosi; every player needs a role."""
    players = [Player(n, r) for n, r in ROLES.items()]
    with pytest.raises(RulesError, match="not a mafioso"):
        initial_state(players, "Лиса", ORDER)
    with pytest.raises(RulesError, match="has no role"):
        initial_state(players + [Player("Новичок")], "Кот")
    with pytest.raises(RulesError, match="the role commissar"):
        initial_state(players + [Player("Комиссар2", Role.COMMISSAR)], "Кот")
    assert initial_state(players, "Вася", ORDER).duty == "Вася"  # the Boss may be on duty


def test_initial_state_game_taken_over_with_dead_commissar():
    players = [Player(n, r, alive=(n != "Алексей")) for n, r in ROLES.items()]
    s = initial_state(players, "Кот", ORDER)
    assert s.commissar == "NightOwl" and s.sergeant is None and "Алексей" not in s.alive
