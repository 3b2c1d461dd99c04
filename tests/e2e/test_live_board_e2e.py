"""Issue 13 on the real phpBB 3.3.15 board (the e2e tier: ``real_board``), real clock.

- R2.11: a vote posted 15 s before the deadline as the topic's last post and changed 8 s after
  it through the board's own edit form (phpBB writes no notice for the last post) counts as
  posted; the host report names the silent edit. The daemon's read at the deadline is the
  first request after it.
- One session: 150 s of polling every 15 s with the phpBB PM move source logs in once, and an
  idle poll is two requests (the topic and the inbox).

Both print their figures (``-s``); bench/live_session.py prints them against the targets.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from conftest import BOARD_ADMIN, GAME_FORUM_ID

from scraper_mod.daemon.scheduler import Daemon
from scraper_mod.daemon.work import LiveOps
from scraper_mod.forum.model import post_from_json
from scraper_mod.forum.poller import canonical_topic_url
from scraper_mod.game.context import open_game

MSK = ZoneInfo("Europe/Moscow")
# the board's players (conftest BOARD_PLAYERS) with their forum user ids
PLAYERS = [("Вася", "boss", 58), ("Маша_2", "mafia", 59), ("Big Joe", "commissar", 60),
           ("Алексей", "doctor", 61), ("Кот", "civilian", 66), ("Лиса", "civilian", 67),
           ("Pilot", "civilian", 68)]


def write_game(folder: Path, url: str, topic: str, deadline: datetime, *, schedule: str,
               moves: str = "") -> Path:
    """A 7-player game on the real board, day 1 started 3 minutes ago, its deadline moved to
    ``deadline`` (R1.4), read as the host ``admin``."""
    begin = (deadline - timedelta(minutes=3)).astimezone(MSK)
    if begin.date() != deadline.astimezone(MSK).date():
        begin = deadline.astimezone(MSK).replace(hour=0, minute=0, second=0)
    players = "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\nforum_id = {u}\n\n'
                      for n, r, u in PLAYERS)
    order = ", ".join(f'"{n}"' for n, _, _ in PLAYERS)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "moves").mkdir(exist_ok=True)
    moves = moves or '[moves]\nsource = "queue"\npath = "moves"'
    (folder / "game.toml").write_text(f"""[game]
title = "Живая доска"
start = {begin:%Y-%m-%d}
day_start = "{begin:%H:%M}"
host = "admin"
random_list = [{order}]

[mafia]
duty = "Маша_2"

[forum]
url = "{url}"
username = "admin"
min_delay = 0.5
retries = 2

{moves}

[schedule]
{schedule}

{players}[[days]]
number = 1
topic = "{topic}"
deadline = {deadline.astimezone(MSK).isoformat(timespec='seconds')}
""", encoding="utf-8")
    return folder


def at(when: datetime, action) -> threading.Thread:
    """Run ``action`` at ``when`` (real clock) in a thread."""
    def run() -> None:
        time.sleep(max(0.0, (when - datetime.now(timezone.utc)).total_seconds()))
        action()
    th = threading.Thread(target=run, daemon=True)
    th.start()
    return th


def test_a_silent_edit_after_the_deadline_on_the_real_board(real_board, tmp_path, monkeypatch):
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", BOARD_ADMIN[1])
    host = real_board.player("admin")
    topic = host.new_topic(GAME_FORUM_ID, "Живая доска — День 1", "День 1 начался.")
    real_board.player("Вася").reply(topic, "[color=red]Лиса[/color]")
    real_board.player("Маша_2").reply(topic, "[color=red]Pilot[/color]")
    kot = real_board.player("Кот")
    deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=25)
    url = real_board.topic_url(topic)
    folder = write_game(tmp_path / "game", real_board.url, url, deadline,
                        schedule="poll_minutes = 0.1\nfinal_poll_minutes = 0.05\n"
                                 "final_window_minutes = 0.5\ngrace_seconds = 14\n")
    posted: dict = {}

    def post_vote() -> None:        # Лиса 2 : Pilot 1, as the topic's last post
        posted["id"] = kot.reply(topic, "[color=red]Лиса[/color]")
        posted["at"] = datetime.now(timezone.utc)

    def silent_edit() -> None:      # Pilot 2 : Лиса 1, if it counted
        kot.edit(posted["id"], "[color=red]Pilot[/color]")
        posted["edited_at"] = datetime.now(timezone.utc)

    threads = [at(deadline - timedelta(seconds=15), post_vote),
               at(deadline + timedelta(seconds=6), silent_edit)]
    ctx = open_game(folder)
    try:
        ops = LiveOps()
        report = Daemon(ctx, ops=ops).run(until=deadline + timedelta(seconds=19))
        for th in threads:
            th.join(timeout=10)
        assert report.resolved == [1], report.errors
        assert deadline - timedelta(seconds=17) <= posted["at"] < deadline
        assert deadline < posted["edited_at"] < deadline + timedelta(seconds=12)
        # the board shows the edited vote with no trace of the edit
        shown = next(p for p in kot.topic_posts(topic) if p["id"] == posted["id"])
        assert "Pilot" in shown["text"] and shown["edit_notice"] is None

        key = canonical_topic_url(url)
        read = ctx.store.deadline_read(key, deadline)
        assert read["status"] == "read", read
        assert post_from_json(read["posts"][posted["id"]]).colored[0].text == "Лиса"
        print(f"\nreal board: read at the deadline {read['delay']:.2f} s after it "
              f"(target <= 2 s); {len(read['posts'])} posts kept")
        result = json.loads((folder / "out" / "day-1" / "result.json").read_text("utf-8"))
        assert result["lynched"] == {"player": "Лиса", "role": "civilian", "by": "votes"}
        report_text = (folder / "out" / "day-1" / "host-report.txt").read_text("utf-8")
        assert f"пост {posted['id']} (Кот): правка без отметки после срока" in report_text
    finally:
        ctx.close()


POLL_SECONDS = 150


def test_polling_with_the_pm_source_logs_in_once(real_board, tmp_path, monkeypatch):
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", BOARD_ADMIN[1])
    host = real_board.player("admin")
    topic = host.new_topic(GAME_FORUM_ID, "Живая доска — День 1", "День 1 начался.")
    real_board.player("Вася").send_pm("admin", "ход", "убить Кот")
    deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(hours=2)
    folder = write_game(tmp_path / "game", real_board.url, real_board.topic_url(topic),
                        deadline, schedule="poll_minutes = 0.25\n",
                        moves='[moves]\nsource = "phpbb_pm"')
    ctx = open_game(folder)
    try:
        ops = LiveOps()
        daemon = Daemon(ctx, ops=ops)
        daemon.run(until=datetime.now(timezone.utc) + timedelta(seconds=16))  # first polls
        client = ops.client(ctx)
        first_polls, first_requests = daemon.report.polls, client.requests
        assert ctx.store.messages(), "the PM was read over the session"
        daemon.run(until=datetime.now(timezone.utc) + timedelta(seconds=POLL_SECONDS - 16))
        idle = daemon.report.polls - first_polls
        per_poll = (client.requests - first_requests) / max(1, idle)
        print(f"\nreal board: {daemon.report.polls} polls in {POLL_SECONDS} s, "
              f"{client.logins} login(s) (target 1), {per_poll:.1f} requests per idle poll "
              f"(target <= 2)")
        assert not daemon.report.errors, daemon.report.errors
        assert daemon.report.polls >= 10
        assert client.logins == 1
        assert per_poll <= 2
    finally:
        ctx.close()
