"""The state of a game between two resolutions (docs/rules.md R4-R8), a frozen value.

``GameState`` holds who has which role, who is alive, the acting Commissar and the Sergeant
(R5.5: the Sergeant becomes Commissar when the Commissar dies), the duty mafioso (R4.1), the
random list and its cursor (R3.2), the Doctor's counters (R5.6), the player frozen for the
next day's vote (R5.4), who was already checked (R5.5 ``allow_rechecks``) and when and how
each player died (R8: ``died_at[nick] = (day, by)``, by = votes|random|mafia|maniac, so the
last-word window of R8.1 can be computed from the newspaper of that day), and how many game
days in a row each living player has not voted (R2.16, ``no_vote_days``, rules/house.py).

Roles never change: a promoted Sergeant keeps the role ``sergeant`` (his death reveals
"Сержант"), while ``commissar`` names whoever checks now.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from ..errors import RulesError
from .calendar import Calendar
from .model import Player, Role
from .roles import CATALOGUE


@dataclass(frozen=True)
class GameState:
    """Everything the rules need to resolve the next day. ``day`` is the last resolved day."""

    roles: dict[str, Role]
    alive: frozenset[str]
    commissar: str | None = None     # the acting Commissar (after R5.5 promotion: the Sergeant)
    sergeant: str | None = None      # None once promoted or dead
    duty: str | None = None
    order: tuple[str, ...] = ()      # the random list (R3)
    cursor: int = 0
    doctor_self_heals_used: int = 0
    last_heal_target: str | None = None
    frozen_next_day: str | None = None
    checked: frozenset[str] = frozenset()
    died_at: dict[str, tuple[int, str]] = field(default_factory=dict)
    day: int = 0
    no_vote_days: dict[str, int] = field(default_factory=dict)  # R2.16: days in a row, alive
    # R14 (rules/roles.py): last night's target of a "not twice running" move (the Putana's),
    # who used a once-a-game move (the Judge), Immortals already attacked once, and standing
    # moves in force (the Kamikaze's «забрать X»)
    last_targets: dict[str, str] = field(default_factory=dict)
    used_once: frozenset[str] = frozenset()
    mortal: frozenset[str] = frozenset()
    standing: dict[str, str] = field(default_factory=dict)

    # -- queries ---------------------------------------------------------------------------
    @property
    def players(self) -> tuple[str, ...]:
        """All nicks, in the game file's order."""
        return tuple(self.roles)

    def role(self, nick: str) -> Role:
        try:
            return self.roles[nick]
        except KeyError:
            raise RulesError(f"{nick!r} is not a player of this game") from None

    def alive_in_order(self) -> tuple[str, ...]:
        return tuple(n for n in self.roles if n in self.alive)

    def with_role(self, *roles: Role, alive_only: bool = True) -> tuple[str, ...]:
        return tuple(n for n, r in self.roles.items()
                     if r in roles and (not alive_only or n in self.alive))

    @property
    def mafiosi(self) -> tuple[str, ...]:
        """Alive mafiosi (Boss and others)."""
        return tuple(n for n, r in self.roles.items() if r.is_mafia and n in self.alive)

    @property
    def boss(self) -> str | None:
        found = self.with_role(Role.BOSS, alive_only=False)
        return found[0] if found else None

    @property
    def doctor(self) -> str | None:
        found = self.with_role(Role.DOCTOR, alive_only=False)
        return found[0] if found else None

    @property
    def maniac(self) -> str | None:
        found = self.with_role(Role.MANIAC, alive_only=False)
        return found[0] if found else None

    def frozen_today(self) -> frozenset[str]:
        """Whose vote does not count on day ``self.day + 1`` (R5.4)."""
        f = self.frozen_next_day
        return frozenset({f}) if f and f in self.alive else frozenset()

    # -- (de)serialisation, for the store ---------------------------------------------------
    def to_json(self) -> dict:
        return {
            "roles": {n: r.value for n, r in self.roles.items()},
            "alive": [n for n in self.roles if n in self.alive],
            "commissar": self.commissar, "sergeant": self.sergeant, "duty": self.duty,
            "order": list(self.order), "cursor": self.cursor,
            "doctor_self_heals_used": self.doctor_self_heals_used,
            "last_heal_target": self.last_heal_target,
            "frozen_next_day": self.frozen_next_day,
            "checked": sorted(self.checked),
            "died_at": {n: [d, by] for n, (d, by) in self.died_at.items()},
            "day": self.day,
            **({"no_vote_days": dict(self.no_vote_days)} if self.no_vote_days else {}),
            **({"last_targets": dict(self.last_targets)} if self.last_targets else {}),
            **({"used_once": sorted(self.used_once)} if self.used_once else {}),
            **({"mortal": sorted(self.mortal)} if self.mortal else {}),
            **({"standing": dict(self.standing)} if self.standing else {}),
        }

    @classmethod
    def from_json(cls, data: dict) -> "GameState":
        return cls(
            roles={n: Role(r) for n, r in data["roles"].items()},
            alive=frozenset(data["alive"]), commissar=data.get("commissar"),
            sergeant=data.get("sergeant"), duty=data.get("duty"),
            order=tuple(data.get("order", ())), cursor=int(data.get("cursor", 0)),
            doctor_self_heals_used=int(data.get("doctor_self_heals_used", 0)),
            last_heal_target=data.get("last_heal_target"),
            frozen_next_day=data.get("frozen_next_day"),
            checked=frozenset(data.get("checked", ())),
            died_at={n: (int(v[0]), str(v[1])) for n, v in data.get("died_at", {}).items()},
            day=int(data.get("day", 0)),
            no_vote_days={n: int(k) for n, k in data.get("no_vote_days", {}).items()},
            last_targets={n: str(t) for n, t in data.get("last_targets", {}).items()},
            used_once=frozenset(data.get("used_once", ())),
            mortal=frozenset(data.get("mortal", ())),
            standing={n: str(t) for n, t in data.get("standing", {}).items()})

    def evolve(self, **changes: Any) -> "GameState":
        return replace(self, **changes)


