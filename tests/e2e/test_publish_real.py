"""Autopilot on the real phpBB 3.3.15 board (RULES R12): one whole evening, and a kill -9
in the middle of publishing.

The players vote through the board's forms and send their night moves to the host (admin) as
the board's PMs (forumctl plays them); scraper-mod reads the topic and the PMs with admin's
account, resolves day 1 and posts through the same board's forms.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from conftest import GAME_FORUM_ID, RESULTS_FORUM_ID

MSK = ZoneInfo("Europe/Moscow")
# nick, role, board user id
PLAYERS = [("Вася", "boss", 58), ("Маша_2", "mafia", 59), ("Big Joe", "commissar", 60),
           ("Алексей", "sergeant", 61), ("NightOwl", "doctor", 62), ("Игрок-7", "civilian", 63),
           ("Кот", "civilian", 66)]
PASSWORD = "adminpass1"


def write_game(folder: Path, board, day1_topic: int, results_topic: int, *,
               deadline: datetime, mode: str = "auto", lock: bool = False) -> Path:
    begin = (deadline - timedelta(minutes=3)).astimezone(MSK)
    players = "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\nforum_id = {u}\n\n'
                      for n, r, u in PLAYERS)
    order = ", ".join(f'"{n}"' for n, _, _ in PLAYERS)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.toml").write_text(f"""[game]
title = "Проверка"
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
min_delay = 0
retries = 1

[moves]
source = "phpbb_pm"

[schedule]
poll_minutes = 0.05
final_poll_minutes = 0.02
final_window_minutes = 0.1
grace_seconds = 1

[publish]
mode = "{mode}"
results_topic = "{board.topic_url(results_topic)}"
day_topic = "open"
title_template = "{{title}}. День {{day}}"
lock_day_topic = {"true" if lock else "false"}

