"""QA: the state file. A state from another game is refused before it mixes in; a state that
cannot be written is never called broken (the host must not move away his only copy)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from qa_game import copy_game, edit, without_root_powers

from scraper_mod.cli import main
from scraper_mod.errors import StorageError
from scraper_mod.game.context import open_game
from scraper_mod.store import Store


@pytest.fixture
def game(tmp_path) -> Path:
    return copy_game(tmp_path)



def test_a_state_copied_into_the_next_game_is_refused(game, tmp_path, capsys):
    """The host copies last week's folder for the next game and changes title, start and
    (one is enough) the players."""
    open_game(game).close()                      # the state learns its game
    edit(game, 'title = "Игра 2"', 'title = "Игра 3"')
    edit(game, "start = 2024-04-08", "start = 2024-05-13")
    edit(game, 'nick = "Маша_2"', 'nick = "Маша_3"')
    edit(game, '"Маша_2",', '"Маша_3",')
    before = (game / "state.sqlite3").read_bytes()
    code = main(["tally", str(game), "--offline", "--day", "1"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: ") and err.count("\n") == 1
    assert str(game / "state.sqlite3") in err
    assert "'Игра 2' starting 2024-04-08, not to 'Игра 3' starting 2024-05-13" in err
    assert "move it away" in err
    assert (game / "state.sqlite3").read_bytes() == before


def test_the_same_game_renamed_and_postponed(game):
    """After the deal the host renames the game and moves its start: the same players, so
    the same game (its state holds the deal and the published commitment)."""
    open_game(game).close()
    edit(game, 'title = "Игра 2"', 'title = "Игра №2"')
    edit(game, "start = 2024-04-08", "start = 2024-04-01")
    ctx = open_game(game)
    try:
        assert ctx.store.get("game")["title"] == "Игра №2"
        assert ctx.store.get("game")["start"] == "2024-04-01"
    finally:
        ctx.close()


def test_an_old_state_of_other_players_is_refused(game):
    """A state written before it remembered its game: its last resolved day names players of
    another game."""
    with Store(game / "state.sqlite3") as s:
        assert s.get("game") is None
        s.db.execute("INSERT INTO resolutions VALUES (1, '2024-03-14T17:00:00+00:00', ?)",
                     ('{"state": {"roles": {"Таня": "vsb", "Гоша": "boss", "Лена": "doctor"}}}',))
    with pytest.raises(StorageError) as e:
        open_game(game)
    assert "another game (players Гоша, Лена, Таня" in str(e.value)


def test_a_state_with_one_player_replaced_is_kept(game):
    """A substitute took over one seat: the state is this game's."""
    with Store(game / "state.sqlite3") as s:
        roles = {"Вася": "boss", "Маша_2": "civilian", "Big Joe": "mafia", "Алексей": "commissar",
                 "NightOwl": "sergeant", "Игрок-7": "maniac", "Ёжик в тумане": "vsb",
                 "Док Холидей": "doctor"}
        import json
        s.db.execute("INSERT INTO resolutions VALUES (1, '2024-04-09T17:00:00+00:00', ?)",
                     (json.dumps({"state": {"roles": roles}}),))
    open_game(game).close()


@pytest.mark.parametrize("message, broken", [
    ("disk I/O error", False), ("attempt to write a readonly database", False),
    ("database is locked", False), ("file is not a database", True)])
def test_what_the_open_error_tells_to_check(tmp_path, monkeypatch, message, broken):
    """Only a file that is no database may be moved away; a full disk, a read-only folder or
    a lock say so (sqlite3 raises OperationalError for those, DatabaseError otherwise)."""
    kind = sqlite3.DatabaseError if broken else sqlite3.OperationalError
    if broken:
        (tmp_path / "state.sqlite3").write_bytes(b"not a database, " * 512)
        with pytest.raises(StorageError) as e:
            Store(tmp_path / "state.sqlite3")
    else:
        real = sqlite3.connect

        class Failing(sqlite3.Connection):
            def execute(self, sql, *a):
                if sql.startswith("PRAGMA journal_mode"):
                    raise kind(message)
                return super().execute(sql, *a)

        monkeypatch.setattr(sqlite3, "connect",
                            lambda *a, **k: real(*a, **k, factory=Failing))
        with pytest.raises(StorageError) as e:
            Store(tmp_path / "state.sqlite3")
    assert message in str(e.value)
    assert ("move it away" in str(e.value)) is broken
    if not broken:
        assert "writable" in str(e.value) and "disk is not full" in str(e.value)


def test_a_read_only_game_folder_is_not_called_broken(game):
    """A command that writes (here `deal`) cannot use a read-only folder, and says so; the
    commands that only read work there (tests/test_state_safety.py)."""
    Store(game / "state.sqlite3").close()
    os.chmod(game, 0o555)
    try:
        argv = without_root_powers([sys.executable, "-m", "scraper_mod", "deal", str(game)])
        p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    finally:
        os.chmod(game, 0o755)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stderr.startswith("error: ") and p.stderr.count("\n") == 1
    assert "readonly" in p.stderr and "writable" in p.stderr and "move it away" not in p.stderr
