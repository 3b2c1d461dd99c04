"""A game played before scraper-mod: the short ``record.toml`` its host writes gives the same
record as a game played here (docs/memory.md)::

    [game]
    title = "Мафия #3"
    start = 2023-05-01
    end = 2023-05-06
    winner = "town"                    # town | mafia | maniac
    # decided_day = 5                  # left out: the last day anyone died
    # language = "ru"
    [[players]]
    nick = "Вася"
    role = "boss"                      # a role id
    died = { day = 2, how = "jailed" } # jailed | mafia | maniac | sheriff | kamikaze | removed
    [[votes]]                          # optional: the day's counted votes
    day = 1
    voter = "Петя"
    target = "Вася"

Everything is checked on load; the first problem is one ``ConfigError`` naming the file, the
key and the fix (in English and in Russian): an unknown role, a player twice, a winner the
deaths contradict, a vote by or for no player.
"""

from __future__ import annotations

import tomllib
from datetime import date, datetime
from pathlib import Path
from typing import Any, NoReturn

from ...errors import ConfigError
from .shape import RECORD_VERSION, ROLE_SIDES, SIDES, SIDES_RU, side_of

__all__ = ["OLD_FILE", "HOWS", "load_old_game", "old_record"]

OLD_FILE = "record.toml"
HOWS = ("jailed", "mafia", "maniac", "sheriff", "kamikaze", "removed")
_BY = {"jailed": "votes", "removed": "host"}


class _Checker:
    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def fail(self, key: str, message: str, ru: str, hint: str = "", hint_ru: str = ""
             ) -> NoReturn:
        raise ConfigError(message, path=self.path, key=key, hint=hint,
                          ru=ru + (f" ({hint_ru})" if hint_ru else ""))

    def keys(self, table: dict, where: str, known: set[str]) -> None:
        for k in table:
            if k not in known:
                self.fail(f"{where}{k}", "unknown key", "неизвестный ключ",
                          hint="known keys: " + ", ".join(sorted(known)),
                          hint_ru="известные ключи: " + ", ".join(sorted(known)))

    def text(self, table: dict, where: str, key: str) -> str:
        v = table.get(key)
        if not isinstance(v, str) or not v.strip():
            self.fail(f"{where}{key}", "missing or not a text", "нет значения или это не текст",
                      hint=f'write {key} = "…"', hint_ru=f'напишите {key} = "…"')
        return v.strip()

    def day(self, table: dict, where: str, key: str, last: int | None = None) -> int:
        v = table.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1 or (last and v > last):
            top = f" to {last}" if last else ""
            self.fail(f"{where}{key}", f"not a day number (1{top})",
                      f"это не номер дня (1{' – ' + str(last) if last else ''})",
                      hint=f"write {key} = 2", hint_ru=f"напишите {key} = 2")
        return v

    def date(self, table: dict, key: str) -> date:
        v = table.get(key)
        if isinstance(v, str):
            try:
                v = date.fromisoformat(v)
            except ValueError:
                pass
        if not isinstance(v, date):
            self.fail(f"game.{key}", "missing or not a date", "нет даты или это не дата",
                      hint=f"write {key} = 2023-05-01", hint_ru=f"напишите {key} = 2023-05-01")
        return v.date() if isinstance(v, datetime) else v


def load_old_game(path: str | Path) -> dict[str, Any]:
    """The record of the older game ``path`` (a ``record.toml`` or its folder)."""
    path = Path(path)
    if path.is_dir():
        path = path / OLD_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("no such file", path=str(path), ru="нет такого файла",
                          hint=f"write the older game's {OLD_FILE} (docs/memory.md)") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot be read: {e}", path=str(path),
                          ru=f"не читается: {e}") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"not valid TOML: {e}", path=str(path),
                          ru=f"это не TOML: {e}",
                          hint="see the example in docs/memory.md") from None
    return old_record(doc, path=path)


