"""Issue 40, item 15: ``day move`` to a time already past (a running daemon would resolve and
publish the day at once) needs ``--force`` and says what will happen; without it the store is
left as it was, in one clear line."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from scraper_mod.cli import main
from scraper_mod.store import Store

BASE = """[game]
title = "Проверка"
start = 2024-04-08
host = "Ведущий"
random_list = ["Вася", "Маша"]

[forum]
url = "http://board.test/"

[[players]]
nick = "Вася"
role = "boss"

[[players]]
nick = "Маша"
role = "civilian"
"""


def _game(tmp_path):
    folder = tmp_path / "game"
    folder.mkdir()
    start = (datetime.now(timezone.utc) - timedelta(days=1)).strftime("%Y-%m-%d")
    (folder / "game.toml").write_text(BASE.replace("2024-04-08", start), encoding="utf-8")
    return folder, start


def test_a_past_deadline_needs_force_and_says_what_happens(tmp_path, capsys):
    folder, start = _game(tmp_path)
    past = (datetime.now(timezone.utc) + timedelta(hours=3) - timedelta(minutes=30))
    when = past.strftime("%Y-%m-%dT%H:%M")      # Moscow time: half an hour ago
    assert main(["day", "move", str(folder), "1", when]) == 1
    out, err = capsys.readouterr()
    # a Russian game: the line is Russian only (issue 39)
    assert out == "" and err.count("\n") == 1 and "уже прошло" in err and "--force" in err
    assert "сразу подведёт итоги дня 1 и опубликует их" in err
    with Store(folder / "state.sqlite3") as s:
        assert not s.get("moved_deadlines")
    assert main(["day", "move", str(folder), "1", when, "--force"]) == 0
    out = capsys.readouterr().out
    assert "resolves day 1 at its next step and publishes its results" in out
    with Store(folder / "state.sqlite3") as s:
        assert list(s.get("moved_deadlines")) == ["1"]
