"""Autopilot on the real FluxBB_by_Visman 1.5.11 board (issue 36): one whole evening through
``scraper-mod run`` as a subprocess, and a ``kill -9`` in the middle of publishing, as the SMF
and phpBB bars do.

The players vote through the board's forms (fluxctl plays them, each logged in once: the
board's logins take 3 s) and send their night moves to the host (admin) as PM dialogs;
scraper-mod reads the topic (times to the second on the pages), its feed and the PMs with
admin's account (``[moves] source = "forum_pm"``, the engine told by the board's front page:
``[forum] engine`` is left out), resolves day 1 and posts through the same board's forms.

The fork's **Merge Post** is on, as shipped: Вася's re-vote right after his own vote is
merged into that post (two votes at two times, the later stands), and Кот's reply after the
deadline is merged into his in-time vote (an addition after the deadline changes nothing,
R2.7, R2.11).
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

from conftest import BOARD_ADMIN, FLUXBB_GAME_FORUM_ID, FLUXBB_RESULTS_FORUM_ID

MSK = ZoneInfo("Europe/Moscow")
# nick, role, FluxBB user id (users 3-14 in the README's order)
PLAYERS = [("Вася", "boss", 3), ("Маша_2", "mafia", 4), ("Big Joe", "commissar", 5),
           ("Алексей", "sergeant", 6), ("NightOwl", "doctor", 7), ("Игрок-7", "civilian", 8),
           ("Кот", "civilian", 11)]
PASSWORD = BOARD_ADMIN[1]
SUBJECT = "Проверка: день 1"


class Players:
    """The players' fluxctl sessions, each logged in once (3 s a login: the board's rule)."""

    def __init__(self, board) -> None:
        self.board = board
        self.cache: dict = {}

    def __call__(self, nick: str):
        if nick not in self.cache:
            self.cache[nick] = self.board.player(nick)
        return self.cache[nick]


def write_game(folder: Path, board, day1: int, results: int, *, deadline: datetime,
               mode: str = "auto", grace: int = 1, min_delay: float = 0) -> Path:
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
forum = "{board.url}viewforum.php?id={FLUXBB_GAME_FORUM_ID}"
min_delay = {min_delay}
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


def play_day_one(players: Players) -> tuple[int, int, int, int]:
    """The host opens day 1 and the results topic; five players vote (Вася twice in a row:
    merged; NightOwl quotes Вася's vote, which is no vote), three send moves. Returns
    (day 1, results, Big Joe's post, Кот's post)."""
    admin = players("admin")
    day1 = admin.new_topic(FLUXBB_GAME_FORUM_ID, "Проверка. День 1", "День 1 начался.")
    results = admin.new_topic(FLUXBB_RESULTS_FORUM_ID, "Проверка. Итоги", "Здесь будут газеты.")
    vasya = players("Вася").reply(day1, "[color=red]Кот[/color]")
    again = players("Вася").reply(day1, "Нет, передумал: [color=red]Игрок-7[/color]")
    assert again == vasya and players("Вася").last_merged      # the board merged it
    players("Маша_2").reply(day1, "[color=red]Игрок-7[/color]")
    joe = players("Big Joe").reply(day1, "[color=red]Вася[/color]")
    players("NightOwl").reply(day1, "Не согласна, подумаю.", quote_of=vasya)
    kot = players("Кот").reply(day1, "[color=red]Игрок-7[/color]")
    players("Вася").send_pm("admin", "ход", "убить Кот")
    players("Big Joe").send_pm("admin", "ход", "проверяю Маша_2")
    players("NightOwl").send_pm("admin", "ход", "лечу Алексей")
    return day1, results, joe, kot


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
                          text=True, timeout=240, env=env())


def day2_topics(board) -> list[int]:
    import requests
    page = requests.get(f"{board.url}viewforum.php?id={FLUXBB_GAME_FORUM_ID}", timeout=30,
                        headers={"User-Agent": "Mozilla/5.0 Gecko"}).text
    return [int(t) for t in re.findall(r'<a href="viewtopic\.php\?id=(\d+)">'
                                       r'Проверка\. День 2</a>', page)]


def test_an_evening_on_autopilot_on_the_real_fluxbb_board(real_fluxbb_board, tmp_path):
    board = real_fluxbb_board
    players = Players(board)
    for nick in ("admin", "Вася", "Маша_2", "Big Joe", "NightOwl", "Кот", "Алексей"):
        players(nick)           # every login before the run: the board's captcha stays away
    day1, results, joe, kot = play_day_one(players)
    deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=10)
    game = write_game(tmp_path / "game", board, day1, results, deadline=deadline, grace=15)
    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    log = game / "run.log"
    try:
        assert wait_for(lambda: datetime.now(timezone.utc) >= deadline + timedelta(seconds=3),
                        40)
        # after the deadline: Кот's reply is merged into his vote (Merge Post), marked
        # «Добавлено спустя N с» from his post's time; the admin edits Big Joe's vote
        # silently (no notice: the moderator's default); Алексей votes late
        assert players("Кот").reply(day1, "[color=red]Вася[/color]") == kot
        assert players("Кот").last_merged
        players("admin").edit(joe, "[color=red]Маша_2[/color]")
        players("Алексей").reply(day1, "[color=red]Big Joe[/color]")

        def day2_polled() -> bool:
            text = log.read_text(encoding="utf-8") if log.exists() else ""
            return "posted day-topic" in text and "viewtopic.php?id=" in text.split(
                "posted day-topic", 1)[1] and "day 2" in text
        assert wait_for(day2_polled, 180), log.read_text(encoding="utf-8")
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
    admin = players("admin")
    shown = {p["id"]: p for p in admin.topic_posts(day1)}
    assert "Добавлено спустя" in shown[kot]["text"] and "Вася" in shown[kot]["text"]
    assert "Маша_2" in shown[joe]["text"] and not shown[joe]["edit_notice"]
    # the board changed after the deadline, not the count: Игрок-7 has 3 votes (Вася's
    # re-vote merged into his first one, Маша_2, Кот as at the deadline), Вася 1 (Big Joe
    # as at the deadline); NightOwl's quote is no vote
    result = json.loads((game / "out" / "day-1" / "result.json").read_text(encoding="utf-8"))
    assert result["lynched"]["player"] == "Игрок-7" and result["lynched"]["by"] == "votes"
    assert [k["player"] for k in result["killed"]] == ["Кот"]         # the moves by PM
    assert result["checks"] == [{"by": "Big Joe", "target": "Маша_2", "result": "mafia"}]
    tally = scraper_mod("tally", str(game), "--day", "1", "--offline", "--format", "json")
    assert tally.returncode == 0, tally.stderr
    count = json.loads(tally.stdout)
    # (Вася's merged re-vote and Маша_2's vote may share a second: the voters' order is
    # the votes' times)
    assert [(c["target"], sorted(c["voters"])) for c in count["counts"]] == [
        ("Игрок-7", sorted(["Вася", "Маша_2", "Кот"])), ("Вася", ["Big Joe"])]
    reasons = {(r["author"], r["reason"]) for r in count["rejected"]}
    assert ("Кот", "late") in reasons and ("Алексей", "late") in reasons, reasons
    assert not [r for r in count["rejected"] if r["reason"] == "two_players"]
    # the newspaper is a reply of admin's in the results topic (not merged into his first)
    posts = admin.topic_posts(results)
    assert [p["author"] for p in posts] == ["admin", "admin"]
    assert "Игрок-7" in posts[1]["text"]
    from scraper_mod.game.context import open_game
    ctx = open_game(game)
    try:
        day2 = ctx.topic_for_day(2)
        key = f"{board.url}viewtopic.php?id={day1}"
        votes = ctx.store.deadline_read(key, deadline)
        exact = {v.data["precision"] for v in ctx.store.post_versions(key)}
    finally:
        ctx.close()
    assert exact == {"second"}                      # the pages show seconds
    assert votes is not None and votes["status"] == "read", votes
    assert day2 and f"viewtopic.php?id={day2_topics(board)[0]}" in day2
    day2_posts = admin.topic_posts(day2_topics(board)[0])
    assert len(day2_posts) == 1 and day2_posts[0]["author"] == "admin"
    # the check reached the Commissar and the Sergeant as PM dialogs
    for nick in ("Big Joe", "Алексей"):
        player = players(nick)
        mine = [d for d in player.list_pms("inbox") if d["subject"] == SUBJECT]
        assert mine, (nick, player.list_pms("inbox"))
        assert "Маша_2" in player.read_pm(mine[0]["id"])["text"]
    # the move answers went back as PMs, the day 1 topic is locked
    assert [d for d in players("Вася").list_pms("inbox") if d["from"] == "admin"]
    assert admin.is_locked(day1)
    # a second publish posts nothing
    again = scraper_mod("publish", str(game), "--format", "json")
    assert again.returncode == 0, again.stderr
    assert {p["status"] for p in json.loads(again.stdout)["posted"]} == {"already"}
    assert len(admin.topic_posts(results)) == 2 and len(day2_topics(board)) == 1


def test_kill_9_while_publishing_on_fluxbb_then_nothing_twice(real_fluxbb_board, tmp_path):
    board = real_fluxbb_board
    players = Players(board)
    day1, results, _, _ = play_day_one(players)
    time.sleep(1)
    deadline = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(seconds=1)
    # FluxBB answers a post in ~50 ms: publishing is paced (a request a second, as a board
    # far away would be) so that the kill lands in the middle of it
    game = write_game(tmp_path / "game", board, day1, results, deadline=deadline,
                      mode="review", min_delay=1)
    for args in (("poll", str(game)), ("resolve", str(game), "--day", "1")):
        r = scraper_mod(*args)
        assert r.returncode == 0, r.stdout + r.stderr
    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "publish", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    admin = players("admin")
    # kill it once the newspaper is on the board, somewhere in the day topic or the PMs
    assert wait_for(lambda: len(admin.topic_posts(results)) >= 2 or proc.poll() is not None, 90)
    time.sleep(0.5)
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
    dialogs = admin.list_pms("inbox")
    pms = list((game / "out" / "day-1" / "pm").glob("*.txt"))
    assert len([d for d in dialogs if d["subject"] == SUBJECT and d["from"] == "admin"]) \
        == len(pms) > 0
    answers = list((game / "outbox" / "day-1").glob("*.txt"))     # the move answers
    assert len([d for d in dialogs if d["subject"].startswith("Re: ")
                and d["from"] == "admin"]) == len(answers)
    assert PASSWORD not in again.stdout + again.stderr + third.stdout
    # `posts URL` reads the FluxBB topic (the engine told by the address), every page
    shown = scraper_mod("posts", board.topic_url(day1), "--json")
    assert shown.returncode == 0, shown.stderr
    posts = json.loads(shown.stdout)
    assert [p["author"] for p in posts] == ["admin", "Вася", "Маша_2", "Big Joe", "NightOwl",
                                            "Кот"]
    # Вася's merged re-vote: two pieces, each with its colored name
    assert [[c["text"] for c in x["colored"]] for x in posts[1]["parts"]] == \
        [["Кот"], ["Игрок-7"]]


def test_after_a_crash_fluxbb_shows_what_the_host_posted_and_nothing_else(real_fluxbb_board):
    """What publish looks for after a crash (``Board.find_reply/find_topic/find_pm``): only
    the account's own post, topic and PM with the text that was sent; a player's topic of
    the same title and another text are never taken for it."""
    from scraper_mod.forum.client import ForumClient
    from scraper_mod.forum.engine import open_board
    board = real_fluxbb_board
    host = open_board(ForumClient(base_url=board.url, username="admin", min_delay=0), "fluxbb",
                      password=PASSWORD)
    paper = "[size=150][b]Итоги[/b][/size]: казнён [b]Игрок-7[/b]."
    board.player("Вася").new_topic(FLUXBB_GAME_FORUM_ID, "Проверка. День 2", paper)
    tid, first = host.new_topic(FLUXBB_GAME_FORUM_ID, "Проверка. День 2", paper)
    reply = host.reply(tid, paper)
    assert reply.id != first.id                 # the host's reply is not merged
    pm = host.send_pm("Маша_2", SUBJECT, "[b]Ваша проверка[/b]: Кот — мирный.")
    assert host.find_topic(FLUXBB_GAME_FORUM_ID, "Проверка. День 2", paper) == (tid, first.id)
    assert host.find_topic(FLUXBB_GAME_FORUM_ID, "Проверка. День 2", "другой текст") is None
    assert host.find_reply(tid, "[b]Итоги[/b]: казнён Игрок-7.") == reply.id
    assert host.find_reply(tid, "другой текст") is None
    assert host.find_pm("Маша_2", SUBJECT, "[b]Ваша проверка[/b]: Кот — мирный.") == pm.id
    assert host.find_pm("Кот", SUBJECT, "[b]Ваша проверка[/b]: Кот — мирный.") is None
    assert host.post_url(reply.id) == f"{board.url}viewtopic.php?pid={reply.id}#p{reply.id}"
    assert host.read_topic_page(tid).posts[-1].post_id == reply.id
