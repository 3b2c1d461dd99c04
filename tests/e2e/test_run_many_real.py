"""Acceptance of `scraper-mod run FOLDER`: one real process (the real clock, real threads)
hosting 30 games on 3 LocalBoards, each day-1 deadline (moved, R1.4) seconds away, a 1 s
grace and a cadence of seconds. Every game's out/day-1/ must be written; a broken game (a
game.toml that is not TOML) is named in the log and by `status FOLDER`, the others go on;
`run GAME` on a hosted game is refused (one lock across both); SIGTERM stops it cleanly.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import datetime, timedelta, timezone

from test_run_real import make_game, scraper_mod, wait_for
from test_schedule_live import vote

from scraper_mod.demo.localboard import LocalBoard


def test_one_process_hosts_30_games_on_3_boards(tmp_path):
    now = datetime.now(timezone.utc).replace(microsecond=0)
    deadline = now + timedelta(seconds=12)
    root = tmp_path / "games"
    boards = [LocalBoard(language="ru").start() for _ in range(3)]
    expected = {}
    try:
        for i in range(30):
            board = boards[i % 3]
            tid = board.add_topic(f"Игра {i} — День 1")
            board.add_post("Ведущий", 50, "День 1 начался.", now - timedelta(seconds=100),
                           topic=tid)
            target = ("Петя", "Колю") if i % 2 else ("Петю", "Петя")
            for k, (author, t) in enumerate([("Вася", target[0]), ("Игорь", target[1]),
                                             ("Маша", "Вася")]):
                vote(board, tid, author, t, now - timedelta(seconds=90 - k))
            expected[f"g{i:02d}"] = "Коля" if i % 2 else "Петя"
            make_game(root / f"g{i:02d}", board, board.topic_url(tid), deadline)
        # every odd game's votes are 1:1:1: the random list decides (Вася is first)
        expected.update({k: "Вася" for k in expected if int(k[1:]) % 2})
        broken = root / "broken"
        broken.mkdir()
        (broken / "game.toml").write_text("[game\ntitle = 'сломано'\n", encoding="utf-8")

        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        err_file = (tmp_path / "stderr.txt").open("w+", encoding="utf-8")
        # stderr into a file: a pipe nobody reads fills up and stops the daemon's logging
        proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(root)],
                                stdout=subprocess.DEVNULL, stderr=err_file, text=True,
                                env=env)
        log_file = root / "run.log"
        try:
            def log() -> str:
                return log_file.read_text("utf-8") if log_file.exists() else ""

            assert wait_for(lambda: all(f"[g{i:02d}]" in log() and "running" in log()
                                        for i in range(30)), 30), log()
            # the per-game lock holds across `run FOLDER` and `run GAME`
            second = scraper_mod("run", str(root / "g05"))
            assert second.returncode == 1 and "already running" in second.stderr
            assert f"pid {proc.pid}" in second.stderr

            def all_written() -> bool:
                return all((root / n / "out" / "day-1" / "result.json").exists()
                           for n in expected)

            assert wait_for(all_written, 40), log()
            for name, jailed in expected.items():
                data = json.loads((root / name / "out" / "day-1" / "result.json")
                                  .read_text("utf-8"))
                assert data["lynched"]["player"] == jailed, name
                assert (root / name / "out" / "day-1" / "newspaper.bbcode").exists()

            # a game added while running: at once on SIGHUP (the rescan is a minute away)
            board = boards[0]
            tid = board.add_topic("Новая — День 1")
            board.add_post("Ведущий", 50, "День 1 начался.", now, topic=tid)
            make_game(root / "late", board, board.topic_url(tid),
                      datetime.now(timezone.utc) + timedelta(seconds=4))
            proc.send_signal(signal.SIGHUP)
            assert wait_for(lambda: "[late]" in log() and "got SIGHUP" in log(), 10), log()
            assert wait_for(lambda: (root / "late" / "out" / "day-1" / "result.json")
                            .exists(), 20), log()

            status = scraper_mod("status", str(root), "--format", "json")
            assert status.returncode == 0, status.stderr
            games = {g["name"]: g for g in json.loads(status.stdout)["games"]}
            assert set(games) == set(expected) | {"broken", "late"}
            assert games["broken"]["ok"] is False
            assert "game.toml" in games["broken"]["problems"][0]
            assert games["g00"]["resolved"] == [1] and games["g00"]["daemon_pid"] == proc.pid
            text = scraper_mod("status", str(root))
            assert "broken: НЕ ЗАПУЩЕНА" in text.stdout     # a Russian game's line (issue 39)
            assert "[broken] cannot be started" in log()
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            err_file.seek(0)
            err = err_file.read()
            err_file.close()
        assert proc.returncode == 0, err
        assert "got SIGTERM" in log() and "every game let go" in log()
        assert "Traceback" not in err
        from scraper_mod.daemon.lock import running_pid
        assert all(running_pid(root / n) is None for n in expected)
        # each board was read by one client: the games of a board never logged in apart
        assert all(b.request_count("/viewtopic.php") > 0 for b in boards)
    finally:
        for b in boards:
            b.stop()
