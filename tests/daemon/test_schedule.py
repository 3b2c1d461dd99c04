"""The daemon (`scraper-mod run`, scraper_mod/schedule.py) on an injected clock.

The work functions are faked with plain functions (STYLE.md: inject the boundary): a fake
forum that can be down, whose day topics appear at given times, and a fake resolver that
records the resolution in the real store. The calendar, the store, the scheduler, the lock
and the daemon's decisions are the real ones. A simulated week runs in milliseconds.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import time_machine
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scraper_mod.clock import FakeClock, SystemClock
from scraper_mod.daemon.lock import GameLock, running_pid
from scraper_mod.daemon.scheduler import Daemon
from scraper_mod.daemon.status import fmt_delta, game_status
from scraper_mod.daemon.work import PollResult, Resolution, topic_title_regex
from scraper_mod.errors import FetchError, ScraperModError
from scraper_mod.game.context import open_game

MSK = ZoneInfo("Europe/Moscow")


def msk(day: int, hh: int, mm: int = 0, ss: int = 0) -> datetime:
    """An instant in March 2024, Moscow time (13.03.2024 is a Wednesday)."""
    return datetime(2024, 3, day, hh, mm, ss, tzinfo=MSK)


GAME = """\
[game]
title = "Мафия: тест расписания"
start = 2024-03-13
host = "Ведущий"

[forum]
url = "http://127.0.0.1:9/"

[[players]]
nick = "Вася"
[[players]]
nick = "Маша"
[[players]]
nick = "Петя"

{days}
"""


def write_game(folder: Path, days: dict[int, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = "\n".join(f'[[days]]\nnumber = {n}\ntopic = "{u}"\n' for n, u in days.items())
    (folder / "game.toml").write_text(GAME.format(days=text), encoding="utf-8")
    return folder


def topic(n: int) -> str:
    return f"http://127.0.0.1:9/viewtopic.php?t={100 + n}"


class FakeForum:
    """The daemon's work as plain functions, recording what was asked and when."""

    def __init__(self, *, down: list[tuple[datetime, datetime]] = (),
                 appears: dict[int, datetime] | None = None, winner_day: int | None = None):
        self.down = list(down)
        self.appears = appears or {}
        self.winner_day = winner_day
        self.calls: list[tuple] = []

    def _up(self, now: datetime) -> bool:
        return not any(a <= now < b for a, b in self.down)

    def poll(self, ctx, day, *, full):
        now = ctx.now()
        url = ctx.topic_for_day(day)
        self.calls.append(("poll", day, full, now, url))
        if url and not self._up(now):
            raise FetchError("connection refused after 4 retries", url=url)
        return PollResult(day=day, topic=url, full=full, requests=1 if url else 0,
                          new_posts=1 if url else 0)

    def resolve(self, ctx, day):
        now = ctx.now()
        self.calls.append(("resolve", day, now))
        winner = "town" if day == self.winner_day else None
        ctx.store.save_resolution(day, {"day": day, "lynched": None, "killed": [],
                                        "winner": winner}, resolved_at=now)
        return Resolution(day=day, out_dir=ctx.game.out_dir / f"day-{day}",
                          files=("newspaper.bbcode",), winner=winner)

    def find_topic(self, ctx, day):
        at = self.appears.get(day)
        if at is not None and ctx.now() >= at:
            return topic(day)
        return None

    # what the tests look at
    def resolves(self) -> list[tuple[int, datetime]]:
        return [(c[1], c[2]) for c in self.calls if c[0] == "resolve"]

    def polls(self, day: int, *, full: bool | None = None) -> list[datetime]:
        return [c[3] for c in self.calls if c[0] == "poll" and c[1] == day
                and (full is None or c[2] == full)]


@pytest.fixture
def game_dir(tmp_path):
    return write_game(tmp_path / "game", {n: topic(n) for n in range(1, 8)})


def daemon(folder: Path, clock: FakeClock, ops: FakeForum, **kw) -> Daemon:
    ctx = open_game(folder, clock=clock)
    return Daemon(ctx, ops=ops, **kw)


