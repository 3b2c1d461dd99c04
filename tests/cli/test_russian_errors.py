"""Russian all through (issue 39 item 4): the command line's main errors in a Russian game
(the fixture game of tests/cli/test_tally_cli.py, ``language = "ru"``) are one ``ошибка: …``
line with no Latin word in what the host reads, except addresses, file names, keys and
commands; the English text goes to the log (``-v``).
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from test_tally_cli import ROOT, store_topic

from scraper_mod.cli import main


@pytest.fixture
def game(tmp_path) -> Path:
    folder = tmp_path / "игра"
    folder.mkdir()
    (folder / "game.toml").write_text((ROOT / "fixtures" / "games" / "day1" / "game.toml")
                                      .read_text(encoding="utf-8"), encoding="utf-8")
    store_topic(folder)
    return folder


def run(capsys, *argv) -> str:
    capsys.readouterr()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 1 and out == "", (out, err)
    return err


# what may be Latin in a Russian line: addresses, paths and file names, keys (dotted,
# bracketed, with _ or -), options, commands in backticks, and a few names of formats
_ALLOWED = [r"\b\w+\[\d+\]\.\w+", r"(?<=toml: )\w+(?=:)", r"(ключи|допустимы): [^)]*",
            r"`[^`]*`", r"\w+://\S+", r"\S*/\S*",
            r"\S+\.(toml|sqlite3|txt|bbcode)\b", r"--[\w-]+", r"\[+[\w.]+\]+( \w+( = \S+)?)?",
            r"\b[\w.\[\]]*[._\[][\w.\[\]]*", r"scraper-mod", r"\b(ISO|TOML|UTF-8|URL|GAME|Maildir|-v)\b",
            r"'[^']*'"]


def latin_words(line: str) -> list[str]:
    rest = line
    for pattern in _ALLOWED:
        rest = re.sub(pattern, " ", rest)
    return re.findall(r"[A-Za-z]{2,}", rest)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def edit(game: Path, old: str, new: str) -> None:
    toml = game / "game.toml"
    text = toml.read_text(encoding="utf-8")
    assert old in text
    toml.write_text(text.replace(old, new, 1), encoding="utf-8")


CASES = {
    "no game file": lambda g: ("tally", g.parent / "нет-такой", "--offline"),
    "an unknown key": lambda g: (edit(g, "[game]\n", "[game]\nzz_unknown = 1\n"),
                                 ("tally", g, "--offline"))[1],
    "a bad value": lambda g: (edit(g, "[game]\n",
                                   "[rules]\nvote_changes = \"много\"\n\n[game]\n"),
                              ("tally", g, "--offline"))[1],
    "a bad voting window": lambda g: (edit(g, "[game]\n",
                                           "[rules]\nvoting_opens = \"вечером\"\n\n[game]\n"),
                                      ("tally", g, "--offline"))[1],
    "not TOML": lambda g: (edit(g, "[game]\n", "[game\n"), ("tally", g, "--offline"))[1],
    "a time that is no time": lambda g: ("tally", g, "--offline", "--at", "вчера"),
    "a time in the future": lambda g: ("tally", g, "--offline", "--at", "2999-01-01T00:00"),
    "before the game": lambda g: ("tally", g, "--offline", "--at", "2020-01-01T00:00"),
    "day 0": lambda g: ("tally", g, "--offline", "--day", "0"),
    "a day without a topic": lambda g: ("tally", g, "--offline", "--day", "2"),
    "a post of no day": lambda g: ("tally", g, "--offline", "--at-post", "999999"),
    "the board does not answer": lambda g: (
        edit(g, 'url = "http://127.0.0.1/"', f'url = "http://127.0.0.1:{_free_port()}/"\n'
             "retries = 0\ntimeout = 2"), ("tally", g, "--day", "1"))[1],
    # the other commands' main errors (issue 39 item 4, the second pass)
    "publish before any day is resolved": lambda g: ("publish", g),
    "poll day 0": lambda g: ("poll", g, "--day", "0"),
    "deal twice": lambda g: (main(["deal", str(g)]), ("deal", g))[1],
    "deal to no players": lambda g: (drop_players(g), ("deal", g))[1],
    "run with a start long past": lambda g: (edit(g, "start = 2024-04-08", "start = 2019-03-14"),
                                             ("run", g, "--log", "-"))[1],
    "run with a start past and a board never read": lambda g: ("run", g, "--log", "-"),
    "day move of day 0": lambda g: ("day", "move", g, "0", "2024-04-09T21:00"),
    "a random list that is not the players": lambda g: (
        edit(g, '"Игрок-7", "Алексей"]', '"Игрок-7"]'), ("tally", g, "--offline"))[1],
    "a host who plays": lambda g: (edit(g, 'host = "admin"', 'host = "Вася"'),
                                   ("tally", g, "--offline"))[1],
    "an unknown role": lambda g: (edit(g, 'role = "civilian"', 'role = "крестьянин"'),
                                  ("tally", g, "--offline"))[1],
    "an unknown time zone": lambda g: (edit(g, '"Europe/Moscow"', '"Europe/Мосхва"'),
                                       ("tally", g, "--offline"))[1],
    "a board address that is none": lambda g: (
        edit(g, 'url = "http://127.0.0.1/"', 'url = "форум"'), ("tally", g, "--offline"))[1],
    "serve on a port in use": lambda g: ("serve", g, "--port", str(_busy_port())),
}

_HELD: list[socket.socket] = []


def _busy_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    _HELD.append(s)           # held open while the case runs
    return s.getsockname()[1]


def drop_players(game: Path) -> None:
    toml = game / "game.toml"
    text = toml.read_text(encoding="utf-8")
    text = re.sub(r"random_list = \[[^\]]*\]\n", "", text[:text.index("[[players]]")])
    toml.write_text(re.sub(r"\[mafia\]\nduty = .*\n", "", text), encoding="utf-8")


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_russian_games_errors_are_russian_only(game, capsys, case):
    err = run(capsys, *CASES[case](game))
    assert err.startswith("ошибка: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert latin_words(err) == [], err


def test_an_english_game_keeps_english_lines(game, capsys):
    edit(game, 'language = "ru"', 'language = "en"')
    err = run(capsys, "tally", game, "--offline", "--day", "0")
    assert err == "error: --day: must be 1 or more, not 0\n"


def test_polls_forum_lines_are_russian_only(game, capsys):
    """`poll` on a board that does not answer: its ``форум: …``, ``ходы: …`` and ``ошибка: …``
    lines are Russian, the board's English text goes to the log."""
    edit(game, 'url = "http://127.0.0.1/"', f'url = "http://127.0.0.1:{_free_port()}/"\n'
         "retries = 0\ntimeout = 2")
    capsys.readouterr()
    code = main(["poll", str(game), "--day", "1"])
    out, err = capsys.readouterr()
    assert code == 1 and out.startswith("форум: день 1: ") and err.startswith("ошибка: "), \
        (out, err)
    for line in (out + err).splitlines():
        assert latin_words(line) == [], line
