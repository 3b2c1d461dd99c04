"""The host's hand on the calendar while a game runs: open a day's topic, move a deadline
(R1.4), list the days. ``scraper-mod day open|move|list`` and the host's page both call these;
the daemon reads what they store (``day_topics``, ``moved_deadlines``) at its next step.

Each change returns a value saying what changed; ``lines()`` words it as the command prints
it (English), and the host's page words the same fields in the game's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo

from scraper_mod.errors import ConfigError, RulesError, ScraperModError
from scraper_mod.forum.engine import topic_url_problem
from scraper_mod.forum.poller import canonical_topic_url
from scraper_mod.game.context import GameContext
from scraper_mod.game.setup.timearg import parse_time_arg

__all__ = ["DayOpened", "DeadlineMoved", "DayRow", "check_day", "check_topic_url", "open_day",
           "move_deadline", "list_days", "stamp"]


def stamp(t: datetime, tz: tzinfo) -> str:
    """A full local time for the host: ``Tue 2024-04-09 20:00:00 MSK``."""
    return t.astimezone(tz).strftime("%a %Y-%m-%d %H:%M:%S %Z")


def check_day(n: int) -> None:
    if n < 1:
        raise ConfigError(f"day {n}: days are numbered from 1",
                          ru=f"день {n}: дни нумеруются с 1")


def check_topic_url(url: str, engine: str | None = None) -> None:
    """A topic's address on an engine scraper-mod reads (the engine's package says which
    addresses are: ``forum.engine.topic_url_problem``; ``engine`` as the game file names it),
    or a ConfigError saying what to give instead, in English and in Russian."""
    problem = topic_url_problem(url, engine=engine)
    if problem is not None:
        msg, hint = problem
        ru_msg, ru_hint = topic_url_problem(url, "ru", engine=engine) or problem
        raise ConfigError(msg, hint=hint, ru=f"{ru_msg} ({ru_hint})")


@dataclass(frozen=True)
class DayOpened:
    """Day ``day``'s topic is now ``topic`` (it was ``previous``)."""

    day: int
    topic: str
    previous: str | None

    @property
    def changed_topic(self) -> bool:
        return bool(self.previous) and self.previous != self.topic

    def lines(self) -> list[str]:
        if self.changed_topic:
            return [f"day {self.day}: topic changed from {self.previous} to {self.topic}"]
        return [f"day {self.day}: topic {self.topic}"]


def open_day(ctx: GameContext, day: int, url: str) -> DayOpened:
    """Set day ``day``'s topic to ``url`` (stored; overrides ``[[days]]``). Refused for a
    resolved day."""
    check_day(day)
    check_topic_url(url, ctx.game.forum.engine)
    url = canonical_topic_url(url)      # without a session id or a page
    if day in ctx.store.resolutions():
        raise ScraperModError(f"day {day} is already resolved; its topic cannot change now",
                              hint="resolve it again by hand with 'scraper-mod resolve' "
                                   "if its topic was wrong",
                              ru=f"итоги дня {day} уже подведены, его тему не сменить (если "
                                 "тема была не та, подведите итоги заново: scraper-mod "
                                 "resolve)")
    old = ctx.topic_for_day(day)
    ctx.set_topic_for_day(day, url)
    ctx.store.log_event("day_opened", {"day": day, "topic": url, "how": "day open",
                                       "previous": old}, at=ctx.now())
    return DayOpened(day=day, topic=url, previous=old)


@dataclass(frozen=True)
class DeadlineMoved:
    """Day ``day``'s deadline moved from ``before`` to ``after``; the next day's span."""

    day: int
    before: datetime
    after: datetime
    back_to_schedule: bool
    next_start: datetime
    next_deadline: datetime
    in_past: bool
    tz: tzinfo

    def lines(self) -> list[str]:
        tz = self.tz
        out = [f"day {self.day}: deadline {stamp(self.before, tz)} -> {stamp(self.after, tz)}"
               f"{' (back to the schedule)' if self.back_to_schedule else ''}",
               f"day {self.day + 1} now runs from {stamp(self.next_start, tz)} to "
               f"{stamp(self.next_deadline, tz)}; the days after follow on from it"]
        if self.in_past:
            out.append(f"note: that is in the past (--force): a running 'scraper-mod run' "
                       f"resolves day {self.day} at its next step and publishes its results")
        return out


