"""The Maildir move source (``cur/``, ``new/``, ``tmp/``): see ``moves/sources.py``."""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path

from ..errors import MailboxError
from ..store import Store
from .capped import MAX_MESSAGE_SIZE, add_capped, read_capped
from .report import FetchReport, _utc

_MAILDIR_NAME = re.compile(r"^(\d{9,10})\.(?:[^.:]*?M(\d{1,6})(?![\d]))?")


def delivery_time(key: str, mtime: float) -> datetime:
    """When a Maildir message was delivered. The delivery agent writes the time into the
    unique name (``1712681998.M123456P4242.host``: seconds, then microseconds after ``M``),
    and a copy of the folder (a backup restored, ``cp`` without ``-p``) keeps the name but
    not the mtime; so the name's time wins, the mtime refining it within the same second.
    A name without a time gives the mtime."""
    m = _MAILDIR_NAME.match(key)
    if not m:
        return _utc(mtime)
    secs = int(m.group(1))
    if m.group(2) is not None:  # microseconds, written as a plain number (M5 = 5 µs)
        return _utc(secs + int(m.group(2)) / 1e6)
    return _utc(mtime) if int(mtime) == secs else _utc(secs)


class MaildirSource:
    """A Maildir folder (``cur/``, ``new/``, ``tmp/``).

    The folder is listed and each file read as plain bytes (at most ``max_size`` of them):
    nothing is parsed before it is stored, so no message can stop the poll."""

    def __init__(self, path: str | Path, *, since: datetime | None = None,
                 max_size: int = MAX_MESSAGE_SIZE) -> None:
        self.path = Path(path).absolute()
        self.name = f"maildir:{self.path}"
        self.since = since  # older mail is left alone: not stored, not marked
        self.max_size = max_size

    def _listing(self) -> list[tuple[str, str, str]]:
        """(key, subfolder, file name) of every message in new/ and cur/, by key; the key is
        the file name before its ``:2,FLAGS`` info, as the ``mailbox`` module has it."""
        if not self.path.is_dir():
            raise MailboxError("not a folder but a file" if self.path.exists() else
                               "no such Maildir folder", source=self.name,
                               hint="check [moves] path in game.toml; a Maildir holds cur/, "
                                    "new/ and tmp/",
                               ru=("это файл, а не папка" if self.path.exists() else
                                   "нет такой папки Maildir")
                               + " (проверьте [moves] path в game.toml; в Maildir есть папки "
                                 "cur/, new/ и tmp/)")
        missing = [d for d in ("cur", "new") if not (self.path / d).is_dir()]
        if missing:
            raise MailboxError(f"not a Maildir: no {' or '.join(missing)}/ inside",
                               source=self.name, hint="point [moves] path at the Maildir itself",
                               ru=f"это не Maildir: внутри нет {' и '.join(missing)}/ (укажите "
                                  "в [moves] path саму папку Maildir)")
        out: list[tuple[str, str, str]] = []
        try:
            for sub in ("new", "cur"):
                out += [(n.split(":", 1)[0], sub, n) for n in os.listdir(self.path / sub)
                        if not n.startswith(".")]
        except OSError as e:
            raise MailboxError(f"cannot read the Maildir: {e.strerror or e}", source=self.name,
                               hint="check the folder's permissions") from None
        return sorted(out)

    def fetch_new(self, store: Store, *, now: datetime) -> FetchReport:
        listing = self._listing()
        stored = store.message_keys(self.name)
        new: list[int] = []
        errors: list[str] = []
        for key, sub, fname in listing:
            if sub == "cur" and key in stored:
                continue  # stored and moved to cur/ by an earlier poll: nothing to read again
            try:
                raw, size, mtime = read_capped(self.path / sub / fname, self.max_size)
            except OSError as e:
                errors.append(f"{self.name}: message {key}: cannot read: {e.strerror or e}")
                continue
            received = delivery_time(key, mtime)
            if self.since is not None and received < self.since:
                continue
            if key not in stored:
                mid, is_new = add_capped(store, self, key, raw, size, received=received,
                                         now=now, errors=errors, label=f"message {key}")
                if is_new:
                    new.append(mid)
            if sub == "new":
                self._mark_stored(key, fname, errors)
        return FetchReport(self.name, tuple(new), len(listing), tuple(errors))

    def _mark_stored(self, key: str, fname: str, errors: list[str]) -> None:
        """new/<key> -> cur/<key>:2,S (a rename: the content and the mtime stay)."""
        try:
            os.rename(self.path / "new" / fname, self.path / "cur" / f"{key}:2,S")
        except OSError as e:
            errors.append(f"{self.name}: message {key}: stored, but cannot be moved to cur/: "
                          f"{e.strerror or e}")