def test_a_week_with_a_weekend_resolves_each_deadline_plus_grace_R1_3(game_dir, caplog):
    """R1.2/R1.3: deadlines Thu, Fri, Sun (Saturday's merged into Sunday), Mon, Tue at 20:00;
    each is resolved at 20:01 (grace 60 s) right after a full re-scan; the game ends with
    the victory and the daemon stops by itself."""
    clock = FakeClock(msk(13, 21))
    ops = FakeForum(winner_day=5)
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    report = daemon(game_dir, clock, ops).run(until=msk(25, 0))
    assert report.stopped_by == "game over" and report.winner == "town"
    assert ops.resolves() == [(1, msk(14, 20, 1)), (2, msk(15, 20, 1)), (3, msk(17, 20, 1)),
                              (4, msk(18, 20, 1)), (5, msk(19, 20, 1))]
    assert report.resolved == [1, 2, 3, 4, 5] and report.errors == [] and not report.caught_up
    # nothing is resolved on Saturday (R1.3)
    assert not [t for _, t in ops.resolves() if t.astimezone(MSK).weekday() == 5]
    # each resolution comes right after the day's final full re-scan, at the same instant
    for day, at in ops.resolves():
        assert ops.polls(day, full=True) == [at]
    # the daemon stops at the victory: nothing polled after day 5's resolution
    assert max(c[3] if c[0] == "poll" else c[2] for c in ops.calls) == msk(19, 20, 1)
    log = caplog.text
    assert "day 3: deadline 2024-03-17 20:00:00 MSK" in log
    assert "the game is over (town wins)" in log


def test_cadence_every_5_minutes_then_every_minute_in_the_last_30(game_dir):
    clock = FakeClock(msk(13, 21))
    ops = FakeForum()
    daemon(game_dir, clock, ops).run(until=msk(14, 20, 0, 30))
    polls = ops.polls(1, full=False)
    assert polls[0] == msk(13, 21)
    gaps = [(b - a, b) for a, b in zip(polls, polls[1:])]
    before = {g for g, b in gaps if b <= msk(14, 19, 30)}
    after = {g for g, b in gaps if b > msk(14, 19, 30)}
    assert before == {timedelta(minutes=5)}
    assert after == {timedelta(minutes=1)}
    assert msk(14, 19, 30) in polls and msk(14, 19, 59) in polls and msk(14, 20, 0) in polls
    assert len(polls) == 271 + 30   # 21:00..19:30 every 5 min (22.5 h), then 19:31..20:00


def test_a_configured_cadence_is_used(tmp_path):
    folder = write_game(tmp_path / "g", {1: topic(1)})
    text = (folder / "game.toml").read_text(encoding="utf-8")
    text += ("\n[schedule]\npoll_minutes = 60\nfinal_poll_minutes = 10\n"
             "final_window_minutes = 60\ngrace_seconds = 5\n")
    (folder / "game.toml").write_text(text, encoding="utf-8")
    clock = FakeClock(msk(14, 17, 30))
    ops = FakeForum()
    daemon(folder, clock, ops).run(until=msk(14, 20, 30))
    assert ops.polls(1, full=False) == [msk(14, 17, 30), msk(14, 18, 30), msk(14, 19),
                                        msk(14, 19, 10), msk(14, 19, 20), msk(14, 19, 30),
                                        msk(14, 19, 40), msk(14, 19, 50), msk(14, 20)]
    assert ops.resolves() == [(1, msk(14, 20, 0, 5))]


def test_restart_mid_day_picks_up_without_resolving_twice(game_dir, caplog):
    clock = FakeClock(msk(13, 21))
    ops = FakeForum(winner_day=3)
    first = daemon(game_dir, clock, ops).run(until=msk(15, 12))
    assert first.stopped_by == "until" and first.resolved == [1]
    first_calls = len(ops.calls)
    clock.set(msk(15, 12, 7))                       # 7 minutes later, a new process
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    second = daemon(game_dir, clock, ops).run(until=msk(25, 0))
    assert second.resolved == [2, 3] and not second.caught_up
    assert ops.resolves() == [(1, msk(14, 20, 1)), (2, msk(15, 20, 1)), (3, msk(17, 20, 1))]
    assert ops.calls[first_calls][:4] == ("poll", 2, False, msk(15, 12, 7))
    assert "catching up" not in caplog.text
    assert "running; day 2" in caplog.text