def move_deadline(ctx: GameContext, day: int, time: str, *, name: str = "TIME",
                  force: bool = False) -> DeadlineMoved:
    """Move day ``day``'s deadline to ``time`` (ISO 8601, game time without an offset;
    ``default`` undoes a move made here), R1.4. Refused for a resolved day, for a time
    that would end the day before it starts, and (without ``force``) for a deadline already
    past: a running daemon would resolve and publish the day at once (issue 40; the store is
    left as it was)."""
    check_day(day)
    g = ctx.game
    if day in ctx.store.resolutions():
        raise ScraperModError(f"day {day} is already resolved; its deadline cannot move now",
                              ru=f"итоги дня {day} уже подведены, его срок не перенести")
    before = ctx.calendar().deadline(day)
    moved = dict(ctx.store.get("moved_deadlines", {}))
    if time.strip().lower() == "default":
        if str(day) not in moved:
            raise ConfigError(f"day {day}'s deadline was not moved with 'day move'",
                              ru=f"срок дня {day} не переносили, возвращать нечего")
        del moved[str(day)]
        new = None
    else:
        new = parse_time_arg(time, g.timezone, name=name)
        moved[str(day)] = new.isoformat()
    previous = ctx.store.get("moved_deadlines", {})
    ctx.store.put("moved_deadlines", moved)
    try:
        after = ctx.calendar().deadline(day)
        if day > 1:
            ctx.calendar().deadline(day - 1)
    except RulesError as e:
        ctx.store.put("moved_deadlines", previous)
        new_ru = new.astimezone(g.timezone).strftime("%d.%m.%Y %H:%M") if new else "прежний срок"
        raise ConfigError(f"cannot move the deadline there: {e.message}",
                          hint=f"give a time after day {day}'s start",
                          ru=f"день {day}: на это время срок не перенести: {new_ru} — "
                             + (f"не после начала дня {day} или не позже срока дня {day - 1}"
                                if day > 1 else f"не после начала дня {day}")
                             + f" (нужно время после начала дня {day})") from None
    if after <= ctx.now() and not force:
        ctx.store.put("moved_deadlines", previous)
        when = stamp(after, g.timezone)
        raise ConfigError(
            f"day {day}'s deadline would be {when}, already past: a running 'scraper-mod run' "
            f"would resolve day {day} and publish its results at once",
            hint="give a later time, or add --force to do just that",
            ru=f"срок дня {day} стал бы {after.astimezone(g.timezone):%d.%m.%Y %H:%M}, а это "
               f"время уже прошло: запущенный "
               f"'scraper-mod run' сразу подведёт итоги дня {day} и опубликует их (другое "
               f"время или --force, если так и нужно)")
    ctx.store.log_event("deadline_moved", {"day": day, "from": before.isoformat(),
                                           "to": after.isoformat()}, at=ctx.now())
    cal = ctx.calendar()
    return DeadlineMoved(day=day, before=before, after=after, back_to_schedule=new is None,
                         next_start=cal.day_start(day + 1), next_deadline=cal.deadline(day + 1),
                         in_past=after <= ctx.now(), tz=g.timezone)


@dataclass(frozen=True)
class DayRow:
    """One day of ``day list``: ``state`` is resolved, due (deadline passed) or open."""

    number: int
    state: str
    start: datetime
    deadline: datetime
    moved: bool
    topic: str | None

    def line(self, tz: tzinfo) -> str:
        return (f"day {self.number}: {self.state:8} starts {stamp(self.start, tz)}, deadline "
                f"{stamp(self.deadline, tz)}{' (moved)' if self.moved else ''}; topic "
                f"{self.topic or '-'}")


def list_days(ctx: GameContext) -> list[DayRow]:
    """The days so far: up to the first unresolved day and every day with a topic (not the
    whole calendar: an old game's clock would run on for hundreds of days), and none after
    the day the game ended."""
    cal = ctx.calendar()
    done = ctx.store.resolutions()
    now = ctx.now()
    topics = [int(k) for k in ctx.store.get("day_topics", {})]
    first_open = 1
    while first_open in done:
        first_open += 1
    last = max([first_open, *topics, *(d.number for d in ctx.game.days)])
    over = [n for n, r in done.items() if isinstance(r, dict) and r.get("winner")]
    if over:
        last = min(over)       # the game ended that day: no day after it
    rows = []
    for n in range(1, last + 1):
        state = "resolved" if n in done else ("due" if cal.deadline(n) <= now else "open")
        rows.append(DayRow(number=n, state=state, start=cal.day_start(n),
                           deadline=cal.deadline(n), moved=cal.is_moved(n),
                           topic=ctx.topic_for_day(n)))
    return rows