def old_record(doc: dict[str, Any], *, path: str | Path = OLD_FILE) -> dict[str, Any]:
    """The record of a parsed ``record.toml`` (checked)."""
    c = _Checker(Path(path))
    c.keys(doc, "", {"game", "players", "votes"})
    game = doc.get("game")
    if not isinstance(game, dict):
        c.fail("game", "missing table", "нет таблицы [game]",
               hint="add [game] with title, start, end and winner",
               hint_ru="добавьте [game]: title, start, end, winner")
    c.keys(game, "game.", {"title", "start", "end", "winner", "decided_day", "language"})
    title = c.text(game, "game.", "title")
    start, end = c.date(game, "start"), c.date(game, "end")
    if end < start:
        c.fail("game.end", f"{end} is before the start {start}",
               f"{end} раньше начала {start}")
    winner = c.text(game, "game.", "winner")
    if winner not in SIDES:
        c.fail("game.winner", f"unknown side {winner!r}", f"неизвестная сторона {winner!r}",
               hint="one of " + ", ".join(SIDES), hint_ru="одна из " + ", ".join(SIDES))
    language = game.get("language", "ru")
    if language not in ("ru", "en"):
        c.fail("game.language", f"unknown language {language!r}",
               f"неизвестный язык {language!r}", hint="ru or en", hint_ru="ru или en")
    rows = doc.get("players")
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        c.fail("players", "no players", "нет игроков",
               hint='add [[players]] with nick and role',
               hint_ru='добавьте [[players]]: nick и role')
    players = _players(c, rows)
    last_death = max((p["died"]["day"] for p in players if p["died"]), default=1)
    decided = game.get("decided_day", last_death)
    if "decided_day" in game:
        decided = c.day(game, "game.", "decided_day")
        if decided < last_death:
            c.fail("game.decided_day", f"day {decided} is before the last death (day "
                   f"{last_death})", f"день {decided} раньше последней смерти (день "
                   f"{last_death})")
    _check_winner(c, winner, players)
    nicks = {p["users"][0]["nick"].casefold(): p["users"][0]["nick"] for p in players}
    votes: dict[int, list[dict[str, str]]] = {}
    vote_rows = doc.get("votes", [])
    if not isinstance(vote_rows, list) or not all(isinstance(r, dict) for r in vote_rows):
        c.fail("votes", "not a list of tables", "это не список таблиц",
               hint="write [[votes]] day, voter, target",
               hint_ru="напишите [[votes]]: day, voter, target")
    for i, row in enumerate(vote_rows, start=1):
        where = f"votes[{i}]."
        c.keys(row, where, {"day", "voter", "target"})
        day = c.day(row, where, "day", decided)
        pair = {}
        for key in ("voter", "target"):
            name = c.text(row, where, key)
            if name.casefold() not in nicks:
                c.fail(f"{where}{key}", f"{name!r} is not a player of the game",
                       f"{name!r} не игрок этой партии",
                       hint="use a nick of [[players]]", hint_ru="ник из [[players]]")
            pair[key] = nicks[name.casefold()]
        votes.setdefault(day, []).append(pair)
    days = []
    for d in range(1, decided + 1):
        dead = [p for p in players if p["died"] and p["died"]["day"] == d]
        dead.sort(key=lambda p: p["died"]["how"] != "jailed")
        jailed = next((p["users"][0]["nick"] for p in dead if p["died"]["how"] == "jailed"),
                      None)
        days.append({"day": d, "votes": votes.get(d, []), "jailed": jailed,
                     "deaths": [{"player": p["users"][0]["nick"], "how": p["died"]["how"],
                                 "by": p["died"]["by"]} for p in dead]})
    setup: dict[str, int] = {}
    for p in players:
        setup[p["role"]] = setup.get(p["role"], 0) + 1
    return {
        "record": RECORD_VERSION, "source": "host", "title": title,
        "start": start.isoformat(), "end": end.isoformat(), "language": language,
        "winner": winner, "decided_day": decided, "setup": dict(sorted(setup.items())),
        "players": players, "days": days,
    }


def _players(c: _Checker, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The slots of ``[[players]]``, checked."""
    players: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for i, row in enumerate(rows, start=1):
        where = f"players[{i}]."
        c.keys(row, where, {"nick", "role", "died"})
        nick = c.text(row, where, "nick")
        if nick.casefold() in seen:
            c.fail(f"{where}nick", f"{nick!r} is listed twice (also players[{seen[nick.casefold()]}])",
                   f"{nick!r} записан дважды (ещё players[{seen[nick.casefold()]}])",
                   hint="list each player once", hint_ru="каждый игрок — один раз")
        seen[nick.casefold()] = i
        role = c.text(row, where, "role")
        if role not in ROLE_SIDES:
            c.fail(f"{where}role", f"unknown role {role!r}", f"неизвестная роль {role!r}",
                   hint="one of " + ", ".join(ROLE_SIDES),
                   hint_ru="одна из " + ", ".join(ROLE_SIDES))
        died = None
        if "died" in row:
            d = row["died"]
            if not isinstance(d, dict):
                c.fail(f"{where}died", "not a table", "это не таблица",
                       hint='write died = { day = 2, how = "jailed" }',
                       hint_ru='напишите died = { day = 2, how = "jailed" }')
            c.keys(d, f"{where}died.", {"day", "how"})
            day = c.day(d, f"{where}died.", "day")
            how = c.text(d, f"{where}died.", "how")
            if how not in HOWS:
                c.fail(f"{where}died.how", f"unknown cause {how!r}",
                       f"неизвестная причина {how!r}", hint="one of " + ", ".join(HOWS),
                       hint_ru="одна из " + ", ".join(HOWS))
            died = {"day": day, "how": how, "by": _BY.get(how, how)}
        players.append({"slot": i, "users": [{"nick": nick, "from_day": 1}], "role": role,
                        "side": side_of(role), "died": died})
    return players


def _check_winner(c: _Checker, winner: str, players: list[dict[str, Any]]) -> None:
    """A winner the deaths contradict: the town cannot win with a mafioso alive, the mafia
    not with every mafioso dead, the maniac not dead; a side with no player cannot win."""
    side = [p for p in players if p["side"] == winner]
    alive = [p for p in side if p["died"] is None]
    mafia_alive = [p["users"][0]["nick"] for p in players
                   if p["side"] == "mafia" and p["died"] is None]
    why = why_ru = ""
    if not side:
        why, why_ru = "no player is on that side", "на этой стороне нет ни одного игрока"
    elif winner == "town" and mafia_alive:
        why = f"the mafia is alive ({', '.join(mafia_alive)})"
        why_ru = f"мафия жива ({', '.join(mafia_alive)})"
    elif winner != "town" and not alive:
        why, why_ru = "every player of that side died", "все игроки этой стороны умерли"
    if why:
        c.fail("game.winner", f"{winner!r} cannot have won: {why}",
               f"{SIDES_RU[winner]} не может победить: {why_ru}",
               hint="correct the winner or the deaths (died = …)",
               hint_ru="исправьте победителя или смерти (died = …)")
