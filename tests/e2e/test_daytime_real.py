"""The day's work on the real phpBB 3.3.15 board (docs/daytime.md), a real `scraper-mod run`
on the real clock: a count on request answered within two polls and a second request inside
the cooldown answered by no post of its own; a scheduled count a minute ahead with the
numbers of that minute; reminders to the roles without a move and none to one who sent it;
an alert PM when the board refuses a publication; and after a `kill -9` and a restart, no
count, reminder or alert posted twice (the restart itself is told once)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from conftest import GAME_FORUM_ID, RESULTS_FORUM_ID
from test_publish_real import MSK, PLAYERS, env, wait_for

PASSWORD = "adminpass1"


def write_game(folder: Path, board, day1: int, *, begin: datetime, count_at: datetime,
               deadline: datetime) -> Path:
    players = "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\nforum_id = {u}\n\n'
                      for n, r, u in PLAYERS)
    order = ", ".join(f'"{n}"' for n, _, _ in PLAYERS)
    folder.mkdir(parents=True, exist_ok=True)
    hm = count_at.astimezone(MSK).strftime("%H:%M")
    begin = begin.astimezone(MSK)
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
final_poll_minutes = 0.05
final_window_minutes = 0.1
grace_seconds = 1

[publish]
mode = "auto"
results_topic = "{board.url}viewtopic.php?t=9999"
day_topic = "open"
tally_times = ["{hm}"]
remind_moves_at = "{hm}"
tally_command = "!голоса"
tally_cooldown_minutes = 30
alert_host = "pm"

{players}[[days]]
number = 1
topic = "{board.topic_url(day1)}"
deadline = {deadline.astimezone(MSK).isoformat(timespec='seconds')}
""", encoding="utf-8")
    return folder


def start(game: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())


def stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err


def test_counts_reminders_and_alerts_on_the_real_board_never_twice(real_board, tmp_path):
    """R12.4: counts at the host's times and on «!голоса» within the cooldown, move reminders and the host's alerts, each once (R12.2)."""
    admin = real_board.player("admin")
    day1 = admin.new_topic(GAME_FORUM_ID, "Проверка. День 1", "День 1 начался.")
    admin.new_topic(RESULTS_FORUM_ID, "Проверка. Итоги", "Здесь будут газеты.")
    for voter, target in [("Вася", "Игрок-7"), ("Маша_2", "Игрок-7"), ("Big Joe", "Вася")]:
        real_board.player(voter).reply(day1, f"[color=red]{target}[/color]")
    real_board.player("Big Joe").send_pm("admin", "ход", "проверяю Маша_2")
    kot = real_board.player("Кот")
    kot.reply(day1, "[color=red]Игрок-7[/color] а сколько у кого? !голоса")

    now = datetime.now(timezone.utc)
    count_at = (now + timedelta(seconds=75)).replace(second=0, microsecond=0)  # 15-75 s ahead
    deadline = count_at + timedelta(seconds=40)
    game = write_game(tmp_path / "game", real_board, day1, begin=now - timedelta(minutes=2),
                      count_at=count_at, deadline=deadline)
    log = game / "run.log"

    def counts() -> list[str]:
        return [p["text"] for p in admin.topic_posts(day1) if p["author"] == "admin"
                and ("по запросу" in p["text"] or "итоги на" in p["text"])]

    proc = start(game)
    try:
        # the request is answered within two polls (3 s each)
        assert wait_for(lambda: len(counts()) == 1, 25), log.read_text("utf-8")
        assert "подсчёт голосов по запросу" in counts()[0]
        assert "Подсчёт просили: Кот." in counts()[0]
        assert re.search(r"Игрок-7 — 3 голоса: Вася, Маша_2, Кот", counts()[0])
        # a second request inside the cooldown: no post of its own
        real_board.player("Зоя").reply(day1, "!голоса")
        assert not wait_for(lambda: len(counts()) > 1,
                            min(9.0, (count_at - datetime.now(timezone.utc)).total_seconds()))
        # the scheduled count at its minute: it answers the waiting request too
        assert wait_for(lambda: len(counts()) == 2, 100), log.read_text("utf-8")
        scheduled = counts()[1]
        assert f"промежуточные итоги на {count_at.astimezone(MSK):%H:%M} МСК" in scheduled
        assert "Подсчёт просили: Зоя." in scheduled
        # the reminders: the duty Boss (the kill) and the Doctor; not the Commissar
        def inbox(nick: str) -> list[dict]:
            return [m for m in real_board.player(nick).list_pms("inbox")
                    if "напоминание" in m["subject"]]
        assert wait_for(lambda: inbox("Вася") and inbox("NightOwl"), 20), log.read_text("utf-8")
    finally:
        proc.kill()                                   # kill -9 mid-day
        proc.communicate()
    proc = start(game)
    try:
        # the day is resolved; the newspaper's topic does not exist: the board refuses it
        assert wait_for(lambda: "Проверка: нужен ведущий" in str(admin.list_pms("inbox"))
                        and "publish" in (log.read_text("utf-8") if log.exists() else "")
                        and len([m for m in admin.list_pms("inbox")
                                 if "нужен ведущий" in m["subject"]]) >= 2,
                        (deadline - datetime.now(timezone.utc)).total_seconds() + 60), \
            log.read_text("utf-8")
        wait_for(lambda: False, 6)                    # two more polls: nothing more
    finally:
        err = stop(proc)
    assert "Traceback" not in err
    assert len(counts()) == 2
    assert len(inbox("Вася")) == 1 and len(inbox("NightOwl")) == 1 and inbox("Big Joe") == []
    alerts = [admin.read_pm(m["id"])["text"] for m in admin.list_pms("inbox")
              if "нужен ведущий" in m["subject"]]
    kinds = sorted(a.split("Что: ", 1)[1].split(".", 1)[0] for a in alerts)
    assert kinds == sorted(["публикация на форуме не удалась", "scraper-mod перезапущен после сбоя"])
    assert all(PASSWORD not in a for a in alerts)
