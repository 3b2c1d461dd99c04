"""A LocalBoard in a process of its own, for the benches that measure the daemon's CPU.

A real phpBB board is another program (PHP behind a web server, usually on another machine):
the daemon shares neither its interpreter nor its lock with it. A LocalBoard started in the
bench's own process renders every page on a thread that takes Python's GIL from the daemon's
threads, and the daemon's CPU seconds then carry the cost of that contention (threads woken,
caches refilled). ``BoardProcess`` runs the same LocalBoard in a child process and is driven
through a pipe: the bench adds topics and posts as before, and the board's clock follows the
simulated clock of the lane that reads it (``SharedClock``), so its ``Date`` header is the
simulated time, as with a LocalBoard given that clock in-process.

A board on another machine does not share the daemon's processors either. On a small machine
the boards' processes, scheduled on the daemon's cores between its requests, evict its caches
and move its threads from core to core: on a 2-core machine that added about 45 % to the
daemon's CPU seconds (the same 25 games on 5 boards cost 1.15 CPU s per game-day with the cores
split, 1.70 with them shared; on one board, 1.16 either way). ``split_cores`` gives the
daemon and the boards processors of their own where the machine has two or more.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from datetime import datetime, timezone
from typing import Any

from scraper_mod.demo.world import ScriptedClock


class SharedClock(ScriptedClock):
    """A ``ScriptedClock`` that publishes its time to a shared double (seconds since the
    epoch), which the board process reads as its clock. Every move of its time goes through
    ``set`` (``sleep`` too) or ``advance``.

    ``sleep_cpu``: the CPU seconds its ``sleep`` took on the threads that called it. A
    daemon's wait on the real clock costs no CPU; this one runs the world's events that fall
    in it (a post sent to a board, a letter written) and the timetable's own bookkeeping,
    all of it the bench's work, not the daemon's."""

    def __init__(self, start: datetime) -> None:
        self.shared = multiprocessing.get_context("spawn").Value("d", start.timestamp(),
                                                                 lock=False)
        self.sleep_cpu = 0.0
        super().__init__(start)

    def sleep(self, seconds: float) -> None:
        t0 = time.thread_time()
        try:
            super().sleep(seconds)
        finally:
            self.sleep_cpu += time.thread_time() - t0

    def set(self, t: datetime) -> None:
        super().set(t)
        self.shared.value = t.timestamp()

    def advance(self, **kw: float) -> None:
        super().advance(**kw)
        self.shared.value = self.now().timestamp()


class _ReadClock:
    """The board process's clock: the time the bench's lane clock last published."""

    def __init__(self, shared, tz) -> None:
        self.shared, self.tz = shared, tz

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.shared.value, timezone.utc).astimezone(self.tz)


def split_cores() -> tuple[set[int], set[int]] | None:
    """(the daemon's processors, the boards'): the first half of those this process may run
    on, the rest; None on a machine (or a CPU set) of one processor, or without CPU affinity."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    half = len(cpus) // 2
    return set(cpus[:half]), set(cpus[half:])


def cores_text(cpus: set[int]) -> str:
    return ("CPU " if len(cpus) == 1 else "CPUs ") + ", ".join(map(str, sorted(cpus)))


def _serve(conn, language: str, shared, tz, cpus: set[int] | None = None,
           account: tuple[str, str] | None = None) -> None:
    from scraper_mod.demo.localboard import LocalBoard

    if cpus:
        os.sched_setaffinity(0, cpus)
    username, password = account or (None, None)
    # the posts the daemon writes (counts, newspapers) get ids far above the synthetic
    # posts', which the bench numbers itself ahead of time
    board = LocalBoard(language=language, clock=_ReadClock(shared, tz), username=username,
                       password=password, first_post_id=5_000_000).start()
    conn.send(("ok", board.url))
    while True:
        try:
            name, args, kwargs = conn.recv()
        except EOFError:
            break
        if name == "stop":
            cpu = time.process_time()
            board.stop()
            conn.send(("ok", cpu))
            break
        try:
            conn.send(("ok", getattr(board, name)(*args, **kwargs)))
        except Exception as e:  # noqa: BLE001 - said to the bench, which stops
            conn.send(("error", f"{type(e).__name__}: {e}"))


class BoardProcess:
    """A LocalBoard in a child process: ``url``, ``add_topic``, ``add_post``, ``topic_url``,
    ``stop`` (which returns the CPU seconds the board process used). ``cpus``: the
    processors it runs on (``split_cores``), else any."""

    def __init__(self, *, language: str, clock: SharedClock,
                 cpus: set[int] | None = None, account: tuple[str, str] | None = None) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._lock = threading.Lock()
        self._proc = ctx.Process(target=_serve, name="LocalBoard",
                                 args=(child, language, clock.shared, clock.now().tzinfo, cpus,
                                       account),
                                 daemon=True)
        self._proc.start()
        child.close()
        self.url: str = self._answer()
        self.cpu_seconds: float | None = None

    def _answer(self) -> Any:
        status, value = self._conn.recv()
        if status != "ok":
            raise RuntimeError(f"the board process failed: {value}")
        return value

    def _call(self, name: str, *args, **kwargs) -> Any:
        with self._lock:
            self._conn.send((name, args, kwargs))
            return self._answer()

    def add_topic(self, *args, **kwargs) -> int:
        return self._call("add_topic", *args, **kwargs)

    def add_post(self, *args, **kwargs) -> Any:
        return self._call("add_post", *args, **kwargs)

    def topic_url(self, *args, **kwargs) -> str:
        return self._call("topic_url", *args, **kwargs)

    def stop(self) -> float | None:
        if self._proc.is_alive() and self.cpu_seconds is None:
            try:
                self.cpu_seconds = self._call("stop")
            except (EOFError, OSError, RuntimeError):
                pass
        self._proc.join(timeout=10)
        if self._proc.is_alive():
            self._proc.kill()
        return self.cpu_seconds

