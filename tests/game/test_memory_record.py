"""The record of a finished game (RULES R15.1), written by the resolution when a game ends and
by `scraper-mod record GAME`: compared field by field with what the game's newspapers said.

The demo game (scraper_mod/demo/world.py), played by the real daemon, ends on day 5 with the
town's win; the game of tests/game/test_host_decisions_game.py has a replacement (Лиса takes
Маша's slot on day 2) and a removal (Таня, day 3).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from test_host_decisions_game import IDS, build, run  # noqa: E402  (tests/ is on the path)
from test_resolve import msk  # noqa: E402

from scraper_mod.cli import main
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.demo.world import run_demo
from scraper_mod.game.context import open_game
from scraper_mod.game.history.record import RECORD_FILE, update_record
from scraper_mod.game.results.resolve import withdraw_day
from scraper_mod.rules.model import ROLE_NAMES, Role

RU_ROLE = {r.value: n for r, n in ROLE_NAMES["ru"].items()}


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("memory") / "game"
    result = run_demo(keep=folder, out=lambda line: None)
    assert result.winner == "town" and result.errors == []
    return folder


def _paper(folder: Path, day: int) -> str:
    return (folder / "out" / f"day-{day}" / "newspaper.bbcode").read_text(encoding="utf-8")


def _paper_votes(text: str) -> dict[str, list[str]]:
    """target -> voters, from the newspaper's vote list (R9.1)."""
    out = {}
    for target, rest in re.findall(r"^\[\*\]\[b\](.+?) — \d+:\[/b\] (.*)$", text, re.MULTILINE):
        out[target] = sorted(re.findall(r"\[url=[^\]]*\]([^\[]+)\[/url\]", rest))
    return out


def test_R15_1_the_demo_game_leaves_a_record_matching_its_newspapers(demo):
    record = json.loads((demo / RECORD_FILE).read_text(encoding="utf-8"))
    assert record["source"] == "game" and record["title"] == "Мафия-демо"
    assert record["winner"] == "town" and record["decided_day"] == 5
    assert "победил город" in _paper(demo, 5)
    assert [d["day"] for d in record["days"]] == [1, 2, 3, 4, 5]
    # the roles: the last newspaper's list of every role
    roles = dict(re.findall(r"^\[\*\](\S+) — ([^\n(]+?)(?: \(в живых\))?$", _paper(demo, 5),
                            re.MULTILINE))
    assert {p["users"][0]["nick"]: RU_ROLE[p["role"]] for p in record["players"]} == roles
    assert sum(record["setup"].values()) == len(roles) == 12
    slot_of = {p["users"][0]["nick"]: p for p in record["players"]}
    alive = set(slot_of)
    for day in record["days"]:
        paper = _paper(demo, day["day"])
        # the jailing: «садится [b]X[/b]. Роль: [b]R[/b]»
        jailed = re.search(r"садится \[b\](.+?)\[/b\]", paper)
        assert day["jailed"] == (jailed[1] if jailed else None)
        # the counted votes: the newspaper's table, voter by voter
        got: dict[str, list[str]] = {}
        for v in day["votes"]:
            got.setdefault(v["target"], []).append(v["voter"])
        assert {t: sorted(v) for t, v in got.items()} == _paper_votes(paper), day["day"]
        # the night's dead: «Жертва мафии: [b]X[/b] ([i]role[/i])»
        night = dict(re.findall(r"Жертва (мафии|Маньяка): \[b\](.+?)\[/b\]", paper))
        killed = {d["player"]: d["how"] for d in day["deaths"] if d["how"] != "jailed"}
        assert killed == {nick: {"мафии": "mafia", "Маньяка": "maniac"}[who]
                          for who, nick in night.items()}
        for d in day["deaths"]:
            assert slot_of[d["player"]]["died"] == {"day": day["day"], "how": d["how"],
                                                    "by": d["by"]}
            alive.discard(d["player"])
        if day["day"] < 5:      # «Живы (N): …» after the night
            listed = re.search(r"\[b\]Живы \(\d+\):\[/b\] (.+)$", paper, re.MULTILINE)[1]
            assert set(listed.split(", ")) == alive, day["day"]
    assert {n for n, p in slot_of.items() if p["died"] is None} == alive
    assert slot_of["Дима"]["died"] == {"day": 2, "how": "jailed", "by": "random"}
    for p in record["players"]:
        assert p["side"] == ("mafia" if Role(p["role"]).is_mafia else
                             "maniac" if p["role"] == "maniac" else "town")


