"""Autopilot on the real SMF 2.1.4 board (issue 31, phase 2): one whole evening through
``scraper-mod run`` as a subprocess, and a ``kill -9`` in the middle of publishing, as
tests/test_publish_real.py does on phpBB.

The players vote through SMF's forms (smfctl plays them: each from a loopback address of its
own) and send their night moves to the host (admin) as SMF PMs; scraper-mod reads the topic,
its feed (SMF pages show minutes: R2.6's seconds come from the board's Atom feed) and the PMs
with admin's account (``[moves] source = "forum_pm"``, the engine told by the game's
addresses), resolves day 1 and posts through the same board's forms.
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

from conftest import BOARD_ADMIN, SMF_GAME_BOARD_ID, SMF_RESULTS_BOARD_ID

MSK = ZoneInfo("Europe/Moscow")
# nick, role, SMF member id (members 2-13 in the README's order)
PLAYERS = [("Вася", "boss", 2), ("Маша_2", "mafia", 3), ("Big Joe", "commissar", 4),
           ("Алексей", "sergeant", 5), ("NightOwl", "doctor", 6), ("Игрок-7", "civilian", 7),
           ("Кот", "civilian", 10)]
PASSWORD = BOARD_ADMIN[1]
SUBJECT = "Проверка: день 1"


def write_game(folder: Path, board, day1: int, results: int, *, deadline: datetime,
               mode: str = "auto", grace: int = 1) -> Path:
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
forum = "{board.url}index.php?board={SMF_GAME_BOARD_ID}.0"
min_delay = 0
retries = 1

[moves]
source = "forum_pm"

[schedule]
poll_minutes = 0.05
final_poll_minutes = 0.02
final_window_minutes = 0.1
grace_seconds = {grace}

[publish]
mode = "{mode}"
results_topic = "{board.topic_url(results)}"
day_topic = "open"
title_template = "{{title}}. День {{day}}"
lock_day_topic = true

{players}[[days]]
number = 1
topic = "{board.topic_url(day1)}"
deadline = {deadline.astimezone(MSK).isoformat(timespec='seconds')}
""", encoding="utf-8")
    return folder


def play_day_one(board, *, edit_later: bool = False) -> tuple[int, int, int]:
    """The host opens day 1 and the results topic; five players vote (one quotes another's
    vote, which is no vote), three send moves. Returns (day 1, results, Кот's vote)."""
    admin = board.player("admin")
    day1 = admin.new_topic(SMF_GAME_BOARD_ID, "Проверка. День 1", "День 1 начался.")
    results = admin.new_topic(SMF_RESULTS_BOARD_ID, "Проверка. Итоги", "Здесь будут газеты.")
    first = 0
    for voter, target in [("Вася", "Игрок-7"), ("Маша_2", "Игрок-7"), ("Big Joe", "Вася")]:
        mid = board.player(voter).reply(day1, f"[color=red]{target}[/color]")
        first = first or mid
    board.player("NightOwl").reply(
        day1, f"[quote author=Вася link=msg={first} date=0][color=red]Игрок-7[/color][/quote]"
              "Не согласна, подумаю.")
    kot = board.player("Кот").reply(day1, "[color=red]Игрок-7[/color]")
    board.player("Вася").send_pm("admin", "ход", "убить Кот")
    board.player("Big Joe").send_pm("admin", "ход", "проверяю Маша_2")
    board.player("NightOwl").send_pm("admin", "ход", "лечу Алексей")
    return day1, results, kot


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
                          text=True, timeout=180, env=env())


def day2_topics(board) -> list[int]:
    import requests
    page = requests.get(f"{board.url}index.php?board={SMF_GAME_BOARD_ID}.0", timeout=30).text
    return [int(t) for t in re.findall(r'<a href="[^"]*[?;&]topic=(\d+)\.0"[^>]*>'
                                       r'Проверка\. День 2</a>', page)]


