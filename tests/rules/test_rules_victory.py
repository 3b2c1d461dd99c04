"""Victory (docs/rules.md R7)."""

from __future__ import annotations

import dataclasses

import pytest

from scraper_mod.rules.model import Player, Role, RuleOptions
from scraper_mod.rules.night import NightOrders, resolve_day
from scraper_mod.rules.state import initial_state
from scraper_mod.rules.tally import Lynch
from scraper_mod.rules.victory import check_victory

ROLES = {"Вася": Role.BOSS, "Кот": Role.MAFIA, "Алексей": Role.COMMISSAR,
         "doc_Holiday": Role.DOCTOR, "Игрок-7": Role.MANIAC, "Ёжик": Role.VSB,
         "Маша_2": Role.CIVILIAN, "Лиса": Role.CIVILIAN}
MUST_DIE = dataclasses.replace(RuleOptions(), maniac_must_die_for_town=True)


@pytest.mark.parametrize("alive,winner", [
    (["Алексей", "Маша_2", "Игрок-7"], "town"),            # R7.1 no mafioso, maniac alive
    (["Алексей", "Маша_2"], "town"),
    ([], "town"),
    (["Вася", "Маша_2"], "mafia"),                          # R7.2 1 vs 1
    (["Вася", "Кот", "Маша_2", "Лиса"], "mafia"),           # R7.2 2 vs 2
    (["Вася", "Маша_2", "Лиса"], None),                     # 1 vs 2
    (["Вася", "Кот", "Игрок-7", "Лиса", "Ёжик"], None),     # 2 vs 3 (the Maniac counts)
    (["Вася", "Кот", "Игрок-7", "Лиса"], "mafia"),          # R7.2 the Maniac counts as non-mafia
    (["Игрок-7", "Маша_2"], "maniac"),                     # R7.3
    (["Игрок-7"], "maniac"),
    (["Игрок-7", "Вася"], "maniac"),                       # R7.3 checked first (not mafia 1v1)
    (["Игрок-7", "Маша_2", "Лиса"], "town"),
])
def test_R7_winners(alive, winner):
    """R7.1 town, R7.2 mafia parity, R7.3 the Maniac with at most one other, first."""
    assert check_victory(ROLES, alive) == winner


def test_R7_option_maniac_must_die_for_town():
    """R7 option maniac_must_die_for_town: no mafioso is not enough while the Maniac lives."""
    assert check_victory(ROLES, ["Алексей", "Маша_2", "Игрок-7"], MUST_DIE) is None
    assert check_victory(ROLES, ["Алексей", "Маша_2"], MUST_DIE) == "town"
    assert check_victory(ROLES, ["Игрок-7", "Маша_2"], MUST_DIE) == "maniac"


def test_R7_3_maniac_checked_first_in_resolution():
    """R7.3 / R6.6 via resolve_day: victory is checked after the night; the last mafioso is
    jailed, the Maniac kills: he and one other are left, and the Maniac wins, not the town."""
    players = [Player(n, r, alive=n in ("Кот", "Игрок-7", "Маша_2", "Лиса"))
               for n, r in ROLES.items()]
    s = initial_state(players, "Кот", list(ROLES))
    res, _ = resolve_day(5, s, Lynch("Кот", "votes", 0),
                         NightOrders(maniac_kill="Лиса", maniac="Игрок-7"))
    assert res.winner == "maniac" and res.alive == ("Игрок-7", "Маша_2")


def test_R7_2_mafia_wins_after_night_kill():
    players = [Player(n, r, alive=n in ("Вася", "Кот", "Маша_2", "Лиса", "Алексей"))
               for n, r in ROLES.items()]
    s = initial_state(players, "Кот", list(ROLES))
    res, _ = resolve_day(3, s, Lynch("Маша_2", "votes", 0),
                         NightOrders(mafia_kill="Лиса", mafia_by="Кот"))
    assert res.winner == "mafia" and res.to_json()["winner"] == "mafia"
