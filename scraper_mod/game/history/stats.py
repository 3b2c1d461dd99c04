"""A forum's statistics over every record under a folder (docs/memory.md).

``load_records(folder)`` finds the records: a game's ``record.json`` (written when it ended)
or an older game's ``record.toml`` (the host's file, checked); ``load_aliases(folder)`` reads
``FOLDER/stats.toml``'s ``[aliases]`` (one player's nicks); ``forum_stats(records, aliases)``
counts, per player, the games, wins, wins by side and by role, the days survived and how many
of his counted day-votes landed on a mafioso, per role and per setup how often each side won,
and a team rating per player (openskill's Plackett-Luce model, updated game by game in date
order: every side is a team, the winner ranks first).
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Iterable, Mapping

from openskill.models import PlackettLuce

from ...errors import ConfigError
from .oldgame import OLD_FILE, load_old_game
from .shape import RECORD_FILE, ROLE_SIDES, SIDES

__all__ = ["ALIASES_FILE", "Stats", "load_records", "records_under", "load_aliases", "forum_stats",
           "setup_name"]

ALIASES_FILE = "stats.toml"
_GAME_FILES = {RECORD_FILE, OLD_FILE, "game.toml"}


def load_records(folder: str | Path) -> list[dict[str, Any]]:
    """Every record under ``folder`` (a game folder's ``record.json``, else its
    ``record.toml``), in path order; a record of another game folder inside a game folder is
    not looked for. A broken file is one ``ConfigError`` naming it."""
    return [rec for _, rec in records_under(folder)]


def records_under(folder: str | Path) -> list[tuple[Path, dict[str, Any]]]:
    """``load_records`` with each record's folder."""
    root = Path(folder)
    if not root.is_dir():
        raise ConfigError("not a folder", path=str(root), ru="это не папка",
                          hint="give the folder holding the games' folders")
    out: list[tuple[Path, dict[str, Any]]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        names = set(filenames)
        dirnames[:] = [] if names & _GAME_FILES else sorted(
            d for d in dirnames if not d.startswith("."))
        here = Path(dirpath)
        if RECORD_FILE in names:
            out.append((here, _read_json(here / RECORD_FILE)))
        elif OLD_FILE in names:
            out.append((here, load_old_game(here / OLD_FILE)))
    return out


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as e:
        raise ConfigError(f"not a readable record: {e}", path=str(path),
                          ru=f"запись партии не читается: {e}",
                          hint="write it again with `scraper-mod record GAME`") from None
    if not isinstance(data, dict) or not isinstance(data.get("players"), list) \
            or data.get("winner") not in SIDES:
        raise ConfigError("not a game's record", path=str(path), ru="это не запись партии",
                          hint="write it again with `scraper-mod record GAME`")
    for i, slot in enumerate(data["players"], start=1):
        users = slot.get("users") if isinstance(slot, dict) else None
        if not (isinstance(users, list) and users and slot.get("side") in SIDES
                and isinstance(slot.get("role"), str)
                and all(isinstance(u, dict) and isinstance(u.get("nick"), str)
                        and isinstance(u.get("from_day"), int) for u in users)):
            raise ConfigError("not a player's slot", path=str(path), key=f"players[{i}]",
                              ru="это не место игрока",
                              hint="write it again with `scraper-mod record GAME`")
    return data


def load_aliases(folder: str | Path) -> dict[str, str]:
    """``FOLDER/stats.toml``'s ``[aliases]``: ``"Вася" = ["Vasya", "Василий"]`` makes the
    nicks of the list the player ``Вася``. Returns casefolded nick -> the player's nick."""
    path = Path(folder) / ALIASES_FILE
    if not path.is_file():
        return {}
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"cannot be read: {e}", path=str(path),
                          ru=f"не читается: {e}") from None
    unknown = set(doc) - {"aliases"}
    if unknown:
        raise ConfigError("unknown key", path=str(path), key=sorted(unknown)[0],
                          ru="неизвестный ключ", hint="known keys: aliases")
    table = doc.get("aliases", {})
    out: dict[str, str] = {}
    if not isinstance(table, dict):
        raise ConfigError("not a table", path=str(path), key="aliases", ru="это не таблица",
                          hint='write [aliases] "Вася" = ["Vasya"]')
    for main, others in table.items():
        if not isinstance(others, list) or not all(isinstance(o, str) for o in others):
            raise ConfigError("not a list of nicks", path=str(path), key=f"aliases.{main}",
                              ru="это не список ников", hint=f'write "{main}" = ["ник", …]')
        for nick in (main, *others):
            key = nick.strip().casefold()
            if out.get(key, main) != main:
                raise ConfigError(f"{nick!r} is an alias of two players ({out[key]}, {main})",
                                  path=str(path), key=f"aliases.{main}",
                                  ru=f"{nick!r} — ник двух игроков ({out[key]}, {main})",
                                  hint="give each nick to one player")
            out[key] = main
    return out


def setup_name(setup: Mapping[str, int]) -> str:
    """A setup's one spelling: ``boss 1, civilian 6, …`` in role order."""
    order = {r: i for i, r in enumerate(ROLE_SIDES)}
    return ", ".join(f"{r} {n}" for r, n in sorted(setup.items(),
                                                    key=lambda x: (order.get(x[0], 99), x[0])))


@dataclass
class _Player:
    nick: str
    games: int = 0
    wins: int = 0
    by_side: dict[str, list[int]] = field(default_factory=dict)
    by_role: dict[str, list[int]] = field(default_factory=dict)
    days_survived: int = 0
    hits: int = 0
    votes: int = 0
    mu: float = 25.0
    sigma: float = 25.0 / 3
    history: list[tuple[str, str, float]] = field(default_factory=list)   # date, title, mu


