"""R14's roles on the real phpBB 3.3.15 board (issue 37, second pass): a game dealt with the
``sheriff`` preset (Босс, 2 мафиози, Комиссар, Доктор, Шериф, Путана, Телохранитель, civilians
fill the rest), its night moves sent by the players as the board's PMs to the host (admin),
polled, resolved and published through the board's own forms.

Day 1: the town jails Лиса. In the night the Putana blocks the Doctor (R14 putana, R14.1 (2)),
so the Doctor's heal of Кот is void and the mafia's kill of Кот stands; the Sheriff shoots the
mafioso Маша_2 (R14 sheriff, a kill like the Maniac's, R14.1 (4)); the Bodyguard guards a
player nobody attacks; a civilian's «убить» is refused at once, saying why (R14.2). The
newspaper on the board says what R14 says (the Sheriff's victim named as such, the block not
published, R14.3's day-start block on how to send moves), and every move answer goes back to
its sender as the board's PM.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from conftest import GAME_FORUM_ID, RESULTS_FORUM_ID

MSK = ZoneInfo("Europe/Moscow")
PASSWORD = "adminpass1"
# nick, role, board user id: the ``sheriff`` preset over the board's twelve players
PLAYERS = [("Вася", "boss", 58), ("Маша_2", "mafia", 59), ("Big Joe", "mafia", 60),
           ("Алексей", "commissar", 61), ("NightOwl", "doctor", 62), ("Игрок-7", "putana", 63),
           ("Ёжик в тумане", "sheriff", 64), ("doc_Holiday", "bodyguard", 65),
           ("Кот", "civilian", 66), ("Лиса", "civilian", 67), ("Pilot", "civilian", 68),
           ("Зоя", "civilian", 69)]
MOVES = [("Игрок-7", "блокирую NightOwl"), ("NightOwl", "лечу Кот"), ("Вася", "убить Кот"),
         ("Ёжик в тумане", "застрелить Маша_2"), ("Алексей", "проверяю Big Joe"),
         ("doc_Holiday", "охраняю Pilot"), ("Кот", "убить Вася")]


def write_game(folder: Path, board, day1: int, results: int, deadline: datetime) -> Path:
    begin = (deadline - timedelta(minutes=5)).astimezone(MSK)
    players = "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\nforum_id = {u}\n\n'
                      for n, r, u in PLAYERS)
    order = ", ".join(f'"{n}"' for n, _, _ in PLAYERS)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.toml").write_text(f"""[game]
title = "Шериф"
start = {begin:%Y-%m-%d}
day_start = "{begin:%H:%M}"
host = "admin"
random_list = [{order}]

[mafia]
duty = "Вася"

[roles]
preset = "sheriff"

[forum]
url = "{board.url}"
username = "admin"
forum = "{board.forum_url(GAME_FORUM_ID)}"
min_delay = 0
retries = 1

[moves]
source = "forum_pm"

[publish]
mode = "review"
results_topic = "{board.topic_url(results)}"
day_topic = "open"
title_template = "{{title}}. День {{day}}"