def test_an_evening_on_autopilot_on_the_real_smf_board(real_smf_board, tmp_path):
    board = real_smf_board
    day1, results, kot = play_day_one(board)
    deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=8)
    game = write_game(tmp_path / "game", board, day1, results, deadline=deadline, grace=12)
    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    log = game / "run.log"
    try:
        # Кот edits his vote 3 s after the deadline, within SMF's 90 s grace: no notice on
        # the page. R2.11: the read at the deadline keeps the vote as it stood then.
        assert wait_for(lambda: datetime.now(timezone.utc) >= deadline + timedelta(seconds=3),
                        30)
        board.player("Кот").edit(kot, "[color=red]Вася[/color]")
        # a vote after the deadline, shown in the deadline's minute or the next: not counted
        board.player("Алексей").reply(day1, "[color=red]Big Joe[/color]")

        def day2_polled() -> bool:
            text = log.read_text(encoding="utf-8") if log.exists() else ""
            return "posted day-topic" in text and "topic=" in text.split(
                "posted day-topic", 1)[1] and "day 2" in text
        assert wait_for(day2_polled, 120), log.read_text(encoding="utf-8")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    assert "Traceback" not in err, err
    text = log.read_text(encoding="utf-8")
    assert PASSWORD not in text
    assert "read at the deadline" in text, text
    admin = board.player("admin")
    # the edit after the deadline changed the board, not the count: Игрок-7 has 3 votes
    # (Вася, Маша_2, Кот as at the deadline), Вася 1; NightOwl's quote is no vote
    assert "Вася" in " ".join(p["text"] for p in admin.topic_posts(day1) if p["id"] == kot)
    result = json.loads((game / "out" / "day-1" / "result.json").read_text(encoding="utf-8"))
    assert result["lynched"]["player"] == "Игрок-7" and result["lynched"]["by"] == "votes"
    assert [k["player"] for k in result["killed"]] == ["Кот"]         # the moves by PM
    assert result["checks"] == [{"by": "Big Joe", "target": "Маша_2", "result": "mafia"}]
    tally = scraper_mod("tally", str(game), "--day", "1", "--offline", "--format", "json")
    assert tally.returncode == 0, tally.stderr
    count = json.loads(tally.stdout)
    assert [(c["target"], c["voters"]) for c in count["counts"]] == [
        ("Игрок-7", ["Вася", "Маша_2", "Кот"]), ("Вася", ["Big Joe"])]
    assert {r["author"] for r in count["rejected"]} >= {"NightOwl", "Алексей"}
    # the newspaper is a reply of admin's in the results topic
    posts = admin.topic_posts(results)
    assert [p["author"] for p in posts] == ["admin", "admin"]
    assert "Игрок-7" in posts[1]["text"]
    # the day-2 topic is open on «Игра» with the day start, and it is day 2's topic
    from scraper_mod.game.context import open_game
    ctx = open_game(game)
    try:
        day2 = ctx.topic_for_day(2)
        key = f"{board.url}index.php?topic={day1}"
        votes = ctx.store.deadline_read(key, deadline)
        # R2.6: the page shows minutes; the feed gave every post of day 1 its second
        exact = {v.data["post_id"] for v in ctx.store.post_versions(key)
                 if v.data["precision"] == "second"}
        assert exact >= set(ctx.store.known_post_ids(key)) - {kot + 1}, exact
    finally:
        ctx.close()
    assert votes is not None and votes["status"] == "read", votes
    assert day2 and f"index.php?topic={day2_topics(board)[0]}" in day2
    day2_posts = admin.topic_posts(day2_topics(board)[0])
    assert len(day2_posts) == 1 and day2_posts[0]["author"] == "admin"
    # the check reached the Commissar and the Sergeant as SMF PMs
    for nick in ("Big Joe", "Алексей"):
        player = board.player(nick)
        inbox = player.list_pms("inbox")
        mine = [m for m in inbox if m["subject"] == SUBJECT]
        assert mine, (nick, inbox)
        assert "Маша_2" in player.read_pm(mine[0]["id"])["text"]
    # the move answers went back as PMs, the day 1 topic is locked
    assert board.player("Вася").list_pms("inbox")
    assert admin.is_locked(day1)
    # a second publish posts nothing
    again = scraper_mod("publish", str(game), "--format", "json")
    assert again.returncode == 0, again.stderr
    assert {p["status"] for p in json.loads(again.stdout)["posted"]} == {"already"}
    assert len(admin.topic_posts(results)) == 2 and len(day2_topics(board)) == 1


