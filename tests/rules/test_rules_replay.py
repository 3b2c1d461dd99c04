"""A whole game through the rules core alone: fixtures/scenarios/full_game.toml.

The scenario's expectations were worked out by hand from docs/rules.md; here the engine must agree
with every one of them, day by day (R1.3, R1.4, R2.5, R2.6, R2.8, R3.2, R3.3, R4.3, R5.2,
R5.4, R5.5, R5.6, R6, R7.1).
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from pathlib import Path

import pytest

from scraper_mod.game.setup.scenario import scenario_from_dict
from scraper_mod.rules.replay import replay

SCENARIOS = Path(__file__).resolve().parents[2] / "fixtures" / "scenarios"
SCENARIO = SCENARIOS / "full_game.toml"
OPTIONS_SCENARIO = SCENARIOS / "mafia_wins_options.json"


def _strip_comments(data):
    """JSON has no comments: keys starting with "_" explain the scenario and are dropped."""
    if isinstance(data, dict):
        return {k: _strip_comments(v) for k, v in data.items() if not k.startswith("_")}
    if isinstance(data, list):
        return [_strip_comments(x) for x in data]
    return data


def load_scenario(path: Path):
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text) if path.suffix == ".toml" else _strip_comments(json.loads(text))
    return scenario_from_dict(data, path=path)


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(SCENARIO)


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


CASES = [(SCENARIO, d) for d in range(1, 7)] + [(OPTIONS_SCENARIO, d) for d in (1, 2)]


@pytest.mark.parametrize("path,day", CASES, ids=[f"{p.stem}-day{d}" for p, d in CASES])
def test_each_day_matches_hand_worked_expectations(path, day):
    """Every day of both scenarios: counts (CONTRACT order), the lynch (R2.9, R3), deaths,
    saves, freezes, checks, promotions and the winner as worked out by hand."""
    sc = load_scenario(path)
    played = sc.play()
    rd = played[day - 1]
    exp = sc.day_expect[day]
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


def test_options_scenario_mafia_wins_R7_2_R3_3_tied_only_R6_simultaneous():
    """R7.2 under options: tied_only random (R3.3), simultaneous lynch (R6), binary checks."""
    sc = load_scenario(OPTIONS_SCENARIO)
    played = sc.play()
    assert len(played) == sc.expect["days"] == 2
    assert played[-1].result.winner == sc.expect["winner"] == "mafia"
    assert list(played[-1].result.alive) == sc.expect["alive"]
    assert played[0].after.cursor == 2


def test_scenario_errors_name_the_key(tmp_path):
    from scraper_mod.errors import ConfigError
    data = _strip_comments(json.loads(OPTIONS_SCENARIO.read_text(encoding="utf-8")))
    data["script"][1]["votes"][0] = ["Вася", "Петя", "2024-04-09T21:30:00"]
    with pytest.raises(ConfigError, match=r"script\[2\]\.votes\[1\]: 'Петя' is not a player"):
        scenario_from_dict(data, path=tmp_path / "s.json")
    data["script"][1]["votes"][0] = ["Вася", "Кот"]
    with pytest.raises(ConfigError, match=r"script\[2\]\.votes\[1\]: must be"):
        scenario_from_dict(data, path=tmp_path / "s.json")
    data["script"][1]["votes"] = []
    data["script"][1]["night"]["poison"] = "Лиса"
    with pytest.raises(ConfigError, match=r"script\[2\]\.night\.poison: unknown key"):
        scenario_from_dict(data, path=tmp_path / "s.json")


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