def test_restart_after_missed_deadlines_catches_up_once_in_order(game_dir, caplog):
    clock = FakeClock(msk(13, 21))
    ops = FakeForum()
    daemon(game_dir, clock, ops).run(until=msk(14, 12))
    assert ops.resolves() == []
    clock.set(msk(16, 10))                          # down from Thu noon to Sat 10:00
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    report = daemon(game_dir, clock, ops).run(until=msk(17, 21))
    assert report.caught_up == [1, 2]
    assert ops.resolves() == [(1, msk(16, 10)), (2, msk(16, 10)), (3, msk(17, 20, 1))]
    # each missed day got its own full re-scan before its resolution, in order
    firsts = [c[:3] for c in ops.calls if c[0] != "poll" or c[2]][:4]
    assert firsts == [("poll", 1, True), ("resolve", 1, msk(16, 10)),
                      ("poll", 2, True), ("resolve", 2, msk(16, 10))]
    assert caplog.text.count("catching up") == 1
    assert "days 1, 2 passed while scraper-mod was not running" in caplog.text


class StopAfterFirstPoll(FakeForum):
    """Stops the daemon after its first ordinary poll (no sleep on the real clock)."""

    def __init__(self, stop: threading.Event, **kw):
        super().__init__(**kw)
        self.stop = stop

    def poll(self, ctx, day, *, full):
        result = super().poll(ctx, day, full=full)
        if not full:
            self.stop.set()
        return result


def test_the_daemon_on_the_real_clock_reads_the_time_it_is(game_dir):
    """The host's daemon runs on the system clock: a process started on Saturday 10:00
    catches up Thursday's and Friday's deadlines at that instant, then polls day 3."""
    stop = threading.Event()
    ops = StopAfterFirstPoll(stop)
    with time_machine.travel(msk(16, 10), tick=False):
        ctx = open_game(game_dir)
        assert isinstance(ctx.clock, SystemClock)
        report = Daemon(ctx, ops=ops, stop=stop).run()
    assert report.stopped_by == "stop" and report.caught_up == [1, 2]
    assert ops.resolves() == [(1, msk(16, 10)), (2, msk(16, 10))]
    assert ops.polls(3, full=False) == [msk(16, 10)]
    assert sorted(ctx.store.resolved_days()) == [1, 2]


def test_forum_down_at_the_deadline_retries_and_never_resolves_a_partial_topic(game_dir, caplog):
    """Down from 19:50 to 20:07:30 on Friday: day 2's final re-scan fails at 20:01 and each
    minute after; the day is resolved at 20:08, right after the first re-scan that worked."""
    clock = FakeClock(msk(15, 12))
    ops = FakeForum(down=[(msk(15, 19, 50), msk(15, 20, 7, 30))])
    ctx = open_game(game_dir, clock=clock)
    ctx.store.save_resolution(1, {"day": 1, "winner": None}, resolved_at=msk(14, 20, 1))
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    report = Daemon(ctx, ops=ops).run(until=msk(15, 21))
    assert ops.resolves() == [(2, msk(15, 20, 8))]
    assert ops.polls(2, full=True) == [msk(15, 20, m) for m in range(1, 9)]
    assert report.resolved == [2]
    failed = [e for e in report.errors if "final re-scan" in e]
    assert len(failed) == 7
    assert "NOT resolved on a partial topic" in failed[0] and "connection refused" in failed[0]
    # the ordinary polls in the outage were logged as errors too, and did not stop anything
    assert any("polling the topic failed" in e for e in report.errors)


def test_a_late_opened_day_is_found_in_the_forum_and_polled(tmp_path, caplog):
    """Day 2 has no [[days]] topic; the host posts it in the forum on Friday 10:00."""
    folder = write_game(tmp_path / "g", {1: topic(1)})
    clock = FakeClock(msk(14, 19))
    ops = FakeForum(appears={2: msk(15, 10)})
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    report = daemon(folder, clock, ops).run(until=msk(15, 20, 30))
    assert [d for d, _ in ops.resolves()] == [1, 2]
    before = [c for c in ops.calls if c[0] == "poll" and c[1] == 2 and c[3] < msk(15, 10)]
    after = [c for c in ops.calls if c[0] == "poll" and c[1] == 2 and c[3] >= msk(15, 10)]
    assert before and all(c[4] is None for c in before)
    assert after and all(c[4] == topic(2) for c in after)
    assert caplog.text.count("day 2 has no topic yet") == 1
    assert f"day 2 opened: {topic(2)}" in caplog.text
    ctx = open_game(folder)
    assert ctx.topic_for_day(2) == topic(2)       # remembered for the next run and commands
    assert report.errors == []


