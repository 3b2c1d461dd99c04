"""A day ended by a majority on autopilot on the real phpBB 3.3.15 board (RULES R2.15 with
R2.12's tie rule set, docs/rules-house.md).

``scraper-mod run`` watches day 1 with ``majority_ends_day = true``, ``tie_break =
"earliest"`` and ``lock_day_topic``. Four of the seven players vote for Игрок-7 through the
board's forms: within one poll the day topic gets admin's notice («Набрано большинство: …
Голосование окончено.») and is locked; the day is still resolved at its deadline (the night
and the newspaper keep their time), and the newspaper says when the majority was reached.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

from conftest import GAME_FORUM_ID, RESULTS_FORUM_ID
from test_publish_real import env, wait_for, write_game

HOUSE = '\n[rules]\nmajority_ends_day = true\ntie_break = "earliest"\n'


def test_a_majority_ends_the_day_on_autopilot_on_the_real_board(real_board, tmp_path):
    admin = real_board.player("admin")
    day1 = admin.new_topic(GAME_FORUM_ID, "Проверка. День 1", "День 1 начался.")
    results = admin.new_topic(RESULTS_FORUM_ID, "Проверка. Итоги", "Здесь будут газеты.")
    deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=45)
    game = write_game(tmp_path / "game", real_board, day1, results, deadline=deadline,
                      lock=True)
    toml = game / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + HOUSE, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    log = game / "run.log"
    try:
        # 7 alive, none frozen: 4 is a majority; NightOwl's vote is the 4th for Игрок-7
        for voter, target in [("Маша_2", "Игрок-7"), ("Вася", "Игрок-7"), ("Big Joe", "Кот"),
                              ("Кот", "Игрок-7"), ("NightOwl", "Игрок-7")]:
            real_board.player(voter).reply(day1, f"Голосую: [color=red]{target}[/color]")
        fourth_at = time.monotonic()

        def notice() -> list[dict]:
            return [p for p in admin.topic_posts(day1)
                    if p["author"] == "admin" and "Набрано большинство" in p["text"]]
        assert wait_for(lambda: bool(notice()), 30), (
            log.read_text(encoding="utf-8") if log.exists() else "no run.log")
        took = time.monotonic() - fourth_at
        assert datetime.now(timezone.utc) < deadline, "the notice came after the deadline"
        text = " ".join(notice()[0]["text"].split())
        assert "Набрано большинство: Игрок-7 — 4 голоса из 7" in text, text
        assert "Голосование окончено." in text
        # locked at once (lock_day_topic), long before the deadline
        assert wait_for(lambda: admin._has_tool(day1, "unlock"), 15)
        # the day is still resolved at its deadline: the newspaper in the results topic
        def paper() -> list[dict]:
            return [p for p in admin.topic_posts(results)[1:] if p["author"] == "admin"]
        assert wait_for(lambda: bool(paper()), 100), log.read_text(encoding="utf-8")
        assert datetime.now(timezone.utc) >= deadline
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    assert "Traceback" not in err
    news = " ".join(paper()[0]["text"].split())
    assert "садится Игрок-7 (4 голоса из 5)" in news, news
    assert "Большинство набрано в" in news and "голосование окончено" in news
    assert "Голос не засчитан" not in news          # nobody voted after the majority
    # one notice only, however many polls followed
    assert len(notice()) == 1
    out = (game / "out" / "day-1" / "result.json").read_text(encoding="utf-8")
    assert '"Игрок-7"' in out
    print(f"notice {took:.1f} s after the majority vote")
