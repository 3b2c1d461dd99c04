"""The unattended daemon behind ``scraper-mod run GAME``.

It keeps the game's time (the injected ``Clock``: the real one for hosts, a ``FakeClock`` for
tests and the demo), and does three kinds of work, each a plain function it calls through a
small ``DaemonOps`` interface so that tests can hand it fakes:

* ``poll_once(ctx, day, full=...)``: read the day's topic (incrementally; a full re-scan at the
  deadline) and the move source, store what is new;
* ``resolve_due(ctx, day)``: resolve a day whose deadline has passed and write ``out/day-N/``;
* ``open_next_day(ctx, day)``: find the day's topic: ``[[days]]`` in the game file,
  ``scraper-mod day open GAME N URL``, or the newest topic of ``[forum] forum`` whose title matches
  ``[forum] title_pattern`` («День 4»).

The timing rides on the ``schedule`` library, on a ``Scheduler`` of our own whose jobs read the
injected clock (the library's module-level scheduler reads the wall clock):

* a **poll job**: every ``poll_minutes`` (default 5), every ``final_poll_minutes`` (1) in the
  last ``final_window_minutes`` (30) before the deadline;
* a **deadline-read job** at the deadline itself (RULES R2.11): the first request after it
  reads the day's last page and keeps the version of every post shown (``read_at_deadline``),
  so that an edit phpBB writes no notice for (the topic's last post) made after the deadline
  is told apart at the final count; no other poll comes between the deadline and it;
* a **deadline job**: at deadline + ``grace_seconds`` (60 s, for posts stamped 19:59:59 but
  served late) it runs the final full re-scan and the last read of the move source, resolves,
  logs where the posts are, and opens the next day. A day whose re-scan fails (the forum is
  down) is never resolved on a partial topic: the job retries every ``final_poll_minutes``
  until the forum answers.

Which days are resolved lives in the store, so a restart (mid-day, or after missed deadlines)
simply picks up: every missed deadline is caught up once, in order, and the log says so.
Deadlines come from ``ctx.calendar()`` (R1.3 weekends, R1.4 moved deadlines from ``[[days]]``
and from ``scraper-mod day move``, kept in the store's ``moved_deadlines``).

One daemon per game: ``GameLock`` holds an ``fcntl.flock`` on ``run.lock`` in the game folder.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Protocol

import schedule as schedule_lib

from ..clock import Clock, SystemClock
from ..errors import ConfigError, ForumError, MailboxError, RulesError, ScraperModError
from ..game.config import GAME_FILE, load_game
from ..game.context import GameContext
from ..posts.numbers import number_ranges

log = logging.getLogger("scraper_mod.run")

LOCK_FILE = "run.lock"
MIN_INTERVAL = 1.0  # seconds: a cadence of 0 in the game file means "as often as sensible"


# ---------------------------------------------------------------------------------------------
# What the work functions report
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PollResult:
    """One poll of a day: the topic (when known) and the move source."""

    day: int
    topic: str | None
    full: bool = False
    requests: int = 0
    new_posts: int = 0
    new_versions: int = 0   # edits of posts seen before
    deleted: int = 0
    pages: int = 0
    new_moves: int = 0
    move_error: str | None = None   # the move source failed (the topic poll may still be good)
    errors: tuple[str, ...] = ()    # problems that did not stop the poll (a failed page...)

    def describe(self) -> str:
        what = "full re-scan of" if self.full else "polled"
        parts = [f"{self.new_posts} new post{'s' if self.new_posts != 1 else ''}"]
        if self.new_versions:
            parts.append(f"{self.new_versions} edit{'s' if self.new_versions != 1 else ''}")
        if self.deleted:
            parts.append(f"{self.deleted} deleted")
        topic = (f"{what} {self.topic} ({self.requests} request"
                 f"{'s' if self.requests != 1 else ''}): {', '.join(parts)}"
                 if self.topic else "no topic yet")
        moves = (f"move source failed: {self.move_error}" if self.move_error else
                 f"{self.new_moves} new move message{'s' if self.new_moves != 1 else ''}")
        return f"{topic}; {moves}"


@dataclass(frozen=True)
class Resolution:
    """A resolved day: where its posts are and what they say, in one line."""

    day: int
    out_dir: Path
    files: tuple[str, ...] = ()
    winner: str | None = None
    summary: str = ""


class DaemonOps(Protocol):
    """The work the daemon calls; ``LiveOps`` does it for real, tests pass fakes."""

    def poll(self, ctx: GameContext, day: int, *, full: bool) -> PollResult: ...
    def resolve(self, ctx: GameContext, day: int) -> Resolution: ...
    def find_topic(self, ctx: GameContext, day: int) -> str | None: ...
    # optional: ``read_deadline(ctx, day)`` reads the topic at the deadline (R2.11)


# ---------------------------------------------------------------------------------------------
# The plain functions (the real work)
# ---------------------------------------------------------------------------------------------

def make_client(ctx: GameContext):
    """A ``ForumClient`` for the game's board (``[forum]``), on the game's clock."""
    from ..forum.session import game_client
    if not ctx.game.forum.url:
        raise ConfigError("no [forum] url: the daemon has no board to read",
                          path=str(ctx.game.path), key="forum.url",
                          hint='e.g. url = "https://forum.example.org/"')
    return game_client(ctx)


@dataclass(frozen=True)
class _Fetched:
    """A move source whose fetch already happened (hands its report to ``poll_moves``)."""

    name: str
    report: object

    def fetch_new(self, store, *, now):
        return self.report


def poll_moves_once(ctx: GameContext, *, answer: bool = True,
                    client=None) -> tuple[int, tuple[str, ...]]:
    """Read the move source once: (new messages stored, per-message problems).

    The messages are stored raw by the source; the move intake then judges and answers them.
    The intake re-reads every stored letter, so on an idle poll (nothing new, no SMTP
    answers to retry) it is skipped unless ``answer``. Without ``[moves] source`` there is
    nothing to read. A source that cannot be read at all raises ``MailboxError``. The phpBB
    PM source reads over ``client`` (default: the game's one client, ``game_client``), the
    same session as the topic.
    """
    if not ctx.game.moves.source:
        return 0, ()
    from ..forum.session import game_client
    from ..moves.intake import poll_moves
    from ..moves.sources import source_for
    source = source_for(ctx.game, client_factory=lambda: client or game_client(ctx))
    fetch = source.fetch_new(ctx.store, now=ctx.now())
    errors = tuple(fetch.errors)
    if fetch.new or errors or answer or ctx.game.moves.smtp_host:
        report = poll_moves(ctx, source=_Fetched(source.name, fetch))
        errors += tuple(e for e in report.errors if e not in errors)
    return len(fetch.new), errors


def poll_once(ctx: GameContext, day: int, *, full: bool = False, client=None,
              answer_moves: bool = True) -> PollResult:
    """Poll day ``day``'s topic (a full re-scan when ``full``) and the move source.

    A full re-scan that cannot read every page raises (the caller holds the resolution);
    an incremental poll reports its problems in ``errors``. A move-source error is reported
    in ``move_error`` by an incremental poll, so one broken mailbox does not stop the vote
    count, and raised by the final (full) poll, so no day is resolved without its moves.
    """
    topic = ctx.topic_for_day(day)
    report = None
    if topic:
        from ..forum.poller import poll_topic
        client = client or make_client(ctx)
        report = poll_topic(client, ctx.store, topic, now=ctx.now, full=full,
                            board_tz=ctx.game.timezone)
    move_error = None
    move_problems: tuple[str, ...] = ()
    try:
        new_moves, move_problems = poll_moves_once(ctx, answer=full or answer_moves,
                                                   client=client)
    except MailboxError as e:
        if full:
            raise
        new_moves, move_error = 0, str(e)

    def n(name: str) -> int:
        v = getattr(report, name, 0) if report is not None else 0
        return len(v) if isinstance(v, (list, tuple, set, frozenset, dict)) else int(v or 0)

    errors = tuple(getattr(report, "errors", ()) or ()) + move_problems
    if full and report is not None and (errors or not getattr(report, "complete", True)):
        first = errors[0] if errors else "the last page was not reached"
        raise ForumError(f"the final re-scan of day {day}'s topic is incomplete: {first}",
                         url=topic, hint="it is tried again until the board answers")
    if full and move_problems:
        raise MailboxError(f"the last read of the moves failed: {move_problems[0]}",
                           hint="check the message named; it is tried again")
    return PollResult(day=day, topic=topic, full=full, requests=n("requests"),
                      new_posts=n("new_posts"), new_versions=n("new_versions"),
                      deleted=n("deleted"), pages=n("pages"), new_moves=new_moves,
                      move_error=move_error, errors=errors)


def resolve_due(ctx: GameContext, day: int) -> Resolution:
    """Resolve day ``day`` (its deadline has passed and its final re-scan is done) and write
    ``out/day-N/`` (``resolving.resolve_day_files``, offline: the daemon re-scanned already).
    The store then holds the day's resolution."""
    from ..game.resolve import resolve_day_files
    out = resolve_day_files(ctx, day, offline=True)
    result = out.result.to_json()
    return Resolution(day=day, out_dir=out.out_dir, files=tuple(sorted(out.files)),
                      winner=result.get("winner"), summary=summarize_result(result))


def summarize_result(result: dict | None) -> str:
    """One line about a resolved day (CONTRACT resolve JSON): jailed, killed, winner."""
    if not result:
        return ""
    if isinstance(result.get("result"), dict):
        result = result["result"]
    parts = []
    lyn = result.get("lynched")
    if lyn:
        parts.append(f"jailed {lyn['player']} ({lyn['role']}, by {lyn['by']})")
    else:
        parts.append("nobody jailed")
    killed = result.get("killed") or []
    if killed:
        parts.append("killed " + ", ".join(f"{k['player']} ({k['role']}, by {k['by']})"
                                           for k in killed))
    else:
        parts.append("nobody killed at night")
    if result.get("winner"):
        parts.append(f"the game is over: {result['winner']} wins")
    return "; ".join(parts)


def topic_title_regex(pattern: str, day: int) -> re.Pattern:
    """``[forum] title_pattern`` with ``{n}`` replaced by the day number."""
    try:
        return re.compile(pattern.replace("{n}", str(day)), re.IGNORECASE)
    except re.error as e:
        raise ConfigError(f"not a valid regular expression: {e}", key="forum.title_pattern",
                          hint=r'e.g. "День\s*{n}\b" ({n} is the day number)') from None


def open_next_day(ctx: GameContext, day: int, *, client=None) -> str | None:
    """Day ``day``'s topic URL: already known (``[[days]]``, ``day open``), or found among the
    topics of ``[forum] forum`` by ``title_pattern``; a found topic is remembered."""
    known = ctx.topic_for_day(day)
    if known or not ctx.game.forum.forum:
        return known
    from ..forum.parser import parse_forum_page
    from ..forum.poller import canonical_topic_url
    rx = topic_title_regex(ctx.game.forum.title_pattern, day)
    client = client or make_client(ctx)
    page = client.get_page(ctx.game.forum.forum)
    links = parse_forum_page(page.body, url=page.url)
    used = {v for k, v in ctx.store.get("day_topics", {}).items() if k != str(day)}
    used |= {d.topic for d in ctx.game.days if d.topic and d.number != day}
    def canon(u: str) -> str | None:
        try:
            return canonical_topic_url(u)    # no session id, no page
        except ForumError:
            return None

    used = {canon(u) for u in used}
    found = [t for t in links if rx.search(t.title or "") and canon(t.url)
             and canon(t.url) not in used]
    if not found:
        return None
    best = max(found, key=lambda t: (t.topic_id or 0))   # the newest, if several match
    url = canon(best.url)
    ctx.set_topic_for_day(day, url)
    ctx.store.log_event("day_opened", {"day": day, "topic": url, "title": best.title,
                                       "how": "forum"}, at=ctx.now())
    return url


class LiveOps:
    """The real work: one ``ForumClient`` kept for the daemon's life (its session, its pace)."""

    def __init__(self, client=None) -> None:
        self._client = client
        self._answered_once = False   # the first poll answers anything left from before

    def client(self, ctx: GameContext):
        if self._client is None:
            self._client = make_client(ctx)
        return self._client

    def poll(self, ctx: GameContext, day: int, *, full: bool) -> PollResult:
        client = self.client(ctx) if ctx.topic_for_day(day) else None
        res = poll_once(ctx, day, full=full, client=client,
                        answer_moves=not self._answered_once)
        self._answered_once = True
        return res

    def resolve(self, ctx: GameContext, day: int) -> Resolution:
        return resolve_due(ctx, day)

    def read_deadline(self, ctx: GameContext, day: int):
        """R2.11: the day's topic read at its deadline (``forum.poller.read_at_deadline``)."""
        from ..forum.poller import read_at_deadline
        return read_at_deadline(self.client(ctx), ctx.store, ctx.topic_for_day(day),
                                deadline=ctx.calendar().deadline(day), now=ctx.now,
                                board_tz=ctx.game.timezone)

    def find_topic(self, ctx: GameContext, day: int) -> str | None:
        if ctx.topic_for_day(day) or not ctx.game.forum.forum:
            return ctx.topic_for_day(day)
        return open_next_day(ctx, day, client=self.client(ctx))


# ---------------------------------------------------------------------------------------------
# The schedule library on an injected clock
# ---------------------------------------------------------------------------------------------

def _naive_utc(t: datetime) -> datetime:
    return t.astimezone(timezone.utc).replace(tzinfo=None)


class ClockJob(schedule_lib.Job):
    """A ``schedule.Job`` whose next run is chosen by a function of the injected clock.

    ``next_at(now)`` returns the aware instant of the next run, or None to cancel the job.
    The library's own bookkeeping (``next_run``, ``last_run``, ordering) is kept, in naive
    UTC as the library expects.
    """

    def __init__(self, scheduler: "ClockScheduler", next_at: Callable[[datetime], datetime | None],
                 name: str) -> None:
        super().__init__(1, scheduler)
        self.unit = "seconds"
        self.clock = scheduler.clock
        self.next_at = next_at
        self.name = name

    def _schedule_next_run(self) -> None:
        at = self.next_at(self.clock.now())
        self.next_run = _naive_utc(at) if at is not None else None

    @property
    def should_run(self) -> bool:
        return self.next_run is not None and _naive_utc(self.clock.now()) >= self.next_run

    def run(self):
        ret = self.job_func()
        self.last_run = _naive_utc(self.clock.now())
        self._schedule_next_run()
        if self.next_run is None:
            return schedule_lib.CancelJob
        return ret

    def reschedule(self) -> None:
        """Recompute the next run now (the calendar or the game changed)."""
        self._schedule_next_run()

    def __repr__(self) -> str:
        return f"<ClockJob {self.name} next={self.next_run}>"


class ClockScheduler(schedule_lib.Scheduler):
    """``schedule.Scheduler`` reading the injected clock instead of the wall clock."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def add(self, name: str, next_at: Callable[[datetime], datetime | None],
            func: Callable[[], object]) -> ClockJob:
        job = ClockJob(self, next_at, name)
        return job.do(func)

    def run_pending(self) -> None:
        for job in sorted(j for j in self.jobs if j.should_run):
            self._run_job(job)

    @property
    def idle_seconds(self) -> float | None:
        runs = [j.next_run for j in self.jobs if j.next_run is not None]
        if not runs:
            return None
        return (min(runs) - _naive_utc(self.clock.now())).total_seconds()


# ---------------------------------------------------------------------------------------------
# The lock
# ---------------------------------------------------------------------------------------------

class GameLock:
    """One ``scraper-mod run`` per game: an exclusive ``flock`` on ``run.lock`` in the game
    folder, holding the daemon's pid. The kernel drops it when the process dies."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> "GameLock":
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise ScraperModError(f"{self.path}: cannot create the lock file: {e}",
                                  hint="check that the game folder is writable") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pid = _read_pid(fd)
            os.close(fd)
            raise ScraperModError(
                f"{self.path}: another 'scraper-mod run' is already running for this game"
                + (f" (pid {pid})" if pid else ""),
                hint="stop it first (Ctrl-C or kill its pid); two daemons would poll and "
                     "resolve twice") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, 0)
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> "GameLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _read_pid(fd: int) -> int | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        raw = os.read(fd, 32).decode().strip()
        return int(raw) if raw else None
    except (OSError, ValueError):
        return None


