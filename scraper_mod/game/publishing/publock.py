"""One publisher at a time per game (issue 26, item 4(b)): ``run`` on autopilot, ``publish``
and the host page's publish button each post through ``publish_items``, which holds an
exclusive ``flock`` on the game folder's ``publish.lock`` while it posts. A second publisher
is refused in one line (the autopilot tries again on a later poll) instead of posting
everything a second time. The file is opened without following links; the kernel drops the
lock when the process dies."""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from scraper_mod.errors import ScraperModError

PUBLISH_LOCK = "publish.lock"


@contextmanager
def publishing(folder: Path) -> Iterator[None]:
    """Hold the game's publish lock for the block, or raise ``ScraperModError`` at once when
    another process (or another thread of the page) publishes this game."""
    path = Path(folder) / PUBLISH_LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as e:
        raise ScraperModError(f"{path}: cannot open the publish lock ({e.strerror or e})",
                              hint="check that the game folder is writable and that "
                                   "publish.lock is no symbolic link") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.lseek(fd, 0, os.SEEK_SET)
            who = os.read(fd, 32).decode(errors="replace").strip()
            raise ScraperModError(
                f"{path}: another publisher is posting this game's posts right now"
                + (f" (pid {who})" if who.isdigit() else ""),
                hint="wait until it is done (publish then says what is on the board already); "
                     "two publishers at once would post everything twice") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
