"""The SQLite store: migrations, append-only versions, raw bodies kept once, clear errors."""

from __future__ import annotations

import os
import sqlite3
import stat
from datetime import datetime, timezone

import pytest

from scraper_mod.errors import StorageError
from scraper_mod.store import MIGRATIONS, Store

T0 = datetime(2024, 4, 9, 16, 0, tzinfo=timezone.utc)


def test_fresh_store_runs_every_migration(tmp_path):
    with Store(tmp_path / "s.sqlite3") as s:
        assert s.schema_version == len(MIGRATIONS)


def test_migration_from_v1_keeps_fetched_bodies(tmp_path):
    """A state file written by schema 1 opens under the current schema with nothing lost."""
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
    for stmt in MIGRATIONS[0].split(";"):
        if stmt.strip():
            db.execute(stmt)
    db.execute("INSERT INTO migrations VALUES (1, '2024-04-08T00:00:00+00:00')")
    db.execute("INSERT INTO fetches (url, fetched_at, status, sha256, body) VALUES "
               "('http://b/viewtopic.php?t=4', '2024-04-09T16:00:00+00:00', 200, 'abc', ?)",
               (b"<html>page</html>",))
    db.commit()
    db.close()
    with Store(path) as s:
        assert s.schema_version == len(MIGRATIONS)
        [(fid, url, _, status, body)] = list(s.fetches())
        assert (url, status, body) == ("http://b/viewtopic.php?t=4", 200, b"<html>page</html>")


def test_identical_bodies_are_stored_once_but_every_fetch_is_logged(tmp_path):
    with Store(tmp_path / "s.sqlite3") as s:
        for i in range(5):
            s.record_fetch("http://b/viewtopic.php?t=4", fetched_at=T0, status=200,
                           body=b"same page" * 1000)
        s.record_fetch("http://b/viewtopic.php?t=4", fetched_at=T0, status=200, body=b"new")
        assert s.fetch_count() == 6
        assert s.db.execute("SELECT COUNT(*) FROM bodies").fetchone()[0] == 2
        assert [b for *_, b in s.fetches()] == [b"same page" * 1000] * 5 + [b"new"]


def test_post_versions_are_append_only_and_deduplicated():
    s = Store(":memory:")
    key = {"text": "Вася"}
    assert s.add_post_version("t4", 64, {"v": 1}, content=key, fetched_at=T0)
    assert not s.add_post_version("t4", 64, {"v": 1}, content=key, fetched_at=T0)
    assert s.add_post_version("t4", 64, {"v": 2}, content={"text": "Маша"}, fetched_at=T0)
    assert [v.data["v"] for v in s.post_versions("t4")] == [1, 2]
    s.mark_deleted("t4", 64, detected_at=T0)
    assert 64 in s.deleted_posts("t4")
    # a post seen again is no longer deleted; its history is untouched
    s.add_post_version("t4", 64, {"v": 2}, content={"text": "Маша"}, fetched_at=T0)
    assert s.deleted_posts("t4") == {}
    assert len(s.post_versions("t4")) == 2


def test_messages_are_kept_once_per_source_key():
    s = Store(":memory:")
    mid, new = s.add_message("maildir:/m", "k1", b"raw", received_at=T0, stored_at=T0)
    assert new
    again, new2 = s.add_message("maildir:/m", "k1", b"raw", received_at=T0, stored_at=T0)
    assert (again, new2) == (mid, False)
    assert [m.raw for m in s.messages()] == [b"raw"]
    s.add_message("maildir:/m", "k2", b"raw2", received_at=T0, stored_at=T0)
    s.add_message("imap:x", "k3", b"raw3", received_at=T0, stored_at=T0)
    assert s.message_keys("maildir:/m") == {"k1", "k2"}
    assert s.message_keys("imap:x") == {"k3"} and s.message_keys("queue:y") == set()
    assert s.message_ids() == [m.id for m in sorted(s.messages(), key=lambda m: m.id)]


def test_naive_times_are_refused():
    s = Store(":memory:")
    with pytest.raises(ValueError):
        s.record_fetch("u", fetched_at=datetime(2024, 1, 1), status=200, body=b"")


def test_a_file_that_is_not_sqlite_is_a_clear_error(tmp_path):
    bad = tmp_path / "state.sqlite3"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StorageError) as e:
        Store(bad)
    assert str(bad) in str(e.value) and "state file" in str(e.value)


def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "s.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO migrations VALUES (999, 'x')")
    db.commit()
    db.close()
    with pytest.raises(StorageError) as e:
        Store(path)
    assert "newer scraper-mod" in str(e.value)