def test_a_day_without_a_topic_at_its_deadline_waits_for_day_open(tmp_path, caplog):
    folder = write_game(tmp_path / "g", {})
    clock = FakeClock(msk(14, 19, 50))
    ops = FakeForum()
    d = daemon(folder, clock, ops)
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    d.run(until=msk(14, 20, 30))
    assert ops.resolves() == []
    assert caplog.text.count("has no topic, so it cannot be resolved") == 1
    d.ctx.set_topic_for_day(1, topic(1))           # what `scraper-mod day open` stores
    d.run(until=msk(14, 21))
    assert ops.resolves() == [(1, msk(14, 20, 30))]


def test_a_moved_deadline_is_kept_R1_4(game_dir):
    """`scraper-mod day move` stores the moved deadline; the days after follow on from it."""
    clock = FakeClock(msk(13, 21))
    ctx = open_game(game_dir, clock=clock)
    ctx.store.put("moved_deadlines", {"2": msk(16, 15).isoformat()})   # Fri -> Sat 15:00
    ops = FakeForum()
    Daemon(ctx, ops=ops).run(until=msk(18, 21))
    assert ops.resolves() == [(1, msk(14, 20, 1)), (2, msk(16, 15, 1)), (3, msk(17, 20, 1)),
                              (4, msk(18, 20, 1))]


def test_a_deadline_moved_while_running_is_picked_up(game_dir):
    clock = FakeClock(msk(14, 12))
    ctx = open_game(game_dir, clock=clock)
    ops = FakeForum()
    d = Daemon(ctx, ops=ops)
    d.run(until=msk(14, 13))
    ctx.store.put("moved_deadlines", {"1": msk(14, 22).isoformat()})
    d.run(until=msk(14, 23))
    assert ops.resolves() == [(1, msk(14, 22, 1))]


def test_stop_event_ends_the_run_cleanly(game_dir):
    clock = FakeClock(msk(13, 21))
    stop = threading.Event()
    ops = FakeForum()

    class StopAfterThree(FakeForum):
        def poll(self, ctx, day, *, full):
            if len(self.calls) >= 2:
                stop.set()
            return super().poll(ctx, day, full=full)

    ops = StopAfterThree()
    report = daemon(game_dir, clock, ops, stop=stop).run(until=msk(25, 0))
    assert report.stopped_by == "stop"
    assert len(ops.calls) == 3 and clock.now() == msk(13, 21, 10)


def test_the_game_file_is_reloaded_when_the_host_edits_it(tmp_path, caplog):
    folder = write_game(tmp_path / "g", {1: topic(1)})
    clock = FakeClock(msk(14, 12))
    ops = FakeForum()
    d = daemon(folder, clock, ops)
    d.run(until=msk(14, 13))
    write_game(folder, {1: topic(1), 2: topic(2)})
    import os
    os.utime(folder / "game.toml", (1e9, 1e9))
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    d.run(until=msk(14, 21))
    assert d.ctx.topic_for_day(2) == topic(2)
    (folder / "game.toml").write_text("[game\n", encoding="utf-8")
    d.run(until=msk(14, 22))
    assert any("changed but cannot be used" in e for e in d.report.errors)
    assert d.ctx.topic_for_day(2) == topic(2)      # still the previous, good version


def test_already_over_game_does_nothing(game_dir):
    clock = FakeClock(msk(20, 12))
    ctx = open_game(game_dir, clock=clock)
    ctx.store.save_resolution(1, {"day": 1, "winner": "mafia"}, resolved_at=msk(14, 20, 1))
    ops = FakeForum()
    report = Daemon(ctx, ops=ops).run(until=msk(25, 0))
    assert report.stopped_by == "game over" and ops.calls == [] and report.winner == "mafia"


