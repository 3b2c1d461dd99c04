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


def test_a_steady_block_keeps_the_last_ones_reads_until_another_connection_writes(tmp_path):
    path = tmp_path / "state.sqlite3"
    s, other = Store(path), Store(path)
    s.put("moved_deadlines", {"1": "19:00"})
    reads: list[str] = []
    s.db.set_trace_callback(lambda sql: reads.append(sql) if sql.startswith("SELECT") else None)
    with s.steady():
        assert s.get("moved_deadlines") == {"1": "19:00"} and s.resolved_days() == set()
    assert len(reads) == 2
    for _ in range(3):                          # the next jobs: nothing read again
        with s.steady():
            assert s.get("moved_deadlines") == {"1": "19:00"} and s.resolved_days() == set()
    assert len(reads) == 2
    other.put("moved_deadlines", {"1": "18:00"})            # 'day move' in another process
    with s.steady():
        assert s.get("moved_deadlines") == {"1": "18:00"}
    assert len(reads) == 3
    s.put("moved_deadlines", {"1": "17:00"})                # its own write, outside a block
    with s.steady():
        assert s.get("moved_deadlines") == {"1": "17:00"}
    other.save_resolution(1, {"day": 1}, resolved_at=datetime(2024, 4, 9, tzinfo=timezone.utc))
    with s.steady():
        assert s.resolved_days() == {1}
    s.close()
    other.close()


def test_a_steady_block_takes_the_data_version_its_caller_just_asked():
    s = Store(":memory:")
    s.put("moved_deadlines", {})
    asked: list[str] = []
    v = s.data_version()
    s.db.set_trace_callback(lambda sql: asked.append(sql) if "data_version" in sql else None)
    with s.steady(v):
        assert s.get("moved_deadlines") == {}
    with s.steady():
        assert s.get("moved_deadlines") == {}
    assert len(asked) == 1                      # only the block that was not given one
    s.close()


def _topic_reads(s: Store, topic: str) -> tuple:
    return (s.known_post_ids(topic), s.deleted_posts(topic), s.topic_state(topic))


def test_a_polls_topic_reads_are_kept_across_blocks_and_follow_every_write(tmp_path):
    """Inside ``steady`` blocks a topic's known posts, latest hashes, deletions and poll state
    are read once and kept while no other connection writes; this connection's own writes
    (in a block or not) update them, a rollback or another connection's write drops them; at
    every step they read as the file does."""
    path = tmp_path / "state.sqlite3"
    s, other = Store(path), Store(path)
    topic, t = "http://board/viewtopic.php?t=4", T0
    s.add_post_versions(topic, [(1, "a", lambda: {"n": 1}), (2, "b", lambda: {"n": 2})],
                        fetched_at=t)
    s.set_topic_state(topic, {"pages": 1})
    selects: list[str] = []
    s.db.set_trace_callback(lambda sql: selects.append(sql) if sql.startswith("SELECT") else None)

    def fresh() -> tuple:       # what another connection reads in the file now
        return _topic_reads(other, topic)

    with s.steady():
        assert _topic_reads(s, topic) == fresh() == ({1, 2}, {}, {"pages": 1})
        got = s.topic_state(topic)
        got["pages"] = 99                                  # a caller's change is its own
        assert s.topic_state(topic) == {"pages": 1}
    read_once = len(selects)
    for n in range(3):                                     # the next polls: no reads
        with s.steady():
            assert s.add_post_versions(topic, [(2, "b", lambda: {}), (3 + n, "c", lambda: {})],
                                       fetched_at=t) == [False, True]
            s.mark_deleted(topic, 1, detected_at=t)
            s.set_topic_state(topic, {"pages": 2 + n})
            assert _topic_reads(s, topic) == fresh()
    assert [q for q in selects[read_once:] if "data_version" not in q] == []
    assert fresh() == ({1, 2, 3, 4, 5}, {1: t}, {"pages": 4})
    with s.steady():                                       # post 1 is back on the page
        s.add_post_versions(topic, [(1, "a", lambda: {})], fetched_at=t)
        assert _topic_reads(s, topic) == fresh() and s.deleted_posts(topic) == {}
    s.add_post_version(topic, 6, {"n": 6}, content="f", fetched_at=t)    # outside a block
    s.set_topic_state(topic, {"pages": 5})
    with s.steady():
        assert _topic_reads(s, topic) == fresh() and 6 in s.known_post_ids(topic)
    other.set_topic_state(topic, {"pages": 7})             # another process writes
    other.mark_deleted(topic, 2, detected_at=t)
    with s.steady():
        assert _topic_reads(s, topic) == fresh() == ({1, 2, 3, 4, 5, 6}, {2: t}, {"pages": 7})
    with pytest.raises(RuntimeError):
        with s.steady(), s.transaction():
            s.add_post_versions(topic, [(7, "g", lambda: {})], fetched_at=t)
            s.set_topic_state(topic, {"pages": 8})
            raise RuntimeError("the poll failed half way")
    with s.steady():                                       # rolled back: read anew
        assert _topic_reads(s, topic) == fresh() == ({1, 2, 3, 4, 5, 6}, {2: t}, {"pages": 7})
        assert s.add_post_versions(topic, [(7, "g", lambda: {})], fetched_at=t) == [True]
    s.close()
    other.close()


def test_a_state_file_keeps_the_views_of_its_last_few_topics_only():
    from scraper_mod.store import TOPIC_VIEWS_KEPT
    s = Store(":memory:")
    topics = [f"http://board/viewtopic.php?t={n}" for n in range(TOPIC_VIEWS_KEPT + 3)]
    for n, topic in enumerate(topics):
        s.add_post_version(topic, n, {}, content=str(n), fetched_at=T0)
    with s.steady():
        for topic in topics:
            assert s.known_post_ids(topic) == {topics.index(topic)}
        assert list(s._topics) == topics[-TOPIC_VIEWS_KEPT:]
        assert s.known_post_ids(topics[0]) == {0}       # read again from the file
        assert len(s._topics) == TOPIC_VIEWS_KEPT
