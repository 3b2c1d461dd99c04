"""The limits that keep one mail, page or board from stopping a game or eating the machine
(issue 18). Each can be changed in ``game.toml``; docs/security.md "Limits" lists them.

- ``[forum] max_page_size``, 8 MiB: the bytes read of one board page (past it, an error
  naming the URL);
- ``[forum] request_time_limit``, 60 s: one HTTP request, its body included (then retried);
- ``[forum] page_time_limit``, 180 s: one page, its retries, waits and a login included;
- ``[moves] max_message_size``, 1 MiB: one night-move message (mail, queue file, PM text);
- ``[moves] max_moves_per_message``, 20: the moves read from one message.
"""

from __future__ import annotations

MAX_PAGE_SIZE = 8 * 1024 * 1024
REQUEST_TIME_LIMIT = 60.0
PAGE_TIME_LIMIT = 180.0
MAX_MESSAGE_SIZE = 1024 * 1024
MAX_MOVES_PER_MESSAGE = 20

#: the store's event kind for a message stored only in part (its first max_message_size bytes)
TOO_LARGE_EVENT = "message_too_large"


def size_text(n: int) -> str:
    """A byte count as people read it: ``8 MiB``, ``1.5 MiB``, ``512 KiB``, ``900 bytes``."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) or v >= 100 else f"{v:.1f} {unit}"
    return f"{n} bytes"


__all__ = ["MAX_PAGE_SIZE", "REQUEST_TIME_LIMIT", "PAGE_TIME_LIMIT", "MAX_MESSAGE_SIZE",
           "MAX_MOVES_PER_MESSAGE", "TOO_LARGE_EVENT", "size_text"]