def test_the_state_file_is_readable_by_its_owner_only(tmp_path):
    """Issue 18 item 5: state.sqlite3 holds the roles, the random list's salt and every mail.
    A new one is created 0600 (its -wal too); one an older version left 0644 is tightened."""
    path = tmp_path / "state.sqlite3"
    with Store(path) as s:
        s.put("deal", {"salt": "secret"})
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        wal = tmp_path / "state.sqlite3-wal"
        assert not wal.exists() or stat.S_IMODE(os.stat(wal).st_mode) == 0o600
    os.chmod(path, 0o644)
    with Store(path) as s:
        assert s.get("deal") == {"salt": "secret"}
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_steady_block_reads_the_settings_once_and_sees_its_own_writes(tmp_path):
    """``Store.steady``: a daemon job's view of its game's settings. Read once inside; this
    connection's writes (and a rollback) are seen at once; another process's write is seen
    by the next block; what it gives is a fresh value each time."""
    path = tmp_path / "state.sqlite3"
    s, other = Store(path), Store(path)
    t = datetime(2024, 4, 9, 17, 0, tzinfo=timezone.utc)
    s.put("moved_deadlines", {"1": "2024-04-09T19:00:00+03:00"})
    reads: list[str] = []
    s.db.set_trace_callback(lambda sql: reads.append(sql) if sql.startswith("SELECT") else None)
    with s.steady():
        first = s.get("moved_deadlines")
        first["2"] = "mutated by a caller"
        assert s.get("moved_deadlines") == {"1": "2024-04-09T19:00:00+03:00"}
        assert s.get("day_topics", {}) == {} and s.get("day_topics") is None
        assert s.resolved_days() == set() and s.resolved_days() == set()
        assert len(reads) == 3                       # moved_deadlines, day_topics, the days
        other.put("moved_deadlines", {"1": "2024-04-09T18:00:00+03:00"})   # another process
        assert s.get("moved_deadlines")["1"].startswith("2024-04-09T19")
        s.put("day_topics", {"1": "http://board/viewtopic.php?t=1"})        # its own write
        assert s.get("day_topics") == {"1": "http://board/viewtopic.php?t=1"}
        assert s.get("moved_deadlines")["1"].startswith("2024-04-09T18")   # read again
        s.save_resolution(1, {"day": 1}, resolved_at=t)
        assert s.resolved_days() == {1}
        with pytest.raises(RuntimeError):
            with s.transaction():
                s.put("day_topics", {})
                assert s.get("day_topics") == {}
                raise RuntimeError("a job failed half way")
        assert s.get("day_topics") == {"1": "http://board/viewtopic.php?t=1"}   # rolled back
        with s.steady():                             # nested: the outer block counts
            assert s.get("day_topics") == {"1": "http://board/viewtopic.php?t=1"}
    other.put("day_topics", {"2": "x"})
    assert s.get("day_topics") == {"2": "x"}         # outside a block: every read is fresh
    other.save_resolution(2, {"day": 2}, resolved_at=t)
    with s.steady():
        assert s.resolved_days() == {1, 2}
    s.close()
    other.close()


def test_a_page_of_versions_at_once_stores_what_one_at_a_time_stores():
    """``Store.add_post_versions`` (one query for a page's latest versions) against
    ``add_post_version`` post by post: new posts, unchanged ones, changed ones, a post marked
    deleted that shows again, a post twice."""
    one, batch = Store(":memory:"), Store(":memory:")
    topic = "http://127.0.0.1/viewtopic.php?t=4"
    pages = [
        [(63, {"text": "а"}), (64, {"text": "б"})],
        [(63, {"text": "а"}), (64, {"text": "б2"}), (65, {"text": "в"})],
        [(64, {"text": "б2"}), (65, {"text": "в"}), (66, {"text": "г"})],
        [(63, {"text": "а"}), (66, {"text": "г2"}), (66, {"text": "г3"})],
        [],
    ]
    for n, page in enumerate(pages):
        at = T0.replace(minute=n)
        if n == 2:
            for s in (one, batch):
                s.mark_deleted(topic, 63, detected_at=at)
        got_one = [one.add_post_version(topic, pid, {"post_id": pid, **c}, content=c,
                                        fetched_at=at) for pid, c in page]
        made = []
        got_batch = batch.add_post_versions(
            topic, [(pid, c, lambda pid=pid, c=c: made.append(pid) or {"post_id": pid, **c})
                    for pid, c in page], fetched_at=at)
        assert got_batch == got_one
        if len({pid for pid, _ in page}) == len(page):   # the data made only when stored
            assert sorted(made) == sorted(pid for (pid, _), new in zip(page, got_one) if new)
    assert batch.post_versions() == one.post_versions() and len(one.post_versions()) == 7
    assert batch.deleted_posts(topic) == one.deleted_posts(topic) == {}