def running_pid(folder: Path) -> int | None:
    """The pid of the ``scraper-mod run`` holding the game's lock, or None if none runs."""
    path = Path(folder) / LOCK_FILE
    if not path.exists():
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        pid = _read_pid(fd)
        os.close(fd)
        return pid or -1
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)
    return None


# ---------------------------------------------------------------------------------------------
# The daemon
# ---------------------------------------------------------------------------------------------

@dataclass
class RunReport:
    """What one ``Daemon.run`` did (tests and the demo read it)."""

    polls: int = 0
    resolved: list[int] = field(default_factory=list)
    caught_up: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    winner: str | None = None
    stopped_by: str = ""      # "game over" | "stop" | "until"


class Daemon:
    """``scraper-mod run``: polls, resolves at each deadline, opens the next day.

    ``Daemon(ctx, ops=LiveOps(), stop=threading.Event())``; ``run(until=None)`` returns when
    the game is over, when ``stop`` is set (SIGINT/SIGTERM in the CLI), or at ``until`` (on
    the clock). Every step goes to the ``scraper_mod.run`` logger, stamped in game time.
    """

    def __init__(self, ctx: GameContext, *, ops: DaemonOps | None = None,
                 stop: threading.Event | None = None,
                 on_resolved: Callable[[Resolution], None] | None = None,
                 logger: logging.Logger | None = None) -> None:
        self.ctx = ctx
        self.ops = ops if ops is not None else LiveOps()
        self.stop = stop or threading.Event()
        self.on_resolved = on_resolved
        self.log = logger or log
        self.report = RunReport()
        self.scheduler = ClockScheduler(ctx.clock)
        self._retry_at: datetime | None = None      # the deadline job's retry after a failure
        self._warned_no_topic: set[int] = set()
        self._warned: set[tuple[str, int]] = set()
        self._day_changed = False
        self._cal: tuple | None = None
        self._announced: set[int] = set()
        self._game_mtime = self._mtime()
        self._finished = False
        self._poll_job: ClockJob | None = None
        self._deadline_job: ClockJob | None = None
        self._read_job: ClockJob | None = None
        self._read_done: set[tuple[int, datetime]] = set()   # (day, deadline) read (R2.11)

    # -- time and days ------------------------------------------------------------------------
    @property
    def clock(self) -> Clock:
        return self.ctx.clock

    def now(self) -> datetime:
        return self.ctx.now()

    def calendar(self):
        """``ctx.calendar()``, rebuilt only when the game file or a moved deadline changed."""
        key = (id(self.ctx.game), repr(self.ctx.store.get("moved_deadlines", {})))
        if self._cal is None or self._cal[0] != key:
            self._cal = (key, self.ctx.calendar())
        return self._cal[1]

    def _cfg(self):
        return self.ctx.game.schedule

    def grace(self) -> timedelta:
        return timedelta(seconds=self._cfg().grace_seconds)

    def _seconds(self, minutes: float) -> float:
        return max(MIN_INTERVAL, minutes * 60.0)

    def stamp(self, t: datetime | None = None) -> str:
        t = (t or self.now()).astimezone(self.ctx.game.timezone)
        return t.strftime("%Y-%m-%d %H:%M:%S %Z")

    def _say(self, level: int, msg: str, *args) -> None:
        self.log.log(level, f"[{self.stamp()}] " + msg, *args)

    def info(self, msg: str, *args) -> None:
        self._say(logging.INFO, msg, *args)

    def warn(self, msg: str, *args) -> None:
        self._say(logging.WARNING, msg, *args)

    def error(self, msg: str) -> None:
        self.report.errors.append(msg)
        self._say(logging.ERROR, msg)
        try:
            self.ctx.store.log_event("error", {"message": msg}, at=self.now())
        except ScraperModError:
            pass

    def resolved_days(self) -> set[int]:
        # Only the day numbers: Store.resolutions() would decode every stored day's state.
        return {r[0] for r in self.ctx.store.db.execute("SELECT day FROM resolutions")}

    def winner(self) -> str | None:
        for day, data in sorted(self.ctx.store.resolutions().items()):
            w = data.get("winner") if isinstance(data, dict) else None
            if w is None and isinstance(data, dict) and isinstance(data.get("result"), dict):
                w = data["result"].get("winner")
            if w:
                return w
        return None

    def current_day(self) -> int:
        """The first day not yet resolved: the one being polled and resolved next."""
        done = self.resolved_days()
        n = 1
        while n in done:
            n += 1
        return n

    def due_days(self, now: datetime) -> list[int]:
        """Unresolved days whose deadline + grace has passed, in order."""
        cal = self.calendar()
        done = self.resolved_days()
        cut = cal.last_due_day(now - self.grace())
        return [n for n in range(1, cut + 1) if n not in done]

    # -- the two jobs' timing --------------------------------------------------------------------
    def next_poll_at(self, now: datetime) -> datetime | None:
        """Every poll_minutes; every final_poll_minutes in the final window before the
        deadline (a run never skips over the window's start)."""
        if self._finished:
            return None
        cfg = self._cfg()
        deadline = self.calendar().deadline(self.current_day())
        window = deadline - timedelta(minutes=cfg.final_window_minutes)
        if now < window:
            return min(now + timedelta(seconds=self._seconds(cfg.poll_minutes)), window)
        return now + timedelta(seconds=self._seconds(cfg.final_poll_minutes))

    def next_deadline_at(self, now: datetime) -> datetime | None:
        """Deadline + grace of the first unresolved day, or the retry after a failure."""
        if self._finished:
            return None
        if self._retry_at is not None:
            return self._retry_at
        return self.calendar().deadline(self.current_day()) + self.grace()

    def _read_pending(self, now: datetime) -> int | None:
        """The day whose read at the deadline is due now or next: the current day, unless
        it was read, its deadline + grace passed (the re-scan owns it), or the ops cannot."""
        if self._finished or getattr(self.ops, "read_deadline", None) is None:
            return None
        day = self.current_day()
        deadline = self.calendar().deadline(day)      # a moved deadline is read anew
        if (day, deadline) in self._read_done or now >= deadline + self.grace():
            return None
        return day

    def next_read_at(self, now: datetime) -> datetime | None:
        """The current day's deadline (R2.11), else the next day's (rescheduled anyway)."""
        if self._finished:
            return None
        day = self._read_pending(now)
        if day is None:
            return self.calendar().deadline(self.current_day() + 1)
        return self.calendar().deadline(day)

    def read_job(self) -> None:
        """R2.11: read the day's topic at its deadline and keep what it shows."""
        now = self.now()
        day = self._read_pending(now)
        if day is None or now < self.calendar().deadline(day):
            return
        self._read_done.add((day, self.calendar().deadline(day)))
        if not self.ctx.topic_for_day(day):
            return
        try:
            res = self.ops.read_deadline(self.ctx, day)
        except ScraperModError as e:
            self.error(f"day {day}: reading the topic at the deadline failed: {e}")
            return
        if res.status == "read":
            self.info("day %d: %s", day, res.summary())
        else:
            self.error(f"day {day}: {res.summary()} - the host report will say so")

    # -- the jobs ------------------------------------------------------------------------------
    def poll_job(self) -> None:
        """Poll the current day's topic and the move source (never for a day past its
        deadline + grace: the deadline job owns those)."""
        self._reload_game()
        day = self.current_day()
        now = self.now()
        if self.due_days(now):
            return  # the deadline job re-scans and resolves first
        pending = self._read_pending(now)
        if pending is not None and now >= self.calendar().deadline(pending) - timedelta(
                seconds=2 * self.ctx.game.forum.min_delay):
            return  # the read at the deadline comes first, on an idle client (R2.11)
        topic = self._find_topic(day)
        try:
            res = self.ops.poll(self.ctx, day, full=False)
        except ForumError as e:
            self.error(f"day {day}: polling the topic failed: {e} - will try again at the "
                       "next poll")
            return
        except MailboxError as e:
            self.error(f"day {day}: reading the move source failed: {e} - check [moves] in "
                       "game.toml; will try again at the next poll")
            return
        self.report.polls += 1
        if res.move_error:
            self.error(f"day {day}: reading the move source failed: {res.move_error} - check "
                       "[moves] in game.toml; will try again at the next poll")
        for problem in res.errors:
            self.error(f"day {day}: {problem} - will try again at the next poll")
        left = self.calendar().deadline(day) - now
        self.info("day %d (%s left): %s", day, fmt_delta(left), res.describe())
        if topic is None:
            self._no_topic(day, now)

    def _no_topic(self, day: int, now: datetime) -> None:
        """Say once that the day waits for its topic, and once more (a warning) when the day
        has started without one."""
        starts = self.calendar().day_start(day)
        how = (" (looking for it in the forum by its title)" if self.ctx.game.forum.forum
               else "")
        if now < starts:
            if ("waiting", day) not in self._warned:
                self._warned.add(("waiting", day))
                self.info("day %d starts %s; waiting for its topic%s", day, self.stamp(starts),
                          how)
            return
        if day not in self._warned_no_topic:
            self._warned_no_topic.add(day)
            self.warn("day %d has no topic yet: add it to [[days]] in game.toml, run "
                      "'scraper-mod day open %s %d URL'%s", day, self.ctx.game.folder, day,
                      ", or post it in the configured forum" if self.ctx.game.forum.forum
                      else ", or set [forum] forum and title_pattern")

    def deadline_job(self) -> None:
        """Resolve every day whose deadline + grace has passed, in order."""
        self._reload_game()
        self._retry_at = None
        due = self.due_days(self.now())
        missed = [d for d in due if d not in self._announced]
        if len(due) > 1 and missed:
            self.warn("catching up: the deadlines of days %s passed without a resolution "
                      "(scraper-mod was not running, or the forum was down); resolving them "
                      "now, in order", number_ranges(missed))
            self.report.caught_up.extend(missed)
            self._announced.update(missed)
        for day in due:
            if self.stop.is_set() or not self._resolve_one(day) or self._finished:
                return

    def _retry_later(self) -> timedelta:
        retry = timedelta(seconds=self._seconds(self._cfg().final_poll_minutes))
        self._retry_at = self.now() + retry
        return retry

    def _resolve_one(self, day: int) -> bool:
        cal = self.calendar()
        topic = self._find_topic(day)
        if topic is None:
            retry = self._retry_later()
            msg = (f"day {day}: the deadline ({self.stamp(cal.deadline(day))}) has passed but "
                   f"the day has no topic, so it cannot be resolved: add it to [[days]] in "
                   f"game.toml or run 'scraper-mod day open {self.ctx.game.folder} {day} URL'; "
                   f"checking again every {fmt_delta(retry)}")
            if ("no topic", day) not in self._warned:
                self._warned.add(("no topic", day))
                self.error(msg)
            return False
        try:
            res = self.ops.poll(self.ctx, day, full=True)
        except (ForumError, MailboxError) as e:
            retry = self._retry_later()
            self.error(f"day {day}: the final re-scan at the deadline failed: {e} - day {day} "
                       f"is NOT resolved on a partial topic; trying again in {fmt_delta(retry)}")
            return False
        self.report.polls += 1
        self.info("day %d: final %s", day, res.describe())
        try:
            out = self.ops.resolve(self.ctx, day)
        except (ForumError, MailboxError) as e:
            retry = self._retry_later()
            self.error(f"day {day}: resolving failed: {e}; trying again in {fmt_delta(retry)}")
            return False
        except (RulesError, ConfigError) as e:
            retry = self._retry_later()
            self.error(f"day {day}: cannot be resolved: {e} - fix it (game.toml, "
                       f"'scraper-mod day ...'); trying again in {fmt_delta(retry)}")
            return False
        self._day_changed = True
        self.report.resolved.append(day)
        self.ctx.store.log_event("resolved", {"day": day, "out": str(out.out_dir),
                                              "winner": out.winner}, at=self.now())
        self.info("day %d resolved%s; the posts are in %s: %s", day,
                  f" ({out.summary})" if out.summary else "", out.out_dir,
                  ", ".join(out.files) if out.files else "(no files)")
        if out.files:
            self.info("to post: newspaper.bbcode in the results topic, day-start.bbcode as "
                      "the next day's first post, pm/<nick>.txt to each player; read "
                      "host-report.txt first")
        if self.on_resolved is not None:
            self.on_resolved(out)
        if out.winner:
            self.report.winner = out.winner
            self._finished = True
            self.info("the game is over (%s wins); scraper-mod run stops", out.winner)
            return True
        nxt = day + 1
        self.info("day %d: deadline %s", nxt, self.stamp(cal.deadline(nxt)))
        self._find_topic(nxt)
        return True

    def _find_topic(self, day: int) -> str | None:
        known = self.ctx.topic_for_day(day)
        if known:
            return known
        try:
            url = self.ops.find_topic(self.ctx, day)
        except ScraperModError as e:
            self.error(f"day {day}: looking for the day's topic in the forum failed: {e}")
            return None
        if url:
            if self.ctx.topic_for_day(day) != url:
                self.ctx.set_topic_for_day(day, url)
            self.info("day %d opened: %s", day, url)
        return url

    def _mtime(self) -> float | None:
        try:
            return self.ctx.game.path.stat().st_mtime
        except OSError:
            return None

    def _reload_game(self) -> None:
        """Pick up edits of game.toml ([[days]], moved deadlines...) without a restart."""
        m = self._mtime()
        if m is None or m == self._game_mtime:
            return
        self._game_mtime = m
        try:
            self.ctx.game = load_game(self.ctx.game.path)
        except ConfigError as e:
            self.error(f"{GAME_FILE} changed but cannot be used: {e} - still running with "
                       "the previous version; fix the file")
            return
        self.info("%s changed: reloaded", self.ctx.game.path)

    # -- the loop -----------------------------------------------------------------------------
    def _guard(self, name: str, func: Callable[[], None]) -> Callable[[], None]:
        def job() -> None:
            try:
                func()
            except ScraperModError as e:
                if name == "deadline":
                    self._retry_later()
                self.error(f"{name}: {e}")
            except Exception as e:  # keep a weeks-long daemon alive; say what broke
                if name == "deadline":
                    self._retry_later()
                self.report.errors.append(f"{name}: {e!r}")
                self.log.exception("[%s] internal error in the %s job (please report it); "
                                   "the daemon goes on", self.stamp(), name)
        return job

    def start(self) -> None:
        """Announce the game and set up the jobs (``run`` calls it)."""
        if self._poll_job is not None:
            return
        cal = self.calendar()
        g = self.ctx.game
        now = self.now()
        self._finished = self.winner() is not None
        if self._finished:
            self.info("%s: the game is already over (%s wins); nothing to do", g.title,
                      self.winner())
            return
        day = self.current_day()
        cfg = self._cfg()
        self.info("%s: running; day %d, deadline %s (%s); polls every %s, every %s in the "
                  "last %s; resolves %s after the deadline", g.title, day,
                  self.stamp(cal.deadline(day)), fmt_delta(cal.deadline(day) - now),
                  fmt_delta(timedelta(seconds=self._seconds(cfg.poll_minutes))),
                  fmt_delta(timedelta(seconds=self._seconds(cfg.final_poll_minutes))),
                  fmt_delta(timedelta(minutes=cfg.final_window_minutes)),
                  fmt_delta(self.grace()))
        due = self.due_days(now)
        if due:
            self.warn("catching up: the deadline%s of day%s %s passed while scraper-mod was "
                      "not running; resolving %s now, in order",
                      "s" if len(due) > 1 else "", "s" if len(due) > 1 else "",
                      number_ranges(due), "them" if len(due) > 1 else "it")
            self.report.caught_up.extend(due)
            self._announced.update(due)
        self._deadline_job = self.scheduler.add("deadline", self.next_deadline_at,
                                                self._guard("deadline", self.deadline_job))
        self._poll_job = self.scheduler.add("poll", self.next_poll_at,
                                            self._guard("poll", self.poll_job))
        if getattr(self.ops, "read_deadline", None) is not None:
            self._read_job = self.scheduler.add("deadline read", self.next_read_at,
                                                self._guard("deadline read", self.read_job))
        # A due deadline first (its next run is in the past), then a poll right away.
        self._poll_job.next_run = _naive_utc(now)

    def run(self, *, until: datetime | None = None) -> RunReport:
        """Run until the game is over, ``stop`` is set, or the clock reaches ``until``."""
        self.start()
        while True:
            if self._finished:
                self.report.stopped_by = "game over"
                break
            if self.stop.is_set():
                self.report.stopped_by = "stop"
                break
            now = self.now()
            if until is not None and now >= until:
                self.report.stopped_by = "until"
                break
            self.scheduler.run_pending()
            if self._finished or self.stop.is_set():
                continue
            # The deadline's instant is a function of the store (a resolved day, a moved
            # deadline); after a resolution the new day is polled at once.
            if self._deadline_job in self.scheduler.jobs:
                self._deadline_job.reschedule()
            if self._read_job in self.scheduler.jobs:
                self._read_job.reschedule()
            if self._day_changed and self._poll_job in self.scheduler.jobs:
                self._day_changed = False
                self._poll_job.next_run = _naive_utc(self.now())
            idle = self.scheduler.idle_seconds
            if idle is None:
                self.report.stopped_by = "game over"
                break
            wait = max(0.0, idle)
            if until is not None:
                wait = min(wait, (until - self.now()).total_seconds())
            self._sleep(max(0.0, wait))
        self.scheduler.clear()
        self._poll_job = self._deadline_job = self._read_job = None
        self.report.winner = self.report.winner or self.winner()
        return self.report

    def _sleep(self, seconds: float) -> None:
        if isinstance(self.clock, SystemClock):
            self.stop.wait(seconds)  # a signal handler sets stop: wake at once
        else:
            self.clock.sleep(seconds)


