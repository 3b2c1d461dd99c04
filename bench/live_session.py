"""Live-session bench (issue 13): what a day of polling costs the board, and how soon after the
deadline the daemon reads the topic (RULES R2.11).

Usage::

    SCRAPER_MOD_PHPBB_BOARD=../shared/phpbb-board python bench/live_session.py   # real phpBB
    python bench/live_session.py            # LocalBoard when the board is not given
    python bench/live_session.py --quick    # 20 s instead of 60 s

The real ``scraper-mod run`` daemon (``Daemon`` + ``LiveOps``, the real clock) polls a day
topic and the host's phpBB PM inbox (``[moves] source = "phpbb_pm"``, logged in as the host)
every 5 s, with day 1's deadline moved to a few seconds before the end. Figures:

* ``logins``: logins in the whole run (target: 1);
* ``idle_poll``: requests per idle poll after the first (target: <= 2, the topic and inbox);
* ``deadline_read``: seconds from the deadline to the answer of the read at the deadline
  (target: <= 2 s).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import CannotRun, Report, arg_parser, main_wrapper, need  # noqa: E402

MSK = ZoneInfo("Europe/Moscow")
ADMIN = ("admin", "adminpass1")


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _RealBoard:
    """The real phpBB 3.3.15 board (shared/phpbb-board), started fresh in a temp folder."""

    def __init__(self, source: Path, folder: Path) -> None:
        self.source, self.folder = source, folder
        port = _free_port()
        done = subprocess.run(["bash", str(source / "start.sh"), str(port), str(folder)],
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise CannotRun(f"start.sh failed: {done.stderr.strip()[-300:]}")
        self.url = f"http://127.0.0.1:{port}/"
        import importlib.util
        spec = importlib.util.spec_from_file_location("forumctl", source / "forumctl.py")
        self.forumctl = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.forumctl)

    def setup(self) -> str:
        host = self.forumctl.Board(self.url.rstrip("/")).login(*ADMIN)
        topic = host.new_topic(3, "Бенч — День 1", "День 1 начался.")
        vasya = self.forumctl.Board(self.url.rstrip("/")).login("Вася", "pass-1")
        vasya.send_pm("admin", "ход", "убить Кот")
        return f"{self.url}viewtopic.php?t={topic}"

    def stop(self) -> None:
        subprocess.run(["bash", str(self.source / "stop.sh"), str(self.folder)],
                       capture_output=True, timeout=60)


class _Local:
    """LocalBoard with the host's login and inbox, when the real board is not given."""

    def __init__(self) -> None:
        lb = need("scraper_mod.demo.localboard", "LocalBoard")
        self.board = lb.LocalBoard(language="ru", username=ADMIN[0], password=ADMIN[1]).start()
        self.url = self.board.url

    def setup(self) -> str:
        t = self.board.add_topic("Бенч — День 1")
        self.board.add_post("admin", 2, "День 1 начался.")
        self.board.send_pm("Вася", 58, "ход", "убить Кот", to_id=2)
        return self.board.topic_url(t)

    def stop(self) -> None:
        self.board.stop()


def _game(folder: Path, url: str, topic: str, deadline: datetime) -> Path:
    begin = (deadline - timedelta(minutes=3)).astimezone(MSK)
    players = [("Вася", "boss"), ("Маша_2", "mafia"), ("Big Joe", "commissar"),
               ("Алексей", "doctor"), ("Кот", "civilian"), ("Лиса", "civilian"),
               ("Pilot", "civilian")]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.toml").write_text(
        f'[game]\ntitle = "Бенч"\nstart = {begin:%Y-%m-%d}\nday_start = "{begin:%H:%M}"\n'
        f'host = "admin"\nrandom_list = [{", ".join(repr(n) for n, _ in players)}]\n\n'
        f'[mafia]\nduty = "Маша_2"\n\n[forum]\nurl = "{url}"\nusername = "admin"\n'
        f'min_delay = 0.5\nretries = 2\n\n[moves]\nsource = "phpbb_pm"\n\n'
        f'[schedule]\npoll_minutes = 0.0833\nfinal_poll_minutes = 0.0833\n'
        f'final_window_minutes = 0.5\ngrace_seconds = 60\n\n'
        + "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\n\n' for n, r in players)
        + f'[[days]]\nnumber = 1\ntopic = "{topic}"\n'
          f'deadline = {deadline.astimezone(MSK).isoformat(timespec="seconds")}\n',
        encoding="utf-8")
    return folder


def run(args, report: Report) -> None:
    context = need("scraper_mod.game.context", "the game context")
    schedule = need("scraper_mod.daemon.scheduler", "the daemon")
    work = need("scraper_mod.daemon.work", "the daemon's work")
    poller = need("scraper_mod.forum.poller", "the poller")
    seconds = 20 if args.quick else 60
    tmp = Path(tempfile.mkdtemp(prefix="live-session-"))
    source = os.environ.get("SCRAPER_MOD_PHPBB_BOARD")
    board = _RealBoard(Path(source), tmp / "board") if source else _Local()
    report.info("real phpBB 3.3.15 board" if source else
                "LocalBoard (set SCRAPER_MOD_PHPBB_BOARD for the real board)")
    os.environ["SCRAPER_MOD_FORUM_PASSWORD"] = ADMIN[1]
    try:
        topic = board.setup()
        start = datetime.now(timezone.utc)
        deadline = (start + timedelta(seconds=seconds - 3)).replace(microsecond=0)
        ctx = context.open_game(_game(tmp / "game", board.url, topic, deadline))
        ops = work.LiveOps()
        daemon = schedule.Daemon(ctx, ops=ops)
        daemon.run(until=start + timedelta(seconds=6))
        client = ops.client(ctx)
        polls0, req0 = daemon.report.polls, client.requests
        t0 = time.monotonic()
        daemon.run(until=deadline - timedelta(seconds=2))
        idle = daemon.report.polls - polls0
        per_poll = (client.requests - req0) / max(1, idle)
        daemon.run(until=deadline + timedelta(seconds=3))
        if daemon.report.errors:
            raise CannotRun(f"the daemon reported: {daemon.report.errors[0]}")
        read = ctx.store.deadline_read(poller.canonical_topic_url(topic), deadline)
        ctx.close()
        report.info(f"{daemon.report.polls} polls in {seconds} s "
                    f"({time.monotonic() - t0:.0f} s idle), {client.requests} requests")
        report.add("logins", f"{client.logins} login(s) in the run", target="== 1",
                   ok=client.logins == 1, kind="count", value=client.logins)
        report.add("idle_poll", f"{per_poll:.1f} requests per idle poll ({idle} polls)",
                   target="<= 2", ok=per_poll <= 2, kind="count", value=per_poll)
        if read is None or read["status"] != "read":
            raise CannotRun(f"no read at the deadline: {read}")
        report.add("deadline_read", f"read {read['delay']:.2f} s after the deadline, "
                   f"{len(read['posts'])} post(s) kept", target="<= 2 s",
                   ok=read["delay"] <= 2, kind="timing", value=read["delay"], unit="s")
    finally:
        board.stop()


def main() -> None:
    main_wrapper("live_session", run, arg_parser(__doc__))


if __name__ == "__main__":
    main()