def test_one_daemon_per_game_lock(game_dir):
    assert running_pid(game_dir) is None
    with GameLock(game_dir):
        assert running_pid(game_dir) == __import__("os").getpid()
        with pytest.raises(ScraperModError) as e:
            GameLock(game_dir).acquire()
        assert "already running for this game" in str(e.value)
        assert f"pid {__import__('os').getpid()}" in str(e.value)
    assert running_pid(game_dir) is None
    with GameLock(game_dir):                        # free again after release
        pass


def test_status_shows_day_deadline_time_left_and_moves(game_dir):
    clock = FakeClock(msk(15, 17, 30))
    ctx = open_game(game_dir, clock=clock)
    ctx.store.save_resolution(1, {"day": 1, "lynched": {"player": "Вася", "role": "boss",
                                                        "by": "votes"}, "killed": [],
                                  "winner": None}, resolved_at=msk(14, 20, 1))
    raw = "From: masha@example.org\nSubject: ход\n\nпроверить Петю\n".encode()
    ctx.store.add_message("maildir:moves", "1", raw, received_at=msk(15, 9),
                          stored_at=msk(15, 9))
    ctx.store.add_message("maildir:moves", "0", raw, received_at=msk(14, 19),
                          stored_at=msk(14, 19))   # day 1's, not counted for day 2
    st = game_status(ctx)
    assert st.day == 2 and st.deadline == msk(15, 20) and st.topic == topic(2)
    assert st.moves_received == 1 and st.resolved == (1,)
    assert st.movers == ("masha@example.org",)
    text = st.to_text()
    assert "day 2: deadline Fri 2024-03-15 20:00 MSK, 2h 30m left" in text
    assert "jailed Вася (boss, by votes)" in text
    assert "daemon: not running" in text
    assert st.to_json()["seconds_left"] == 9000


def test_topic_title_pattern_and_durations():
    rx = topic_title_regex(r"День\s*{n}\b|Day\s*{n}\b", 4)
    assert rx.search("Мафия #7 — День 4") and rx.search("Day 4: the vote")
    assert not rx.search("Мафия #7 — День 41") and not rx.search("День 14")
    assert fmt_delta(timedelta(hours=2, minutes=5)) == "2h 05m"
    assert fmt_delta(timedelta(seconds=90)) == "1m 30s"
    assert fmt_delta(timedelta(days=2, hours=3)) == "2d 3h"
    assert fmt_delta(-timedelta(minutes=10)) == "-10m"


# -- property: any pattern of downtime ----------------------------------------------------------

DEADLINES = [msk(14, 20), msk(15, 20), msk(17, 20), msk(18, 20), msk(19, 20)]


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 6 * 24 * 60), st.integers(1, 3 * 24 * 60)),
                max_size=4))
def test_any_downtime_resolves_each_day_once_in_order_never_early(tmp_path_factory, outages):
    """Whatever the daemon's outages (start minute, length), every day is resolved exactly
    once, in order, never before deadline + grace, and exactly then if the daemon was running
    (otherwise as soon as it is back)."""
    folder = write_game(tmp_path_factory.mktemp("prop") / "g",
                        {n: topic(n) for n in range(1, 8)})
    with open(folder / "game.toml", "a", encoding="utf-8") as f:
        f.write("\n[schedule]\npoll_minutes = 120\n")
    start, end = msk(13, 21), msk(21, 0)
    down: list[tuple[datetime, datetime]] = []
    for minute, length in sorted(outages):
        a = start + timedelta(minutes=minute)
        b = a + timedelta(minutes=length)
        if down and a <= down[-1][1]:
            down[-1] = (down[-1][0], max(b, down[-1][1]))
        else:
            down.append((a, b))
    clock = FakeClock(start)
    ops = FakeForum(winner_day=5)
    t = start
    last = max([end, *(b for _, b in down)]) + timedelta(days=1)
    for a, b in [*down, (last, last)]:
        if t < a:
            clock.set(t)
            report = daemon(folder, clock, ops).run(until=a)
            if report.stopped_by == "game over":
                break
        t = max(t, b)
    resolves = ops.resolves()
    assert [d for d, _ in resolves] == [1, 2, 3, 4, 5]
    for (day, when), dl in zip(resolves, DEADLINES):
        due = dl + timedelta(seconds=60)
        assert when >= due
        running = not any(a <= due < b for a, b in down)
        if running:
            assert when == due
        else:
            assert when == next(b for a, b in down if a <= due < b)
