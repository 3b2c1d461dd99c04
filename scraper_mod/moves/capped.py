"""Reading one night-move message within ``[moves] max_message_size`` (issue 18), for every
move source: the first bytes of a plain file (``read_capped``), and storing what was read
with a ``message_too_large`` event when the message was bigger (``add_capped``).

The limits of one message (issue 18; game.toml ``[moves] max_message_size`` and
``max_moves_per_message``) default to ``MAX_MESSAGE_SIZE`` bytes (mail, queue file, PM text)
and ``MAX_MOVES_PER_MESSAGE`` moves read from it."""

from __future__ import annotations

import errno
import os
import stat
from datetime import datetime
from pathlib import Path
from typing import Protocol

from ..errors import size_text
from ..store import Store

MAX_MESSAGE_SIZE = 1024 * 1024
MAX_MOVES_PER_MESSAGE = 20

#: the store's event kind for a message stored only in part (its first max_message_size bytes)
TOO_LARGE_EVENT = "message_too_large"


class CappedSource(Protocol):
    """A move source with a size limit: its name in the store and ``max_size``."""

    name: str
    max_size: int


def read_capped(path: Path, limit: int) -> tuple[bytes, int, float]:
    """A plain file's first ``limit`` bytes, its size and its mtime. A symbolic link (swapped
    in since the listing) is refused, a FIFO or device is not waited on, and a 1 GiB file
    costs ``limit`` bytes of memory."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise OSError(e.errno, "a symbolic link, not followed (put the message itself "
                                   "in the folder)") from None
        raise
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a plain file")
        data = f.read(limit + 1)
    return data[:limit], max(st.st_size, len(data)), st.st_mtime


def add_capped(store: Store, source: CappedSource, key: str, raw: bytes, size: int, *,
               received: datetime, now: datetime, errors: list[str],
               label: str) -> tuple[int, bool]:
    """Store a message read by ``read_capped``. One over the source's ``max_size`` is stored
    in part (its first ``max_size`` bytes: the headers, to answer the sender) with a
    ``message_too_large`` event that the intake reads as «too large»; the whole file stays
    where it is (the Maildir, the queue's ``done/``, the IMAP server)."""
    mid, is_new = store.add_message(source.name, key, raw, received_at=received, stored_at=now)
    limit = source.max_size
    if size > limit:
        if is_new:
            store.log_event(TOO_LARGE_EVENT, {"message": mid, "size": size, "limit": limit},
                            at=now)
        errors.append(f"{source.name}: {label}: {size_text(size)}, over the message size "
                      f"limit of {size_text(limit)} ([moves] max_message_size): only its first "
                      f"{size_text(limit)} stored; answered as too large")
    return mid, is_new


__all__ = ["read_capped", "add_capped"]