@dataclass
class Stats:
    """What ``forum_stats`` counted; ``to_json`` is ``stats --format json``."""

    games: int
    players: list[dict[str, Any]]
    roles: list[dict[str, Any]]
    sides: dict[str, list[int]]
    setups: list[dict[str, Any]]
    history: dict[str, list[tuple[str, str, float]]]
    titles: list[tuple[str, str, str]]          # date, title, winner: in date order

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "players": self.players, "roles": self.roles,
                "sides": self.sides, "setups": self.setups}


def _key(rec: dict[str, Any]) -> tuple[str, str, str]:
    return (str(rec.get("start", "")), str(rec.get("end", "")), str(rec.get("title", "")))


def forum_stats(records: Iterable[dict[str, Any]], aliases: Mapping[str, str] | None = None,
                *, since: date | None = None) -> Stats:
    """The statistics of ``records`` (``since``: only games that started on or after it)."""
    aliases = aliases or {}
    recs = sorted(records, key=_key)
    if since is not None:
        recs = [r for r in recs if str(r.get("start", "")) >= since.isoformat()]
    model = PlackettLuce()
    people: dict[str, _Player] = {}
    roles: dict[str, list[int]] = {}
    sides: dict[str, list[int]] = {}
    setups: dict[str, dict[str, Any]] = {}

    def who(nick: str) -> _Player:
        name = aliases.get(nick.strip().casefold(), nick)
        p = people.get(name)
        if p is None:
            p = people[name] = _Player(name, mu=model.mu, sigma=model.sigma)
        return p

    titles = []
    for rec in recs:
        winner = rec["winner"]
        last = int(rec.get("decided_day") or 1)
        side_of_nick: dict[str, str] = {}
        teams: dict[str, list[_Player]] = {}
        for slot in rec["players"]:
            side, role = slot["side"], slot["role"]
            won = int(side == winner)
            died = slot.get("died")
            alive_until = int(died["day"]) - 1 if died else last
            users = slot["users"]
            for i, u in enumerate(users):
                side_of_nick[u["nick"]] = side
                p = who(u["nick"])
                p.games += 1
                p.wins += won
                _add(p.by_side, side, won)
                _add(p.by_role, role, won)
                until = int(users[i + 1]["from_day"]) - 1 if i + 1 < len(users) else last
                p.days_survived += max(0, min(until, alive_until) - int(u["from_day"]) + 1)
            team = teams.setdefault(side, [])
            final = who(users[-1]["nick"])
            if all(final is not q for t in teams.values() for q in t):
                team.append(final)
            _add(roles, role, won)
        for day in rec.get("days", ()):
            for v in day.get("votes", ()):
                p = who(v["voter"])
                p.votes += 1
                p.hits += int(side_of_nick.get(v["target"]) == "mafia")
        for side in teams:
            _add(sides, side, int(side == winner))
        name = setup_name(rec.get("setup", {}))
        row = setups.setdefault(name, {"setup": name, "games": 0, "wins": {}})
        row["games"] += 1
        row["wins"][winner] = row["wins"].get(winner, 0) + 1
        _rate(model, teams, winner)
        for team in teams.values():
            for p in team:
                p.history.append((str(rec.get("start", "")), str(rec.get("title", "")),
                                  round(p.mu, 2)))
        titles.append((str(rec.get("start", "")), str(rec.get("title", "")), winner))
    ranked = sorted(people.values(), key=lambda p: (-p.mu, -p.games, p.nick))
    players = [{
        "nick": p.nick, "games": p.games, "wins": p.wins,
        "by_side": {s: p.by_side[s] for s in SIDES if s in p.by_side},
        "by_role": _in_role_order(p.by_role),
        "days_survived": p.days_survived, "votes_on_mafia": [p.hits, p.votes],
        "rating": round(p.mu, 2), "rating_sigma": round(p.sigma, 2),
    } for p in ranked]
    return Stats(
        games=len(recs), players=players,
        roles=[{"role": r, "games": g, "wins": w} for r, (g, w) in _in_role_order(roles).items()],
        sides={s: sides[s] for s in SIDES if s in sides},
        setups=sorted(setups.values(), key=lambda r: (-r["games"], r["setup"])),
        history={p.nick: p.history for p in ranked}, titles=titles)


def _rate(model: PlackettLuce, teams: dict[str, list[_Player]], winner: str) -> None:
    """One game's update. Each side plays as one rating, its players' mean (openskill sums a
    team's players, which would make a town of nine the sure winner over a mafia of three):
    the library rates the sides, and each player moves by his side's change, in proportion to
    his own uncertainty (a new player moves most), his sigma shrinking as the side's did."""
    order = [s for s in teams if teams[s]]
    if len(order) < 2:
        return
    sides = []
    for s in order:
        n = len(teams[s])
        var = sum(p.sigma ** 2 for p in teams[s]) / n
        sides.append(model.rating(mu=sum(p.mu for p in teams[s]) / n, sigma=var ** 0.5))
    rated = model.rate([[r] for r in sides], ranks=[0 if s == winner else 1 for s in order])
    for s, before, (after,) in zip(order, sides, rated):
        var = before.sigma ** 2
        for p in teams[s]:
            p.mu += (after.mu - before.mu) * p.sigma ** 2 / var
            p.sigma *= after.sigma / before.sigma


def _add(table: dict[str, list[int]], key: str, won: int) -> None:
    row = table.setdefault(key, [0, 0])
    row[0] += 1
    row[1] += won


def _in_role_order(table: dict[str, list[int]]) -> dict[str, list[int]]:
    order = {r: i for i, r in enumerate(ROLE_SIDES)}
    return {r: table[r] for r in sorted(table, key=lambda r: (order.get(r, 99), r))}
