"""Notes for the host report, as language-neutral values (R9.4).

The night's resolution (rules/night.py) explains every move that could not act — a dead or
frozen sender, a target that is gone, a kill stopped by the Doctor — with a ``Note``: a stable
code and the values it is about (nicks, a count, a reason code). ``rules/`` never makes text of
it: the wording, in each language, is in ``templates/night-notes.toml`` (a game may override
it in ``GAME/templates/night-notes.toml``) and ``scraper_mod/notes.py`` renders it.

``CODES`` lists every code with the arguments it carries; ``WHY`` the reasons a player cannot
act or be aimed at (``why`` argument). Notes stored by older versions are plain strings;
``note_from_json`` returns them as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import RulesError

__all__ = ["Note", "CODES", "WHY", "note_from_json"]

# Why a player cannot act or be aimed at tonight (the ``why`` argument).
WHY: tuple[str, ...] = ("jailed", "not_player", "dead", "taken")

# Every note code -> the names of its arguments.
CODES: dict[str, tuple[str, ...]] = {
    # the Boss's freeze (R5.4)
    "freeze_not_boss": ("target", "sender"),
    "freeze_boss_gone": ("target", "boss", "why"),
    "freeze_target_gone": ("target", "why"),
    "freeze_mafioso": ("target",),
    # a sender who cannot act tonight: dead, jailed, or frozen (R6.1, R5.4)
    "heal_by_gone": ("actor", "why"),
    "heal_by_frozen": ("actor",),
    "maniac_kill_by_gone": ("actor", "why"),
    "maniac_kill_by_frozen": ("actor",),
    "check_by_gone": ("actor", "why"),
    "check_by_frozen": ("actor",),
    # a target who is gone, or jailed the same day with a simultaneous lynch (R6.1)
    "heal_on_gone": ("target", "why"),
    "heal_on_jailed": ("target",),
    "mafia_kill_on_gone": ("target", "why"),
    "mafia_kill_on_jailed": ("target",),
    "maniac_kill_on_gone": ("target", "why"),
    "maniac_kill_on_jailed": ("target",),
    # the Doctor (R5.6)
    "heal_not_doctor": ("target", "sender"),
    "heal_self_limit": ("target", "limit"),
    "heal_same_patient": ("target",),
    # the mafia (R5.2)
    "mafia_kill_no_mafioso": ("target",),
    "mafia_kill_backers_gone": ("target", "who", "why"),
    "mafia_kill_not_player": ("target",),
    "mafia_kill_vsb": ("target",),
    "mafia_kill_mafioso": ("target",),
    # the Maniac (R5.3)
    "maniac_kill_not_maniac": ("target", "sender"),
    "maniac_kill_self": (),
    # heals against kills (R5.6)
    "mafia_kill_healed": ("target",),
    "maniac_kill_healed": ("target",),
    "double_kill": ("target",),
    # the Commissar's check (R5.5)
    "check_not_commissar": ("target", "sender"),
    "check_target_gone": ("target", "why"),
    "check_self": ("target",),
    "check_recheck": ("target",),
    "check_commissar_died": ("commissar",),
    # R14: the roles of other houses (rules/roles.py)
    "pardon": ("actor", "target"),
    "pardon_by_gone": ("actor", "why"),
    "pardon_by_frozen": ("actor",),
    "pardon_used": ("actor",),
    "pardon_no_jailing": ("actor",),
    "take_target_gone": ("actor", "target"),
    **{f"{m}_by_blocked": ("actor",) for m in ("heal", "maniac_kill", "check", "block",
                                               "defend", "guard", "role_kill", "compare")},
    **{f"{m}_by_gone": ("actor", "why") for m in ("block", "defend", "guard", "role_kill",
                                                  "compare")},
    **{f"{m}_by_frozen": ("actor",) for m in ("block", "defend", "guard", "role_kill",
                                              "compare")},
    **{f"{m}_on_gone": ("target", "why") for m in ("block", "guard", "role_kill")},
    **{f"{m}_on_jailed": ("target",) for m in ("guard", "role_kill")},
    "block": ("actor", "target"),
    "block_self": ("target",),
    "block_same_target": ("actor", "target"),
    "defend_bad_target": ("actor", "target"),
    "guard_self": ("target",),
    "guard_took": ("actor", "target"),
    "role_kill_self": ("actor",),
    "role_kill_healed": ("target",),
    "mafia_kill_by_blocked": ("target", "who"),
    "kill_immortal": ("target",),
    "compare_target_gone": ("actor", "target", "other"),
    "compare_bad": ("actor", "target", "other"),
}


def _freeze(value: Any) -> Any:
    return tuple(value) if isinstance(value, (list, tuple)) else value


@dataclass(frozen=True)
class Note:
    """One line of the host report's notes: a code of ``CODES`` and its arguments.

    ``args`` is a tuple of ``(name, value)`` pairs (values: str, int, None, or a tuple of
    nicks) so that a note is hashable; ``Note.of(code, **args)`` builds one and checks it.
    """

    code: str
    args: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, code: str, **args: Any) -> Note:
        """A note with its arguments checked against ``CODES``."""
        if code not in CODES:
            raise RulesError(f"unknown note code {code!r}")
        if set(args) != set(CODES[code]):
            raise RulesError(f"note {code!r} takes {', '.join(CODES[code]) or 'nothing'}, "
                             f"not {', '.join(sorted(args)) or 'nothing'}")
        if "why" in args and args["why"] not in WHY:
            raise RulesError(f"note {code!r}: unknown reason {args['why']!r}")
        return cls(code, tuple((k, _freeze(args[k])) for k in CODES[code]))

    @property
    def fields(self) -> dict[str, Any]:
        """The arguments as a dict."""
        return dict(self.args)

    def to_json(self) -> dict:
        return {"code": self.code,
                "args": {k: list(v) if isinstance(v, tuple) else v for k, v in self.args}}


def note_from_json(value: Any) -> Note | str:
    """A stored note: a ``Note`` from its JSON, or an older version's plain string as is."""
    if isinstance(value, dict) and isinstance(value.get("code"), str):
        args = value.get("args") or {}
        if isinstance(args, dict):
            return Note(value["code"], tuple((str(k), _freeze(v)) for k, v in args.items()))
    if isinstance(value, str):
        return value
    return str(value)
