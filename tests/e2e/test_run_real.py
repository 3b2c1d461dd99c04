"""A real `scraper-mod run`: a subprocess on the real clock against LocalBoard (a phpBB 3.3
look-alike on 127.0.0.1), with day 1's deadline a few seconds away (a moved deadline in
[[days]]), a 1 s grace and a cadence of seconds ([schedule] takes fractions of minutes).
It must write out/day-1/ within 30 s of the deadline plus the grace, hold the game's lock
while it runs, and stop cleanly on SIGTERM.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from test_schedule_live import vote, write_game

from scraper_mod.demo.localboard import LocalBoard

MSK = ZoneInfo("Europe/Moscow")


def make_game(folder: Path, board: LocalBoard, topic: str, deadline: datetime) -> Path:
    """Day 1 started 3 minutes ago; its deadline (moved, R1.4) is ``deadline``; the cadence
    is in seconds: [schedule] takes fractions of minutes."""
    begin = (deadline - timedelta(minutes=3)).astimezone(MSK)
    return write_game(
        folder, board, topic,
        game_extra=f'start = {begin:%Y-%m-%d}\nday_start = "{begin:%H:%M}"\n',
        tail="[schedule]\npoll_minutes = 0.05\nfinal_poll_minutes = 0.02\n"
             "final_window_minutes = 0.1\ngrace_seconds = 1\n",
        day1=f"deadline = {deadline.astimezone(MSK).isoformat(timespec='seconds')}\n")


def wait_for(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def scraper_mod(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scraper_mod", *args], capture_output=True,
                          text=True, timeout=30, **kw)


def test_a_real_run_writes_the_day_within_30_s_of_deadline_plus_grace(tmp_path):
    now = datetime.now(timezone.utc).replace(microsecond=0)
    deadline = now + timedelta(seconds=5)
    with LocalBoard(language="ru") as board:
        tid = board.add_topic("Проверка — День 1")
        board.add_post("Ведущий", 50, "День 1 начался.", now - timedelta(seconds=100))
        votes = [("Вася", "Петя"), ("Игорь", "Петя"), ("Маша", "Вася"), ("Ирина", "Петю"),
                 ("Петя", "Вася"), ("Коля", "Петю")]
        for i, (author, target) in enumerate(votes):
            vote(board, tid, author, target, now - timedelta(seconds=90 - i))
        game = make_game(tmp_path / "game", board, board.topic_url(tid), deadline)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(game)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env)
        try:
            assert wait_for(lambda: (game / "run.lock").exists()
                            and "running" in (game / "run.log").read_text(encoding="utf-8")
                            if (game / "run.log").exists() else False, 20)
            # one instance per game: a second daemon is refused, status sees the first
            second = scraper_mod("run", str(game))
            assert second.returncode == 1
            assert "already running for this game" in second.stderr
            assert f"pid {proc.pid}" in second.stderr
            status = scraper_mod("status", str(game))
            assert status.returncode == 0, status.stderr
            # a Russian game's status is Russian (issue 39 item 4)
            assert f"демон: работает (процесс {proc.pid})" in status.stdout
            assert "день 1: срок — до " in status.stdout

            # votes posted after the deadline must not count (R2.6): with them Вася would
            # lead 4 to 3
            assert wait_for(lambda: datetime.now(timezone.utc) >= deadline, 10)
            vote(board, tid, "Таня", "Вася", datetime.now(timezone.utc))
            vote(board, tid, "Игорь", "Васю", datetime.now(timezone.utc))

            result = game / "out" / "day-1" / "result.json"
            budget = (deadline - datetime.now(timezone.utc)).total_seconds() + 1 + 30
            assert wait_for(result.exists, budget), (
                "out/day-1/ not written in time\n" + (game / "run.log").read_text("utf-8"))
            written_at = datetime.now(timezone.utc)
            assert written_at <= deadline + timedelta(seconds=1 + 30)
            data = json.loads(result.read_text(encoding="utf-8"))
            assert data["day"] == 1
            assert data["lynched"] == {"player": "Петя", "role": "civilian", "by": "votes"}
            for name in ("newspaper.bbcode", "day-start.bbcode", "host-report.txt"):
                assert (game / "out" / "day-1" / name).exists()
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                out, err = proc.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
        assert proc.returncode == 0, err
        log = (game / "run.log").read_text(encoding="utf-8")
        assert "day 1 resolved" in log and "out/day-1" in log
        assert "got SIGTERM: stopping" in log and "stopped (stop)" in log
        assert "Traceback" not in err
        # the lock is free again
        from scraper_mod.daemon.lock import running_pid
        assert running_pid(game) is None
