"""RULES R10 and R11 on the real phpBB 3.3.15 board (the e2e tier: ``real_board``), real clock.

A live day: the players post their votes through the board's own forms; the host then
replaces «Алексей» by «Зоя» from an instant between two posts (``replace --at``), reads one
post as no vote (``decide vote ... none``) and removes «Кот» (``decide kill``). After each
step ``tally --format json`` (the count as of now, from the board) gives the counts the rules
say; ``decide undo`` takes them back one by one and restores the earlier counts.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from conftest import GAME_FORUM_ID

from scraper_mod.cli import main

MSK = ZoneInfo("Europe/Moscow")
PLAYERS = [("Вася", "boss", 58), ("Маша_2", "mafia", 59), ("Big Joe", "commissar", 60),
           ("Алексей", "doctor", 61), ("Кот", "civilian", 66), ("Лиса", "civilian", 67),
           ("Pilot", "civilian", 68)]


def write_game(folder: Path, url: str, topic: str, begin: datetime, deadline: datetime) -> Path:
    players = "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\nforum_id = {u}\n\n'
                      for n, r, u in PLAYERS)
    order = ", ".join(f'"{n}"' for n, _, _ in PLAYERS)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.toml").write_text(f"""[game]
title = "Замены на живой доске"
start = {begin:%Y-%m-%d}
day_start = "{begin:%H:%M}"
host = "admin"
random_list = [{order}]

[mafia]
duty = "Маша_2"

[forum]
url = "{url}"
min_delay = 0.3
retries = 2

{players}[[days]]
number = 1
topic = "{topic}"
deadline = {deadline.isoformat(timespec='seconds')}
""", encoding="utf-8")
    return folder


def counts(folder: Path, capsys, *, offline: bool = True) -> tuple[dict, dict]:
    """``tally --format json``: {target: sorted voters}, {(post id, rejection reason)}, the JSON."""
    capsys.readouterr()
    args = ["tally", str(folder), "--format", "json"] + (["--offline"] if offline else [])
    assert main(args) == 0, capsys.readouterr().err
    data = json.loads(capsys.readouterr().out)
    return ({c["target"]: sorted(c["voters"]) for c in data["counts"]},
            {(r["post_id"], r["reason"]) for r in data["rejected"]}, data)


def cli(capsys, *args: str) -> str:
    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def test_R10_R11_replacement_decision_removal_and_undo_on_the_real_board(real_board, tmp_path,
                                                                         capsys):
    now = datetime.now(MSK).replace(microsecond=0)
    begin = now - timedelta(minutes=10)
    if begin.date() != now.date():
        begin = now.replace(hour=0, minute=0, second=0)
    deadline = now + timedelta(hours=1)
    if deadline.date() != now.date():
        deadline = now.replace(hour=23, minute=59, second=59)
    host = real_board.player("admin")
    topic = host.new_topic(GAME_FORUM_ID, "Замены — День 1", "День 1. Голосуем цветом.")
    say = lambda nick, text: real_board.player(nick).reply(topic, text)  # noqa: E731
    say("Алексей", "Голосую: [color=red]Вася[/color]")
    say("Вася", "[color=red]Кот[/color]")
    say("Кот", "[color=red]Алексей[/color]")
    swap_at = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=1)
    time.sleep(2.2)                          # the next post is after the replacement instant
    late = say("Алексей", "Передумал: [color=red]Маша_2[/color]")
    say("Лиса", "[color=red]Алексей[/color]")
    say("Pilot", "[color=red]Кот[/color]")
    joke = say("Pilot", "[color=red]Вася[/color] — шучу")
    say("Маша_2", "[color=red]Лиса[/color]")
    kill_at = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=1)
    time.sleep(2.2)
    folder = write_game(tmp_path / "game", real_board.url, real_board.topic_url(topic), begin,
                        deadline)

    # 0: as the board shows it, no decisions (the first count reads the board)
    plain, _, _ = counts(folder, capsys, offline=False)
    assert plain == {"Алексей": ["Кот", "Лиса"], "Маша_2": ["Алексей"], "Кот": ["Вася"],
                     "Вася": ["Pilot"], "Лиса": ["Маша_2"]}

    # 1: R10 — Зоя takes Алексей's slot between the third and the fourth post
    out = cli(capsys, "replace", str(folder), "Алексей", "Зоя", "--at", swap_at.isoformat())
    assert out.startswith("1: Зоя takes Алексей's slot")
    swapped, why, data = counts(folder, capsys)
    assert swapped == {"Зоя": ["Кот", "Лиса"], "Вася": ["Pilot", "Зоя"], "Кот": ["Вася"],
                       "Лиса": ["Маша_2"]}
    assert (late, "replaced_player") in why       # the old user's post after the instant
    assert "Алексей" not in json.dumps(data["counts"], ensure_ascii=False)

    # 2: R11.1 — Pilot's joke is no vote: the previous vote (Кот) stands
    out = cli(capsys, "decide", str(folder), "vote", str(joke), "none", "--why", "шутка")
    assert out.startswith(f"2: post {joke} (day 1) reads as no vote")
    decided, why, _ = counts(folder, capsys)
    assert decided == {"Зоя": ["Кот", "Лиса"], "Кот": ["Pilot", "Вася"], "Вася": ["Зоя"],
                       "Лиса": ["Маша_2"]}
    assert (joke, "decided_no_vote") in why

    # 3: R11.2 — Кот is removed: his vote stops counting, votes for him are for the dead
    cli(capsys, "decide", str(folder), "kill", "Кот", "--at", kill_at.isoformat(),
        "--why", "нарушение правил")
    removed, why, data = counts(folder, capsys)
    assert removed == {"Зоя": ["Лиса"], "Вася": ["Зоя"], "Лиса": ["Маша_2"]}
    assert "Кот" not in data["not_voting"]

    listing = cli(capsys, "decide", str(folder), "list")
    assert [line.split()[:2] for line in listing.splitlines()] == [
        ["1", "replace"], ["2", "vote"], ["3", "kill"]]
    assert "why: нарушение правил" in listing and listing.count("in force") == 3

    # R11.3 — each undo restores the counts before it
    cli(capsys, "decide", str(folder), "undo", "3")
    assert counts(folder, capsys)[0] == decided
    cli(capsys, "decide", str(folder), "undo", "2")
    assert counts(folder, capsys)[0] == swapped
    cli(capsys, "decide", str(folder), "undo", "1")
    assert counts(folder, capsys)[0] == plain
    listing = cli(capsys, "decide", str(folder), "list")
    assert listing.count("undone") == 3 and "in force" not in listing