{players}[[days]]
number = 1
topic = "{board.topic_url(day1)}"
deadline = {deadline.astimezone(MSK).isoformat(timespec='seconds')}
""", encoding="utf-8")
    return folder


def scraper_mod(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "SCRAPER_MOD_FORUM_PASSWORD": PASSWORD}
    return subprocess.run([sys.executable, "-m", "scraper_mod", *args], capture_output=True,
                          text=True, timeout=300, env=env)


def test_R14_putana_blocks_the_doctor_sheriff_shoots_on_the_real_board(real_board, tmp_path):
    """R14 putana, R14 sheriff, R14.1 (2) and (4), R14.2, R14.3 through the real board:
    moves as PMs, the newspaper and the day start posted, the answers sent as PMs."""
    admin = real_board.player("admin")
    day1 = admin.new_topic(GAME_FORUM_ID, "Шериф. День 1", "День 1 начался.")
    results = admin.new_topic(RESULTS_FORUM_ID, "Шериф. Итоги", "Здесь будут газеты.")
    for voter, target in [("Вася", "Лиса"), ("Маша_2", "Лиса"), ("Кот", "Лиса"),
                          ("Big Joe", "Вася")]:
        real_board.player(voter).reply(day1, f"[color=red]{target}[/color]")
    for nick, text in MOVES:
        real_board.player(nick).send_pm("admin", "ход", text)
    deadline = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(seconds=2)
    game = write_game(tmp_path / "game", real_board, day1, results, deadline)

    # R14.3: the preset's roles are the cards' (every role written agrees with the preset)
    r = scraper_mod("deal", str(game))
    assert r.returncode == 0, r.stderr
    card = (game / "out" / "role-cards" / "Игрок-7.txt").read_text(encoding="utf-8")
    assert "ваша роль — Путана" in card and "пользователю admin" in card
    assert "«блокирую Васю»" in card

    r = scraper_mod("poll", str(game))
    assert r.returncode == 0, r.stderr
    r = scraper_mod("resolve", str(game), "--day", "1", "--format", "json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    # R14.1 (1): the count; (2) the block; (4) the blocked heal does not save, the shot kills
    assert res["lynched"] == {"player": "Лиса", "role": "civilian", "by": "votes"}
    assert res["blocked"] == ["NightOwl"] and res["saved"] is False
    assert sorted((k["player"], k["by"]) for k in res["killed"]) == [
        ("Кот", "mafia"), ("Маша_2", "sheriff")]
    assert res["checks"] == [{"by": "Алексей", "target": "Big Joe", "result": "mafia"}]
    assert res["guarded"] == [] and res["pardoned"] is False and res["winner"] is None

    r = scraper_mod("publish", str(game), "--format", "json")
    assert r.returncode == 0, r.stderr
    posted = json.loads(r.stdout)["posted"]
    assert posted and {p["status"] for p in posted} == {"posted"}
    assert PASSWORD not in r.stdout + r.stderr

    # the newspaper on the board says what R14 says; the block is not published
    posts = admin.topic_posts(results)
    assert [p["author"] for p in posts] == ["admin", "admin"]
    paper = " ".join(posts[1]["text"].split())
    assert "Жертва Шерифа: Маша_2 (мафиози)" in paper, paper
    assert "Жертва мафии: Кот" in paper and "Лиса" in paper
    assert "блок" not in paper.lower() and "Путана" not in paper
    # R14.3: the next day's start in its own topic says where moves go, the words and when
    forum = __import__("requests").get(real_board.forum_url(GAME_FORUM_ID), timeout=30).text
    assert "Шериф. День 2" in forum
    start = (game / "out" / "day-1" / "day-start.bbcode").read_text(encoding="utf-8")
    assert "[b]Ночные ходы[/b] — личным сообщением на форуме пользователю [b]admin[/b]" in start
    for line in ("Путана: «блокирую Васю».", "Шериф: «застрелить Васю».",
                 "Телохранитель: «охраняю Машу»."):
        assert line in start.split("\n")
    # the check reached the Commissar as a PM
    inbox = real_board.player("Алексей").list_pms("inbox")
    check = next(m for m in inbox if m["subject"] == "Шериф: день 1")
    assert "Big Joe" in real_board.player("Алексей").read_pm(check["id"])["text"]

    # every move answer went back to its sender as the board's PM (R5.1, R14.2)
    def answer(nick: str) -> str:
        box = real_board.player(nick)
        got = [m for m in box.list_pms("inbox") if m["subject"].startswith("Re: ")]
        assert got, (nick, box.list_pms("inbox"))
        return " ".join(box.read_pm(got[-1]["id"])["text"].split())
    answers = {nick: answer(nick) for nick, _ in MOVES}
    assert "Принято: блокировка — NightOwl." in answers["Игрок-7"], answers["Игрок-7"]
    assert "Принято: выстрел Шерифа — Маша_2." in answers["Ёжик в тумане"]
    assert "Принято: охрана — Pilot." in answers["doc_Holiday"]
    assert "Принято: лечение — Кот." in answers["NightOwl"]   # valid when sent; blocked at night
    assert "Не засчитано: убийство — Вася: ваша роль не может сделать такой ход." in \
        answers["Кот"], answers["Кот"]                          # R14.2: told at once, why
    again = scraper_mod("publish", str(game), "--format", "json")
    assert {p["status"] for p in json.loads(again.stdout)["posted"]} == {"already"}
