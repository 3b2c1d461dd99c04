"""The store's record of replacements and decisions (RULES R11.3, migration 5): numbered in
one sequence, with their instants and reasons; taking one back marks it and never deletes it;
an older state file gains the table when opened."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from scraper_mod.store import MIGRATIONS, Store

MSK = ZoneInfo("Europe/Moscow")


def test_R11_3_decisions_are_numbered_kept_and_undone_by_a_mark(tmp_path):
    made = datetime(2024, 4, 10, 12, 5, tzinfo=MSK)
    with Store(tmp_path / "state.sqlite3") as s:
        k1 = s.add_host_decision("replace", made_at=made, at=datetime(2024, 4, 10, 12, 0,
                                                                      tzinfo=MSK),
                                 nick="Маша", new="Лиса", contact="lisa@example.org",
                                 why="ушла")
        k2 = s.add_host_decision("vote", made_at=made, post_id=1234, new=None, why="шутка")
        k3 = s.add_host_decision("kill", made_at=made, at=made, nick="Таня", why="неактивность")
        assert (k1, k2, k3) == (1, 2, 3)
        assert s.undo_host_decision(2, at=made) is True
        assert s.undo_host_decision(2, at=made) is False      # already taken back
        assert s.undo_host_decision(9, at=made) is False      # no such K
    with Store(tmp_path / "state.sqlite3") as s:
        rows = s.host_decisions()
    assert [(r["k"], r["kind"], r["nick"], r["new"], r["post_id"], r["why"]) for r in rows] == [
        (1, "replace", "Маша", "Лиса", None, "ушла"), (2, "vote", None, None, 1234, "шутка"),
        (3, "kill", "Таня", None, None, "неактивность")]
    assert rows[0]["at"] == datetime(2024, 4, 10, 9, 0, tzinfo=timezone.utc)
    assert rows[0]["contact"] == "lisa@example.org" and rows[1]["at"] is None
    assert [r["undone_at"] is None for r in rows] == [True, False, True]


def test_an_older_state_file_gains_the_decisions_table(tmp_path):
    path = tmp_path / "state.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
    for version, sql in enumerate(MIGRATIONS[:4], start=1):
        for stmt in sql.split(";"):
            if stmt.strip():
                db.execute(stmt)
        db.execute("INSERT INTO migrations VALUES (?, ?)", (version, "2026-12-01T00:00:00"))
    db.commit()
    db.close()
    with Store(path) as s:
        assert s.schema_version == len(MIGRATIONS) >= 5
        assert s.host_decisions() == []