def fmt_delta(d: timedelta) -> str:
    """A duration for the log: ``2d 3h``, ``1h 05m``, ``4m 30s``, ``-10m`` (past)."""
    s = int(round(d.total_seconds()))
    sign = "-" if s < 0 else ""
    s = abs(s)
    days, rem = divmod(s, 86400)
    h, rem = divmod(rem, 3600)
    m, sec = divmod(rem, 60)
    if days:
        return f"{sign}{days}d {h}h"
    if h:
        return f"{sign}{h}h {m:02d}m"
    if m:
        return f"{sign}{m}m" + (f" {sec:02d}s" if sec else "")
    return f"{sign}{sec}s"


# ---------------------------------------------------------------------------------------------
# `scraper-mod status`
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GameStatus:
    """Where a game stands (``scraper-mod status``)."""

    title: str
    timezone: str
    now: datetime
    day: int
    topic: str | None
    day_start: datetime
    deadline: datetime
    moved: bool
    leaders: tuple[tuple[str, int], ...]   # the top of the count: (nick, votes), ties included
    votes_counted: int | None
    tally_note: str | None                 # why there is no count
    moves_received: int
    movers: tuple[str, ...]                # senders of this day's move messages, when known
    resolved: tuple[int, ...]
    last_result: str
    winner: str | None
    daemon_pid: int | None
    last_fetch: datetime | None

    def to_json(self) -> dict:
        left = (self.deadline - self.now).total_seconds()
        return {
            "title": self.title, "now": self.now.isoformat(), "day": self.day,
            "topic": self.topic, "day_start": self.day_start.isoformat(),
            "deadline": self.deadline.isoformat(), "deadline_moved": self.moved,
            "seconds_left": max(0, int(left)),
            "leaders": [{"target": t, "votes": v} for t, v in self.leaders],
            "votes_counted": self.votes_counted, "tally_note": self.tally_note,
            "moves_received": self.moves_received, "movers": list(self.movers),
            "resolved": list(self.resolved), "winner": self.winner,
            "daemon_pid": self.daemon_pid,
            "last_fetch": self.last_fetch.isoformat() if self.last_fetch else None,
        }

    def to_text(self) -> str:
        tz = self.deadline.tzinfo

        def t(x: datetime) -> str:
            return x.astimezone(tz).strftime("%a %Y-%m-%d %H:%M %Z")

        lines = [self.title]
        if self.winner:
            lines.append(f"the game is over: {self.winner} wins (resolved days "
                         f"{', '.join(map(str, self.resolved))})")
            if self.last_result:
                lines.append(f"last day: {self.last_result}")
            return "\n".join(lines)
        left = self.deadline - self.now
        lines.append(f"day {self.day}: deadline {t(self.deadline)}"
                     f"{' (moved)' if self.moved else ''}, "
                     + (f"{fmt_delta(left)} left" if left.total_seconds() > 0
                        else f"passed {fmt_delta(-left)} ago, not resolved yet"))
        lines.append(f"topic: {self.topic or '(none yet: scraper-mod day open GAME DAY URL)'}")
        if self.leaders:
            lead = ", ".join(f"{n} ({v})" for n, v in self.leaders)
            word = "leaders (tied)" if len(self.leaders) > 1 else "leader"
            lines.append(f"{word}: {lead}; {self.votes_counted} vote"
                         f"{'' if self.votes_counted == 1 else 's'} counted")
        else:
            lines.append(f"leader: none{f' ({self.tally_note})' if self.tally_note else ''}")
        who = f" from {', '.join(self.movers)}" if self.movers else ""
        lines.append(f"moves received this day: {self.moves_received}{who}")
        if self.resolved:
            lines.append(f"resolved days: {', '.join(map(str, self.resolved))}"
                         + (f"; day {self.resolved[-1]}: {self.last_result}"
                            if self.last_result else ""))
        lines.append("daemon: " + (f"running (pid {self.daemon_pid})" if self.daemon_pid
                                   else "not running (start it with 'scraper-mod run GAME')"))
        if self.last_fetch:
            ago = self.now - self.last_fetch
            lines.append(f"last forum fetch: {t(self.last_fetch)}"
                         + (f" ({fmt_delta(ago)} ago)" if ago.total_seconds() >= 60 else ""))
        return "\n".join(lines)


