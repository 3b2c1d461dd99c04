"""A whole-game scenario read from its TOML/JSON: a game file's tables (validated like
game.toml) plus a ``[[script]]`` of days, played through ``rules.replay``. See the format in
``rules/replay.py``; whole games live in ``fixtures/scenarios/``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from scraper_mod.errors import ConfigError
from scraper_mod.game.setup.config import Game, parse_game
from scraper_mod.rules.calendar import Calendar
from scraper_mod.rules.model import Vote
from scraper_mod.rules.night import Act, NightOrders
from scraper_mod.rules.replay import DayInput, ReplayDay, replay
from scraper_mod.rules.state import GameState, initial_state


@dataclass(frozen=True)
class Scenario:
    game: Game
    state: GameState
    calendar: Calendar
    days: tuple[DayInput, ...]
    expect: Mapping = field(default_factory=dict)            # whole-game expectations
    day_expect: Mapping[int, Mapping] = field(default_factory=dict)

    def play(self) -> list[ReplayDay]:
        return replay(self.state, self.days, self.game.rules, calendar=self.calendar)


_ORDER_FIELDS = set(NightOrders.__dataclass_fields__)


def scenario_from_dict(data: Mapping, *, path: str | Path = "scenario.toml") -> Scenario:
    """A scenario from its parsed TOML/JSON. Errors are ``ConfigError`` naming the key."""
    path = Path(path)
    data = dict(data)
    script = data.pop("script", [])
    expect = data.pop("expect", {})
    game = parse_game(data, path=path)
    if not game.random_list:
        raise ConfigError("a scenario needs game.random_list", path=str(path),
                          key="game.random_list")
    state = initial_state(game.players, game.duty, game.random_list)
    calendar = Calendar(start=game.start, day_start=game.day_start, deadline=game.deadline,
                        tz=game.timezone, merge_weekends=game.rules.merge_weekends,
                        weekend_days=game.rules.weekend_days,
                        moved={d.number: d.deadline for d in game.days if d.deadline})
    nicks = set(state.roles)
    days, day_expect = [], {}
    for i, entry in enumerate(script):
        pre = f"script[{i + 1}]"
        try:
            n = int(entry["day"])
        except (KeyError, TypeError, ValueError):
            raise ConfigError("needs a day number", path=str(path), key=f"{pre}.day") from None
        votes = []
        for j, raw in enumerate(entry.get("votes", [])):
            key = f"{pre}.votes[{j + 1}]"
            if not isinstance(raw, list) or len(raw) not in (3, 4):
                raise ConfigError("must be [voter, target, time] or [voter, target, time, "
                                  "post id]", path=str(path), key=key)
            voter, target, at = raw[0], raw[1], raw[2]
            for who in (voter, target):
                if who not in nicks:
                    raise ConfigError(f"{who!r} is not a player", path=str(path), key=key)
            if isinstance(at, str):
                try:
                    at = datetime.fromisoformat(at)
                except ValueError:
                    raise ConfigError(f"not an ISO time: {at!r}", path=str(path),
                                      key=key) from None
            if at.tzinfo is None:
                at = at.replace(tzinfo=game.timezone)
            post_id = int(raw[3]) if len(raw) == 4 else n * 1000 + j + 1
            votes.append(Vote(voter=voter, target=target, at=at, post_id=post_id))
        night = dict(entry.get("night", {}))
        unknown = set(night) - _ORDER_FIELDS
        if unknown:
            raise ConfigError("unknown key", path=str(path),
                              key=f"{pre}.night.{sorted(unknown)[0]}")
        if "mafia_also" in night:
            night["mafia_also"] = tuple(night["mafia_also"])
        if "acts" in night:   # R14: [[script.night.acts]] actor, kind, target, target2
            try:
                night["acts"] = tuple(Act.from_json(a) for a in night["acts"])
            except (KeyError, TypeError, AttributeError):
                raise ConfigError("each act needs actor and kind (and target, target2)",
                                  path=str(path), key=f"{pre}.night.acts") from None
        days.append(DayInput(day=n, votes=tuple(votes), orders=NightOrders(**night)))
        day_expect[n] = dict(entry.get("expect", {}))
    return Scenario(game=game, state=state, calendar=calendar, days=tuple(days),
                    expect=dict(expect), day_expect=day_expect)
