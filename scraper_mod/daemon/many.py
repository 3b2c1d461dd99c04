"""``scraper-mod run FOLDER`` and ``run GAME``: every game folder under FOLDER in one process,
or the one game (``Host(single=True)``, ``run_alone``): the same daemon, every game the
whole evening (``autopilot.GameOps``: polls, the deadline's read, re-scan and resolution,
on autopilot the publications, counts, reminders and alerts; docs/daytime.md).

- ``find_games(folder)``: the game folders (direct subfolders holding ``game.toml``).
- ``Host``: discovers the games (at start, every ``rescan_seconds`` (60) and at once on
  ``rescan()``, which SIGHUP calls), and hands each to the ``Lane`` of its board. A game is
  let go when its folder goes away or it is over. A game that cannot be started (a bad
  ``game.toml``, a state file from another game) is logged with its name and tried again at
  every rescan; a game another ``scraper-mod run`` holds (its ``run.lock``) is left to it.
- ``Lane``: one per board (``boards.board_key``), its games' jobs on one scheduler of its own,
  one job at a time: at a deadline, every game's **deadline snapshot** first (the read at the
  deadline, RULES R2.11; until that exists, the first poll after the deadline), in deadline
  order; then the **final re-scans** and resolutions, in deadline order; polls last. Its games
  share the board's gate and client (``boards.BoardRegistry``). On the real clock every lane
  runs in its own thread (the boards are read side by side); on a fake clock the lanes run in
  turn on one thread, or each on a clock of its own (``lane_clock``).
- Each game is the one-game ``Daemon`` (its jobs, its log lines prefixed with the game's
  folder name, its errors in its own store); a job that raises anything is logged with the
  game's name and never stops the others. The jobs of a lane, in the order they run when
  due at once: the deadline snapshot, the deadline (re-scan, resolution, the newspaper),
  the daytime chores (scheduled counts and reminders), the poll (which also posts the rest
  of a resolved day, the counts on request, the alerts).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

from scraper_mod.game.setup.config import GAME_FILE, load_game

from ..clock import Clock, SystemClock
from ..errors import ConfigError, ScraperModError
from ..game.context import open_game
from .autopilot import GameOps, check_login, note_start, note_stop, preflight
from .boards import BoardRegistry, board_key
from .lock import GameLock
from .scheduler import KIND_NAMES, POLL, Daemon, RunReport
from .scheduler import log as run_log

__all__ = ["find_games", "Host", "Lane", "is_games_folder", "run_alone"]

RESCAN_SECONDS = 60.0


def find_games(folder: Path) -> list[Path]:
    """The game folders under ``folder``: its direct subfolders holding ``game.toml``."""
    folder = Path(folder)
    try:
        subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []
    return [p for p in subs if (p / GAME_FILE).is_file()]


def is_games_folder(path: Path) -> bool:
    """True when ``path`` is a folder of game folders (no ``game.toml`` of its own)."""
    path = Path(path)
    return path.is_dir() and not (path / GAME_FILE).exists() and bool(find_games(path))


class _Prefixed(logging.LoggerAdapter):
    def process(self, msg: str, kwargs: Any) -> tuple[str, Any]:
        return f"[{(self.extra or {})['game']}] {msg}", kwargs


@dataclass
class Slot:
    """One hosted game in its lane."""

    name: str
    folder: Path
    daemon: Daemon
    lock: GameLock
    seen: int | None = None       # the state file's data_version at the last refresh

    @property
    def due(self) -> dict[int, datetime | None]:
        """The game's jobs' next runs (``Daemon.due``: kind -> instant)."""
        return self.daemon.due


class Lane:
    """One board's games on one scheduler (module docstring)."""

    def __init__(self, host: "Host", key: str, clock: Clock) -> None:
        self.host = host
        self.key = key
        self.clock = clock
        self.slots: dict[str, Slot] = {}
        self._incoming: list[Path] = []
        self._opening: set[str] = set()
        self._leaving: list[str] = []
        self._lock = threading.Lock()
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None
        # every job run, in order: (start, game, job, end, CPU seconds of the job)
        self.jobs_run: list[tuple[datetime, str, str, datetime, float]] = []
        self.cpu_seconds = 0.0        # the lane thread's CPU time, when it has run in one

    # -- from the host (any thread) ------------------------------------------------------------
    def add(self, folder: Path) -> None:
        with self._lock:
            self._incoming.append(folder)
        self.wake.set()

    def remove(self, name: str) -> None:
        with self._lock:
            self._leaving.append(name)
        self.wake.set()

    def names(self) -> set[str]:
        with self._lock:
            return (set(self.slots) | {self.host.name_of(p) for p in self._incoming}
                    | self._opening)

    # -- in the lane's own thread ----------------------------------------------------------------
    def _take_changes(self) -> None:
        with self._lock:
            incoming, self._incoming = self._incoming, []
            leaving, self._leaving = self._leaving, []
            self._opening = {self.host.name_of(p) for p in incoming}
        for name in leaving:
            slot = self.slots.get(name)
            if slot is not None:
                self.host.info("%s: its folder is gone; let go", name)
                self._close(slot)
        for folder in incoming:
            if self.host.name_of(folder) not in self.slots:
                self._open(folder)
            with self._lock:
                self._opening.discard(self.host.name_of(folder))

    def _open(self, folder: Path) -> None:
        """Start one game: its lock, its state, its checks, its ops (the whole evening:
        ``autopilot.GameOps``) on the board's shared client, its crash check. A game that
        cannot be started is named and tried again at the next rescan; with ``single``
        (``run GAME``) the run ends with the error instead."""
        host = self.host
        name = host.name_of(folder)
        lock = GameLock(folder if folder.is_dir() else folder.parent)
        try:
            lock.acquire()
        except ScraperModError as e:
            if host.single:
                host.fail(e)
                return
            host.note_problem(name, f"left alone: {e}", level=logging.INFO)
            return
        ctx = None
        try:
            ctx = open_game(folder, clock=self.clock)
            warnings = preflight(ctx, strict=host.single)   # names what to fix, in its language
            if not ctx.game.forum.url:
                raise ConfigError("no board to read", path=str(ctx.game.path), key="forum.url",
                                  hint='e.g. url = "https://forum.example.org/"',
                                  ru='не указан форум (добавьте url = '
                                     '"https://forum.example.org/" в [forum])')
            client = host.registry.client(ctx.game, self.clock)
            ctx.client = client                # publishing too: one session, one pace
            logger = run_log if host.single else _Prefixed(run_log, {"game": name})
            for w in warnings:
                logger.warning("%s", w)
            ops = GameOps(client=client, logger=logger)
            daemon = Daemon(ctx, ops=ops, stop=host.stop, logger=logger,
                            on_resolved=lambda out: ops.publish_newspapers(ctx))
            note_start(ctx, ops)
            check_login(ctx, ops)
            daemon.start()                     # its jobs planned: the lane runs them
        except Exception as e:  # noqa: BLE001 - a broken game never stops the others
            lock.release()
            if ctx is not None:
                ctx.close()
            if host.single:
                host.fail(e)
                return
            why = str(e) if isinstance(e, ScraperModError) else f"internal error: {e!r}"
            host.note_problem(name, f"cannot be started: {why}; tried again in "
                              f"{host.rescan_seconds:.0f} s")
            return
        slot = Slot(name=name, folder=folder, daemon=daemon, lock=lock)
        if daemon._finished:
            host.finished.add(name)
            self._close(slot)
            return
        host.clear_problem(name)
        slot.seen = daemon.ctx.store.data_version()
        self.slots[name] = slot

    def _close(self, slot: Slot) -> None:
        self.slots.pop(slot.name, None)
        d = slot.daemon
        d.report.winner = d.report.winner or d.winner()
        self.host.reports[slot.name] = d.report
        try:
            note_stop(d.ctx)
        except Exception:  # noqa: BLE001 - the state file failed: the next start says so
            pass
        try:
            d.ctx.close()
        finally:
            slot.lock.release()

    def _refresh(self, slot: Slot, seen: int | None = None) -> None:
        """The game's next jobs (``Daemon.plan``); ``seen``: its state file's data_version
        from before what they were worked out from was read (another process's write after
        it is caught by the next ``refresh_all``)."""
        d = slot.daemon
        slot.seen = d.ctx.store.data_version() if seen is None else seen
        d.plan()

    def _run(self, slot: Slot, kind: int) -> None:
        d = slot.daemon
        now = self.clock.now()
        cpu = time.thread_time()
        try:
            seen = d.ctx.store.data_version()
            with d.ctx.store.steady() if kind == POLL else contextlib.nullcontext():
                self._job(slot, kind, seen)
            self.jobs_run.append((now, slot.name, KIND_NAMES[kind], self.clock.now(),
                                  time.thread_time() - cpu))
        except Exception as e:  # noqa: BLE001 - e.g. the state file failed: the game stops alone
            self.host.note_problem(slot.name, f"stopped by an internal error in its "
                                   f"{KIND_NAMES[kind]} job: {e!r}; tried again in "
                                   f"{self.host.rescan_seconds:.0f} s", exc=True)
            self._close(slot)
            return
        if d._finished:
            if not self.host.single:
                self.host.info("%s: the game is over (%s wins); let go", slot.name,
                               d.report.winner or d.winner())
            self.host.finished.add(slot.name)
            self._close(slot)
            self.host._rescan.set()            # wake the host: ``single`` ends here

    def _job(self, slot: Slot, kind: int, seen: int) -> None:
        """One job of the game (``Daemon.run_job``), then its next jobs worked out (a poll's:
        in the same view of the game's settings, ``Store.steady``)."""
        slot.daemon.run_job(kind, plan=False)
        self._refresh(slot, seen)

    def next_due(self) -> tuple[datetime, int, str] | None:
        best = None
        for slot in self.slots.values():
            for kind, at in slot.due.items():
                if at is not None and (best is None or (at, kind, slot.name) < best):
                    best = (at, kind, slot.name)
        return best

    def run_pending(self) -> None:
        """Run every job that is due, snapshots first, then re-scans, then polls, each kind
        in the order of its time (the deadline's), re-deciding after each job."""
        self._take_changes()
        while not self.host.stop.is_set():
            now = self.clock.now()
            due = [(kind, at, slot.name) for slot in self.slots.values()
                   for kind, at in slot.due.items() if at is not None and at <= now]
            if not due:
                return
            kind, _, name = min(due)
            self._run(self.slots[name], kind)
            self._take_changes()

    def refresh_all(self) -> None:
        """Refresh the jobs of every game whose state file another process wrote since its
        last refresh (a deadline moved by ``day move``, a host's decision): the lane's own
        jobs refresh their game after each run."""
        for slot in list(self.slots.values()):
            try:
                seen = slot.daemon.ctx.store.data_version()
                if seen == slot.seen:
                    continue
                self._refresh(slot, seen)
            except Exception as e:  # noqa: BLE001
                self.host.note_problem(slot.name, f"stopped by an internal error: {e!r}",
                                       exc=True)
                self._close(slot)

    def idle_seconds(self) -> float | None:
        nxt = self.next_due()
        return None if nxt is None else (nxt[0] - self.clock.now()).total_seconds()

    def run(self, until: datetime | None = None) -> None:
        """The lane's own loop (its thread, or its own fake clock)."""
        last_refresh = self.clock.now()
        cpu = time.thread_time()
        try:
            self._loop(until, last_refresh)
        finally:
            self.cpu_seconds = time.thread_time() - cpu

    def _loop(self, until: datetime | None, last_refresh: datetime) -> None:
        while not self.host.stop.is_set() and not self.host.over():
            if until is not None and self.clock.now() >= until:
                break
            self.run_pending()
            now = self.clock.now()
            if (now - last_refresh).total_seconds() >= 30:
                self.refresh_all()        # moved deadlines from 'day move' in another process
                last_refresh = now
            wait = self.idle_seconds()
            wait = 30.0 if wait is None else min(max(0.0, wait), 30.0)
            if until is not None:
                wait = min(wait, max(0.0, (until - now).total_seconds()))
            if isinstance(self.clock, SystemClock):
                self.wake.wait(wait)
                self.wake.clear()
            else:
                if self._incoming or self._leaving:
                    continue
                self.clock.sleep(wait)
        self.close_all()

    def close_all(self) -> None:
        for slot in list(self.slots.values()):
            self._close(slot)