def _leaders(ctx: GameContext, day: int, now: datetime) -> tuple[tuple, int | None, str | None]:
    """The top of the day's count as of now, from the stored posts (no polling)."""
    if not ctx.topic_for_day(day):
        return (), None, "no topic yet"
    try:
        from ..game.tally import tally_day
        tally = tally_day(ctx, day, as_of=now)
    except ImportError:
        return (), None, "the vote count is not available in this build"
    except ScraperModError as e:
        return (), None, str(e)
    data = tally.to_json() if hasattr(tally, "to_json") else tally
    counts = data.get("counts", []) if isinstance(data, dict) else []
    votes = data.get("votes", []) if isinstance(data, dict) else []
    if not counts:
        return (), len(votes), "no votes yet"
    top = counts[0]["votes"]
    return (tuple((c["target"], c["votes"]) for c in counts if c["votes"] == top),
            len(votes), None)


def _moves_received(ctx: GameContext, day: int) -> tuple[int, tuple[str, ...]]:
    """Move messages received for day ``day``: after the previous deadline, by this one."""
    cal = ctx.calendar()
    lo = cal.deadline(day - 1) if day > 1 else None
    hi = cal.deadline(day)
    msgs = [m for m in ctx.store.messages()
            if (lo is None or m.received_at > lo) and m.received_at <= hi]
    from ..moves.intake import read_letter
    senders: list[str] = []
    for m in msgs:
        s = read_letter(m).sender        # mail, queue file or phpBB PM; None if unreadable
        if s and s not in senders:
            senders.append(s)
    nick_of = {(p.contact or "").lower(): p.nick for p in ctx.game.players if p.contact}
    return len(msgs), tuple(nick_of.get(s.lower(), s) for s in senders)


