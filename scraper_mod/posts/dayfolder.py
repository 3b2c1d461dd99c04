"""Writing files so that a crash leaves either the old file or the new one, never half."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# out/day-N/ holds the start of day N+1: its file says so (issue 27 item 4). The contract's
# name, day-start.bbcode, is written too, with the same text, until it is dropped.
DEPRECATED_DAY_START = "day-start.bbcode"


def day_start_name(day: int) -> str:
    """The file in ``out/day-{day}/`` that opens day ``day + 1``: ``day-{day+1}-start.bbcode``."""
    return f"day-{day + 1}-start.bbcode"


def day_start_file(folder: Path, day: int) -> Path:
    """The day start in ``folder`` (``out/day-{day}/``): its own name, else the old one."""
    new = folder / day_start_name(day)
    return new if new.exists() or not (folder / DEPRECATED_DAY_START).exists() \
        else folder / DEPRECATED_DAY_START


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` through a synced temporary file
    in the same folder and a rename. The file is readable by its owner only (0600, as
    ``mkstemp`` makes it), and a folder it creates for it too (0700): what is written so holds
    roles, moves or the random list (role cards, answers to moves, the secret list)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
