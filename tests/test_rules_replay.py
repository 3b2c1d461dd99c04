"""A whole game through the rules core alone: fixtures/scenarios/full_game.toml.

The scenario's expectations were worked out by hand from RULES.md; here the engine must agree
with every one of them, day by day (R1.3, R1.4, R2.5, R2.6, R2.8, R3.2, R3.3, R4.3, R5.2,
R5.4, R5.5, R5.6, R6, R7.1).
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from scraper_mod.rules.replay import replay, scenario_from_dict

SCENARIO = Path(__file__).parent.parent / "fixtures" / "scenarios" / "full_game.toml"


@pytest.fixture(scope="module")
def scenario():
    return scenario_from_dict(tomllib.loads(SCENARIO.read_text(encoding="utf-8")),
                              path=SCENARIO)


@pytest.fixture(scope="module")
def played(scenario):
    return scenario.play()


def test_full_game_ends_with_expected_winner_R7_1(scenario, played):
    """R7.1: the town wins on day 6 once the last mafioso is jailed."""
    assert len(played) == scenario.expect["days"] == 6
    last = played[-1].result
    assert last.winner == scenario.expect["winner"] == "town"
    assert list(last.alive) == scenario.expect["alive"]
    # nobody won earlier
    assert all(rd.result.winner is None for rd in played[:-1])


@pytest.mark.parametrize("day", [1, 2, 3, 4, 5, 6])
def test_each_day_matches_hand_worked_expectations(scenario, played, day):
    rd = played[day - 1]
    exp = scenario.day_expect[day]
    res = rd.result
    assert [[c.target, c.votes] for c in rd.tally.counts] == exp["counts"]
    player, role, by = exp["lynched"]
    assert (res.lynched.player, res.lynched.role.value, res.lynched.by) == (player, role, by)
    assert [[d.player, d.role.value, d.by] for d in res.killed] == exp["killed"]
    assert res.saved is exp.get("saved", False)
    assert res.frozen == exp.get("frozen")
    assert [[c.by, c.target, c.result] for c in res.checks] == exp.get("checks", [])
    assert res.promoted == exp.get("promoted")
    assert res.vsb_protected is exp.get("vsb_protected", False)
    assert len(res.alive) == exp["alive"]
    assert res.winner == exp.get("winner")
    assert [r.author for r in rd.late] == exp.get("late", [])
    assert [[r.author, r.reason] for r in rd.tally.rejected] == exp.get("rejected", [])
    if "tied" in exp:
        assert list(rd.lynch.tied) == exp["tied"]


def test_weekend_day_runs_to_sunday_R1_3(played):
    """R1.3: day 3 starts Friday 21:00 and ends Sunday 20:00, after the DST change (+02:00)."""
    rd = played[2]
    assert rd.deadline.isoformat() == "2024-03-31T20:00:00+02:00"
    # NightOwl's Saturday-evening vote counted
    assert "NightOwl" in rd.tally.counts[0].voters


def test_moved_deadline_counts_a_later_vote_R1_4(played):
    """R1.4: day 5's deadline moved to Wednesday; Ёжик's Tuesday 20:30 vote counts."""
    rd = played[4]
    assert rd.deadline.isoformat() == "2024-04-03T20:00:00+02:00"
    assert any(v.voter == "Ёжик в тумане" for v in rd.tally.votes)


def test_random_list_cursor_moves_down_the_list_R3_2(played):
    """R3.2: the first random takes Маша_2 (top), the second starts past her and takes Вася."""
    assert played[0].lynch.cursor == 1
    assert played[4].lynch.player == "Вася" and played[4].lynch.cursor == 2
    assert played[5].after.cursor == 2


def test_vsb_attack_is_a_miss_R5_2(played):
    """R5.2: the mafia aimed at the VSB on nights 1 and 5: a miss, and he is still alive."""
    for rd in (played[0], played[4]):
        assert rd.result.vsb_protected
        assert "Ёжик в тумане" in rd.result.alive
        assert rd.result.story is None


def test_commissar_death_promotes_sergeant_R5_5(played):
    """R5.5: the Commissar dies on night 3; NightOwl checks from night 4 on."""
    assert played[2].after.commissar == "NightOwl"
    assert played[2].after.sergeant is None
    assert played[3].result.checks[0].by == "NightOwl"


def test_deaths_recorded_with_day_and_cause_R8(played):
    """R8: died_at keeps the day and the cause of every death, for last-word windows."""
    died = played[-1].after.died_at
    assert died["Маша_2"] == (1, "random")
    assert died["Алексей"] == (3, "mafia")
    assert died["Кролик"] == (3, "maniac")
    assert died["Вася"] == (5, "random")
    assert died["Big Joe"] == (6, "votes")


def test_maniac_must_die_option_keeps_game_going_R7(scenario):
    """R7 option maniac_must_die_for_town: with the Maniac alive, day 6 has no winner."""
    options = dataclasses.replace(scenario.game.rules, maniac_must_die_for_town=True)
    played = replay(scenario.state, scenario.days, options, calendar=scenario.calendar)
    assert len(played) == 6 and played[-1].result.winner is None


def test_replay_is_deterministic_R6(scenario):
    """R6: resolution is a pure function: twice gives the same JSON."""
    a = [rd.result.to_json() for rd in scenario.play()]
    b = [rd.result.to_json() for rd in scenario.play()]
    assert a == b
