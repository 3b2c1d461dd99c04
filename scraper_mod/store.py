"""SQLite state beside the game file: everything seen, append-only, with versioned migrations.

Raw bytes are stored before anything interprets them (``fetches`` for forum pages,
``messages`` for night-move mail), so any day can be recomputed later. Parsed post versions
are appended to ``post_versions`` only when their content hash changes.
"""
# long: the one module with SQL (a house rule tests/test_architecture.py checks): every table's
# reads and writes and the migrations stay together so each statement's schema is in view

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, cast

from .errors import StorageError, scrub_secrets

log = logging.getLogger(__name__)

# Each migration runs in the same transaction that records it (sqlite-utils' way).
MIGRATIONS: list[str] = [
    # 1: the first schema
    """
    CREATE TABLE fetches (
        id INTEGER PRIMARY KEY,
        url TEXT NOT NULL,
        fetched_at TEXT NOT NULL,          -- UTC ISO instant of our request
        board_date TEXT,                   -- the response's Date header (ISO), if any
        status INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        body BLOB NOT NULL
    );
    CREATE TABLE post_versions (
        id INTEGER PRIMARY KEY,
        topic TEXT NOT NULL,               -- the topic key (its URL without paging)
        post_id INTEGER NOT NULL,
        fetched_at TEXT NOT NULL,
        fetch_id INTEGER REFERENCES fetches(id),
        sha256 TEXT NOT NULL,
        data TEXT NOT NULL                 -- Post.to_json()
    );
    CREATE INDEX post_versions_topic ON post_versions(topic, post_id, id);
    CREATE TABLE post_deletions (
        topic TEXT NOT NULL,
        post_id INTEGER NOT NULL,
        detected_at TEXT NOT NULL,
        PRIMARY KEY (topic, post_id)
    );
    CREATE TABLE topic_state (
        topic TEXT PRIMARY KEY,
        data TEXT NOT NULL
    );
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL,              -- "maildir:/path", "imap:host/folder", ...
        key TEXT NOT NULL,                 -- the source's own id: file name, UIDVALIDITY/UID...
        received_at TEXT NOT NULL,         -- when the host's side received it (UTC ISO)
        stored_at TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        raw BLOB NOT NULL,
        UNIQUE (source, key)
    );
    CREATE TABLE source_state (
        source TEXT PRIMARY KEY,
        data TEXT NOT NULL
    );
    CREATE TABLE resolutions (
        day INTEGER PRIMARY KEY,
        resolved_at TEXT NOT NULL,
        data TEXT NOT NULL
    );
    CREATE TABLE kv (
        key TEXT PRIMARY KEY,
        data TEXT NOT NULL
    );
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL
    );
    """,
    # 2: fetched bodies stored once per content (an idle poll re-fetches the same page all day)
    """
    CREATE TABLE bodies (
        sha256 TEXT PRIMARY KEY,
        body BLOB NOT NULL
    );
    INSERT OR IGNORE INTO bodies (sha256, body) SELECT sha256, body FROM fetches;
    UPDATE fetches SET body = X'';
    """,
    # 3: the topic as the daemon read it at a deadline (RULES R2.11)
    """
    CREATE TABLE deadline_reads (
        topic TEXT NOT NULL,
        deadline TEXT NOT NULL,            -- UTC ISO instant of the deadline
        status TEXT NOT NULL,              -- "read" | "failed"
        read_at TEXT,                      -- when the read's last page was answered (local)
        delay REAL,                        -- seconds from the deadline to read_at
        error TEXT,
        posts TEXT NOT NULL,               -- {post id: Post.to_json()} of every post shown
        PRIMARY KEY (topic, deadline)
    );
    """,
    # 4: what was posted on the board (RULES R12.2): intended before the request, done after
    """
    CREATE TABLE publications (
        game TEXT NOT NULL,
        day INTEGER NOT NULL,
        kind TEXT NOT NULL,                -- newspaper | day-topic | day-start | pm | role-card | lock
        recipient TEXT NOT NULL,           -- topic URL or nick
        status TEXT NOT NULL,              -- intended | done | failed
        sha256 TEXT NOT NULL,              -- the text posted (an edit when it changes)
        post_id INTEGER,                   -- the post's or PM's id on the board
        url TEXT,
        error TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (game, day, kind, recipient)
    );
    """,
    # 5: replacements and the host's decisions (RULES R10, R11), one numbering K for all;
    # taking one back marks it (undone_at), never deletes it
    """
    CREATE TABLE host_decisions (
        k INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,                -- replace | vote | kill
        made_at TEXT NOT NULL,             -- when the host made it (UTC ISO)
        at TEXT,                           -- replace, kill: the instant it takes effect
        nick TEXT,                         -- replace: the old nick, kill: the player
        new TEXT,                          -- replace: the newcomer, vote: the target
        post_id INTEGER,                   -- vote: the post
        contact TEXT,                      -- replace: the newcomer's contact if given
        why TEXT NOT NULL DEFAULT '',
        undone_at TEXT                     -- when it was taken back (NULL: in force)
    );
    """,
]


