"""Dealing the roles (docs/rules.md R4, R4.1) and what each role card says (R9.3). Pure.

``default_counts(n)`` is the setup for n players when the game file's ``[deal]`` says nothing:

- 11 players or more: the default setup of the rules: Boss 1, mafiosi 2 (three mafiosi with
  the Boss), Commissar 1, Sergeant 1, Doctor 1, Maniac 1, ВСБ 1, the rest civilians;
- 9-10: Boss 1, mafioso 1, Commissar 1, Sergeant 1, Doctor 1, Maniac 1, plus the ВСБ at 10;
- 7-8: Boss 1, mafioso 1, Commissar 1, Doctor 1, plus the Sergeant at 8;
- 5-6: Boss 1, Commissar 1, Doctor 1;
- the rest civilians. Fewer than 5 players cannot play.

So the mafia stays near a quarter of the table and the Maniac and ВСБ, who make small games
lopsided, come in only when there is room. ``[deal]`` counts override these one role at a
time; civilians always fill the rest. Roles the game file already gives are kept and count
toward the setup (one the setup lacks takes a civilian's place); only the missing ones are
drawn, with an injected ``rng`` (by default ``secrets.SystemRandom``). A duty mafioso named in the file but without a role is dealt a
mafia role.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from random import Random
from typing import Protocol

from ..errors import RulesError
from .model import MoveKind, Player, Role
from .roles import CATALOGUE, ROLE_ORDER, SEED_ROLES

SINGLE_ROLES = tuple(r for r, sp in CATALOGUE.items() if sp.single)
_ROLE_ORDER = SEED_ROLES
MIN_PLAYERS = 5


def default_counts(n: int) -> dict[Role, int]:
    """The setup for ``n`` players (see the module docstring), civilians included."""
    if n < MIN_PLAYERS:
        raise RulesError(f"{n} players are too few for a game; at least {MIN_PLAYERS} are needed")
    c = {Role.BOSS: 1, Role.COMMISSAR: 1, Role.DOCTOR: 1}
    if n >= 7:
        c[Role.MAFIA] = 1
    if n >= 8:
        c[Role.SERGEANT] = 1
    if n >= 9:
        c[Role.MANIAC] = 1
    if n >= 10:
        c[Role.VSB] = 1
    if n >= 11:
        c[Role.MAFIA] = 2
    c[Role.CIVILIAN] = n - sum(c.values())
    return {r: c.get(r, 0) for r in _ROLE_ORDER}


def roles_setup_counts(n: int, setup: Mapping[Role, int]) -> dict[Role, int]:
    """R14.3: a ``[roles]`` setup (or preset) for ``n`` players, civilians filling the rest
    (``rules.roles.read_setup`` has checked it)."""
    counts = {r: int(setup.get(r, 0)) for r in ROLE_ORDER}
    special = sum(v for r, v in counts.items() if r is not Role.CIVILIAN)
    if Role.CIVILIAN not in setup or not setup[Role.CIVILIAN]:
        counts[Role.CIVILIAN] = n - special
    if counts[Role.CIVILIAN] < 0 or sum(counts.values()) != n:
        raise RulesError(f"[roles] setup has {sum(v for v in setup.values())} roles for "
                         f"{n} players", hint="fix [roles] setup or the players")
    return counts


def setup_counts(n: int, overrides: Mapping[str, int] | None = None) -> dict[Role, int]:
    """``default_counts(n)`` with the ``[deal]`` overrides; civilians fill the rest."""
    if n < MIN_PLAYERS and not overrides:
        default_counts(n)  # raises the clear error
    # A tiny test game with explicit [deal] counts starts from nothing but civilians.
    counts = default_counts(n) if n >= MIN_PLAYERS else {r: 0 for r in _ROLE_ORDER}
    for key, value in (overrides or {}).items():
        try:
            role = Role(key)
        except ValueError:
            raise RulesError(f"[deal] names an unknown role {key!r}") from None
        counts[role] = int(value)
    for role in SINGLE_ROLES:
        if counts.get(role, 0) > 1:
            raise RulesError(f"[deal] {role.value} = {counts[role]}: the rules allow one")
    if counts[Role.BOSS] + counts[Role.MAFIA] < 1:
        raise RulesError("[deal] has no mafioso: a game needs at least one")
    special = sum(v for r, v in counts.items() if r is not Role.CIVILIAN)
    if overrides and Role.CIVILIAN.value in overrides:
        if special + counts[Role.CIVILIAN] != n:
            raise RulesError(f"[deal] counts add up to {special + counts[Role.CIVILIAN]} "
                             f"roles for {n} players")
    else:
        counts[Role.CIVILIAN] = n - special
    if counts[Role.CIVILIAN] < 0:
        raise RulesError(f"[deal] asks for {special} special roles but there are only "
                         f"{n} players")
    return counts


def deal_roles(players: Sequence[Player], counts: Mapping[str, int] | None = None, *,
               duty: str | None = None, rng: Random | None = None,
               setup: Mapping[Role, int] | None = None) -> dict[str, Role]:
    """R4: every player's role; the file's roles are kept, the missing ones drawn.
    ``setup``: the ``[roles]`` setup (R14.3), which replaces the default and ``[deal]``."""
    rng = rng or secrets.SystemRandom()
    given = {p.nick: p.role for p in players if p.role is not None}
    for role in SINGLE_ROLES:
        holders = [n for n, r in given.items() if r is role]
        if len(holders) > 1:
            raise RulesError(f"the game file gives the role {role.value} to "
                             f"{', '.join(holders)}; the rules allow one")
    if len(given) == len(players):
        return {p.nick: given[p.nick] for p in players}
    need = (roles_setup_counts(len(players), setup) if setup
            else setup_counts(len(players), counts))
    for role in given.values():
        need[role] = need.get(role, 0) - 1
    # A role the file gives beyond the setup (a Maniac in a small game) takes a civilian's
    # place; only when no civilian place is left is the file at odds with the setup.
    for role in ROLE_ORDER:
        if role is not Role.CIVILIAN and need.get(role, 0) < 0:
            need[Role.CIVILIAN] += need[role]
            need[role] = 0
    if need[Role.CIVILIAN] < 0:
        raise RulesError("the game file gives more special roles than the setup has places "
                         "for", hint="fix [[players]] role or the [deal] counts")
    pool: list[Role] = [r for r in ROLE_ORDER for _ in range(need.get(r, 0))]
    open_nicks = [p.nick for p in players if p.role is None]
    if len(pool) != len(open_nicks):  # pragma: no cover - setup_counts guarantees it
        raise RulesError("the setup does not match the number of players")
    roles = dict(given)
    if duty is not None and duty in open_nicks:
        mafia_roles = ([r for r in pool if r.is_mafia and MoveKind.KILL in CATALOGUE[r].move_kinds]
                       or [r for r in pool if r.is_mafia])
        if not mafia_roles:
            raise RulesError(f"the duty mafioso {duty!r} has no role, and every mafia role "
                             "is already given to someone else")
        pick = rng.choice(mafia_roles)
        pool.remove(pick)
        roles[duty] = pick
        open_nicks.remove(duty)
    rng.shuffle(pool)
    for nick, role in zip(open_nicks, pool):
        roles[nick] = role
    return {p.nick: roles[p.nick] for p in players}


def choose_duty(roles: Mapping[str, Role], *, rng: Random | None = None) -> str:
    """R4.1: a duty mafioso drawn among the mafiosi who kill (the Boss included; not the
    Lawyer, whose move is his defence, R14)."""
    mafiosi = sorted(n for n, r in roles.items()
                     if r.is_mafia and MoveKind.KILL in CATALOGUE[r].move_kinds)
    if not mafiosi:
        raise RulesError("there is no mafioso to be the duty mafioso")
    return (rng or secrets.SystemRandom()).choice(mafiosi)


def role_card(nick: str, roles: Mapping[str, Role], *, duty: str | None,
              code: str | None = None, title: str = "", how: Mapping | None = None) -> dict:
    """R9.3: what ``nick``'s role card tells him, as template context.

    - mafiosi learn their partners (with their roles), the duty mafioso and the ВСБ;
    - the Commissar and the Sergeant learn each other;
    - the ВСБ's card is a civilian's card ("чиж"): ``shown_role`` is ``civilian`` and nothing
      else on it differs from a civilian's;
    - ``code`` is the player's secret code for his night moves, when the game uses codes;
    - ``moves``: the role's moves from the catalogue (R14.3: the words, with an example, and
      the limits), and ``how``: where moves go and the deadline (``{"via": "pm" | "mail" |
      "", "to": …, "deadline": "20:00 МСК"}``), given by the deal service.
    """
    role = roles[nick]
    shown = CATALOGUE[role].shown_as or role
    card: dict = {"nick": nick, "title": title, "role": shown.value, "code": code,
                  "partners": [], "duty": None, "is_duty": False, "vsb": [],
                  "commissar": None, "sergeant": None,
                  "how": {"via": "", "to": "", "deadline": "", **(how or {})},
                  "moves": [{"kind": m.kind.value, "example_ru": m.example_ru,
                             "example_en": m.example_en, "once": m.once_a_game,
                             "standing": m.standing, "not_twice": m.not_twice_running}
                            for m in CATALOGUE[shown].moves]}
    if role.is_mafia:
        card["partners"] = [{"nick": n, "role": r.value} for n, r in roles.items()
                            if r.is_mafia and n != nick]
        card["duty"] = duty
        card["is_duty"] = duty == nick
        card["vsb"] = [n for n, r in roles.items() if r is Role.VSB]
    elif role is Role.COMMISSAR:
        card["sergeant"] = next((n for n, r in roles.items() if r is Role.SERGEANT), None)
    elif role is Role.SERGEANT:
        card["commissar"] = next((n for n, r in roles.items() if r is Role.COMMISSAR), None)
    return card


_UNSAFE = re.compile(r'[\x00-\x1f/\\:*?"<>|]')


def moves_howto(roles: Iterable[Role],
                house_words: Mapping[MoveKind, Sequence[str]] | None = None) -> list[dict]:
    """R14.3 / issue 37: the night moves of the dealt roles, as the post opening a day lists
    them: one entry per role with a move, in the catalogue's order (``{"role": id, "moves":
    [{"kind", "example_ru", "example_en", "once", "standing", "words"}]}``; ``words``: the
    house's own words for the move, ``[roles.words]``). A role is listed as its card shows
    it (the ВСБ is a civilian: no move); the Sergeant is left out when the Commissar is
    listed (he checks with the Commissar's words once promoted)."""
    shown = {CATALOGUE[r].shown_as or r for r in roles}
    if Role.COMMISSAR in shown:
        shown.discard(Role.SERGEANT)
    words = house_words or {}
    return [{"role": r.value,
             "moves": [{"kind": m.kind.value, "example_ru": m.example_ru,
                        "example_en": m.example_en, "once": m.once_a_game,
                        "standing": m.standing, "words": tuple(words.get(m.kind, ()))}
                       for m in CATALOGUE[r].moves]}
            for r in ROLE_ORDER if r in shown and CATALOGUE[r].moves]


def safe_filename(nick: str) -> str:
    """A file name for a nick (``out/role-cards/<nick>.txt``): path and control characters
    become ``_``; a nick made only of dots gets a leading ``_``. A name changed that way (or
    cut to 200 bytes, or one that already ends like such a name) ends with ``-`` and six hex
    digits of the nick's SHA-256, so «Маша?2» and «Маша_2» never share a file; the game file
    is refused if two players' names still meet (``config``)."""
    name = _UNSAFE.sub("_", nick).strip()
    if not name or set(name) == {"."}:
        name = "_" + name
    changed = name != nick or _HASHED.search(name) is not None
    if len(name.encode("utf-8")) > 200:     # file systems allow 255 bytes a name
        changed = True
        while len(name.encode("utf-8")) > 200:
            name = name[:-1]
    if changed:
        name += "-" + hashlib.sha256(nick.encode("utf-8")).hexdigest()[:6]
    return name


_HASHED = re.compile(r"-[0-9a-f]{6}$", re.I)


# -- the deal as stored (kv "deal") and what the rest of the tool reads from it ------------

class GameFile(Protocol):
    """What the deal reads of a game file (``game.config.Game`` has it)."""

    @property
    def players(self) -> tuple[Player, ...]: ...
    @property
    def duty(self) -> str | None: ...
    @property
    def random_list(self) -> tuple[str, ...] | None: ...


def effective_players(game: GameFile, store_deal: Mapping | None) -> tuple[Player, ...]:
    """The game's players with the roles the deal drew where the game file leaves them out.

    ``game`` is a loaded ``config.Game``; ``store_deal`` the store's ``"deal"`` value or None.
    A role written in the game file always wins over the stored deal.
    """
    dealt = dict((store_deal or {}).get("roles", {}))
    out = []
    for p in game.players:
        if p.role is None and p.nick in dealt:
            p = replace(p, role=Role(dealt[p.nick]))
        out.append(p)
    return tuple(out)


def effective_random_list(game: GameFile, store_deal: Mapping | None
                          ) -> tuple[str, ...] | None:
    """The random list (R3): the game file's ``random_list``, else the dealt one, else None."""
    if game.random_list:
        return tuple(game.random_list)
    order = (store_deal or {}).get("random_list")
    return tuple(order) if order else None


def effective_duty(game: GameFile, store_deal: Mapping | None) -> str | None:
    """The duty mafioso (R4.1): the game file's ``[mafia] duty``, else the dealt one."""
    return game.duty or (store_deal or {}).get("duty")
