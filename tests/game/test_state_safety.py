"""Issue 18, items 5-8: the state and the secret files.

On fixtures/games/day1 with its real phpBB 3.3.15 topic stored (``read_topic``) and resolved:

- item 5: every file holding roles, moves or the random list is readable by its owner only,
  an older looser one is tightened; a logged-in poll of the real board stores no session id;
- item 6: ``resolve --offline`` of a day whose topic was never read is refused, naming it;
- item 7: a damaged or zero-byte state.sqlite3 is refused at open, naming the backup to
  restore; a rolling backup is kept, one per newest resolved day;
- item 8: ``status`` and ``tally --offline`` work on a read-only folder and mount and write
  nothing there.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from qa_game import copy_game, edit, read_topic, without_root_powers

from scraper_mod.cli import main
from scraper_mod.errors import StorageError
from scraper_mod.game.context import open_game
from scraper_mod.store import BACKUPS_KEPT, Store

T0 = datetime(2024, 4, 9, 17, 1, tzinfo=timezone.utc)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def one_line(err: str) -> str:
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.fixture
def resolved(tmp_path, capsys) -> Path:
    """The day-1 game, its topic read and day 1 resolved offline (Алексей jailed by votes)."""
    game = copy_game(tmp_path)
    read_topic(game)
    assert main(["resolve", str(game), "--offline", "--day", "1"]) == 0
    assert "jailed: Алексей (commissar, by votes)" in capsys.readouterr().out
    return game


# -- item 6 -------------------------------------------------------------------------------------

def test_resolving_offline_a_topic_never_read_is_refused(tmp_path, capsys):
    game = copy_game(tmp_path)
    assert main(["resolve", str(game), "--offline", "--day", "1"]) == 1
    err = one_line(capsys.readouterr().err)
    assert "day 1's topic http://127.0.0.1/viewtopic.php?t=4 was never read" in err
    assert "--force" in err and f"scraper-mod poll {game}" in err
    assert not (game / "out").exists()
    with Store(game / "state.sqlite3") as s:
        assert s.resolutions() == {}
    # --force: the host means it; nobody voted, the random list jails
    assert main(["resolve", str(game), "--offline", "--day", "1", "--force"]) == 0
    assert "jailed: NightOwl (sergeant, by random)" in capsys.readouterr().out
    # read, the same command counts the votes
    read_topic(game)
    assert main(["resolve", str(game), "--offline", "--day", "1"]) == 0
    assert "jailed: Алексей (commissar, by votes)" in capsys.readouterr().out


# -- item 7 -------------------------------------------------------------------------------------

def damage(path: Path) -> None:
    """Overwrite one 4 KiB page in the middle of the file, as a bad sector or a torn copy."""
    data = bytearray(path.read_bytes())
    mid = len(data) // 2 // 4096 * 4096
    data[mid:mid + 4096] = bytes((i * 151 + 7) % 256 for i in range(4096))
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["damaged", "zero bytes"])
def test_a_broken_state_is_refused_and_says_how_to_restore(resolved, capsys, how):
    state = resolved / "state.sqlite3"
    backup = resolved / "backups" / "state-day-1.sqlite3"
    assert backup.is_file()
    if how == "damaged":
        damage(state)
    else:
        state.write_bytes(b"")
    broken = state.read_bytes()
    for argv in (["status", str(resolved)], ["tally", str(resolved), "--offline", "--day", "1"],
                 ["resolve", str(resolved), "--offline", "--day", "1"],
                 ["day", "move", str(resolved), "2", "2024-04-10T21:00"]):
        assert main(argv) == 1, argv
        err = one_line(capsys.readouterr().err)
        assert f"{state}: the state file is " in err
        assert ("integrity check" in err) if how == "damaged" else ("empty (0 bytes)" in err
                                                                    and "not a new game" in err)
        assert f"cp '{backup}' '{state}'" in err
    assert state.read_bytes() == broken           # never started afresh, never written
    assert not (resolved / "out" / "day-2").exists()
    # the line's own advice works: the game is back as it was after day 1
    shutil.copyfile(backup, state)
    assert main(["status", str(resolved), "--format", "json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["resolved"] == [1] and status["day"] == 2


def test_a_zero_byte_state_without_backup_is_not_a_fresh_game(tmp_path, capsys):
    game = copy_game(tmp_path)
    (game / "state.sqlite3").write_bytes(b"")
    assert main(["status", str(game)]) == 1
    err = one_line(capsys.readouterr().err)
    assert "empty (0 bytes)" in err and "no backup is kept yet" in err
    assert (game / "state.sqlite3").read_bytes() == b""


def test_backups_roll_one_per_newest_resolved_day_owner_only(tmp_path):
    path = tmp_path / "state.sqlite3"
    with Store(path) as s:
        s.put("deal", {"salt": "соль"})
        for day in range(1, 6):
            s.save_resolution(day, {"day": day}, resolved_at=T0 + timedelta(days=day))
        kept = sorted(p.name for p in (tmp_path / "backups").iterdir())
        assert kept == [f"state-day-{d}.sqlite3" for d in (3, 4, 5)] and BACKUPS_KEPT == 3
        # a cascade rewriting day 2 under day 5 takes no backup; day 5 again does
        s.save_resolution(2, {"day": 2, "again": True}, resolved_at=T0)
        assert sorted(p.name for p in (tmp_path / "backups").iterdir()) == kept
    assert mode(tmp_path / "backups") == 0o700
    for p in (tmp_path / "backups").iterdir():
        assert mode(p) == 0o600
    newest = tmp_path / "backups" / "state-day-5.sqlite3"
    db = sqlite3.connect(newest)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"   # a single file
    assert db.execute("SELECT COUNT(*) FROM resolutions").fetchone()[0] == 5
    db.close()
    with Store(newest) as s:                            # opens as a state, whole
        assert s.get("deal") == {"salt": "соль"}


def _backup_rows(path: Path) -> tuple:
    db = sqlite3.connect(path)
    try:
        return (db.execute("PRAGMA journal_mode").fetchone()[0],
                db.execute("PRAGMA quick_check").fetchone()[0],
                db.execute("SELECT COUNT(*) FROM fetches").fetchone()[0],
                db.execute("SELECT day FROM resolutions ORDER BY day").fetchall())
    finally:
        db.close()


def test_a_backup_holds_what_only_the_wal_holds_in_a_single_file(tmp_path):
    """What only the WAL holds (not yet checkpointed) is in the day's backup, a single file
    (no WAL beside it), owner-only, nothing else left in ``backups/``."""
    path = tmp_path / "state.sqlite3"
    with Store(path) as s:
        s.db.execute("PRAGMA wal_autocheckpoint=0")          # everything stays in the WAL
        for n in range(40):
            s.record_fetch(f"http://board/viewtopic.php?t=1&start={n}", fetched_at=T0,
                           status=200, body=os.urandom(8192))
        assert os.path.getsize(str(path) + "-wal") > 300_000
        s.save_resolution(1, {"day": 1}, resolved_at=T0)
        s.save_resolution(2, {"day": 2}, resolved_at=T0)
        backups = tmp_path / "backups"
        assert sorted(p.name for p in backups.iterdir()) == [
            f"state-day-{d}.sqlite3" for d in (1, 2)]
        assert _backup_rows(backups / "state-day-1.sqlite3") == ("delete", "ok", 40, [(1,)])
        assert _backup_rows(backups / "state-day-2.sqlite3") == ("delete", "ok", 40,
                                                                 [(1,), (2,)])
        assert mode(backups / "state-day-2.sqlite3") == 0o600


# -- item 8 -------------------------------------------------------------------------------------

def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_read_only_store_never_writes(resolved):
    state = resolved / "state.sqlite3"
    before = state.read_bytes()
    with Store(state, readonly=True) as s:
        assert s.resolution(1)["lynched"]["player"] == "Алексей"
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            s.put("day_topics", {"2": "http://127.0.0.1/viewtopic.php?t=5"})
    assert state.read_bytes() == before
    # in a writable folder SQLite may leave its (empty) -wal and -shm beside it, nothing else
    assert {p.name for p in resolved.iterdir()} - {"state.sqlite3-wal", "state.sqlite3-shm"} \
        == {"backups", "game.toml", "out", "state.sqlite3"}
    wal = resolved / "state.sqlite3-wal"
    assert not wal.exists() or wal.stat().st_size == 0


def reading_commands(game: Path) -> list[list[str]]:
    cli = [sys.executable, "-m", "scraper_mod"]
    return [cli + ["status", str(game), "--format", "json"],
            cli + ["tally", str(game), "--offline", "--day", "1", "--format", "json"],
            cli + ["status", str(game.parent), "--format", "json"]]     # a folder of games


def check_reads(outputs: list[str]) -> None:
    status, tally, folder = (json.loads(o) for o in outputs)
    assert status["resolved"] == [1] and status["day"] == 2
    [entry] = folder["games"] if isinstance(folder, dict) else folder
    assert entry["ok"] and entry["resolved"] == [1] and entry["problems"] == []
    assert tally["lynch"] == {"player": "Алексей", "by": "votes"}
    assert [(c["target"], c["votes"]) for c in tally["counts"]] == [("Алексей", 6),
                                                                   ("NightOwl", 2)]


def test_status_and_tally_work_in_a_read_only_folder(resolved):
    """chmod as a host would (as root, without the capabilities that ignore it)."""
    before = snapshot(resolved.parent)
    os.chmod(resolved / "state.sqlite3", 0o400)
    os.chmod(resolved, 0o555)
    os.chmod(resolved.parent, 0o555)
    try:
        runs = [subprocess.run(without_root_powers(argv), capture_output=True, text=True,
                               timeout=120) for argv in reading_commands(resolved)]
    finally:
        os.chmod(resolved.parent, 0o755)
        os.chmod(resolved, 0o755)
    for p in runs:
        assert p.returncode == 0, p.stderr
    check_reads([p.stdout for p in runs])
    assert snapshot(resolved.parent) == before                 # no -wal, no -shm, nothing written


def test_status_and_tally_work_on_a_read_only_mount(resolved):
    """A read-only bind mount in a private mount namespace (root may write through chmod,
    not through a read-only mount)."""
    if not shutil.which("unshare") or subprocess.run(
            ["unshare", "-m", "true"], capture_output=True, timeout=30).returncode != 0:
        pytest.skip("no mount namespace here (unshare -m): a read-only mount cannot be made")
    root = resolved.parent
    before = snapshot(root)
    outputs = []
    for argv in reading_commands(resolved):
        script = (f"mount --bind {shlex_quote(root)} {shlex_quote(root)} && "
                  f"mount -o remount,ro,bind {shlex_quote(root)} && "
                  f"! touch {shlex_quote(resolved / 'probe')} 2>/dev/null && "
                  + " ".join(shlex_quote(a) for a in argv))
        p = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        outputs.append(p.stdout)
    check_reads(outputs)
    assert snapshot(root) == before


def shlex_quote(value: object) -> str:
    import shlex
    return shlex.quote(str(value))


# -- item 5 -------------------------------------------------------------------------------------

def test_the_deal_writes_its_secrets_owner_only(tmp_path, capsys):
    game = copy_game(tmp_path)
    edit(game, "start = 2024-04-08", "start = 2030-04-08")   # not started yet
    assert main(["deal", str(game)]) == 0
    capsys.readouterr()
    secret = [game / "out" / "random-list.secret.txt", *(game / "out" / "role-cards").iterdir()]
    assert len(secret) == 9 and "SECRET" in secret[0].read_text(encoding="utf-8")
    for p in secret:
        assert mode(p) == 0o600, p
    assert mode(game / "out" / "role-cards") == 0o700
    assert mode(game / "state.sqlite3") == 0o600


def test_the_days_posts_answers_and_backups_are_owner_only_and_old_ones_tightened(resolved,
                                                                                  capsys):
    game = resolved
    day = game / "out" / "day-1"
    pms = sorted((day / "pm").iterdir())
    assert pms and "NightOwl" in {p.stem for p in pms}               # the promotion notice
    for p in [*pms, day / "host-report.txt", day / "newspaper.bbcode",
              game / "backups" / "state-day-1.sqlite3"]:
        assert mode(p) == 0o600, p
    for folder in (day, day / "pm", game / "backups"):
        assert mode(folder) == 0o700, folder
    # a night move by mail: its answer in the outbox is the player's alone too
    new = game / "moves" / "new"
    new.mkdir(parents=True)
    for sub in ("cur", "tmp"):
        (game / "moves" / sub).mkdir()
    (new / "1712600000.m1.host").write_bytes(
        "From: vasya@example.org\nTo: host@example.org\nSubject: ход\n"
        "Message-ID: <m1@example.org>\nContent-Type: text/plain; charset=utf-8\n\n"
        "убить Маша_2\n".encode())
    assert main(["moves", str(game), "--day", "2"]) == 0
    capsys.readouterr()
    answers = list((game / "outbox").rglob("*.txt"))
    assert len(answers) == 1 and "Маша_2" in answers[0].read_text(encoding="utf-8")
    assert mode(answers[0]) == 0o600 and mode(answers[0].parent) == 0o700
    # files an older scraper-mod left 0644 (and 0755 folders) are tightened at the next open
    loose = [pms[0], day / "host-report.txt", answers[0], game / "backups" /
             "state-day-1.sqlite3"]
    for p in loose:
        os.chmod(p, 0o644)
    os.chmod(day / "pm", 0o755)
    assert main(["moves", str(game), "--day", "2", "--offline"]) == 0
    for p in loose:
        assert mode(p) == 0o600, p
    assert mode(day / "pm") == 0o700


def test_run_log_is_owner_only(tmp_path):
    """`run` logs the files of each resolved day, pm/<nick>.txt among them: who gets the
    mafia's news. A new run.log is 0600, an old 0644 one is tightened, its lines kept."""
    from scraper_mod.cli.run import _file_handler
    fresh = _file_handler(tmp_path / "run.log")
    fresh.close()
    assert mode(tmp_path / "run.log") == 0o600
    old = tmp_path / "old" / "run.log"
    old.parent.mkdir()
    old.write_text("day 1 resolved; the posts are in out/day-1: pm/Игорь.txt\n", encoding="utf-8")
    os.chmod(old, 0o644)
    _file_handler(old).close()
    assert mode(old) == 0o600 and "pm/Игорь.txt" in old.read_text(encoding="utf-8")


def test_a_state_of_an_older_schema_is_read_without_being_upgraded(tmp_path):
    """A read-only command after an upgrade: the state of schema 3 is read through a migrated
    copy in memory; the file keeps its schema and its bytes (the next writing command
    upgrades it)."""
    from scraper_mod.store import MIGRATIONS
    path = tmp_path / "state.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
    for version, sql in enumerate(MIGRATIONS[:3], start=1):
        db.executescript(sql)
        db.execute("INSERT INTO migrations VALUES (?, '2024-04-08T00:00:00+00:00')", (version,))
    db.execute("INSERT INTO resolutions VALUES (1, '2024-04-09T17:01:00+00:00', '{\"day\": 1}')")
    db.commit()
    db.close()
    before = path.read_bytes()
    with Store(path, readonly=True) as s:
        assert s.schema_version == len(MIGRATIONS) and s.resolution(1) == {"day": 1}
        assert s.publications("any") == []                  # a table of schema 4
    assert path.read_bytes() == before


# -- the QA pass: state ---------------------------------------------------------------------------
# QA: the state file. A state from another game is refused before it mixes in; a state that
# cannot be written is never called broken (the host must not move away his only copy).


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
    commands that only read work there (the tests above)."""
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