def test_kill_9_while_publishing_on_smf_then_nothing_twice(real_smf_board, tmp_path):
    board = real_smf_board
    day1, results, _ = play_day_one(board)
    time.sleep(1)
    deadline = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(seconds=1)
    game = write_game(tmp_path / "game", board, day1, results, deadline=deadline,
                      mode="review")
    for args in (("poll", str(game)), ("resolve", str(game), "--day", "1")):
        r = scraper_mod(*args)
        assert r.returncode == 0, r.stdout + r.stderr
    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "publish", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    admin = board.player("admin")
    # kill it once the newspaper is on the board, somewhere in the day topic or the PMs
    assert wait_for(lambda: len(admin.topic_posts(results)) >= 2 or proc.poll() is not None, 60)
    time.sleep(2)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)
    assert proc.returncode == -signal.SIGKILL   # it was still publishing
    again = scraper_mod("publish", str(game), "--format", "json")
    assert again.returncode == 0, again.stderr
    assert {p["status"] for p in json.loads(again.stdout)["posted"]} <= {"posted", "already"}
    third = scraper_mod("publish", str(game), "--format", "json")
    assert {p["status"] for p in json.loads(third.stdout)["posted"]} == {"already"}
    assert len([p for p in admin.topic_posts(results) if p["author"] == "admin"]) == 2
    assert len(day2_topics(board)) == 1
    sent = admin.list_pms("sent")
    pms = list((game / "out" / "day-1" / "pm").glob("*.txt"))
    assert len([m for m in sent if m["subject"] == SUBJECT]) == len(pms) > 0
    answers = list((game / "outbox" / "day-1").glob("*.txt"))     # the move answers
    assert len([m for m in sent if m["subject"].startswith("Re: ")]) == len(answers)
    assert PASSWORD not in again.stdout + again.stderr + third.stdout
    # `posts URL` reads the SMF topic (the engine told by the address), every page
    shown = scraper_mod("posts", board.topic_url(day1), "--json")
    assert shown.returncode == 0, shown.stderr
    posts = json.loads(shown.stdout)
    assert [p["author"] for p in posts] == ["admin", "Вася", "Маша_2", "Big Joe", "NightOwl",
                                            "Кот"]
    assert [c["text"] for c in posts[1]["colored"]] == ["Игрок-7"] and posts[4]["quotes"]


def test_after_a_crash_smf_shows_what_the_host_posted_and_nothing_else(real_smf_board):
    """What publish looks for after a crash (``Board.find_reply/find_topic/find_pm``): only
    the account's own post, topic and PM with the text that was sent; a player's topic of
    the same title and another text are never taken for it."""
    from scraper_mod.forum.client import ForumClient
    from scraper_mod.forum.engine import open_board
    board = real_smf_board
    host = open_board(ForumClient(base_url=board.url, username="admin", min_delay=0), "smf",
                      password=PASSWORD)
    paper = "[size=150][b]Итоги[/b][/size]: казнён [b]Игрок-7[/b]."
    board.player("Вася").new_topic(SMF_GAME_BOARD_ID, "Проверка. День 2", paper)
    tid, first = host.new_topic(SMF_GAME_BOARD_ID, "Проверка. День 2", paper)
    reply = host.reply(tid, paper)
    pm = host.send_pm("Маша_2", SUBJECT, "[b]Ваша проверка[/b]: Кот — мирный.")
    assert host.find_topic(SMF_GAME_BOARD_ID, "Проверка. День 2", paper) == (tid, first.id)
    assert host.find_topic(SMF_GAME_BOARD_ID, "Проверка. День 2", "другой текст") is None
    assert host.find_reply(tid, "[b]Итоги[/b]: казнён Игрок-7.") == reply.id
    assert host.find_reply(tid, "другой текст") is None
    assert host.find_pm("Маша_2", SUBJECT, "[b]Ваша проверка[/b]: Кот — мирный.") == pm.id
    assert host.find_pm("Кот", SUBJECT, "[b]Ваша проверка[/b]: Кот — мирный.") is None
    assert host.post_url(reply.id) == f"{board.url}index.php?msg={reply.id}"
