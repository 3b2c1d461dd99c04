"""From the sign-up topic to day 1 on the real phpBB 3.3.15 board (issue 29).

The players sign up through the board's forms (forumctl), one quotes another's «+», one
withdraws; `signup --players 6 --write` gives the list and the reserve and, on autopilot,
posts the list in the sign-up topic (edited in place when it changes, never twice); `deal`
and `publish --role-cards` send every card as the board's PMs; `run` opens day 1's topic at
the game's start.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import requests
from conftest import GAME_FORUM_ID, RESULTS_FORUM_ID

MSK = ZoneInfo("Europe/Moscow")
SIGNUP_FORUM_ID = 2
PASSWORD = "adminpass1"


def env() -> dict:
    return {**os.environ, "PYTHONUNBUFFERED": "1", "SCRAPER_MOD_FORUM_PASSWORD": PASSWORD}


def scraper_mod(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scraper_mod", *args], capture_output=True,
                          text=True, timeout=180, env=env())


def write_game(folder: Path, board, signup: int, results: int) -> Path:
    begin = datetime.now(MSK) - timedelta(minutes=1)     # day 1 started a minute ago
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.toml").write_text(f"""# Проверка: the host's game file (signup --write fills the players)
[game]
title = "Проверка"
start = {begin:%Y-%m-%d}
day_start = "{begin:%H:%M}"
host = "admin"

[forum]
url = "{board.url}"
username = "admin"
forum = "{board.forum_url(GAME_FORUM_ID)}"   # day topics open here
min_delay = 0
retries = 1

[moves]
source = "phpbb_pm"

[schedule]
poll_minutes = 0.05

[publish]
mode = "auto"
results_topic = "{board.topic_url(results)}"
day_topic = "open"

[signup]
topic = "{board.topic_url(signup)}"
""", encoding="utf-8")
    return folder


def wait_for(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.5)
    return predicate()


def test_sign_up_to_day_one_on_the_real_board(real_board, tmp_path):
    """R13.1-R13.2: sign-ups read from the real board's topic give the players and the reserve in order."""
    # long: one whole start of a game, step by step on one board
    admin = real_board.player("admin")
    signup = admin.new_topic(SIGNUP_FORUM_ID, "Проверка: запись на игру",
                             "Открыта запись. Пишите «+».")
    results = admin.new_topic(RESULTS_FORUM_ID, "Проверка. Итоги", "Здесь будут газеты.")
    for nick, text in [("Вася", "+"), ("Маша_2", "Я в игре!"),
                       ("Big Joe", "[quote=Вася]+[/quote]Когда старт?"), ("Алексей", "участвую"),
                       ("Pilot", "+"), ("NightOwl", "/in"), ("Игрок-7", "+1"), ("Кот", "+"),
                       ("Pilot", "не смогу"), ("Лиса", "в игре")]:
        real_board.player(nick).reply(signup, text)
    game = write_game(tmp_path / "game", real_board, signup, results)

    done = scraper_mod("signup", str(game), "--players", "6", "--write", "--format", "json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    players = ["Вася", "Маша_2", "Алексей", "NightOwl", "Игрок-7", "Кот"]
    assert got["players"] == players
    assert got["reserve"] == ["Лиса"] and got["withdrawn"] == ["Pilot"]
    data = tomllib.loads((game / "game.toml").read_text(encoding="utf-8"))
    assert [p["nick"] for p in data["players"]] == players
    assert data["players"][0]["forum_id"] == 58
    assert data["reserve"] == ["Лиса"]
    assert (game / "game.toml").read_text(encoding="utf-8").startswith("# Проверка: the host's")

    def lists() -> list[dict]:
        every = admin.topic_posts(signup) + admin.topic_posts(signup, start=10)   # 2 pages
        return [p for p in every if p["author"] == "admin"][1:]

    assert len(lists()) == 1 and "1. Вася" in lists()[0]["text"], done.stderr
    assert "Запас (1)" in lists()[0]["text"]
    real_board.player("Зоя").reply(signup, "+")       # the list changes: edited in place
    again = scraper_mod("signup", str(game), "--players", "6", "--write")
    assert again.returncode == 0, again.stderr
    assert "board: posted signup" in again.stdout
    assert len(lists()) == 1 and "2. Зоя" in lists()[0]["text"]
    same = scraper_mod("signup", str(game), "--players", "6")
    assert "board: already signup" in same.stdout and len(lists()) == 1

    dealt = scraper_mod("deal", str(game))
    assert dealt.returncode == 0, dealt.stderr
    cards = scraper_mod("publish", str(game), "--role-cards", "--format", "json")
    assert cards.returncode == 0, cards.stderr
    sent = [m for m in admin.list_pms("outbox") + admin.list_pms("sentbox")
            if m["subject"] == "Проверка: ваша роль"]
    assert len(sent) == 6
    assert sorted(s["status"] for s in json.loads(cards.stdout)["posted"]) == ["posted"] * 6

    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    log = game / "run.log"
    try:
        def opened() -> bool:
            text = log.read_text(encoding="utf-8") if log.exists() else ""
            return "day 1 opened" in text
        assert wait_for(opened, 90), log.read_text(encoding="utf-8") if log.exists() else ""
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    forum = requests.get(real_board.forum_url(GAME_FORUM_ID), timeout=30).text
    assert forum.count("Проверка. День 1") == 1
    first = admin.topic_posts(signup + 2)[0]           # the board's next topic
    assert first["author"] == "admin" and "Проверка — день 1" in first["text"]
    assert all(n in first["text"] for n in players)
