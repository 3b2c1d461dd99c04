"""The daemon's jobs on the injected clock: each job's next run is a function of the clock.

A job is ``(name, next_at, func)``: ``next_at(now)`` gives the aware instant of the next run,
or None to end the job. ``run_pending()`` runs the jobs that are due, earliest first;
``idle_seconds`` says how long the daemon may sleep. The instants are kept in naive UTC.

This replaces the ``schedule`` library: its public API reads the wall clock and plans by
intervals and times of day, while the daemon plans by the game's calendar on an injected
clock (a simulated week in the demo and the tests, simulated lanes in the bench); using it
meant overriding its private ``_schedule_next_run`` and calling its private ``_run_job``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

from ..clock import Clock

__all__ = ["ClockJob", "ClockScheduler", "naive_utc"]


def naive_utc(t: datetime) -> datetime:
    """``t`` as a naive UTC datetime (how the jobs keep their instants)."""
    return t.astimezone(timezone.utc).replace(tzinfo=None)


class ClockJob:
    """One job: ``func`` run at the instants ``next_at`` chooses on ``clock``."""

    def __init__(self, clock: Clock, next_at: Callable[[datetime], datetime | None],
                 func: Callable[[], object], name: str) -> None:
        self.clock = clock
        self.next_at = next_at
        self.func = func
        self.name = name
        self.last_run: datetime | None = None
        self.next_run: datetime | None = None
        self.reschedule()

    def reschedule(self) -> None:
        """Recompute the next run now (the calendar or the game changed)."""
        at = self.next_at(self.clock.now())
        self.next_run = naive_utc(at) if at is not None else None

    @property
    def should_run(self) -> bool:
        return self.next_run is not None and naive_utc(self.clock.now()) >= self.next_run

    def run(self) -> bool:
        """Run the job once; False when it has no next run (it is then ended)."""
        self.func()
        self.last_run = naive_utc(self.clock.now())
        self.reschedule()
        return self.next_run is not None

    def __lt__(self, other: ClockJob) -> bool:
        if self.next_run is None or other.next_run is None:
            return other.next_run is None and self.next_run is not None
        return self.next_run < other.next_run

    def __repr__(self) -> str:
        return f"<ClockJob {self.name} next={self.next_run}>"


class ClockScheduler:
    """The daemon's jobs, run when due on the injected clock."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.jobs: list[ClockJob] = []

    def add(self, name: str, next_at: Callable[[datetime], datetime | None],
            func: Callable[[], object]) -> ClockJob:
        job = ClockJob(self.clock, next_at, func, name)
        self.jobs.append(job)
        return job

    def run_pending(self) -> None:
        """Run every due job once, earliest first; a job without a next run is ended."""
        for job in sorted(j for j in self.jobs if j.should_run):
            if not job.run() and job in self.jobs:
                self.jobs.remove(job)

    @property
    def idle_seconds(self) -> float | None:
        """Seconds until the earliest next run (negative when one is due); None: no jobs."""
        runs = [j.next_run for j in self.jobs if j.next_run is not None]
        if not runs:
            return None
        return (min(runs) - naive_utc(self.clock.now())).total_seconds()

    def clear(self) -> None:
        self.jobs.clear()