class Host:
    """Every game under ``folder`` (module docstring). ``run(until=None)`` returns when
    ``stop`` is set (SIGTERM) or the clock reaches ``until``.

    ``single=True``: ``folder`` is one game (its folder or its file): ``run GAME``, the same
    daemon with one game. Its log lines carry no game prefix, a game that cannot be started
    ends the run with that error (``run`` raises it), and the run ends when the game is
    over. ``reports``: each game's ``RunReport`` once let go."""

    def __init__(self, folder: Path, *, clock: Clock | None = None,
                 stop: threading.Event | None = None, threaded: bool | None = None,
                 lane_clock: Callable[[str], Clock] | None = None,
                 rescan_seconds: float = RESCAN_SECONDS, record: bool = False,
                 logger: logging.Logger | None = None, single: bool = False) -> None:
        self.folder = Path(folder)
        self.single = single
        self.reports: dict[str, RunReport] = {}
        self.fatal: BaseException | None = None
        self.stopped = False
        self.clock = clock or SystemClock()
        self.stop = stop or threading.Event()
        self.threaded = (isinstance(self.clock, SystemClock) or lane_clock is not None
                         if threaded is None else threaded)
        self.lane_clock = lane_clock
        self.rescan_seconds = rescan_seconds
        self.registry = BoardRegistry(record=record)
        self.log = logger or run_log
        self.lanes: dict[str, Lane] = {}
        self.problems: dict[str, str] = {}      # game name -> why it is not running
        self.finished: set[str] = set()
        self._rescan = threading.Event()
        self._plock = threading.Lock()

    # -- messages ---------------------------------------------------------------------------
    @staticmethod
    def name_of(path: Path) -> str:
        """A game's name: its folder's."""
        path = Path(path)
        return path.name if path.is_dir() or not path.suffix else path.parent.name

    def fail(self, e: BaseException) -> None:
        """``single``: the one game cannot be run: the run stops and ``run`` raises ``e``."""
        self.fatal = e
        self.stop.set()

    def info(self, msg: str, *args: object) -> None:
        self.log.info(msg, *args)

    def note_problem(self, name: str, msg: str, *, level: int = logging.ERROR,
                     exc: bool = False) -> None:
        """Say why game ``name`` is not running, once per distinct reason."""
        with self._plock:
            same = self.problems.get(name) == msg
            self.problems[name] = msg
        if not same:
            self.log.log(level, "[%s] %s", name, msg, exc_info=exc)

    def clear_problem(self, name: str) -> None:
        with self._plock:
            had = self.problems.pop(name, None)
        if had is not None:
            self.log.info("[%s] running again", name)

    def rescan(self) -> None:
        """Look for new and removed game folders now (SIGHUP)."""
        self._rescan.set()
        for lane in list(self.lanes.values()):
            lane.wake.set()

    # -- discovery ----------------------------------------------------------------------------
    def hosted(self) -> set[str]:
        names: set[str] = set()
        for lane in self.lanes.values():
            names |= lane.names()
        return names

    def discover(self) -> None:
        """Hand new game folders to their boards' lanes; let removed ones go."""
        if self.single:
            present = {self.name_of(self.folder): self.folder}
        else:
            present = {p.name: p for p in find_games(self.folder)}
        for lane in self.lanes.values():
            for name in lane.names() - set(present):
                lane.remove(name)
        for name in list(self.problems):
            if name not in present:
                self.problems.pop(name, None)
        hosted = self.hosted()
        for name, folder in present.items():
            if name in hosted or name in self.finished:
                continue
            try:
                game = load_game(folder)
            except ScraperModError as e:
                if self.single:
                    raise
                self.note_problem(name, f"cannot be started: {e}; tried again in "
                                  f"{self.rescan_seconds:.0f} s")
                continue
            if not game.forum.url:
                if self.single:
                    raise ConfigError("no board to read", path=str(game.path), key="forum.url",
                                      hint='e.g. url = "https://forum.example.org/"',
                                      ru='не указан форум (добавьте url = '
                                         '"https://forum.example.org/" в [forum])')
                self.note_problem(name, f"cannot be started: {game.path}: forum.url: no board "
                                  "to read (e.g. url = \"https://forum.example.org/\")")
                continue
            self._lane(board_key(game.forum.url)).add(folder)

    def _lane(self, key: str) -> Lane:
        lane = self.lanes.get(key)
        if lane is None:
            clock = self.lane_clock(key) if self.lane_clock else self.clock
            lane = self.lanes[key] = Lane(self, key, clock)
            if self.threaded:
                lane.thread = threading.Thread(target=self._lane_main, args=(lane,),
                                               name=f"board {key}", daemon=True)
                lane.thread.start()
        return lane

    def _lane_main(self, lane: Lane) -> None:
        try:
            lane.run(self._until)
        except Exception:  # noqa: BLE001 - never silently: the lane's games are named
            self.log.exception("internal error in the lane of %s (games %s); please report it",
                               lane.key, ", ".join(sorted(lane.slots)) or "none")
            lane.close_all()

    # -- the loop -----------------------------------------------------------------------------
    def run(self, *, until: datetime | None = None) -> None:
        try:
            self._run(until)
        finally:
            self.stopped = self.stop.is_set() and self.fatal is None   # by SIGTERM, not us
            self.shutdown()
        if self.fatal is not None:
            raise self.fatal

    def over(self) -> bool:
        """``single``: the one game is over (or cannot be run)."""
        return self.single and (bool(self.finished) or self.fatal is not None)

    def _run(self, until: datetime | None) -> None:
        self._until = until
        if not self.single:
            self.info("hosting the games under %s", self.folder)
        self.discover()
        if not self.single:
            self._say_games()
        next_scan = self.clock.now() + timedelta(seconds=self.rescan_seconds)
        while not self.stop.is_set() and not self.over():
            now = self.clock.now()
            if until is not None and now >= until:
                break
            if self._rescan.is_set() or now >= next_scan:
                hup = self._rescan.is_set()
                self._rescan.clear()
                before = self.hosted()
                self.discover()
                if (hup or self.hosted() != before) and not self.single:
                    self._say_games()
                next_scan = now + timedelta(seconds=self.rescan_seconds)
            if self.threaded:
                wait = (next_scan - self.clock.now()).total_seconds()
                if until is not None:
                    wait = min(wait, (until - self.clock.now()).total_seconds())
                if isinstance(self.clock, SystemClock):
                    self._rescan.wait(max(0.0, min(wait, 1.0)))
                else:
                    self._wait_lanes(until)
                    break
                continue
            for lane in list(self.lanes.values()):
                lane.run_pending()
            if self.over():
                break
            idle = [i for i in (lane.idle_seconds() for lane in self.lanes.values())
                    if i is not None]
            wait = min([(next_scan - self.clock.now()).total_seconds(), *idle])
            if until is not None:
                wait = min(wait, (until - self.clock.now()).total_seconds())
            if isinstance(self.clock, SystemClock):
                self.stop.wait(max(0.0, wait))     # a signal sets stop: wake at once
            else:
                self.clock.sleep(max(0.0, wait))

    def _wait_lanes(self, until) -> None:
        for lane in list(self.lanes.values()):
            if lane.thread is not None:
                lane.thread.join()

    def _say_games(self) -> None:
        for key, lane in sorted(self.lanes.items()):
            names = sorted(lane.names())
            if names:
                self.info("board %s: %d game%s (%s)", key, len(names),
                          "" if len(names) == 1 else "s", ", ".join(names))
        for name, why in sorted(self.problems.items()):
            self.info("[%s] not running: %s", name, why)

    def shutdown(self) -> None:
        """Stop every lane and let every game go (their locks, their state files)."""
        self.stop.set()
        for lane in list(self.lanes.values()):
            lane.wake.set()
        for lane in list(self.lanes.values()):
            if lane.thread is not None:
                lane.thread.join(timeout=60)
            else:
                lane.close_all()


def run_alone(game: Path, *, clock: Clock | None = None, stop: threading.Event | None = None,
              until: datetime | None = None,
              logger: logging.Logger | None = None) -> RunReport:
    """``run GAME``: the daemon of ``run FOLDER`` with the one game ``game`` (its folder or
    its file); returns when the game is over, ``stop`` is set or the clock reaches
    ``until``. Raises what keeps the game from starting (its lock held, a bad game file)."""
    stop = stop or threading.Event()
    host = Host(Path(game), clock=clock, stop=stop, single=True, logger=logger)
    host.run(until=until)
    name = host.name_of(Path(game))
    report = host.reports.get(name) or RunReport()
    report.stopped_by = ("game over" if name in host.finished else
                         "stop" if host.stopped else "until")
    return report
