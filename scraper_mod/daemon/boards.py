"""Politeness per board, not per game: the gate and the session registry of ``run FOLDER``.

Several games are often played on one board. Hosted in one process they must look to the
board like one polite reader, not like N:

- ``BoardGate``: one per board (its base URL). Every request of every game on that board
  takes the gate's turn (``ForumClient(gate=...)``): one request in flight at a time, and none
  sent closer than the requesting client's pace (``min_delay``, or ``full_scan_delay`` during
  the deadline's re-scan) after the end of the board's previous request, whichever game sent
  it. The gate keeps its own figures (requests, the most in flight at once, the shortest gap,
  every request's start and end when ``record``), read by tests and ``bench/many_games.py``.
- ``BoardRegistry``: one ``ForumClient`` per board and account (``[forum] url`` and
  ``username``), shared by all games played with that account on that board: one
  ``requests.Session``, so one cookie jar and one login, and one pace. The pace is the
  politest of those games' ``[forum]`` settings (the largest ``min_delay``).

The gate's clock is injected (``sleep``, ``monotonic``), as the client's is: a fake clock in
tests waits no real time.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator
from urllib.parse import urlsplit

from scraper_mod.game.setup.config import Game
from scraper_mod.game.setup.connect import client_for_game

from ..clock import Clock, SystemClock
from ..errors import ConfigError
from ..forum.client import ForumClient

__all__ = ["BoardGate", "BoardRegistry", "board_key"]


def board_key(url: str) -> str:
    """The board a URL belongs to: ``scheme://host[:port]/path/`` of its root, lower-cased
    host, without query, fragment or the script name (the topic page's)."""
    parts = urlsplit(url.strip())
    path = parts.path
    if not path.endswith("/"):
        path = path.rsplit("/", 1)[0] + "/" if "." in path.rsplit("/", 1)[-1] else path + "/"
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{path}"


def clock_timers(clock: Clock | None) -> tuple[Callable[[float], None], Callable[[], float]]:
    """``(sleep, monotonic)`` for a clock: the real ones for the system clock (or none), the
    clock's own time for a fake one (its ``sleep`` advances it)."""
    if clock is None or isinstance(clock, SystemClock):
        return time.sleep, time.monotonic
    return clock.sleep, (lambda: clock.now().timestamp())


@dataclass
class GateFigures:
    """What went through one gate."""

    requests: int = 0
    max_in_flight: int = 0
    min_gap: float | None = None        # seconds from a request's end to the next one's start
    waited: float = 0.0                 # seconds spent waiting for the board's turn
    # (start, end, the pace asked for) of every request, if recorded
    spans: list[tuple[float, float, float]] = field(default_factory=list)


class BoardGate:
    """One board's turn: one request at a time, paced across every game (module docstring)."""

    def __init__(self, key: str, *, sleep: Callable[[float], None] = time.sleep,
                 monotonic: Callable[[], float] = time.monotonic, record: bool = False) -> None:
        self.key = key
        self._sleep = sleep
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._in_flight = 0
        self._last_end: float | None = None
        self.record = record
        self.figures = GateFigures()

    def __repr__(self) -> str:
        return f"BoardGate({self.key!r}, requests={self.figures.requests})"

    @contextlib.contextmanager
    def turn(self, delay: float) -> Iterator[None]:
        """Hold the board for one request, sent no sooner than ``delay`` seconds after the end
        of the board's previous request."""
        with self._lock:
            f = self.figures
            if self._last_end is not None and delay > 0:
                wait = self._last_end + delay - self._monotonic()
                if wait > 0:
                    f.waited += wait
                    self._sleep(wait)
            start = self._monotonic()
            if self._last_end is not None:
                gap = start - self._last_end
                f.min_gap = gap if f.min_gap is None else min(f.min_gap, gap)
            self._in_flight += 1
            f.max_in_flight = max(f.max_in_flight, self._in_flight)
            f.requests += 1
            try:
                yield
            finally:
                self._in_flight -= 1
                end = self._monotonic()
                self._last_end = end
                if self.record:
                    f.spans.append((start, end, float(delay)))


class BoardRegistry:
    """The boards of one ``run FOLDER``: a gate per board, a client per board and account."""

    def __init__(self, *, record: bool = False) -> None:
        self.record = record
        self._lock = threading.Lock()
        self.gates: dict[str, BoardGate] = {}
        self.clients: dict[tuple[str, str], ForumClient] = {}

    def gate(self, url: str, clock: Clock | None = None) -> BoardGate:
        """The gate of the board ``url`` is on (made on first use, on ``clock``)."""
        key = board_key(url)
        with self._lock:
            gate = self.gates.get(key)
            if gate is None:
                sleep, monotonic = clock_timers(clock)
                gate = self.gates[key] = BoardGate(key, sleep=sleep, monotonic=monotonic,
                                                   record=self.record)
            return gate

    def client(self, game: Game, clock: Clock | None = None) -> ForumClient:
        """The shared ``ForumClient`` of the game's board and account (``[forum]``)."""
        f = game.forum
        if not f.url:
            raise ConfigError("no [forum] url: the daemon has no board to read",
                              path=str(game.path), key="forum.url",
                              hint='e.g. url = "https://forum.example.org/"')
        key = (board_key(f.url), f.username or "")
        gate = self.gate(f.url, clock)
        with self._lock:
            client = self.clients.get(key)
            if client is None:
                client = client_for_game(game, clock)
                client.gate = gate
                self.clients[key] = client
            else:   # the politest pace of the games sharing it
                client.min_delay = max(client.min_delay, float(f.min_delay))
                client.full_scan_delay = min(client.min_delay, max(client.full_scan_delay,
                                                                    float(f.full_scan_delay)))
            return client
