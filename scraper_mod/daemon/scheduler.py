"""One game's jobs in the daemon behind ``scraper-mod run`` (``daemon/many.py``).

It keeps the game's time (the injected ``Clock``: the real one for hosts, a ``FakeClock`` for
tests and the demo), and does three kinds of work, each a plain function of
``daemon/work.py`` it calls through a small ``DaemonOps`` interface (``LiveOps`` for real) so
that tests can hand it fakes: poll the day's topic and the move source, resolve a day whose
deadline has passed, find the next day's topic.

The timing: four jobs whose next run is a function of the injected clock and the store
(``plan``; ``next_due`` and ``run_job`` run them, in the lane of ``daemon/many.py``, which
hosts every game of ``scraper-mod run``, or in ``Daemon.run`` for one embedded game: the
demo, the tests). When several are due at once they run in this order:

* the **deadline-read job** (``SNAPSHOT``) at the deadline itself (RULES R2.11): the first
  request after it reads the day's last page and keeps the version of every post shown
  (``read_at_deadline``), so that an edit the board writes no notice for (the topic's last post)
  made after the deadline is told apart at the final count; no other poll comes between the
  deadline and it;
* the **deadline job** (``RESCAN``): at deadline + ``grace_seconds`` (60 s, for posts stamped
  19:59:59 but served late) it runs the final full re-scan and the last read of the move
  source, resolves, logs where the posts are (on autopilot posts the newspaper), and opens
  the next day. A day whose re-scan fails (the forum is down) is never resolved on a
  partial topic: the job retries every ``final_poll_minutes`` until the forum answers;
* the **daytime job** (``CHORE``, when the ops have chores: the autopilot's scheduled counts
  and reminders, docs/daytime.md);
* the **poll job** (``POLL``): every ``poll_minutes`` (default 5), every
  ``final_poll_minutes`` (1) in the last ``final_window_minutes`` (30) before the deadline.

Which days are resolved lives in the store, so a restart (mid-day, or after missed deadlines)
simply picks up: every missed deadline is caught up once, in order, and the log says so.
Deadlines come from ``ctx.calendar()`` (R1.3 weekends, R1.4 moved deadlines from ``[[days]]``
and from ``scraper-mod day move``, kept in the store's ``moved_deadlines``).

One daemon per game: ``daemon/lock.py``'s ``GameLock``. Where a game stands: ``daemon/status.py``.
"""

# long: one game's jobs, their timing, order and messages in one place, shared by the lane
# of daemon/many.py and Daemon.run

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable

from scraper_mod.game.results.resolve import finish_cascade
from scraper_mod.game.setup.config import GAME_FILE, load_game

from ..clock import Clock, SystemClock
from ..errors import (
    ConfigError,
    ForumError,
    LoginRequiredError,
    MailboxError,
    RulesError,
    ScraperModError,
)
from ..game.context import GameContext
from ..game.russian import error_in
from ..posts.dayfolder import day_start_name
from ..posts.numbers import number_ranges
from ..rules.calendar import Calendar
from .status import fmt_delta
from .work import DaemonOps, LiveOps, Resolution

log = logging.getLogger("scraper_mod.run")

JOB_RU = {"deadline": "итоги в срок", "poll": "чтение форума", "deadline read": "чтение в срок"}
# the game's jobs, in the order they run when due at once (``Daemon.due``, ``run_job``)
SNAPSHOT, RESCAN, CHORE, POLL = 0, 1, 2, 3
KIND_NAMES = {SNAPSHOT: "deadline snapshot", RESCAN: "deadline", CHORE: "daytime",
              POLL: "poll"}