def test_R15_1_the_record_is_the_same_bytes_whenever_written(demo, capsys):
    path = demo / RECORD_FILE
    first = path.read_bytes()
    path.unlink()
    run(capsys, "record", str(demo))
    assert path.read_bytes() == first
    run(capsys, "record", str(demo))
    assert path.read_bytes() == first


def test_R15_1_no_record_before_a_winner(tmp_path, capsys):
    with LocalBoard(language="ru", clock=lambda: msk(12, 9)) as board:
        for nick, uid in IDS.items():
            board.add_user(nick, uid)
        folder, _ = build(tmp_path, board, "ru")
        err = run(capsys, "record", str(folder), code=1)
        assert err.startswith("error: ") and "no winner yet" in err and err.count("\n") == 1
        run(capsys, "resolve", str(folder), "--day", "1")
        assert not (folder / RECORD_FILE).exists()


def test_R15_1_a_replacement_and_a_removal_in_the_record(tmp_path, capsys):
    """Лиса took Маша's slot on day 2; the host removed Таня on day 3; the town won on day 3.
    Taking the removal back makes the mafia the winner: the record is written again."""
    with LocalBoard(language="ru", clock=lambda: msk(12, 9)) as board:
        for nick, uid in IDS.items():
            board.add_user(nick, uid)
        folder, posts = build(tmp_path, board, "ru")
        g = str(folder)
        run(capsys, "resolve", g, "--day", "1")
        run(capsys, "replace", g, "Маша", "Лиса", "--at", "2024-04-10T12:00",
            "--contact", "lisa@example.org")
        run(capsys, "tally", g, "--day", "2", "--format", "json")
        run(capsys, "resolve", g, "--day", "2")
        assert not (folder / RECORD_FILE).exists()
        run(capsys, "tally", g, "--day", "3", "--format", "json")
        run(capsys, "decide", g, "kill", "Таня", "--at", "2024-04-11T12:00", "--why", "x")
        run(capsys, "resolve", g, "--day", "3")
        record = json.loads((folder / RECORD_FILE).read_text(encoding="utf-8"))
        assert record["winner"] == "town" and record["decided_day"] == 3
        slots = {p["users"][0]["nick"]: p for p in record["players"]}
        assert slots["Маша"]["users"] == [{"nick": "Маша", "from_day": 1},
                                         {"nick": "Лиса", "from_day": 2}]
        assert slots["Маша"]["role"] == "commissar" and slots["Маша"]["died"] is None
        assert slots["Таня"]["died"] == {"day": 3, "how": "removed", "by": "host"}
        assert slots["Вася"]["died"] == {"day": 3, "how": "jailed", "by": "random"}
        day2 = record["days"][1]
        assert {(v["voter"], v["target"]) for v in day2["votes"]} >= {("Лиса", "Игорь")}
        assert ("Маша", "Вася") not in {(v["voter"], v["target"]) for v in day2["votes"]}
        assert record["days"][2]["deaths"][-1] == {"player": "Таня", "how": "removed",
                                                  "by": "host"}
        run(capsys, "decide", g, "undo", "2")       # the removal taken back
        again = json.loads((folder / RECORD_FILE).read_text(encoding="utf-8"))
        assert again["winner"] == "mafia"
        assert {p["users"][0]["nick"]: p["died"] for p in again["players"]}["Таня"] is None


def test_R15_1_a_game_that_goes_on_again_loses_its_record(demo, tmp_path):
    """A correction that withdraws the deciding day (the cascade's withdraw_day) leaves no
    record behind; the game's end writes it again, the same bytes."""
    folder = tmp_path / "game"
    shutil.copytree(demo, folder)
    first = (folder / RECORD_FILE).read_bytes()
    ctx = open_game(folder)
    try:
        withdraw_day(ctx, 5)
        assert update_record(ctx) is None and not (folder / RECORD_FILE).exists()
    finally:
        ctx.close()
    assert main(["resolve", str(folder), "--day", "5", "--offline", "--force"]) == 0
    assert (folder / RECORD_FILE).read_bytes() == first