def initial_state(players: Iterable[Player], duty: str | None = None,
                  order: Iterable[str] = (), *, cursor: int = 0) -> GameState:
    """The state before day 1 (or at a game taken over midway: ``Player.alive``).

    Every player must have a role (deal them first). ``duty`` must be a mafioso (R4.1); when
    the Commissar is already dead and the Sergeant alive, the Sergeant is the Commissar.
    """
    players = list(players)
    roles: dict[str, Role] = {}
    for p in players:
        if p.role is None:
            raise RulesError(f"player {p.nick!r} has no role yet",
                             hint="deal the roles first (`scraper-mod deal`)")
        if p.nick in roles:
            raise RulesError(f"player {p.nick!r} is listed twice")
        roles[p.nick] = p.role
    for single in (r for r, sp in CATALOGUE.items() if sp.single):
        holders = [n for n, r in roles.items() if r is single]
        if len(holders) > 1:
            raise RulesError(f"{len(holders)} players have the role {single.value} "
                             f"({', '.join(holders)}); the rules allow one")
    alive = frozenset(p.nick for p in players if p.alive)
    if duty is not None:
        if duty not in roles:
            raise RulesError(f"the duty mafioso {duty!r} is not a player")
        if not roles[duty].is_mafia:
            raise RulesError(f"the duty mafioso {duty!r} is {roles[duty].value}, not a mafioso")
    order = tuple(order)
    if order and sorted(order) != sorted(roles):
        raise RulesError("the random list must hold every player exactly once")
    commissar = next((n for n, r in roles.items() if r is Role.COMMISSAR), None)
    sergeant = next((n for n, r in roles.items() if r is Role.SERGEANT), None)
    if sergeant is not None and sergeant not in alive:
        sergeant = None
    if commissar is not None and commissar not in alive:
        commissar, sergeant = sergeant, None
    return GameState(roles=roles, alive=alive, commissar=commissar, sergeant=sergeant,
                     duty=duty, order=order, cursor=cursor % len(order) if order else 0)


def last_word_windows(state: GameState, calendar: Calendar, hours: int = 12
                      ) -> dict[str, tuple[datetime, datetime]]:
    """R8.1: for each player who died in the game, ``(from, until)``: the newspaper that
    announced his death goes out at the start of the next day (``calendar.day_start(day + 1)``)
    and he may post a last word for ``hours`` hours after it (``last_word_hours``)."""
    out = {}
    for nick, (day, _by) in state.died_at.items():
        if day < 1:
            continue
        opens = calendar.day_start(day + 1)
        out[nick] = (opens, opens + timedelta(hours=hours))
    return out


def stored_state_json(data: object) -> dict | None:
    """The game state after a resolved day, as a stored resolution keeps it (under ``state``,
    or ``state_after``/``after`` in older files); None for a bare result JSON."""
    if not isinstance(data, dict):
        return None
    for key in ("state", "state_after", "after"):
        v = data.get(key)
        if isinstance(v, dict) and "alive" in v and "roles" in v:
            return v
    return None


def with_named_duty(state: GameState, duty: str | None) -> GameState:
    """R4.1: the host may name another duty mafioso in the game file at any time; from the
    next night on he is the duty, if he is a living mafioso (else the state's duty stands).
    The one place this is decided: the move judging and the resolution both use it."""
    if duty and duty != state.duty and duty in state.alive:
        role = state.roles.get(duty)
        if role is not None and role.is_mafia:
            return state.evolve(duty=duty)
    return state
