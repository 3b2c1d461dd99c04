"""``[signup]`` in game.toml (issue 29, docs/signup.md): the sign-up topic, how many play,
when sign-ups close, the marks; and the top-level ``reserve = [...]`` that ``signup --write``
writes and ``replace --from-reserve`` takes from (RULES R13)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from scraper_mod.rules.signup import JOIN_MARKS, LEAVE_MARKS, Marks

KEYS = ("topic", "players", "close", "late_to_reserve", "join", "leave")


@dataclass(frozen=True)
class SignupConfig:
    topic: str | None = None            # the sign-up topic's address
    players: int | None = None          # how many play; the rest is the reserve
    close: datetime | None = None       # sign-ups after this are late
    late_to_reserve: bool = False       # late sign-ups go to the end of the reserve
    join: tuple[str, ...] = JOIN_MARKS
    leave: tuple[str, ...] = LEAVE_MARKS

    @property
    def marks(self) -> Marks:
        return Marks.of(self.join, self.leave)


def parse_signup(r: Any, tbl: dict, tz: tzinfo) -> SignupConfig:
    """``[signup]`` checked key by key (``r``: game.config's reader, which names the file)."""
    r.unknown(tbl, "signup.", KEYS)
    players = r.typed(tbl, "signup.", "players", int)
    if players is not None and not 1 <= players <= 200:
        r.fail("signup.players", f"must be from 1 to 200, not {players!r}")
    raw = tbl.get("close")
    close: datetime | None = None
    if isinstance(raw, str):
        try:
            raw = datetime.fromisoformat(raw)
        except ValueError:
            r.fail("signup.close", f"must be a date and time, not {raw!r}")
    if raw is not None and not isinstance(raw, datetime):
        r.fail("signup.close", "must be a date and time like 2024-03-14T20:00:00+03:00")
    if isinstance(raw, datetime):
        close = raw if raw.tzinfo is not None else raw.replace(tzinfo=tz)
    lists = {}
    for key in ("join", "leave"):
        if key in tbl:
            lists[key] = _strings(r, tbl[key], f"signup.{key}")
    cfg = SignupConfig(topic=r.typed(tbl, "signup.", "topic", str), players=players,
                       close=close, late_to_reserve=r.typed(tbl, "signup.", "late_to_reserve",
                                                            bool, False), **lists)
    if not cfg.marks.join or not cfg.marks.leave:
        r.fail("signup.join" if not cfg.marks.join else "signup.leave",
               "no mark is left once case and punctuation are folded")
    return cfg


def _strings(r: Any, v: object, key: str) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
        r.fail(key, "must be a list of non-empty strings")
    return tuple(v)  # type: ignore[arg-type]


def parse_reserve(r: Any, data: dict) -> tuple[str, ...]:
    """The top-level ``reserve = [...]``: nicks in order, each once."""
    if "reserve" not in data:
        return ()
    reserve = _strings(r, data["reserve"], "reserve")
    if len(set(reserve)) != len(reserve):
        r.fail("reserve", "lists a nick twice")
    return reserve