def _iso(t: datetime) -> str:
    if t.tzinfo is None:
        raise ValueError("naive datetime given to the store")
    return t.astimezone(timezone.utc).isoformat()


def content_hash(data: object) -> str:
    """SHA-256 of a JSON-able value, stable across runs."""
    blob = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class StoredVersion:
    id: int
    topic: str
    post_id: int
    fetched_at: datetime
    data: dict


@dataclass(frozen=True)
class StoredMessage:
    id: int
    source: str
    key: str
    received_at: datetime
    raw: bytes


def _owner_only(path: str) -> None:
    """The state holds the roles, the random list's salt and every mail: create it readable by
    its owner only (0600), and tighten a file an older version left 0644. SQLite gives its -wal
    and -shm files the main file's mode."""
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    except OSError:
        return      # a read-only folder or file: sqlite says what is wrong when it opens it
    for name in (path, path + "-wal", path + "-shm"):
        try:
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, 0o600)
        except OSError:
            pass


BACKUPS_DIR = "backups"      # beside the state file: state-day-N.sqlite3, 0600
BACKUPS_KEPT = 3             # the newest few; one is taken each time a newest day is resolved


def backups(path: str | Path) -> list[Path]:
    """The rolling backups of the state file at ``path``, newest first."""
    folder = Path(path).parent / BACKUPS_DIR
    try:
        found = [p for p in folder.glob("state-day-*.sqlite3") if p.is_file()]
    except OSError:
        return []
    return sorted(found, key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)


def restore_hint(path: str) -> str:
    """How to get a good state back: the newest backup, or (none kept) what to do instead."""
    kept = backups(path)
    if kept:
        return (f"restore the newest backup: cp '{kept[0]}' '{path}' ({len(kept)} kept in "
                f"{kept[0].parent}/, one per resolved day); the next poll reads the topic "
                "again; moves received since may need to be put back in the move source")
    return ("no backup is kept yet (one is made in backups/ beside it each time a day is "
            "resolved): restore a copy of it if you have one; if no day was ever resolved "
            "or dealt, move it away to start the game fresh")


def _check_whole(db: sqlite3.Connection, path: str) -> None:
    """Refuse a state file SQLite finds damaged (``PRAGMA quick_check``): every command would
    read half a game from it and exit 0."""
    try:
        rows = [r[0] for r in db.execute("PRAGMA quick_check(5)")]
    except sqlite3.OperationalError:
        raise           # a lock, a full disk, no permission: not a damaged file
    except sqlite3.DatabaseError as e:
        rows = [str(e)]
    if rows != ["ok"]:
        found = "; ".join(" ".join(r.replace("*** in database main ***", "").split())
                          for r in rows[:2])
        raise StorageError(f"the state file is damaged (SQLite's integrity check: "
                           f"{found[:160]})", path=path, hint=restore_hint(path))


