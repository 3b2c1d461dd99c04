"""Opening a game: the loaded game file, its state store, the clock, the calendar.

The service functions (tallying, move intake, resolution, the daemon) take a ``GameContext``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from .clock import Clock, SystemClock
from .config import Game, load_game
from .store import Store


@dataclass
class GameContext:
    game: Game
    store: Store
    clock: Clock = field(default_factory=SystemClock)

    def now(self) -> datetime:
        return self.clock.now()

    def calendar(self):
        """The game's calendar (R1) with moved deadlines from [[days]] and the store."""
        from .rules.calendar import Calendar
        moved = {d.number: d.deadline for d in self.game.days if d.deadline is not None}
        moved.update({int(k): datetime.fromisoformat(v)
                      for k, v in self.store.get("moved_deadlines", {}).items()})
        g = self.game
        return Calendar(start=g.start, day_start=g.day_start, deadline=g.deadline,
                        tz=g.timezone, merge_weekends=g.rules.merge_weekends,
                        weekend_days=g.rules.weekend_days, moved=moved)

    def topic_for_day(self, day: int) -> str | None:
        """The day's topic URL: from the store (``day open``/discovery), else [[days]]."""
        topics = self.store.get("day_topics", {})
        if str(day) in topics:
            return topics[str(day)]
        spec = self.game.day(day)
        return spec.topic if spec else None

    def set_topic_for_day(self, day: int, url: str) -> None:
        topics = self.store.get("day_topics", {})
        topics[str(day)] = url
        self.store.put("day_topics", topics)

    def close(self) -> None:
        self.store.close()


def open_game(arg: str | Path, *, clock: Clock | None = None) -> GameContext:
    """Load the game file and open (creating if needed) its state store."""
    game = load_game(arg)
    return GameContext(game=game, store=Store(game.state_path), clock=clock or SystemClock())
