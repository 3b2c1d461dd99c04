"""Where night moves come from: one small interface, four sources.

A ``MoveSource`` has a ``name`` (its label in the store, e.g. ``maildir:/games/m7/moves``) and
``fetch_new(store, now=...) -> FetchReport``: it stores every message it has not stored before,
**raw**, with the time the host's side received it, *before* anything interprets it
(``Store.add_message``), and only then marks it done at the source. That receive time, never
the Date header a sender wrote, decides lateness (R5.1):

- ``MaildirSource``  a Maildir folder (the layout of stdlib ``mailbox``): the delivery time is
  the time the delivery agent wrote into the message's unique name
  (``1712681998.M123456P42.host``), else the file's mtime; stored messages in ``new/`` are
  moved to ``cur/`` with the ``S`` flag (``moves/maildir.py``); a folder untouched since a
  read that left nothing behind is not listed again;
- ``ImapSource``     an IMAP mailbox (``imaplib``; TLS, STARTTLS or plain): incremental by
  UIDVALIDITY + UID kept in the store's ``source_state``, one message stored and the
  position saved at a time, so a dropped connection loses nothing and the next poll resumes
  after the last stored UID; the receive time is the server's INTERNALDATE; the folder is
  opened read-only (nothing is marked read); the password comes from
  ``SCRAPER_MOD_IMAP_PASSWORD`` and is never logged or shown;
- ``QueueSource``    a folder of plain files, one message per file, written by a form or a
  bot: the arrival time is the file's mtime, or ``received_at`` in a sidecar
  ``<file>.meta.json``; a stored file is moved to ``done/`` only after it was stored;
- ``ForumPmSource``  the host's private messages (ЛС) on the board, any engine,
  through the game's ``Board``, read over the forum client's logged-in session
  through forum/engine.py's ``Board``: the receive time is the PM's own time (minutes only: the
  start of the minute, as R2.6 compares minutes; for a relative date the latest instant the
  range allows, so a message is on time only if it was seen before the deadline).

Every source reads at most ``max_size`` bytes of a message (``[moves] max_message_size``): a
bigger one is stored in part, with a ``message_too_large`` event, and answered as too large
(``add_capped``).

Per-message problems (an unreadable file) are reported in ``FetchReport.errors`` and retried
on the next poll; a source that cannot be read at all raises ``MailboxError`` saying what to
check.
"""

from __future__ import annotations

import base64
import hashlib
import imaplib
import json
import logging
import os
import re
import socket
import ssl
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import cast

from scraper_mod.forum.pms import PmRowProblem, PmSummary, PrivateMessage

from ..errors import ForumError, LoginRequiredError, MailboxError
from ..forum.engine import Board, pm_source_name
from ..forum.session import scrub_body
from ..store import Store
from .capped import MAX_MESSAGE_SIZE, add_capped, read_capped
from .maildir import MaildirSource, delivery_time  # noqa: F401 - part of this module's API
from .report import FetchReport, MoveSource, _utc  # noqa: F401 - part of this module's API

log = logging.getLogger(__name__)

PASSWORD_ENV = "SCRAPER_MOD_IMAP_PASSWORD"


# -- a queue folder -----------------------------------------------------------------------------

