"""Random days of the seed's setup (R4, R5, R6), for the identity test of issue 37.

``case(i)`` is day input number ``i``: a state (roles, alive, Commissar, Sergeant, duty,
counters), a lynch and the night's orders, drawn from ``random.Random(i)`` and built only of
the seed's eight roles. ``tests/rules/data/seed_night_reference.json`` holds what the
resolution gave for each case before the roles became data (the code of main at 5ae611a);
``test_rules_roles.py`` checks that the catalogue-driven night gives the same, byte for byte.
Regenerate (only when the seed's rules deliberately change) with
``PYTHONPATH=<old checkout> python tests/rules/seed_cases.py > tests/rules/data/…``.
"""

from __future__ import annotations

import dataclasses
import json
import random

from scraper_mod.rules.model import Player, Role, RuleOptions
from scraper_mod.rules.night import NightOrders, resolve_day
from scraper_mod.rules.state import initial_state
from scraper_mod.rules.tally import Lynch

NICKS = ["Вася", "Big Joe", "Кот", "Алексей", "NightOwl", "doc_Holiday", "Игрок-7",
         "Ёжик в тумане", "Маша_2", "Лиса", "Волк", "Zoe"]
SETUP = [Role.BOSS, Role.MAFIA, Role.MAFIA, Role.COMMISSAR, Role.SERGEANT, Role.DOCTOR,
         Role.MANIAC, Role.VSB, Role.CIVILIAN, Role.CIVILIAN, Role.CIVILIAN, Role.CIVILIAN]
CASES = 250


def case(i: int) -> tuple:
    rng = random.Random(i)
    roles = SETUP[:]
    rng.shuffle(roles)
    players = [Player(n, r, alive=rng.random() > 0.2) for n, r in zip(NICKS, roles)]
    if not any(p.alive for p in players):
        players[0] = dataclasses.replace(players[0], alive=True)
    mafiosi = [p.nick for p in players if p.role.is_mafia]
    state = initial_state(players, rng.choice(mafiosi), NICKS)
    state = state.evolve(doctor_self_heals_used=rng.choice([0, 0, 1]),
                         last_heal_target=rng.choice([None, *NICKS]),
                         checked=frozenset(rng.sample(NICKS, rng.randint(0, 3))))
    alive = sorted(state.alive)
    lynch = None if rng.random() < 0.2 else Lynch(player=rng.choice(alive),
                                                  by=rng.choice(["votes", "random"]),
                                                  cursor=rng.randint(0, 11))
    anyone = NICKS + ["Чужой"]

    def pick() -> str | None:
        return rng.choice(anyone) if rng.random() < 0.8 else None

    def who(role: Role) -> str | None:
        found = [n for n, r in state.roles.items() if r is role]
        return found[0] if found and rng.random() < 0.9 else rng.choice(anyone)

    orders = NightOrders(
        mafia_kill=pick(), mafia_by=rng.choice(mafiosi), mafia_story=rng.choice([None, "ист"]),
        maniac_kill=pick(), maniac=who(Role.MANIAC), heal=pick(), doctor=who(Role.DOCTOR),
        check=pick(), checker=rng.choice([state.commissar, state.sergeant, who(Role.DOCTOR)]),
        freeze=pick(), boss=who(Role.BOSS),
        mafia_also=tuple(rng.sample(mafiosi, rng.randint(0, len(mafiosi)))))
    options = RuleOptions(
        lynch_first=rng.random() < 0.8, check_result=rng.choice(["exact", "binary"]),
        allow_rechecks=rng.random() < 0.7, doctor_self_heals=rng.choice([0, 1, 2]),
        doctor_same_patient_twice=rng.random() < 0.7)
    return state, lynch, orders, options


def outcome(i: int) -> dict:
    state, lynch, orders, options = case(i)
    res, after = resolve_day(1, state, lynch, orders, options)
    return {"result": res.to_json(), "notes": [n.to_json() for n in res.notes],
            "story": res.story, "vsb_protected": res.vsb_protected, "state": after.to_json()}


if __name__ == "__main__":
    print(json.dumps([outcome(i) for i in range(CASES)], ensure_ascii=False, separators=(",", ":")))