MIN_INTERVAL = 1.0  # seconds: a cadence of 0 in the game file means "as often as sensible"


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
                 on_resolved: Callable[[Resolution], object] | None = None,
                 logger: logging.Logger | logging.LoggerAdapter | None = None) -> None:
        self.ctx = ctx
        self.ops = ops if ops is not None else LiveOps()
        self.stop = stop or threading.Event()
        self.on_resolved = on_resolved
        self.log = logger or log
        self.report = RunReport()
        self.due: dict[int, datetime | None] = {}   # job kind -> its next run
        self._retry_at: datetime | None = None      # the deadline job's retry after a failure
        self._warned_no_topic: set[int] = set()
        self._warned: set[tuple[str, int]] = set()
        self._day_changed = False
        self._cal: tuple | None = None
        self._announced: set[int] = set()
        self._game_mtime = self._mtime()
        self._finished = False
        self._read_done: set[tuple[int, datetime]] = set()   # (day, deadline) read (R2.11)

    # -- time and days ------------------------------------------------------------------------
    @property
    def clock(self) -> Clock:
        return self.ctx.clock

    def now(self) -> datetime:
        return self.ctx.now()

    def calendar(self) -> Calendar:
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

    def info(self, msg: str, *args: object) -> None:
        self._say(logging.INFO, msg, *args)

    def warn(self, msg: str, *args: object) -> None:
        self._say(logging.WARNING, msg, *args)

    def error(self, msg: str, ru: str | None = None, *, alert: str | None = None,
              day: int | None = None, alert_ru: str | None = None) -> None:
        """Log ``msg`` and keep it for ``status`` and the page; ``ru``: the same in Russian,
        which the page of a game in Russian shows; with ``alert`` (its kind), also tell the
        host when the ops can (``alert_host``, docs/daytime.md)."""
        self.report.errors.append(msg)
        self._say(logging.ERROR, msg)
        try:
            self.ctx.store.log_event("error", {"message": msg, **({"ru": ru} if ru else {})},
                                     at=self.now())
        except ScraperModError:
            pass
        tell = getattr(self.ops, "alert", None)
        if alert is not None and tell is not None:
            try:
                # issue 39: a Russian game's alert gets a Russian line (``alert_ru``)
                tell(self.ctx, alert, msg, day, detail_ru=alert_ru)
            except Exception as e:  # noqa: BLE001 - an alert never stops the daemon
                self._say(logging.WARNING, f"the host could not be alerted: {e!r}")

    def resolved_days(self) -> set[int]:
        return self.ctx.store.resolved_days()

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

    def next_chore_at(self, now: datetime) -> datetime | None:
        """The current day's next count or reminder (docs/daytime.md); with none left, a
        look again after its deadline (the next day's are planned then)."""
        if self._finished:
            return None
        if self.due_days(now):
            # past the deadline: the deadline job comes first (or its retry), then the
            # next day's chores are planned; never a chore due again and again meanwhile
            nxt = self.next_deadline_at(now)
            return (nxt if nxt is not None and nxt > now else
                    now + timedelta(seconds=self._seconds(self._cfg().final_poll_minutes)))
        day = self.current_day()
        at = self.ops.next_chore_at(self.ctx, day, now)  # type: ignore[attr-defined]
        return at if at is not None else self.calendar().deadline(day) + self.grace()

    def chore_job(self) -> None:
        """The day's scheduled counts and reminders (the ops decide what is due)."""
        if self.due_days(self.now()):
            return      # past the deadline: the deadline job comes first, then the next day
        self.ops.chores(self.ctx, self.current_day())  # type: ignore[attr-defined]

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
            read = getattr(self.ops, "read_deadline")   # optional in DaemonOps (checked)
            res = read(self.ctx, day)
        except ScraperModError as e:
            self.error(f"day {day}: reading the topic at the deadline failed: {e}",
                       f"день {day}: тему не прочитать в срок: {error_in(e, 'ru')}",
                       alert="deadline-read", day=day,
                       alert_ru=f"день {day}: тему не прочитать в срок: {error_in(e, 'ru')}")
            return
        if res.status == "read":
            self.info("day %d: %s", day, res.summary())
        else:
            self.error(f"day {day}: {res.summary()} - the host report will say so",
                       f"день {day}: {res.summary()} — это будет в отчёте ведущему",
                       alert="deadline-read", day=day,
                       alert_ru=f"день {day}: тема прочитана в срок не полностью — это будет в "
                                "отчёте ведущему")

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
                       "next poll", f"день {day}: тему не прочитать: {error_in(e, 'ru')} — "
                                    "следующая попытка "
                                    "при следующем чтении",
                       alert="login" if isinstance(e, LoginRequiredError) else None, day=day,
                       alert_ru=f"день {day}: тему не прочитать: {error_in(e, 'ru')}")
            return
        except MailboxError as e:
            self.error(f"day {day}: reading the move source failed: {e} - check [moves] in "
                       "game.toml; will try again at the next poll",
                       f"день {day}: ходы не прочитать: {error_in(e, 'ru')} — "
                       "проверьте [moves] в game.toml; "
                       "следующая попытка при следующем чтении")
            return
        self.report.polls += 1
        if res.move_error:
            self.error(f"day {day}: reading the move source failed: {res.move_error} - check "
                       "[moves] in game.toml; will try again at the next poll",
                       f"день {day}: ходы не прочитать: {res.move_error} — проверьте [moves] "
                       "в game.toml; следующая попытка при следующем чтении")
        for problem in res.errors:
            self.error(f"day {day}: {problem} - will try again at the next poll",
                       f"день {day}: {problem} — следующая попытка при следующем чтении")
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
                self.error(msg, f"день {day}: срок ({self.stamp(cal.deadline(day))}) прошёл, "
                                f"а темы дня нет, итоги не подвести: добавьте её в [[days]] в "
                                f"game.toml или выполните scraper-mod day open "
                                f"{self.ctx.game.folder} {day} URL")
            return False
        try:
            res = self.ops.poll(self.ctx, day, full=True)
        except (ForumError, MailboxError) as e:
            retry = self._retry_later()
            self.error(f"day {day}: the final re-scan at the deadline failed: {e} - day {day} "
                       f"is NOT resolved on a partial topic; trying again in {fmt_delta(retry)}",
                       f"день {day}: последнее чтение темы в срок не удалось: "
                       f"{error_in(e, 'ru')} — итоги по "
                       f"неполной теме НЕ подводятся; новая попытка через "
                       f"{fmt_delta(retry, 'ru')}",
                       alert="rescan", day=day)
            return False
        self.report.polls += 1
        self.info("day %d: final %s", day, res.describe())
        try:
            out = self.ops.resolve(self.ctx, day)
        except (ForumError, MailboxError) as e:
            retry = self._retry_later()
            self.error(f"day {day}: resolving failed: {e}; trying again in {fmt_delta(retry)}",
                       f"день {day}: итоги не подведены: {error_in(e, 'ru')}; новая попытка через "
                       f"{fmt_delta(retry, 'ru')}",
                       alert="rescan", day=day)
            return False
        except (RulesError, ConfigError) as e:
            retry = self._retry_later()
            self.error(f"day {day}: cannot be resolved: {e} - fix it (game.toml, "
                       f"'scraper-mod day ...'); trying again in {fmt_delta(retry)}",
                       f"день {day}: итоги не подвести: {error_in(e, 'ru')} — "
                       "исправьте (game.toml, "
                       f"scraper-mod day ...); новая попытка через "
                       f"{fmt_delta(retry, 'ru')}",
                       alert="rescan", day=day)
            return False
        self._day_changed = True
        self.report.resolved.append(day)
        self.ctx.store.log_event("resolved", {"day": day, "out": str(out.out_dir),
                                              "winner": out.winner}, at=self.now())
        self.info("day %d resolved%s; the posts are in %s: %s", day,
                  f" ({out.summary})" if out.summary else "", out.out_dir,
                  ", ".join(out.files) if out.files else "(no files)")
        if out.files:
            self.info("to post: newspaper.bbcode in the results topic, %s as "
                      "the next day's first post, pm/<nick>.txt to each player; read "
                      "host-report.txt first", day_start_name(day))
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
            self.error(f"day {day}: looking for the day's topic in the forum failed: {e}",
                       f"день {day}: тему дня на форуме не найти: {error_in(e, 'ru')}")
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
                       "the previous version; fix the file",
                       f"{GAME_FILE} изменён, но с ошибкой: {error_in(e, 'ru')} — "
                       "работа идёт по прежней "
                       "версии; исправьте файл")
            return
        self.info("%s changed: reloaded", self.ctx.game.path)

    # -- the loop -----------------------------------------------------------------------------
    def _guard(self, name: str, func: Callable[[], None]) -> Callable[[], None]:
        def job() -> None:
            try:
                # a poll reads its game's settings (moved deadlines, day topics, resolved
                # days) once (Store.steady); the deadline job, which writes them, reads afresh
                with self.ctx.store.steady() if name == "poll" else contextlib.nullcontext():
                    func()
            except ScraperModError as e:
                if name == "deadline":
                    self._retry_later()
                self.error(f"{name}: {e}", f"{JOB_RU.get(name, name)}: {error_in(e, 'ru')}")
            except Exception as e:  # keep a weeks-long daemon alive; say what broke
                if name == "deadline":
                    self._retry_later()
                self.report.errors.append(f"{name}: {e!r}")
                self.log.exception("[%s] internal error in the %s job (please report it); "
                                   "the daemon goes on", self.stamp(), name)
                self._tell_internal(f"internal error in the {name} job: {e!r}",
                                    f"внутренняя ошибка в задаче «{JOB_RU.get(name, name)}» "
                                    "(подробности — в run.log); демон работает дальше")
        return job

    def _tell_internal(self, msg: str, ru: str | None = None) -> None:
        """Keep an internal error in the state file and tell the host (alert ``internal``);
        ``ru``: its Russian line (the status and alert of a Russian game)."""
        try:
            self.ctx.store.log_event("error", {"message": msg, **({"ru": ru} if ru else {})},
                                     at=self.now())
            tell = getattr(self.ops, "alert", None)
            if tell is not None:
                tell(self.ctx, "internal", msg, None, detail_ru=ru)
        except Exception as e:  # noqa: BLE001 - telling never stops the daemon
            self._say(logging.WARNING, f"the host could not be alerted: {e!r}")

    def start(self) -> None:
        """Announce the game and plan its jobs (the lane, or ``run``, calls it once)."""
        if self.due:
            return
        redone = finish_cascade(self.ctx)     # a re-resolution a crash cut short
        if redone:
            self.info("resolved again after an interrupted re-resolution: day%s %s",
                      "" if len(redone) == 1 else "s", number_ranges(redone))
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
        self.due = {POLL: now}            # a due deadline first, then a poll right away
        self.plan()

    # -- the jobs' timing and running (the lane of daemon/many.py, or ``run``) -----------------
    def plan(self) -> None:
        """Each job's next run, from the clock and the store (a resolved day, a moved
        deadline); after a resolution the new day is polled at once."""
        now = self.now()
        self.due[RESCAN] = self.next_deadline_at(now)
        snap = (self.next_read_at(now) if getattr(self.ops, "read_deadline", None) is not None
                else None)
        if snap is not None and snap <= now and self._read_pending(now) is None:
            snap = None       # catching up on missed days: nothing to read, never due again
        self.due[SNAPSHOT] = snap
        if getattr(self.ops, "chores", None) is not None:
            self.due[CHORE] = self.next_chore_at(now)
        if self._day_changed:
            self._day_changed = False
            self.due[POLL] = now
        if self._finished:
            self.due = {}

    def next_due(self, now: datetime) -> tuple[int, datetime] | None:
        """The job to run now (the first kind due), else None."""
        due = [(kind, at) for kind, at in self.due.items() if at is not None and at <= now]
        return min(due) if due else None

    def run_job(self, kind: int, *, plan: bool = True) -> None:
        """Run one job (its errors are said, ``_guard``), then (``plan``) plan the next runs."""
        if kind == SNAPSHOT:
            self._guard("deadline read", self.read_job)()
        elif kind == RESCAN:
            self._guard("deadline", self.deadline_job)()
        elif kind == CHORE:
            self._guard("daytime", self.chore_job)()
        else:
            self._guard("poll", self.poll_job)()
            self.due[POLL] = self.next_poll_at(self.now())
        if plan:
            self.plan()

    def run(self, *, until: datetime | None = None) -> RunReport:
        """Run until the game is over, ``stop`` is set, or the clock reaches ``until``: this
        one open game's jobs, as a lane of ``run`` runs them (``next_due``, ``run_job``),
        for the demo and the tests; ``scraper-mod run`` itself is ``daemon.many.Host``."""
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
            job = self.next_due(now)
            if job is not None:
                self.run_job(job[0])
                continue
            runs = [at for at in self.due.values() if at is not None]
            if not runs:
                self.report.stopped_by = "game over"
                break
            wait = (min(runs) - now).total_seconds()
            if until is not None:
                wait = min(wait, (until - now).total_seconds())
            self._sleep(max(0.0, wait))
        self.due = {}
        self.report.winner = self.report.winner or self.winner()
        return self.report

    def _sleep(self, seconds: float) -> None:
        if isinstance(self.clock, SystemClock):
            self.stop.wait(seconds)  # a signal handler sets stop: wake at once
        else:
            self.clock.sleep(seconds)
