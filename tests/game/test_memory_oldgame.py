"""An older game from the host's record.toml (RULES R15.2): the same record as a game played
here, and each mistake one clear line that names the file and the key, nothing written."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from scraper_mod.cli import main
from scraper_mod.errors import ConfigError
from scraper_mod.game.history.oldgame import load_old_game, old_record
from scraper_mod.game.history.record import RECORD_FILE

OLD = """\
[game]
title = "Мафия #3"
start = 2023-05-01
end = 2023-05-06
winner = "town"

[[players]]
nick = "Вася"
role = "boss"
died = { day = 3, how = "jailed" }

[[players]]
nick = "Лена"
role = "mafia"
died = { day = 1, how = "jailed" }

[[players]]
nick = "Маша"
role = "commissar"
died = { day = 1, how = "mafia" }

[[players]]
nick = "Петя"
role = "doctor"

[[players]]
nick = "Коля"
role = "civilian"
died = { day = 2, how = "removed" }

[[players]]
nick = "Гоша"
role = "civilian"

[[votes]]
day = 1
voter = "Петя"
target = "Лена"

[[votes]]
day = 1
voter = "Вася"
target = "Маша"

[[votes]]
day = 3
voter = "гоша"
target = "Вася"
"""


def _write(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "mafia-3"
    folder.mkdir(exist_ok=True)
    (folder / "record.toml").write_text(text, encoding="utf-8")
    return folder


def _record(capsys, folder: Path, code: int = 0) -> str:
    capsys.readouterr()
    assert main(["record", str(folder)]) == code
    out = capsys.readouterr()
    return out.out if code == 0 else out.err


def test_R15_2_a_hand_written_older_game_gives_the_record(tmp_path, capsys):
    folder = _write(tmp_path, OLD)
    out = _record(capsys, folder)
    assert "Мафия #3, 6 players, town won on day 3" in out
    record = json.loads((folder / RECORD_FILE).read_text(encoding="utf-8"))
    assert record["source"] == "host" and record["winner"] == "town"
    assert (record["start"], record["end"], record["decided_day"]) == (
        "2023-05-01", "2023-05-06", 3)
    assert record["setup"] == {"boss": 1, "civilian": 2, "commissar": 1, "doctor": 1,
                               "mafia": 1}
    slots = {p["users"][0]["nick"]: p for p in record["players"]}
    assert [p["slot"] for p in record["players"]] == [1, 2, 3, 4, 5, 6]
    assert slots["Лена"]["side"] == "mafia" and slots["Петя"]["side"] == "town"
    assert slots["Коля"]["died"] == {"day": 2, "how": "removed", "by": "host"}
    assert slots["Вася"]["died"] == {"day": 3, "how": "jailed", "by": "votes"}
    assert slots["Петя"]["died"] is None
    days = record["days"]
    assert [d["jailed"] for d in days] == ["Лена", None, "Вася"]
    assert days[0]["deaths"] == [{"player": "Лена", "how": "jailed", "by": "votes"},
                                 {"player": "Маша", "how": "mafia", "by": "mafia"}]
    assert days[0]["votes"] == [{"voter": "Петя", "target": "Лена"},
                                {"voter": "Вася", "target": "Маша"}]
    assert days[2]["votes"] == [{"voter": "Гоша", "target": "Вася"}]   # the nick as listed
    # the same shape as a game played here
    assert set(record) == {"record", "source", "title", "start", "end", "language", "winner",
                           "decided_day", "setup", "players", "days"}
    first = (folder / RECORD_FILE).read_bytes()
    _record(capsys, folder)
    assert (folder / RECORD_FILE).read_bytes() == first


BAD = [
    (OLD.replace('role = "doctor"', 'role = "wizard"'), "players[4].role",
     "unknown role 'wizard'"),
    (OLD.replace('nick = "Гоша"', 'nick = "вася"'), "players[6].nick", "listed twice"),
    (OLD.replace('winner = "town"', 'winner = "mafia"'), "game.winner",
     "every player of that side died"),
    (OLD.replace('role = "boss"\ndied = { day = 3, how = "jailed" }', 'role = "boss"'),
     "game.winner", "the mafia is alive (Вася)"),
    (OLD.replace('winner = "town"', 'winner = "maniac"'), "game.winner",
     "no player is on that side"),
    (OLD.replace('how = "removed"', 'how = "drowned"'), "players[5].died.how",
     "unknown cause 'drowned'"),
    (OLD.replace('voter = "Петя"', 'voter = "Незнакомец"'), "votes[1].voter",
     "'Незнакомец' is not a player"),
    (OLD.replace("day = 3\nvoter", "day = 9\nvoter"), "votes[3].day", "not a day number"),
    (OLD.replace("end = 2023-05-06", "end = 2023-04-06"), "game.end", "before the start"),
    (OLD.replace("start = 2023-05-01", 'start = "май"'), "game.start", "not a date"),
    (OLD.replace('title = "Мафия #3"', 'title = "Мафия #3"\nhost = "Я"'), "game.host",
     "unknown key"),
    (OLD.replace("[game]", "[game"), "", "not valid TOML"),
]


@pytest.mark.parametrize("text,key,words", BAD, ids=[b[1] or "toml" for b in BAD])
def test_R15_2_a_mistake_is_one_clear_line_and_nothing_is_written(tmp_path, capsys, text, key,
                                                                  words):
    folder = _write(tmp_path, text)
    err = _record(capsys, folder, code=1)
    # the host of a Russian game reads the line in Russian only (issue 39)
    assert err.startswith("ошибка: ") and err.count("\n") == 1, err
    assert str(folder / "record.toml") in err, err
    if key:
        assert f": {key}: " in err, err
    assert not (folder / RECORD_FILE).exists()
    with pytest.raises(ConfigError) as e:
        load_old_game(folder)
    assert words in str(e.value), str(e.value)                        # the English line
    assert e.value.ru and "record.toml" in e.value.in_language("ru")   # Russian for the host


def test_R15_2_the_russian_line_names_the_fix():
    with pytest.raises(ConfigError) as e:
        old_record(tomllib.loads(OLD.replace('role = "doctor"', 'role = "маг"')))
    ru = e.value.in_language("ru")
    assert "неизвестная роль 'маг'" in ru and "одна из boss" in ru