class QueueSource:
    """A folder of plain files, one message per file (RFC 822, or bare text)."""

    SIDECAR = ".meta.json"

    def __init__(self, path: str | Path, *, max_size: int = MAX_MESSAGE_SIZE) -> None:
        self.path = Path(path).absolute()
        self.name = f"queue:{self.path}"
        self.max_size = max_size

    def fetch_new(self, store: Store, *, now: datetime) -> FetchReport:
        if not self.path.is_dir():
            raise MailboxError("not a folder but a file" if self.path.exists() else
                               "no such queue folder", source=self.name,
                               hint="check [moves] path in game.toml",
                               ru=("это файл, а не папка" if self.path.exists() else
                                   "нет такой папки очереди")
                               + " (проверьте [moves] path в game.toml)")
        errors: list[str] = []
        try:
            listed = [e for e in os.scandir(self.path)
                      if not e.name.startswith(".") and not e.name.endswith(self.SIDECAR)]
        except OSError as err:
            raise MailboxError(f"cannot list the queue folder: {err.strerror or err}",
                               source=self.name, hint="check the folder's permissions") from None
        # plain files only: a symbolic link is never followed, read or moved (it could point
        # at any file of the machine and put it into the state)
        for e in listed:
            if e.is_symlink():
                errors.append(f"{self.name}: {e.name}: a symbolic link, not read and left in "
                              "place (put the message itself in the queue folder)")
        entries = [e for e in listed if e.is_file(follow_symlinks=False)]
        entries.sort(key=lambda e: (e.stat(follow_symlinks=False).st_mtime, e.name))
        new: list[int] = []
        done = self.path / "done"
        for entry in entries:
            path = Path(entry.path)
            try:
                raw, size, mtime = read_capped(path, self.max_size)
                received = self._received_at(path, mtime)
            except OSError as e:
                errors.append(f"{self.name}: {entry.name}: cannot read: {e.strerror or e}")
                continue
            except MailboxError as e:
                errors.append(str(e))
                continue
            key = f"{entry.name}#{hashlib.sha256(raw).hexdigest()[:16]}"
            mid, is_new = add_capped(store, self, key, raw, size, received=received, now=now,
                                     errors=errors, label=entry.name)
            if is_new:
                new.append(mid)
            try:
                done.mkdir(exist_ok=True)
                target = done / entry.name
                if target.exists():  # a reused file name: keep both
                    target = done / f"{entry.name}.{mid}"
                os.replace(path, target)
                side = path.with_name(path.name + self.SIDECAR)
                if side.exists():
                    os.replace(side, target.with_name(target.name + self.SIDECAR))
            except OSError as e:
                errors.append(f"{self.name}: {entry.name}: stored, but cannot be moved to "
                              f"done/: {e.strerror or e}")
        return FetchReport(self.name, tuple(new), len(entries), tuple(errors))

    def _received_at(self, path: Path, mtime: float) -> datetime:
        side = path.with_name(path.name + self.SIDECAR)
        if not side.exists():
            return _utc(mtime)
        try:
            data = json.loads(side.read_text(encoding="utf-8"))
            t = datetime.fromisoformat(data["received_at"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise MailboxError(f"unreadable sidecar {side.name}: {e}", source=self.name,
                               message_id=path.name,
                               hint='it must be JSON like {"received_at": '
                                    '"2024-04-09T19:59:30+03:00"}') from None
        if t.tzinfo is None:
            raise MailboxError(f"sidecar {side.name}: received_at has no UTC offset",
                               source=self.name, message_id=path.name)
        return t.astimezone(timezone.utc)


# -- IMAP ---------------------------------------------------------------------------------------

_INTERNALDATE = re.compile(
    rb'INTERNALDATE "\s?(\d{1,2})-([A-Za-z]{3})-(\d{4}) (\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)"')
_UID = re.compile(rb"\bUID (\d+)")
_RFC822_SIZE = re.compile(rb"\bRFC822\.SIZE (\d+)")
_MONTHS = {m.encode(): i for i, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
_DROPPED = (imaplib.IMAP4.abort, OSError, EOFError, socket.timeout, ssl.SSLError)


def parse_internaldate(meta: bytes) -> datetime | None:
    """The INTERNALDATE of a FETCH response line, as an aware datetime."""
    m = _INTERNALDATE.search(meta)
    if not m:
        return None
    d, mon, y, hh, mm, ss, sign, oh, om = m.groups()
    offset = timedelta(hours=int(oh), minutes=int(om)) * (-1 if sign == b"-" else 1)
    month = _MONTHS.get(mon.capitalize())
    if month is None:
        return None
    return datetime(int(y), month, int(d), int(hh), int(mm), int(ss),
                    tzinfo=timezone(offset)).astimezone(timezone.utc)


class ImapSource:
    """An IMAP mailbox folder, read incrementally by UID."""

    def __init__(self, host: str, *, port: int | None = None, username: str | None = None,
                 folder: str = "INBOX", security: str = "ssl", password: str | None = None,
                 ssl_context: ssl.SSLContext | None = None, timeout: float = 30.0,
                 since: datetime | None = None, max_size: int = MAX_MESSAGE_SIZE) -> None:
        if security not in ("ssl", "starttls", "none"):
            raise MailboxError(f"unknown security {security!r}", source=f"imap:{host}",
                               hint="[moves] security is ssl, starttls or none")
        self.host = host
        self.security = security
        self.port = port or (993 if security == "ssl" else 143)
        self.username = username
        self.folder = folder
        self._password = password
        self.ssl_context = ssl_context
        self.timeout = timeout
        self.since = since  # older mail (by INTERNALDATE) is never fetched
        self.max_size = max_size  # only this much of a message is fetched (a partial FETCH)
        self.name = f"imap:{username or ''}@{host}:{self.port}/{folder}"

    def __repr__(self) -> str:  # never shows the password
        return f"ImapSource({self.name!r}, security={self.security!r})"

    def _fail(self, message: str, hint: str = "") -> MailboxError:
        return MailboxError(message, source=self.name, hint=hint)

    def _connect(self) -> imaplib.IMAP4:
        password = self._password if self._password is not None else os.environ.get(PASSWORD_ENV)
        if not self.username:
            raise self._fail("no IMAP user name", hint="set [moves] username in game.toml")
        if not password:
            raise self._fail("no IMAP password", hint=f"set the environment variable {PASSWORD_ENV}")
        ctx = self.ssl_context or ssl.create_default_context()
        conn: imaplib.IMAP4
        try:
            if self.security == "ssl":
                conn = imaplib.IMAP4_SSL(self.host, self.port, ssl_context=ctx,
                                         timeout=self.timeout)
            else:
                conn = imaplib.IMAP4(self.host, self.port, timeout=self.timeout)
                if self.security == "starttls":
                    conn.starttls(ssl_context=ctx)
        except ssl.SSLError as e:
            raise self._fail(f"TLS failed: {e.reason or e}",
                             hint="check [moves] security (ssl, starttls, none) and port, and "
                                  "the server's certificate") from None
        except (OSError, imaplib.IMAP4.error) as e:
            raise self._fail(f"cannot connect: {e}",
                             hint="check [moves] host, port and security") from None
        try:
            conn.login(self.username, password)
        except imaplib.IMAP4.error as e:
            _close(conn)
            text = str(e).replace(password, "***")
            raise self._fail(f"login refused for {self.username!r}: {text}",
                             hint=f"check [moves] username and {PASSWORD_ENV}") from None
        except _DROPPED as e:
            raise self._fail(f"connection dropped during login: {e}") from None
        return conn

    def fetch_new(self, store: Store, *, now: datetime) -> FetchReport:
        conn = self._connect()
        new: list[int] = []
        errors: list[str] = []
        seen = 0
        state = store.source_state(self.name)
        try:
            typ, data = conn.select(_quote(self.folder), readonly=True)
            if typ != "OK":
                shown = cast(bytes, data[0]).decode(errors='replace') if data else ''
                raise self._fail(f"no such folder: {shown}",
                                 hint="check [moves] folder")
            uv = conn.response("UIDVALIDITY")[1]
            uidvalidity = int(uv[0]) if uv and uv[0] else 0
            last = int(state.get("last_uid", 0)) if state.get("uidvalidity") == uidvalidity else 0
            if state and state.get("uidvalidity") not in (None, uidvalidity):
                log.warning("%s: UIDVALIDITY changed (%s -> %s): reading the folder again",
                            self.name, state.get("uidvalidity"), uidvalidity)
            criteria = f"UID {last + 1}:*"
            if self.since is not None:
                # SINCE is by date in the server's zone: a day's margin, then exact below
                day = (self.since - timedelta(days=1)).strftime("%d-%b-%Y")
                criteria += f" SINCE {day}"
            typ, data = conn.uid("SEARCH", None, criteria)  # type: ignore[arg-type]  # no CHARSET
            if typ != "OK":
                raise self._fail(f"UID SEARCH failed: {data!r}")
            uids = sorted(int(x) for x in (data[0] or b"").split() if int(x) > last)
            for uid in uids:
                typ, data = conn.uid("FETCH", str(uid), "(UID INTERNALDATE RFC822.SIZE "
                                     f"BODY.PEEK[]<0.{self.max_size}>)")
                if typ != "OK":
                    raise self._fail(f"FETCH of UID {uid} failed: {data!r}")
                raw, meta = _fetch_parts(data)
                if raw is None:
                    continue  # expunged meanwhile
                received = parse_internaldate(meta)
                if received is None:
                    raise self._fail(f"UID {uid}: the server gave no INTERNALDATE")
                if self.since is not None and received < self.since:
                    store.set_source_state(self.name, {"uidvalidity": uidvalidity,
                                                       "last_uid": uid})
                    continue
                size = _RFC822_SIZE.search(meta)
                mid, is_new = add_capped(store, self, f"{uidvalidity}/{uid}", raw,
                                         max(len(raw), int(size.group(1)) if size else 0),
                                         received=received, now=now, errors=errors,
                                         label=f"UID {uid}")
                if is_new:
                    new.append(mid)
                seen += 1
                store.set_source_state(self.name, {"uidvalidity": uidvalidity, "last_uid": uid})
            if not uids and state.get("uidvalidity") != uidvalidity:
                store.set_source_state(self.name, {"uidvalidity": uidvalidity, "last_uid": last})
        except _DROPPED as e:
            pos = store.source_state(self.name).get("last_uid", 0)
            raise self._fail(
                f"connection dropped after {len(new)} new message(s) ({type(e).__name__}: {e})",
                hint=f"nothing is lost: the next poll resumes after UID {pos}") from None
        except imaplib.IMAP4.error as e:
            raise self._fail(f"the server refused: {e}", hint="check [moves] folder") from None
        finally:
            _close(conn)
        return FetchReport(self.name, tuple(new), seen, tuple(errors))


def imap_folder_name(name: str) -> str:
    """A folder name in IMAP's modified UTF-7 (RFC 3501 5.1.3): «Ходы» -> ``&BCUEPgQ0BEs-``."""
    out: list[str] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            b64 = base64.b64encode("".join(pending).encode("utf-16-be")).decode("ascii")
            out.append("&" + b64.rstrip("=").replace("/", ",") + "-")
            pending.clear()
    for ch in name:
        if 0x20 <= ord(ch) <= 0x7E:
            flush()
            out.append("&-" if ch == "&" else ch)
        else:
            pending.append(ch)
    flush()
    return "".join(out)


def _quote(folder: str) -> str:
    folder = imap_folder_name(folder)
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _fetch_parts(data: list) -> tuple[bytes | None, bytes]:
    raw = None
    meta = b""
    for item in data:
        if isinstance(item, tuple):
            meta += item[0]
            raw = item[1]
        elif isinstance(item, bytes):
            meta += item
    return raw, meta


def _close(conn: imaplib.IMAP4) -> None:
    try:
        conn.logout()
    except Exception:  # the connection may already be gone
        pass


PM_READ_EVENT = "pm_time"     # a stored PM as read when it was fetched (its times and words)


# -- the board's private messages ---------------------------------------------------------------

@dataclass
class ForumPmSource:
    """The host's inbox of the board's private messages (ЛС), through the game's ``Board``
    (forum/engine.py's: any engine), over its logged-in session.

    Each new message's page is stored raw as fetched (key ``pm/<msg_id>``: what the board's
    ``fetch_pm`` gives), with the PM's own time (read in the board's zone by its ``parse_pm``)
    as the receive time. The source's name is ``<engine>_pm:<board>`` (the engine's name as
    the board gives it), which tells the intake how to read what was stored.
    """

    board: Board
    base_url: str
    folder: str = "inbox"
    since: datetime | None = None  # older PMs (other games) are not fetched
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = pm_source_name(self.board.engine, self.base_url)

    def fetch_new(self, store: Store, *, now: datetime) -> FetchReport:
        stored = store.message_keys(self.name)
        new: list[int] = []
        errors: list[str] = []
        try:
            summaries, problems = self.board.pm_rows(self.folder)
        except ForumError as e:
            raise MailboxError(f"cannot read the PM inbox: {e}", source=self.name,
                               hint="check [forum] url, username and "
                                    "SCRAPER_MOD_FORUM_PASSWORD") from None
        wanted: list[tuple[int, PmSummary | None]] = [(s.msg_id, s) for s in summaries]
        for bad in problems:
            # one row the parser cannot read never hides the others: it is reported (once)
            # with its text; its message is still fetched and stored when its id is known
            _report_row(store, self.name, bad, now)
            if bad.msg_id is not None:
                wanted.append((bad.msg_id, None))
        # oldest first, so the store's order follows arrival
        for msg_id, s in sorted(wanted, key=lambda x: x[0]):
            key = f"pm/{msg_id}"
            if key in stored or (self.since is not None and s is not None
                                 and s.latest < self.since):
                continue
            try:
                view = self.board.fetch_pm(msg_id)
            except ForumError as e:
                errors.append(f"{self.name}: message {msg_id}: {e}")
                continue
            try:
                pm: PrivateMessage | None = self.board.parse_pm(
                    view.body, msg_id=msg_id, url=view.url, fetched_at=view.fetched_at)
            except ForumError as e:
                if isinstance(e, LoginRequiredError) or "truncated" in str(e):
                    errors.append(f"{self.name}: message {msg_id}: {e}")   # tried again
                    continue
                # stored all the same (nothing fetched is lost); read as unreadable
                log.warning("%s: message %s cannot be read: %s", self.name, msg_id, e)
                pm = None
            if pm is not None and self.since is not None and pm.latest < self.since:
                continue        # an older message (another game) whose row was unreadable
            received = (pm.earliest if pm.precision in ("second", "minute") else pm.latest) \
                if pm is not None else (s.earliest if s is not None else view.fetched_at)
            mid, is_new = store.add_message(self.name, key, scrub_body(view.body),
                                            received_at=received,
                                            stored_at=now)
            if is_new:
                new.append(mid)
                if pm is not None:
                    # the board shows minutes (or "5 минут назад"): keep the whole range; and
                    # the PM as the board's adapter read it (in the board's zone), so that the
                    # intake never parses the page again (``PM_READ_EVENT``)
                    store.log_event(PM_READ_EVENT, {
                        "message": mid, "msg_id": pm.msg_id, "precision": pm.precision,
                        "earliest": pm.earliest.isoformat(), "latest": pm.latest.isoformat(),
                        "fetched_at": view.fetched_at.isoformat(), "author": pm.author,
                        "author_id": pm.author_id,
                        "subject": pm.subject or "", "text": pm.text}, at=now)
        return FetchReport(self.name, tuple(new), len(summaries) + len(problems), tuple(errors))


def _report_row(store: Store, source: str, bad: PmRowProblem, now: datetime) -> None:
    """An unreadable inbox row: logged and stored as an event the first time it is seen."""
    seen = set(store.get("pm_rows_unreadable", []) or [])
    mark = hashlib.sha256(f"{bad.msg_id}|{bad.text}".encode()).hexdigest()[:16]
    if mark in seen:
        return
    log.warning("%s: an inbox row cannot be read (%s): %s", source, bad.reason, bad.text[:200])
    store.log_event("pm_row_unreadable", {"source": source, "msg_id": bad.msg_id,
                                          "author": bad.author, "reason": bad.reason,
                                          "row": bad.text}, at=now)
    store.put("pm_rows_unreadable", sorted(seen | {mark}))

