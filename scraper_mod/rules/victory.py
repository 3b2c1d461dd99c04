"""Victory (docs/rules.md R7), checked after every resolution (R6.6).

- R7.3 first: the Maniac wins when he is alive and at most one other player is.
- R7.1 Town wins when no mafioso is alive (with ``maniac_must_die_for_town``: and the Maniac
  is dead too).
- R7.2 Mafia wins when the alive non-mafiosi (the Maniac counts as one) are no more than the
  alive mafiosi.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .model import Role, RuleOptions


def check_victory(roles: Mapping[str, Role], alive: Iterable[str],
                  options: RuleOptions = RuleOptions()) -> str | None:
    """The winner ("maniac" | "town" | "mafia") or None while the game goes on."""
    alive = [n for n in alive]
    maniac_alive = any(roles[n] is Role.MANIAC for n in alive)
    mafia = sum(1 for n in alive if roles[n].is_mafia)
    others = len(alive) - mafia
    if maniac_alive and len(alive) <= 2:
        return "maniac"
    if mafia == 0:
        if options.maniac_must_die_for_town and maniac_alive:
            return None
        return "town"
    if others <= mafia:
        return "mafia"
    return None
