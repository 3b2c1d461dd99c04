"""The record of a finished game (docs/memory.md): who played each slot, the roles, each day's
counted votes, the jailings, the deaths and their causes, the host's removals, the winner and
the day it was decided.

``build_record(ctx)`` rebuilds it from what the game stores (the deal, the resolutions, the
host's replacements, the stored posts the count reads), so it is the same whenever it is
built; ``record_bytes`` is its one spelling (JSON, no instant of writing), so writing it again
gives the same bytes. ``update_record(ctx)`` writes ``GAME/record.json`` once the game has a
winner (the resolution calls it; ``scraper-mod record GAME`` too).

The record's shape (``RECORD_VERSION`` 1)::

    {"record": 1, "source": "game" | "host", "title", "start": "YYYY-MM-DD", "end",
     "language", "winner": "town" | "mafia" | "maniac", "decided_day",
     "setup": {role: count},
     "players": [{"slot", "users": [{"nick", "from_day"}], "role", "side",
                  "died": {"day", "how", "by"} | null}],
     "days": [{"day", "votes": [{"voter", "target"}], "jailed": nick | null,
               "deaths": [{"player", "how", "by"}]}]}

``how`` is ``jailed`` (``by``: votes | random), ``mafia``, ``maniac``, ``sheriff``,
``kamikaze`` (``by`` the same), or ``removed`` (the host's removal, ``by``: host).
"""

from __future__ import annotations

import logging
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from scraper_mod.game.day.tally import tally_day
from scraper_mod.game.roster.slotbook import load_book

from ...errors import RulesError, ScraperModError, StorageError
from ...rules.slots import Book
from ...rules.state import GameState
from ..context import GameContext
from .shape import (
    RECORD_FILE,
    RECORD_VERSION,
    ROLE_SIDES,
    SIDES,
    how_of,
    record_bytes,
    side_of,
)

log = logging.getLogger(__name__)

__all__ = ["RECORD_FILE", "RECORD_VERSION", "SIDES", "ROLE_SIDES", "side_of", "how_of",
           "build_record", "record_bytes", "write_record", "update_record", "finished_day"]

def finished_day(resolutions: dict[int, dict]) -> int | None:
    """The day whose resolution declared a winner, if any."""
    return next((d for d, r in sorted(resolutions.items()) if r.get("winner")), None)


def _date(t: datetime, tz) -> str:
    return t.astimezone(tz).date().isoformat()


def _book(ctx: GameContext) -> Book | None:
    book = load_book(ctx)
    return None if book.empty else book


def _day_votes(ctx: GameContext, day: int) -> list[dict[str, str]]:
    """The day's counted votes at its deadline, as the count read them from the store."""
    if not ctx.topic_for_day(day):
        return []
    tally = tally_day(ctx, day, as_of=ctx.calendar().deadline(day))
    return [{"voter": v.voter, "target": v.target} for v in tally.tally.votes]


def build_record(ctx: GameContext) -> dict[str, Any]:
    """The record of the game, from its store; refuses a game that has no winner yet."""
    resolutions = ctx.store.resolutions()
    last = finished_day(resolutions)
    if last is None:
        done = max(resolutions, default=0)
        raise RulesError(f"{ctx.game.folder}: the game has no winner yet "
                         f"({done} day(s) resolved)",
                         hint="a record is written once a resolved day declares a winner")
    final = resolutions[last]
    state_json = final.get("state")
    if not isinstance(state_json, dict):
        raise StorageError(f"the stored resolution of day {last} has no game state",
                           path=str(ctx.store.path),
                           hint=f"resolve day {last} again (scraper-mod resolve --day {last})")
    after = GameState.from_json(state_json)
    start = ctx.initial_state()
    book = _book(ctx)
    cal = ctx.calendar()
    tz = ctx.game.timezone

    def slot_first(nick: str) -> str:
        slot = book.slot_of(nick) if book is not None else None
        return slot.first if slot is not None else nick

    died = {slot_first(n): (d, by) for n, (d, by) in after.died_at.items()}
    players = []
    for i, (first, role) in enumerate(start.roles.items(), start=1):
        slot = book.slot_of(first) if book is not None else None
        users = [{"nick": first, "from_day": 1}]
        if slot is not None:
            users = [{"nick": n, "from_day": 1 if since is None
                      else min(cal.last_due_day(since) + 1, last)}
                     for n, since in slot.users]
        death = died.get(first)
        players.append({
            "slot": i, "users": users, "role": role.value, "side": side_of(role.value),
            "died": None if death is None else
            {"day": death[0], "how": how_of(death[1]), "by": death[1]}})
    days = []
    for d in range(1, last + 1):
        res = resolutions.get(d) or {}
        lynched = res.get("lynched") or None
        deaths = [{"player": lynched["player"], "how": how_of(lynched["by"]),
                   "by": lynched["by"]}] if lynched else []
        deaths += [{"player": k["player"], "how": how_of(k["by"]), "by": k["by"]}
                   for k in res.get("killed") or ()]
        deaths += [{"player": k["player"], "how": "removed", "by": "host"}
                   for k in res.get("host_kills") or ()]
        days.append({"day": d, "votes": _day_votes(ctx, d),
                     "jailed": lynched["player"] if lynched else None, "deaths": deaths})
    setup: dict[str, int] = {}
    for role in start.roles.values():
        setup[role.value] = setup.get(role.value, 0) + 1
    return {
        "record": RECORD_VERSION, "source": "game", "title": ctx.game.title,
        "start": _date(cal.day_start(1), tz), "end": _date(cal.deadline(last), tz),
        "language": ctx.game.language, "winner": final["winner"], "decided_day": last,
        "setup": dict(sorted(setup.items())), "players": players, "days": days,
    }


def write_record(folder: Path, record: dict[str, Any]) -> Path:
    """Write ``folder/record.json`` atomically (a temporary file beside it, then renamed);
    an unchanged record is left alone."""
    path = Path(folder) / RECORD_FILE
    data = record_bytes(record)
    if path.exists() and path.read_bytes() == data:
        return path
    tmp = path.with_name(f".{RECORD_FILE}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return path


def update_record(ctx: GameContext) -> Path | None:
    """Once the game has a winner, write its record into the game folder (the resolution
    calls this after every day it resolves). A record that cannot be built is logged, not
    raised: the day's resolution stands."""
    if finished_day(ctx.store.resolutions()) is None:
        stale = ctx.game.folder / RECORD_FILE   # a correction made the game go on
        if stale.exists():
            stale.unlink()
        return None
    try:
        return write_record(ctx.game.folder, build_record(ctx))
    except (ScraperModError, OSError) as e:
        log.warning("the game's record was not written: %s", e)
        return None
