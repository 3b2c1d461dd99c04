"""One ``scraper-mod run`` per game: ``GameLock`` holds an ``fcntl.flock`` on ``run.lock`` in
the game folder; ``running_pid`` tells whether (and which) daemon holds it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from ..errors import ScraperModError

LOCK_FILE = "run.lock"


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
            # never through a link: a run.lock -> ../a/state.sqlite3 would be truncated
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as e:
            if os.path.islink(self.path):
                raise ScraperModError(f"{self.path}: the lock file is a symbolic link; it is "
                                      "never followed", hint="remove the link (the daemon "
                                      "creates its own run.lock)") from None
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
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
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