def game_status(ctx: GameContext) -> GameStatus:
    """The game's status as of ``ctx.now()`` (reads the store; never polls)."""
    now = ctx.now()
    cal = ctx.calendar()
    done = ctx.store.resolutions()
    day = 1
    while day in done:
        day += 1
    winner = None
    last = ""
    for n in sorted(done):
        data = done[n]
        if isinstance(data, dict) and isinstance(data.get("result"), dict):
            data = data["result"]
        winner = winner or (data.get("winner") if isinstance(data, dict) else None)
        last = summarize_result(data if isinstance(data, dict) else None)
    leaders, counted, note = ((), None, None) if winner else _leaders(ctx, day, now)
    received, movers = (0, ()) if winner else _moves_received(ctx, day)
    row = ctx.store.db.execute("SELECT MAX(fetched_at) FROM fetches").fetchone()
    return GameStatus(
        title=ctx.game.title, timezone=ctx.game.timezone.key, now=now, day=day,
        topic=ctx.topic_for_day(day), day_start=cal.day_start(day), deadline=cal.deadline(day),
        moved=cal.is_moved(day), leaders=leaders, votes_counted=counted, tally_note=note,
        moves_received=received, movers=movers, resolved=tuple(sorted(done)), last_result=last,
        winner=winner, daemon_pid=running_pid(ctx.game.folder),
        last_fetch=datetime.fromisoformat(row[0]) if row and row[0] else None)
