"""Acceptance of issue 35 item 1 (one daemon) on the real phpBB 3.3.15 board: one
`scraper-mod run FOLDER` process (the real clock) hosts two games played in the same forum
with the same host account, both on autopilot with `tally_times` and `remind_moves_at`.
Each game gets, in its own topics and PMs: its scheduled count in its own day topic, its
reminders, its newspaper in its own results topic after the deadline and its day 2 opened.
A `kill -9` mid-day and a restart post nothing twice (the restart is told once per game);
a third start after a clean stop posts nothing at all (docs/daytime.md)."""

from __future__ import annotations

import signal
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from conftest import GAME_FORUM_ID, RESULTS_FORUM_ID
from test_publish_real import MSK, PLAYERS, env, wait_for

GAMES = {"first": "Первая", "second": "Вторая"}


def write_game(folder: Path, board, title: str, day1: int, results: int, *,
               begin: datetime, count_at: datetime, deadline: datetime) -> Path:
    players = "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\nforum_id = {u}\n\n'
                      for n, r, u in PLAYERS)
    order = ", ".join(f'"{n}"' for n, _, _ in PLAYERS)
    folder.mkdir(parents=True, exist_ok=True)
    hm = count_at.astimezone(MSK).strftime("%H:%M")
    begin = begin.astimezone(MSK)
    (folder / "game.toml").write_text(f"""[game]
title = "{title}"
start = {begin:%Y-%m-%d}
day_start = "{begin:%H:%M}"
host = "admin"
random_list = [{order}]

[mafia]
duty = "Вася"

[forum]
url = "{board.url}"
username = "admin"
forum = "{board.forum_url(GAME_FORUM_ID)}"
title_pattern = "^{title}\\\\. День {{n}}\\\\b"
min_delay = 0
retries = 1

[schedule]
poll_minutes = 0.05
final_poll_minutes = 0.05
final_window_minutes = 0.1
grace_seconds = 1

[publish]
mode = "auto"
results_topic = "{board.topic_url(results)}"
day_topic = "open"
title_template = "{{title}}. День {{day}}"
tally_times = ["{hm}"]
remind_moves_at = "{hm}"
alert_host = "pm"

{players}[[days]]
number = 1
topic = "{board.topic_url(day1)}"
deadline = {deadline.astimezone(MSK).isoformat(timespec='seconds')}
""", encoding="utf-8")
    return folder


def start(root: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(root)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=env())


def stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err


def test_run_folder_gives_two_games_the_whole_evening_never_twice(real_board, tmp_path):
    admin = real_board.player("admin")
    root = tmp_path / "games"
    topics: dict[str, tuple[int, int]] = {}
    votes = {"first": [("Вася", "Игрок-7"), ("Маша_2", "Игрок-7"), ("Big Joe", "Вася")],
             "second": [("Вася", "Кот"), ("Кот", "Алексей"), ("Игрок-7", "Кот")]}
    for name, title in GAMES.items():
        day1 = admin.new_topic(GAME_FORUM_ID, f"{title}. День 1", "День 1 начался.")
        results = admin.new_topic(RESULTS_FORUM_ID, f"{title}. Итоги", "Здесь будут газеты.")
        topics[name] = (day1, results)
        for voter, target in votes[name]:
            real_board.player(voter).reply(day1, f"[color=red]{target}[/color]")

    now = datetime.now(timezone.utc)
    count_at = (now + timedelta(seconds=75)).replace(second=0, microsecond=0)  # 15-75 s ahead
    deadline = count_at + timedelta(seconds=40)
    for name, title in GAMES.items():
        write_game(root / name, real_board, title, *topics[name],
                   begin=now - timedelta(minutes=2), count_at=count_at, deadline=deadline)
    log = root / "run.log"

    def text() -> str:
        return log.read_text("utf-8") if log.exists() else ""

    def counts(name: str) -> list[str]:
        return [p["text"] for p in admin.topic_posts(topics[name][0])
                if p["author"] == "admin" and "итоги на" in p["text"]]

    def reminders(nick: str, title: str) -> list[dict]:
        return [m for m in real_board.player(nick).list_pms("inbox")
                if m["subject"].startswith(f"{title}: напоминание")]

    def newspapers(name: str) -> list[dict]:
        return [p for p in admin.topic_posts(topics[name][1]) if p["author"] == "admin"][1:]

    def day2_topics(title: str) -> int:
        import requests
        page = requests.get(real_board.forum_url(GAME_FORUM_ID), timeout=30).text
        return page.count(f"{title}. День 2")

    proc = start(root)
    try:
        # each game's scheduled count in its own topic, at its minute, with its own votes
        assert wait_for(lambda: all(counts(n) for n in GAMES),
                        (count_at - datetime.now(timezone.utc)).total_seconds() + 40), text()
        hm = count_at.astimezone(MSK).strftime("%H:%M")
        for name in GAMES:
            assert f"промежуточные итоги на {hm} МСК" in counts(name)[0]
        assert "Игрок-7 — 2 голоса" in counts("first")[0]
        assert "Кот — 2 голоса" in counts("second")[0]
        # each game's reminders: nobody sent a move, so the duty Boss and the Doctor of both
        assert wait_for(lambda: all(reminders(nick, title) for nick in ("Вася", "NightOwl")
                                    for title in GAMES.values()), 30), text()
    finally:
        proc.kill()                                   # kill -9 mid-day, before the deadline
        proc.communicate()
    assert datetime.now(timezone.utc) < deadline, "the machine is too slow for this timing"

    proc = start(root)
    try:
        # after the deadline: each game's newspaper in its own results topic, day 2 opened
        assert wait_for(lambda: all(newspapers(n) for n in GAMES)
                        and all(day2_topics(t) for t in GAMES.values()),
                        (deadline - datetime.now(timezone.utc)).total_seconds() + 90), text()
        wait_for(lambda: False, 8)                    # more polls of day 2: nothing more
    finally:
        err = stop(proc)
    assert "Traceback" not in err

    proc = start(root)                                # a third start after a clean stop
    try:
        assert wait_for(lambda: text().count("running; day 2") >= 2, 30), text()
        wait_for(lambda: False, 8)
    finally:
        err = stop(proc)
    assert "Traceback" not in err

    for name, title in GAMES.items():
        assert len(counts(name)) == 1, (name, counts(name))
        for nick in ("Вася", "NightOwl"):
            assert len(reminders(nick, title)) == 1, (nick, title)
        assert len(newspapers(name)) == 1, name
        assert day2_topics(title) == 1, title
        # every post and PM was journalled once for this game, in its own state file
        assert (root / name / "out" / "day-1" / "newspaper.bbcode").exists()
    first = newspapers("first")[0]["text"]
    second = newspapers("second")[0]["text"]
    assert "Игрок-7" in first and "Кот" in second
    # the restart after the kill -9 is told once per game, the clean stop not at all
    alerts = [m["subject"] for m in admin.list_pms("inbox") if "нужен ведущий" in m["subject"]]
    assert sorted(a.split(":")[0] for a in alerts) == sorted(GAMES.values()), alerts
    log_text = text()
    assert "[first]" in log_text and "[second]" in log_text
    # once per game: the daemon's warning (the alert it sends is logged on its own line)
    assert sum("WARNING" in line and "restarted after a crash" in line
               for line in log_text.splitlines()) == 2, log_text