class Store:
    """The game's state file. ``Store(":memory:")`` for tests.

    ``Store(path, readonly=True)`` for the commands that only read (``status``, ``tally
    --offline``): SQLite's ``mode=ro`` (every write raises), ``immutable`` too where the folder
    cannot be written (a read-only mount, where SQLite could not make its -shm file); a state
    of an older schema is then read from a migrated copy in memory, never written.

    A zero-byte file or one failing SQLite's ``quick_check`` is refused with the way to
    restore it (``restore_hint``); ``save_resolution`` keeps a rolling backup (``backups``).
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._steady: dict | None = None      # reads kept inside ``steady()``
        memory = self.path == ":memory:"
        try:
            if not memory:
                self._refuse_empty()
            if readonly and not memory:
                self.db = self._connect_readonly()
            else:
                if not memory:
                    _owner_only(self.path)
                self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
                self.db.execute("PRAGMA journal_mode=WAL" if not memory else
                                "PRAGMA journal_mode=MEMORY")
                # WAL + NORMAL: a commit survives a process crash; only an OS crash may lose
                # the last commits, which the next poll fetches again.
                self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            if not memory:
                _check_whole(self.db, self.path)
            # SQLite's page cache is 2 MB a connection by default, and `run FOLDER` holds one
            # per game: 256 KiB keeps a poll's pages (the OS caches the file anyway)
            self.db.execute("PRAGMA cache_size=-256")
            self._migrate()
        except sqlite3.DatabaseError as e:
            # permissions, a full disk or a lock are no broken file: never suggest moving
            # the state away then (its posts and moves may exist nowhere else)
            raise StorageError(f"cannot open the state file: {e}", path=self.path,
                               hint="check that the game folder and state.sqlite3 are writable, "
                                    "the disk is not full and no other program holds the file"
                               if isinstance(e, sqlite3.OperationalError) else
                               "is it a scraper-mod state.sqlite3? " + restore_hint(self.path)
                               ) from None

    def _refuse_empty(self) -> None:
        """A zero-byte state is no fresh game: it is a state that lost its content (a full
        disk, a copy cut short) and starting afresh would lose the moved deadlines, the deal
        and the resolved days."""
        try:
            size = os.stat(self.path).st_size
        except OSError:
            return          # a new game; or sqlite says what is wrong when it opens it
        if size == 0:
            raise StorageError("the state file is empty (0 bytes): it is not a new game, its "
                               "content was lost", path=self.path, hint=restore_hint(self.path))

    def _connect_readonly(self) -> sqlite3.Connection:
        if not os.path.exists(self.path):   # nothing stored yet: an empty state, not written
            return sqlite3.connect(":memory:", isolation_level=None)
        folder = os.path.dirname(os.path.abspath(self.path))
        uri = "file:" + urllib.parse.quote(os.path.abspath(self.path)) + "?mode=ro"
        wal = self.path + "-wal"
        if not os.access(folder, os.W_OK) and not (os.path.exists(wal)
                                                    and os.path.getsize(wal) > 0):
            # nobody can be writing here: without this SQLite wants to create its -shm file
            uri += "&immutable=1"
        return sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)

    # -- schema -------------------------------------------------------------------------
    def _migrate(self) -> None:
        if self.readonly and not self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE name='migrations'").fetchone():
            copy = sqlite3.connect(":memory:", isolation_level=None)
            self.db.close()
            self.db = copy
        self.db.execute("CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, "
                        "applied_at TEXT NOT NULL)")
        done = {r[0] for r in self.db.execute("SELECT version FROM migrations")}
        if done and max(done) > len(MIGRATIONS):
            raise StorageError(f"written by a newer scraper-mod (schema {max(done)})",
                               path=self.path, hint="upgrade scraper-mod")
        if self.readonly and len(done) < len(MIGRATIONS):
            # an older schema read without writing it: migrate a copy in memory
            copy = sqlite3.connect(":memory:", isolation_level=None)
            self.db.backup(copy)
            self.db.close()
            self.db = copy
        for version, sql in enumerate(MIGRATIONS, start=1):
            if version in done:
                continue
            self.db.execute("BEGIN IMMEDIATE")
            try:
                for stmt in sql.split(";"):
                    if stmt.strip():
                        self.db.execute(stmt)
                self.db.execute("INSERT INTO migrations VALUES (?, ?)",
                                (version, datetime.now(timezone.utc).isoformat()))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    @property
    def schema_version(self) -> int:
        return self.db.execute("SELECT COALESCE(MAX(version), 0) FROM migrations").fetchone()[0]

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- forum --------------------------------------------------------------------------
    def record_fetch(self, url: str, *, fetched_at: datetime, status: int, body: bytes,
                     board_date: datetime | None = None) -> int:
        """Store a fetched page's raw bytes; returns its id. Call before parsing."""
        digest = hashlib.sha256(body).hexdigest()
        self.db.execute("INSERT OR IGNORE INTO bodies (sha256, body) VALUES (?, ?)",
                        (digest, body))
        cur = self.db.execute(
            "INSERT INTO fetches (url, fetched_at, board_date, status, sha256, body) "
            "VALUES (?, ?, ?, ?, ?, X'')",
            (url, _iso(fetched_at), _iso(board_date) if board_date else None, status, digest))
        return cast(int, cur.lastrowid)

    def fetches(self, *, url_prefix: str = "") -> Iterator[tuple[int, str, datetime, int, bytes]]:
        for r in self.db.execute("SELECT f.id, f.url, f.fetched_at, f.status, b.body "
                                 "FROM fetches f JOIN bodies b ON b.sha256 = f.sha256 "
                                 "WHERE f.url LIKE ? ORDER BY f.id", (url_prefix + "%",)):
            yield r[0], r[1], datetime.fromisoformat(r[2]), r[3], r[4]

    def fetch_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM fetches").fetchone()[0]

    def last_fetched_at(self) -> datetime | None:
        """When the board was last read (any page), or None before the first read."""
        row = self.db.execute("SELECT MAX(fetched_at) FROM fetches").fetchone()
        return datetime.fromisoformat(row[0]) if row and row[0] else None

    def add_post_version(self, topic: str, post_id: int, data: dict, *, content: object,
                         fetched_at: datetime, fetch_id: int | None = None) -> bool:
        """Append a version of a post unless its content equals the latest stored one.

        ``content`` is what decides "changed" (Post.content_key()); ``data`` is stored whole.
        Returns True when a new version was stored. A post that reappears after being marked
        deleted is undeleted.
        """
        h = content_hash(content)
        last = self.db.execute("SELECT sha256 FROM post_versions WHERE topic=? AND post_id=? "
                               "ORDER BY id DESC LIMIT 1", (topic, post_id)).fetchone()
        self._undelete(topic, [post_id])
        if last and last[0] == h:
            return False
        self.db.execute("INSERT INTO post_versions (topic, post_id, fetched_at, fetch_id, sha256, "
                        "data) VALUES (?, ?, ?, ?, ?, ?)",
                        (topic, post_id, _iso(fetched_at), fetch_id, h,
                         json.dumps(data, ensure_ascii=False, sort_keys=True)))
        return True

    def add_post_versions(self, topic: str,
                          versions: list[tuple[int, object, Callable[[], dict]]], *,
                          fetched_at: datetime, fetch_id: int | None = None) -> list[bool]:
        """``add_post_version`` for the posts of one page, (post id, content, a function
        giving the data) each, with one query for their latest versions (issue 16): the
        data is made only for the versions stored. Returns, per post, whether it was."""
        ids = [v[0] for v in versions]
        if len(set(ids)) != len(ids):   # a post twice: one after the other, as it came
            return [self.add_post_version(topic, pid, data(), content=content,
                                          fetched_at=fetched_at, fetch_id=fetch_id)
                    for pid, content, data in versions]
        if not ids:
            return []
        latest = self._latest_hashes(topic, ids)
        self._undelete(topic, ids)
        stored: list[bool] = []
        rows = []
        for pid, content, data in versions:
            h = content_hash(content)
            stored.append(latest.get(pid) != h)
            if stored[-1]:
                rows.append((topic, pid, _iso(fetched_at), fetch_id, h,
                             json.dumps(data(), ensure_ascii=False, sort_keys=True)))
        self.db.executemany("INSERT INTO post_versions (topic, post_id, fetched_at, "
                            "fetch_id, sha256, data) VALUES (?, ?, ?, ?, ?, ?)", rows)
        return stored

    def _latest_hashes(self, topic: str, ids: list[int] | None = None) -> dict[int, str]:
        """post id -> the content hash of its latest stored version (of ``ids``, or all)."""
        only = f" AND post_id IN ({','.join('?' * len(ids))})" if ids is not None else ""
        return dict(self.db.execute(
            "SELECT post_id, sha256 FROM post_versions WHERE id IN (SELECT MAX(id) FROM "
            f"post_versions WHERE topic=?{only} GROUP BY post_id)",
            (topic, *(ids or ()))).fetchall())

    def _undelete(self, topic: str, ids: list[int]) -> None:
        """Posts seen again are no longer deleted."""
        marks = ",".join("?" * len(ids))
        self.db.execute(f"DELETE FROM post_deletions WHERE topic=? AND post_id IN ({marks})",
                        (topic, *ids))

    def post_versions(self, topic: str | None = None) -> list[StoredVersion]:
        """Every stored version, in the order they were stored (per topic if given)."""
        q = "SELECT id, topic, post_id, fetched_at, data FROM post_versions"
        args: tuple = ()
        if topic is not None:
            q += " WHERE topic=?"
            args = (topic,)
        return [StoredVersion(r[0], r[1], r[2], datetime.fromisoformat(r[3]), json.loads(r[4]))
                for r in self.db.execute(q + " ORDER BY id", args)]

    def known_post_ids(self, topic: str) -> set[int]:
        return {r[0] for r in self.db.execute(
            "SELECT DISTINCT post_id FROM post_versions WHERE topic=?", (topic,))}

    def mark_deleted(self, topic: str, post_id: int, *, detected_at: datetime) -> None:
        at = _iso(detected_at)
        self.db.execute("INSERT OR IGNORE INTO post_deletions VALUES (?, ?, ?)",
                        (topic, post_id, at))

    def deleted_posts(self, topic: str) -> dict[int, datetime]:
        return {r[0]: datetime.fromisoformat(r[1]) for r in self.db.execute(
            "SELECT post_id, detected_at FROM post_deletions WHERE topic=?", (topic,))}

    def topic_state(self, topic: str) -> dict:
        r = self.db.execute("SELECT data FROM topic_state WHERE topic=?", (topic,)).fetchone()
        return json.loads(r[0]) if r else {}

    def set_topic_state(self, topic: str, data: dict) -> None:
        raw = json.dumps(data, ensure_ascii=False, sort_keys=True)
        self.db.execute("INSERT OR REPLACE INTO topic_state VALUES (?, ?)", (topic, raw))

    def save_deadline_read(self, topic: str, deadline: datetime, *, status: str,
                           posts: dict[int, dict], read_at: datetime | None = None,
                           delay: float | None = None, error: str | None = None) -> None:
        """Keep the read of ``topic`` at ``deadline`` (R2.11); a successful read is never
        replaced by a later one, a failed one is."""
        old = self.deadline_read(topic, deadline)
        if old is not None and old["status"] == "read":
            return
        self.db.execute("INSERT OR REPLACE INTO deadline_reads VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (topic, _iso(deadline), status, _iso(read_at) if read_at else None,
                         delay, error, json.dumps({str(k): v for k, v in posts.items()},
                                                  ensure_ascii=False, sort_keys=True)))

    def deadline_read(self, topic: str, deadline: datetime) -> dict | None:
        """The read of ``topic`` at ``deadline``: status, read_at, delay, error and posts
        (post id -> Post JSON), or None when none was made."""
        r = self.db.execute("SELECT status, read_at, delay, error, posts FROM deadline_reads "
                            "WHERE topic=? AND deadline=?", (topic, _iso(deadline))).fetchone()
        if r is None:
            return None
        return {"status": r[0], "read_at": datetime.fromisoformat(r[1]) if r[1] else None,
                "delay": r[2], "error": r[3],
                "posts": {int(k): v for k, v in json.loads(r[4]).items()}}

    # -- night-move messages ------------------------------------------------------------
    def add_message(self, source: str, key: str, raw: bytes, *, received_at: datetime,
                    stored_at: datetime) -> tuple[int, bool]:
        """Store a raw message once per (source, key). Returns (id, is_new)."""
        r = self.db.execute("SELECT id FROM messages WHERE source=? AND key=?",
                            (source, key)).fetchone()
        if r:
            return r[0], False
        cur = self.db.execute(
            "INSERT INTO messages (source, key, received_at, stored_at, sha256, raw) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (source, key, _iso(received_at), _iso(stored_at),
             hashlib.sha256(raw).hexdigest(), raw))
        return cast(int, cur.lastrowid), True

    def messages(self, source: str | None = None) -> list[StoredMessage]:
        q = "SELECT id, source, key, received_at, raw FROM messages"
        args: tuple = ()
        if source is not None:
            q += " WHERE source=?"
            args = (source,)
        return [StoredMessage(r[0], r[1], r[2], datetime.fromisoformat(r[3]), r[4])
                for r in self.db.execute(q + " ORDER BY received_at, id", args)]

    def message_heads(self) -> list[tuple[int, str, str, datetime]]:
        """(id, source, key, received_at) of every message, in ``messages()``' order, without
        their bytes: a reader that has read a message before takes it from its own cache."""
        return [(r[0], r[1], r[2], datetime.fromisoformat(r[3])) for r in self.db.execute(
            "SELECT id, source, key, received_at FROM messages ORDER BY received_at, id")]

    def message(self, message_id: int) -> StoredMessage | None:
        """One stored message, bytes included."""
        r = self.db.execute("SELECT id, source, key, received_at, raw FROM messages WHERE id=?",
                            (message_id,)).fetchone()
        return StoredMessage(r[0], r[1], r[2], datetime.fromisoformat(r[3]), r[4]) if r else None

    def message_keys(self, source: str) -> set[str]:
        """The keys of the messages stored from ``source`` (no bytes read: a poll of a
        mailbox asks this every time)."""
        return {r[0] for r in self.db.execute("SELECT key FROM messages WHERE source=?",
                                              (source,))}

    def message_ids(self) -> list[int]:
        """The ids of every stored message (no bytes read)."""
        return [r[0] for r in self.db.execute("SELECT id FROM messages ORDER BY id")]

    def source_state(self, source: str) -> dict:
        r = self.db.execute("SELECT data FROM source_state WHERE source=?", (source,)).fetchone()
        return json.loads(r[0]) if r else {}

    def set_source_state(self, source: str, data: dict) -> None:
        self.db.execute("INSERT OR REPLACE INTO source_state VALUES (?, ?)",
                        (source, json.dumps(data, ensure_ascii=False, sort_keys=True)))

    # -- results and misc ---------------------------------------------------------------
    def save_resolution(self, day: int, data: dict, *, resolved_at: datetime) -> None:
        """Record a day's resolution; when it is the newest resolved day (not a later day
        rewritten by a cascade), also keep a backup of the whole state (``backup``)."""
        self._changed()
        self.db.execute("INSERT OR REPLACE INTO resolutions VALUES (?, ?, ?)",
                        (day, _iso(resolved_at), json.dumps(data, ensure_ascii=False,
                                                            sort_keys=True)))
        newest = self.db.execute("SELECT MAX(day) FROM resolutions").fetchone()[0]
        if day == newest and self.path != ":memory:":
            try:
                self.backup(f"state-day-{day}.sqlite3")
            except (OSError, sqlite3.Error) as e:    # the game goes on; the host is told
                log.warning("%s: could not keep a backup of the state after day %d: %s",
                            self.path, day, e)

    def backup(self, name: str) -> Path:
        """A consistent copy of the state (SQLite's backup API) in ``backups/`` beside it,
        readable by the owner only; the ``BACKUPS_KEPT`` newest are kept."""
        folder = Path(self.path).parent / BACKUPS_DIR
        folder.mkdir(mode=0o700, exist_ok=True)
        target = folder / name
        tmp = folder / f".{name}.tmp"
        os.close(os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600))
        os.chmod(tmp, 0o600)
        dest = sqlite3.connect(tmp)
        try:
            self.db.backup(dest)
            dest.execute("PRAGMA journal_mode=DELETE")
        finally:
            dest.close()
        os.replace(tmp, target)
        for old in backups(self.path)[BACKUPS_KEPT:]:
            old.unlink(missing_ok=True)
        return target

    def resolution(self, day: int) -> dict | None:
        r = self.db.execute("SELECT data FROM resolutions WHERE day=?", (day,)).fetchone()
        return json.loads(r[0]) if r else None

    def resolutions(self) -> dict[int, dict]:
        return {r[0]: json.loads(r[1]) for r in
                self.db.execute("SELECT day, data FROM resolutions ORDER BY day")}

    def delete_resolutions_from(self, day: int) -> None:
        self._changed()
        self.db.execute("DELETE FROM resolutions WHERE day >= ?", (day,))

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: it changes when another connection (another
        process: ``scraper-mod day move``, ``decide``) has committed to this state file
        since it was last asked; this connection's own writes leave it."""
        return cast(int, self.db.execute("PRAGMA data_version").fetchone()[0])

    @contextmanager
    def steady(self) -> Iterator[None]:
        """A job's view of its game's settings: inside, ``get`` and ``resolved_days`` read
        the file once and answer from what they read, until this connection writes the
        settings or the resolutions (or rolls a transaction back). What another process
        writes meanwhile is read by the next block: a daemon job reads the moved deadlines
        once, not at every step (nested: the outer block counts)."""
        if self._steady is not None:
            yield
            return
        self._steady = {}
        try:
            yield
        finally:
            self._steady = None

    def _changed(self) -> None:
        if self._steady:
            self._steady.clear()

    def get(self, key: str, default: Any = None) -> Any:
        steady = self._steady
        if steady is not None and ("kv", key) in steady:
            raw = steady[("kv", key)]
        else:
            r = self.db.execute("SELECT data FROM kv WHERE key=?", (key,)).fetchone()
            raw = r[0] if r else None
            if steady is not None:
                steady[("kv", key)] = raw
        return json.loads(raw) if raw is not None else default     # a fresh value each time

    def put(self, key: str, value: Any) -> None:
        self._changed()
        self.db.execute("INSERT OR REPLACE INTO kv VALUES (?, ?)",
                        (key, scrub_secrets(json.dumps(value, ensure_ascii=False,
                                                       sort_keys=True))))

    # -- publications (R12.2) ---------------------------------------------------------------
    def publication(self, game: str, day: int, kind: str, recipient: str) -> dict | None:
        """One publication's record: status, sha256, post_id, url, error; None if never tried."""
        r = self.db.execute("SELECT status, sha256, post_id, url, error, updated_at FROM "
                            "publications WHERE game=? AND day=? AND kind=? AND recipient=?",
                            (game, day, kind, recipient)).fetchone()
        if r is None:
            return None
        return dict(zip(("status", "sha256", "post_id", "url", "error", "updated_at"), r))

    def set_publication(self, game: str, day: int, kind: str, recipient: str, *, status: str,
                        sha256: str, at: datetime, post_id: int | None = None,
                        url: str | None = None, error: str | None = None) -> None:
        """Record a publication as intended (before the request), done or failed (after)."""
        self.db.execute("INSERT OR REPLACE INTO publications VALUES (?,?,?,?,?,?,?,?,?,?)",
                        (game, day, kind, recipient, status, sha256, post_id,
                         scrub_secrets(url) if url else url,
                         scrub_secrets(error) if error else error, _iso(at)))

    def publications(self, game: str, day: int | None = None) -> list[dict]:
        q = ("SELECT day, kind, recipient, status, sha256, post_id, url, error, updated_at "
             "FROM publications WHERE game=?")
        args: tuple = (game,)
        if day is not None:
            q, args = q + " AND day=?", (game, day)
        keys = ("day", "kind", "recipient", "status", "sha256", "post_id", "url", "error",
                "updated_at")
        return [dict(zip(keys, r)) for r in self.db.execute(q + " ORDER BY day, rowid", args)]

    # -- replacements and the host's decisions (R10, R11) -------------------------------------
    _DECISION_KEYS = ("k", "kind", "made_at", "at", "nick", "new", "post_id", "contact", "why",
                      "undone_at")

    def add_host_decision(self, kind: str, *, made_at: datetime, at: datetime | None = None,
                          nick: str | None = None, new: str | None = None,
                          post_id: int | None = None, contact: str | None = None,
                          why: str = "") -> int:
        """Record one replacement or decision; returns its number K."""
        cur = self.db.execute(
            "INSERT INTO host_decisions (kind, made_at, at, nick, new, post_id, contact, why) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (kind, _iso(made_at), _iso(at) if at is not None else None, nick, new, post_id,
             contact, why))
        if cur.lastrowid is None:      # sqlite3 always sets it after an INSERT
            raise StorageError("the host's decision was not recorded", path=self.path)
        return cur.lastrowid

    def host_decisions(self) -> list[dict]:
        """Every replacement and decision, in force or undone, by K; instants as datetimes."""
        out = []
        for row in self.db.execute("SELECT k, kind, made_at, at, nick, new, post_id, contact, "
                                   "why, undone_at FROM host_decisions ORDER BY k"):
            d = dict(zip(self._DECISION_KEYS, row))
            for key in ("made_at", "at", "undone_at"):
                if d[key] is not None:
                    d[key] = datetime.fromisoformat(d[key])
            out.append(d)
        return out

    def undo_host_decision(self, k: int, *, at: datetime) -> bool:
        """Mark decision K taken back; False when there is no such K in force."""
        cur = self.db.execute("UPDATE host_decisions SET undone_at=? WHERE k=? AND undone_at "
                              "IS NULL", (_iso(at), k))
        return cur.rowcount == 1

    def log_event(self, kind: str, data: dict, *, at: datetime) -> None:
        self.db.execute("INSERT INTO events (at, kind, data) VALUES (?, ?, ?)",
                        (_iso(at), kind, scrub_secrets(json.dumps(data, ensure_ascii=False,
                                                                  sort_keys=True))))

    def events(self, kind: str | None = None) -> list[tuple[datetime, str, dict]]:
        q, args = "SELECT at, kind, data FROM events", cast(tuple[str, ...], ())
        if kind:
            q, args = q + " WHERE kind=?", (kind,)
        return [(datetime.fromisoformat(a), k, json.loads(d))
                for a, k, d in self.db.execute(q + " ORDER BY id", args)]

    # -- for the services: no SQL outside this module ------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Writes inside are committed together or not at all (nested: the outer one counts)."""
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._changed()          # what was read inside may be gone with the rollback
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def resolved_days(self) -> set[int]:
        """Only the day numbers: ``resolutions()`` would decode every stored day's state."""
        steady = self._steady
        if steady is not None and "days" in steady:
            return set(steady["days"])
        days = {r[0] for r in self.db.execute("SELECT day FROM resolutions")}
        if steady is not None:
            steady["days"] = frozenset(days)
        return days

    def last_fetch_at(self) -> datetime | None:
        """When the last page was fetched (UTC), or None before the first fetch."""
        row = self.db.execute("SELECT MAX(fetched_at) FROM fetches").fetchone()
        return datetime.fromisoformat(row[0]) if row and row[0] else None

    def skip_syncs(self) -> None:
        """For a throw-away game (the demo): writes are not synced to disk, so a power cut may
        lose the file, and a simulated week takes seconds on any disk."""
        self.db.execute("PRAGMA synchronous=OFF")
