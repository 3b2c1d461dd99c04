"""Issue 27 item 1: `scraper-mod new GAME` sets a game up, and `deal`, `status` and `run` check
the same things, naming the file and the key to fix. The acceptance walk: a fresh `new`, then
the very commands it prints (`deal`, `status`, `run`) on a game with a board, no other step."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
import tomllib
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from scraper_mod.cli import main
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.game.setup.config import load_game

MSK = ZoneInfo("Europe/Moscow")
NICKS = ["Вася", "Петя", "Маша", "Игорь", "Ирина", "Коля", "Таня"]


def _today() -> date:
    return datetime.now(MSK).date()


def _printed_commands(out: str) -> list[list[str]]:
    """The `scraper-mod ...` commands `new` prints under "next:", without their comments."""
    cmds = []
    for line in out.split("next:", 1)[1].splitlines():
        line = line.split("#", 1)[0].strip()
        if "scraper-mod " in line:
            cmds.append(shlex.split(line.split("scraper-mod ", 1)[1]))
    return cmds


def _wait_for(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def test_new_writes_a_commented_game_file_that_loads(tmp_path, capsys):
    (tmp_path / "players.txt").write_text("# sign-up\nВася\n\nПетя\nМаша\n", encoding="utf-8")
    game = tmp_path / "mafia7"
    code = main(["new", str(game), "--title", "Мафия #7", "--start", _today().isoformat(),
                 "--board", "https://forum.example.org/", "--players",
                 str(tmp_path / "players.txt")])
    out = capsys.readouterr().out
    assert code == 0
    text = (game / "game.toml").read_text(encoding="utf-8")
    assert text.count("\n# ") > 5                      # commented for the host
    data = tomllib.loads(text)
    assert data["game"]["title"] == "Мафия #7"
    assert [p["nick"] for p in data["players"]] == ["Вася", "Петя", "Маша"]
    g = load_game(game)
    assert g.forum.url == "https://forum.example.org/" and g.start == _today()
    assert g.moves.source == "maildir"
    for part in ("cur", "new", "tmp"):
        assert (game / "moves" / part).is_dir()
        assert (game / "moves" / part).stat().st_mode & 0o077 == 0     # the moves are secret
    assert (game / "moves").stat().st_mode & 0o077 == 0
    assert "to do" not in out                          # nothing left to fix
    assert [c[0] for c in _printed_commands(out)] == ["deal", "day", "status", "run"]


def test_new_refuses_a_past_start_an_existing_game_and_a_bad_url(tmp_path, capsys):
    game = tmp_path / "g"
    past = (_today() - timedelta(days=3)).isoformat()
    assert main(["new", str(game), "--start", past]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --start: ") and "in the past" in err and err.count("\n") == 1
    assert not (game / "game.toml").exists()
    assert main(["new", str(game), "--board", "forum.example.org"]) == 1
    err = capsys.readouterr().err
    assert "game.toml: forum.url:" in err and not (game / "game.toml").exists()
    assert main(["new", str(game)]) == 0               # no terminal: defaults, board to fill in
    out = capsys.readouterr().out
    assert "to do: " in out and "forum.url: no board to read" in out
    assert "signup" in out                              # no players: the next step says how
    assert main(["new", str(game)]) == 1
    assert "a game file is already there" in capsys.readouterr().err


def test_deal_status_and_run_name_what_to_fix(tmp_path, capsys):
    """A game file without [forum] url, with a start long past and no Maildir: `deal` and
    `status` warn naming file and key, `run` refuses with one line naming them."""
    game = tmp_path / "old"
    game.mkdir()
    players = "".join(f'[[players]]\nnick = "{n}"\n' for n in NICKS)
    (game / "game.toml").write_text(
        f'[game]\ntitle = "Старая"\nstart = 2019-03-14\n\n[moves]\nsource = "maildir"\n'
        f'path = "moves"\n\n{players}', encoding="utf-8")
    assert main(["deal", str(game)]) == 0
    err = capsys.readouterr().err
    toml = str(game / "game.toml")
    # a Russian game (the default language): the lines are Russian only (issue 39 item 4)
    assert f"предупреждение: {toml}: forum.url: не указан форум" in err
    assert f"предупреждение: {toml}: game.start: 2019-03-14: день 2001: больше 2000 дней" in err
    assert f"предупреждение: {toml}: moves.path: нет папки Maildir {game / 'moves'}" in err
    assert "mkdir -p" in err and "warning" not in err
    assert main(["status", str(game)]) == 0
    out = capsys.readouterr().out
    assert f"исправьте: {toml}: forum.url" in out and f"исправьте: {toml}: game.start" in out
    assert f"исправьте: {toml}: moves.path" in out
    assert main(["run", str(game), "--log", "-"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ошибка: {toml}: forum.url: не указан форум") and err.count("\n") == 1

    text = (game / "game.toml").read_text(encoding="utf-8")
    (game / "game.toml").write_text(
        text.replace("[moves]", '[forum]\nurl = "http://127.0.0.1:9/"\n\n[moves]'),
        encoding="utf-8")
    assert main(["run", str(game), "--log", "-"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ошибка: {toml}: game.start: 2019-03-14: ") and "больше 2000" in err
    assert err.count("\n") == 1


def test_status_game_shows_the_daemons_errors(tmp_path, capsys):
    main(["new", str(tmp_path / "g"), "--board", "https://forum.example.org/"])
    capsys.readouterr()
    from scraper_mod.game.context import open_game
    ctx = open_game(tmp_path / "g")
    try:
        ctx.store.log_event("error", {"message": "day 1: poll failed: the board is down"},
                            at=ctx.now())
    finally:
        ctx.close()
    assert main(["status", str(tmp_path / "g")]) == 0
    assert "проблема: day 1: poll failed: the board is down" in capsys.readouterr().out


def test_a_fresh_new_then_the_printed_deal_status_run_on_a_board(tmp_path, capsys, monkeypatch):
    """The acceptance walk of issue 27: only what `new` prints, on a live (local) board."""
    (tmp_path / "players.txt").write_text("\n".join(NICKS) + "\n", encoding="utf-8")
    now = datetime.now(timezone.utc)
    with LocalBoard(language="ru") as board:
        tid = board.add_topic("Мафия #7 — День 1")
        board.add_post("Ведущий", 50, "День 1 начался.", now - timedelta(seconds=60))
        monkeypatch.chdir(tmp_path)
        assert main(["new", "mafia7", "--title", "Мафия #7", "--start", _today().isoformat(),
                     "--board", board.url, "--topic", board.topic_url(tid),
                     "--players", "players.txt"]) == 0
        out = capsys.readouterr().out
        steps = _printed_commands(out)
        assert [s[0] for s in steps] == ["deal", "status", "run"]
        deal, status, run = steps
        assert main(deal) == 0
        out = capsys.readouterr().out
        assert "dealt 7 roles" in out and "random list commitment" in out
        assert main(status) == 0
        out = capsys.readouterr().out
        assert "Мафия #7" in out and "to fix" not in out and "problem" not in out
        proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", *run], cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        log = tmp_path / "mafia7" / "run.log"
        try:
            assert _wait_for(lambda: log.exists() and "running" in log.read_text("utf-8"), 30)
            assert main(status) == 0
            assert f"демон: работает (процесс {proc.pid})" in capsys.readouterr().out
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                _, err = proc.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
        assert proc.returncode == 0, err
        assert "Traceback" not in err and "ERROR" not in log.read_text("utf-8")


def test_on_a_terminal_new_asks_for_what_no_option_gives(tmp_path, capsys, monkeypatch):
    answers = iter(["Мафия #8", (_today() + timedelta(days=2)).isoformat(),
                    "https://forum.example.org/"])
    asked: list[str] = []

    def fake_input(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", fake_input)
    assert main(["new", str(tmp_path / "m8"), "--players", "/dev/null"]) == 0
    assert asked[0] == "title [m8]: "                        # the folder's name by default
    assert asked[1].startswith("day 1 starts on (YYYY-MM-DD) [")
    assert asked[2].startswith("the board's URL")
    g = load_game(tmp_path / "m8")
    assert g.title == "Мафия #8" and g.start == _today() + timedelta(days=2)
    assert g.forum.url == "https://forum.example.org/"
    out = capsys.readouterr().out
    assert "forum.url" not in out and "players: no [[players]] yet" in out
