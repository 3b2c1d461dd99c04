"""The game calendar (docs/rules.md R1): when each game day ("игровые сутки") starts, ends.

- R1.1 every instant is timezone-aware; the calendar works in the game's zone and returns
  aware datetimes in that zone (store them as UTC, show them in game time).
- R1.2 a day starts at ``day_start`` (21:00, the newspaper) and ends at its **deadline**
  (20:00 the next evening); the hour between is for processing.
- R1.3 weekends: with ``merge_weekends`` on, a deadline that would fall on one of
  ``weekend_days`` (default Saturday) moves to the same time on the following day (again,
  while that day is a weekend day too), so Saturday 20:00 becomes Sunday 20:00 and a
  weekend has one lynch and one night.
- R1.4 a moved deadline (``moved[n]``) replaces day n's deadline; the days after it follow on
  from the moved one.
- R1.5 day 1 starts at ``day_start`` on the start date.

Day n+1 starts at the first ``day_start`` at or after deadline(n) (with the defaults: 21:00 on
the date of deadline(n)). Wall-clock times are built in the game's zone, so a deadline stays
at 20:00 local time across daylight-saving changes (Europe/Berlin in March and October); a
wall time that does not exist on a change night (02:30 in spring) is taken as the instant the
clock shows it would have been with the old offset, then shown in the new offset.

Pure: no clock reads. Time comes in as arguments.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from ..errors import RulesError

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")

# A game longer than this many days is surely a configuration mistake; it bounds the loops
# of day_at / last_due_day so that a bad instant cannot spin forever.
MAX_DAYS = 2000


def _offset(t: datetime) -> str:
    """``+02:00``: the UTC offset of an aware ``t`` as ISO 8601 writes it."""
    return t.isoformat()[-6:]


def wall_time(naive: datetime, tz: ZoneInfo) -> datetime:
    """The instant a host means by a wall time written without an offset (``day move``,
    ``[[days]] deadline``), refusing the two that mean no single instant: one skipped when
    the clocks go forward (Europe/Berlin 2025-03-30 02:30) and one shown twice when they go
    back (2025-10-26 02:30), for which the error names both offsets to choose from. A time
    with an offset is returned as it is. Raises ``RulesError``."""
    if naive.tzinfo is not None:
        return naive
    first, second = naive.replace(tzinfo=tz, fold=0), naive.replace(tzinfo=tz, fold=1)
    if first.utcoffset() == second.utcoffset():
        return first
    shown = naive.isoformat(timespec="minutes" if not naive.second else "seconds")
    if first.astimezone(timezone.utc).astimezone(tz).replace(tzinfo=None) != naive:
        later = first.astimezone(timezone.utc).astimezone(tz)
        raise RulesError(f"{shown} does not exist in {tz.key}: the clocks go forward that "
                         "night and skip it",
                         hint=f"give a time outside the skipped hour, e.g. "
                              f"{later.replace(tzinfo=None).isoformat(timespec='minutes')}",
                         ru=f"{shown} не существует в {tz.key}: в эту ночь часы переводят "
                            "вперёд (укажите время вне пропущенного часа, например "
                            f"{later.replace(tzinfo=None).isoformat(timespec='minutes')})")
    raise RulesError(f"{shown} happens twice in {tz.key}: the clocks go back that night",
                     hint=f"add its offset: {shown}{_offset(first)} (the first time) or "
                          f"{shown}{_offset(second)} (the second)",
                     ru=f"{shown} бывает дважды в {tz.key}: в эту ночь часы переводят назад "
                        f"(добавьте смещение: {shown}{_offset(first)} — первое, "
                        f"{shown}{_offset(second)} — второе)")


def _local(d: date, t: time, tz: ZoneInfo) -> datetime:
    """The wall time ``t`` on date ``d`` in ``tz``, normalised (DST gaps resolved)."""
    naive = datetime.combine(d, t)
    aware = naive.replace(tzinfo=tz)
    return aware.astimezone(timezone.utc).astimezone(tz)


class Calendar:
    """R1: day starts and deadlines of one game.

    ``Calendar(start, day_start, deadline, tz, merge_weekends, weekend_days, moved)``: the
    configured times are kept as ``day_start_time`` and ``deadline_time``; ``day_start(n)``
    and ``deadline(n)`` give day n's instants. ``moved`` maps a day number to its moved
    deadline (R1.4), an aware datetime (a naive one is read as game time).
    """

    def __init__(self, start: date, day_start: time = time(21, 0),
                 deadline: time = time(20, 0), tz: ZoneInfo | None = None,
                 merge_weekends: bool = True, weekend_days: tuple[str, ...] = ("sat",),
                 moved: dict[int, datetime] | None = None) -> None:
        self.start = start
        self.day_start_time = day_start
        self.deadline_time = deadline
        self.tz = tz or ZoneInfo("Europe/Moscow")
        self.merge_weekends = merge_weekends
        self.weekend_days = tuple(weekend_days)
        bad = [d for d in self.weekend_days if d not in WEEKDAYS]
        if bad:
            raise RulesError(f"unknown weekday {bad[0]!r} in weekend_days",
                             hint=f"use {', '.join(WEEKDAYS)}",
                             ru=f"weekend_days: неизвестный день недели {bad[0]!r} (допустимы: "
                                f"{', '.join(WEEKDAYS)})")
        if merge_weekends and set(self.weekend_days) >= set(WEEKDAYS):
            raise RulesError("weekend_days names every day of the week: no deadline is left",
                             hint="list only the days whose deadline moves to the next day",
                             ru="weekend_days: перечислены все дни недели, сроку не остаётся "
                                "дня (оставьте только дни, срок которых переносится на "
                                "следующий день)")
        self.moved: dict[int, datetime] = {}
        for n, dl in dict(moved or {}).items():
            if int(n) < 1:
                raise RulesError(f"moved deadline for day {n}: days are numbered from 1",
                                 ru=f"перенесённый срок дня {n}: дни нумеруются с 1")
            if dl.tzinfo is None:
                dl = dl.replace(tzinfo=self.tz)
            self.moved[int(n)] = dl.astimezone(self.tz)
        self._days: list[tuple[datetime, datetime]] = []  # cache for days 1..k

    def __repr__(self) -> str:
        return (f"Calendar(start={self.start}, day_start={self.day_start_time}, "
                f"deadline={self.deadline_time}, tz={self.tz.key}, "
                f"merge_weekends={self.merge_weekends}, weekend_days={self.weekend_days}, "
                f"moved={self.moved})")

    # -- the schedule ---------------------------------------------------------------------
    def _weekend(self, d: date) -> bool:
        return self.merge_weekends and WEEKDAYS[d.weekday()] in self.weekend_days

    def _scheduled_deadline(self, begins: datetime) -> datetime:
        """The first deadline wall time after ``begins``, pushed past weekend days (R1.3)."""
        d = begins.date()
        while _aware(_local(d, self.deadline_time, self.tz)) <= _aware(begins):
            d += timedelta(days=1)
        while self._weekend(d):
            d += timedelta(days=1)
        return _local(d, self.deadline_time, self.tz)

    def _processing_gap(self) -> timedelta:
        """The usual time between a deadline and the next day's start (R1.2: one hour)."""
        day = date(2000, 1, 3)
        gap = datetime.combine(day, self.day_start_time) - datetime.combine(day, self.deadline_time)
        return gap % timedelta(days=1)

    def _next_start(self, after: datetime) -> datetime:
        """The first ``day_start`` wall time at or after ``after`` (R1.2).

        After a deadline moved late (R1.4: Thursday 20:00 -> 22:30, or past midnight) the next
        ``day_start`` would be almost a day away and a whole game day would vanish; then the
        next day starts after the usual processing gap instead (22:30 -> 23:30).
        """
        d = after.date()
        while _aware(_local(d, self.day_start_time, self.tz)) < _aware(after):
            d += timedelta(days=1)
        regular = _local(d, self.day_start_time, self.tz)
        gap = self._processing_gap()
        if _aware(regular) - _aware(after) > gap + timedelta(hours=3):
            return (_aware(after) + gap).astimezone(self.tz)
        return regular

    def _day(self, n: int) -> tuple[datetime, datetime]:
        if n < 1:
            raise RulesError(f"day {n}: game days are numbered from 1",
                             ru=f"день {n}: дни игры нумеруются с 1")
        if n > MAX_DAYS:
            raise RulesError(f"day {n}: more than {MAX_DAYS} days; check the game's start date",
                             ru=f"день {n}: больше {MAX_DAYS} дней; проверьте дату начала "
                                "игры ([game] start)")
        days = self._days
        while len(days) < n:
            k = len(days) + 1
            begins = (_local(self.start, self.day_start_time, self.tz) if k == 1
                      else self._next_start(days[-1][1]))
            ends = self.moved.get(k) or self._scheduled_deadline(begins)
            if _aware(ends) <= _aware(begins):
                raise RulesError(
                    f"day {k}: the deadline {ends.isoformat()} is not after the day's start "
                    f"{begins.isoformat()}", hint="check the moved deadline in [[days]]",
                    ru=f"день {k}: срок {ends.isoformat()} не позже начала дня "
                       f"{begins.isoformat()} (проверьте перенесённый срок в [[days]])")
            days.append((begins, ends))
        return days[n - 1]

    # -- public API -----------------------------------------------------------------------
    def day_start(self, n: int) -> datetime:
        """When day n starts (R1.2, R1.5): the newspaper's time, in game time."""
        return self._day(n)[0]

    def deadline(self, n: int) -> datetime:
        """Day n's deadline (R1.2-R1.4), in game time."""
        return self._day(n)[1]

    def is_moved(self, n: int) -> bool:
        """R1.4: whether day n's deadline was moved by the host."""
        return n in self.moved

    def scheduled_deadline(self, n: int) -> datetime:
        """Day n's deadline as the schedule has it, ignoring a move of day n itself (R1.4)."""
        return self._scheduled_deadline(self._day(n)[0])

    def day_at(self, instant: datetime) -> int:
        """The day n whose ``[day_start(n), day_start(n+1))`` holds ``instant``; 0 before day 1."""
        t = _aware(instant)
        if t < _aware(self._day(1)[0]):
            return 0
        n = 1
        while _aware(self._day(n + 1)[0]) <= t:
            n += 1
        return n

    def last_due_day(self, instant: datetime) -> int:
        """The last day whose deadline is at or before ``instant`` (0 if none)."""
        t = _aware(instant)
        n = 0
        while _aware(self._day(n + 1)[1]) <= t:
            n += 1
        return n


def _aware(t: datetime) -> datetime:
    """``t`` in UTC. Aware datetimes sharing one ZoneInfo compare and subtract by wall time
    in Python, which is wrong across a DST change; UTC makes every comparison real time."""
    if t.tzinfo is None:
        raise RulesError("a naive datetime was given to the calendar",
                         hint="pass timezone-aware instants (R1.1)")
    return t.astimezone(timezone.utc)