{players}[[days]]
number = 1
topic = "{board.topic_url(day1_topic)}"
deadline = {deadline.astimezone(MSK).isoformat(timespec='seconds')}
""", encoding="utf-8")
    return folder


def play_day_one(board) -> tuple[int, int]:
    """The host opens day 1 and the results topic; four players vote, three send moves."""
    admin = board.player("admin")
    day1 = admin.new_topic(GAME_FORUM_ID, "Проверка. День 1", "День 1 начался.")
    results = admin.new_topic(RESULTS_FORUM_ID, "Проверка. Итоги", "Здесь будут газеты.")
    for voter, target in [("Вася", "Игрок-7"), ("Маша_2", "Игрок-7"), ("Кот", "Игрок-7"),
                          ("Big Joe", "Вася")]:
        board.player(voter).reply(day1, f"[color=red]{target}[/color]")
    board.player("Вася").send_pm("admin", "ход", "убить Кот")
    board.player("Big Joe").send_pm("admin", "ход", "проверяю Маша_2")
    board.player("NightOwl").send_pm("admin", "ход", "лечу Алексей")
    return day1, results


def wait_for(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.3)
    return predicate()


def env() -> dict:
    return {**os.environ, "PYTHONUNBUFFERED": "1", "SCRAPER_MOD_FORUM_PASSWORD": PASSWORD}


def scraper_mod(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scraper_mod", *args], capture_output=True,
                          text=True, timeout=120, env=env())


def board_counts(board, results: int) -> tuple[int, list[str], dict[str, int]]:
    admin = board.player("admin")
    papers = [p for p in admin.topic_posts(results) if p["author"] == "admin"]
    sent = admin.list_pms("outbox") + admin.list_pms("sentbox")
    per_subject: dict[str, int] = {}
    for m in sent:
        per_subject[m["subject"]] = per_subject.get(m["subject"], 0) + 1
    import requests
    forum = requests.get(board.forum_url(GAME_FORUM_ID), timeout=30).text
    return len(papers) - 1, [t for t in ("Проверка. День 2",) if forum.count(t) > 0], per_subject


def test_an_evening_on_autopilot_on_the_real_board(real_board, tmp_path):
    """R12.1: on autopilot the host's account posts the newspaper in the results topic, the next day's start and the PMs on the real board."""
    day1, results = play_day_one(real_board)
    deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=6)
    game = write_game(tmp_path / "game", real_board, day1, results, deadline=deadline,
                      lock=True)
    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    log = game / "run.log"
    try:
        def day2_polled() -> bool:
            text = log.read_text(encoding="utf-8") if log.exists() else ""
            return "posted day-topic" in text and "viewtopic.php?t=" in text.split(
                "posted day-topic", 1)[1] and text.count("poll") > 0 and "day 2" in text
        assert wait_for(day2_polled, 75), log.read_text(encoding="utf-8")
        done_at = datetime.now(timezone.utc)
        assert done_at <= deadline + timedelta(seconds=1 + 120)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    assert "Traceback" not in err
    text = log.read_text(encoding="utf-8")
    assert PASSWORD not in text
    admin = real_board.player("admin")
    # the newspaper is a reply of admin's in the results topic
    posts = admin.topic_posts(results)
    assert [p["author"] for p in posts] == ["admin", "admin"]
    assert "Игрок-7" in posts[1]["text"]
    # the day-2 topic is open in the game forum with the day start, and it is day 2's topic
    from scraper_mod.game.context import open_game
    ctx = open_game(game)
    try:
        day2 = ctx.topic_for_day(2)
    finally:
        ctx.close()
    assert day2 and "viewtopic.php?t=" in day2
    day2_posts = admin.topic_posts(int(day2.split("t=")[1].split("&")[0]))
    start = (game / "out" / "day-1" / "day-start.bbcode").read_text(encoding="utf-8")
    assert len(day2_posts) == 1 and day2_posts[0]["author"] == "admin"
    plain = " ".join(re.sub(r"\[/?[a-z*][^\]]*\]", " ", start).split())
    assert plain[:60] == " ".join(day2_posts[0]["text"].split())[:60]
    # the check reached the Commissar and the Sergeant as the board's PMs
    for nick in ("Big Joe", "Алексей"):
        inbox = real_board.player(nick).list_pms("inbox")
        assert any(m["subject"] == "Проверка: день 1" for m in inbox), (nick, inbox)
        pm = real_board.player(nick).read_pm(
            next(m["id"] for m in inbox if m["subject"] == "Проверка: день 1"))
        assert "Маша_2" in pm["text"]
    # day 1's topic is locked with the quick-mod tool
    assert admin._has_tool(day1, "unlock") and not admin._has_tool(day1, "lock")
    # the daemon polls day 2's topic
    assert day2 in text or day2.split("?")[1] in text
    # a second publish posts nothing
    again = scraper_mod("publish", str(game), "--format", "json")
    assert again.returncode == 0, again.stderr
    assert {p["status"] for p in json.loads(again.stdout)["posted"]} == {"already"}
    assert len(admin.topic_posts(results)) == 2


def test_kill_9_while_publishing_then_publish_again_posts_nothing_twice(real_board, tmp_path):
    day1, results = play_day_one(real_board)
    deadline = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(seconds=5)
    game = write_game(tmp_path / "game", real_board, day1, results, deadline=deadline,
                      mode="review")
    r = scraper_mod("poll", str(game))
    assert r.returncode == 0, r.stderr
    r = scraper_mod("resolve", str(game), "--day", "1")
    assert r.returncode == 0, r.stderr
    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "publish", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    # kill it after the newspaper is posted, somewhere in the day topic or the PMs
    admin = real_board.player("admin")
    assert wait_for(lambda: len(admin.topic_posts(results)) >= 2 or proc.poll() is not None, 40)
    time.sleep(1.5)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)
    assert proc.returncode == -signal.SIGKILL   # it was still publishing
    again = scraper_mod("publish", str(game), "--format", "json")
    assert again.returncode == 0, again.stderr
    statuses = {(p["kind"], p["to"]): p["status"] for p in json.loads(again.stdout)["posted"]}
    assert set(statuses.values()) <= {"posted", "already"}
    third = scraper_mod("publish", str(game), "--format", "json")
    assert {p["status"] for p in json.loads(third.stdout)["posted"]} == {"already"}
    papers, topics, per_subject = board_counts(real_board, results)
    assert papers == 1 and topics == ["Проверка. День 2"]
    forum = __import__("requests").get(real_board.forum_url(GAME_FORUM_ID), timeout=30).text
    assert forum.count(">Проверка. День 2<") == 1
    pms = list((game / "out" / "day-1" / "pm").glob("*.txt"))
    sent = admin.list_pms("outbox") + admin.list_pms("sentbox")
    assert len([m for m in sent if m["subject"] == "Проверка: день 1"]) == len(pms) > 0
    answers = list((game / "outbox" / "day-1").glob("*.txt"))   # the move answers, as PMs
    assert len([m for m in sent if m["subject"].startswith("Re: ")]) == len(answers)
    assert PASSWORD not in again.stdout + again.stderr + third.stdout
