"""Issue 40, item 2 on the real phpBB 3.3.15 board (RULES R2.15, R2.7; docs/security.md
"Attacks by players"): a majority is not undone after it ended.

``scraper-mod run`` watches day 1 with ``majority_ends_day``. Four of the seven players vote
for Игрок-7 and admin's notice goes up; then NightOwl, whose vote made the majority, edits his
post to Big Joe and two more vote Big Joe: counted as the board shows it at the deadline that
would be 3:3, a tie for the random list. The vote ended at NightOwl's post: Игрок-7 is jailed
with the four votes of the majority, and the later votes are listed as not counted.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from datetime import datetime, timedelta, timezone

from conftest import GAME_FORUM_ID, RESULTS_FORUM_ID
from test_publish_real import env, wait_for, write_game

HOUSE = '\n[rules]\nmajority_ends_day = true\n'


def test_R2_15_an_edit_after_the_majority_changes_nothing_on_the_real_board(real_board,
                                                                           tmp_path):
    admin = real_board.player("admin")
    day1 = admin.new_topic(GAME_FORUM_ID, "Проверка. День 1", "День 1 начался.")
    results = admin.new_topic(RESULTS_FORUM_ID, "Проверка. Итоги", "Здесь будут газеты.")
    deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=75)
    game = write_game(tmp_path / "game", real_board, day1, results, deadline=deadline)
    toml = game / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + HOUSE, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    log = game / "run.log"
    try:
        posts = {}
        for voter, target in [("Big Joe", "Кот"), ("Маша_2", "Игрок-7"), ("Вася", "Игрок-7"),
                              ("Кот", "Игрок-7"), ("NightOwl", "Игрок-7")]:
            posts[voter] = real_board.player(voter).reply(
                day1, f"Голосую: [color=red]{target}[/color]")

        def notice() -> list[dict]:
            return [p for p in admin.topic_posts(day1)
                    if p["author"] == "admin" and "Набрано большинство" in p["text"]]
        assert wait_for(lambda: bool(notice()), 40), (
            log.read_text(encoding="utf-8") if log.exists() else "no run.log")
        # the attack: the majority voter takes his vote to Big Joe, two more join him
        real_board.player("NightOwl").edit(posts["NightOwl"],
                                           "Голосую: [color=red]Big Joe[/color]")
        for voter in ("Алексей", "Игрок-7"):
            real_board.player(voter).reply(day1, "Голосую: [color=red]Big Joe[/color]")

        def paper() -> list[dict]:
            return [p for p in admin.topic_posts(results)[1:] if p["author"] == "admin"]
        assert wait_for(lambda: bool(paper()), 150), log.read_text(encoding="utf-8")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    assert "Traceback" not in err
    news = " ".join(paper()[0]["text"].split())
    assert "садится Игрок-7 (4 голоса" in news, news
    assert "Большинство набрано в" in news
    out = (game / "out" / "day-1" / "result.json").read_text(encoding="utf-8")
    assert '"Игрок-7"' in out and '"random' not in out


def test_R2_15_a_majority_from_a_stale_page_is_never_announced_on_the_real_board(real_board,
                                                                                  tmp_path):
    """Item 1: the board shows 10 posts a page and ``run`` reads the last page between its
    full reads. Вася's vote on page 1 is edited to Big Joe after the run read that page; then
    NightOwl's vote on page 2 would make Игрок-7's 4 of 7 in the stored posts. A full read
    before the notice finds 3: no notice, no lock."""
    admin = real_board.player("admin")
    day1 = admin.new_topic(GAME_FORUM_ID, "Проверка. День 1", "День 1 начался.")
    results = admin.new_topic(RESULTS_FORUM_ID, "Проверка. Итоги", "Здесь будут газеты.")
    vasya = real_board.player("Вася").reply(day1, "Голосую: [color=red]Игрок-7[/color]")
    for i in range(9):                              # page 1 fills up with talk
        real_board.player("Алексей" if i % 2 else "Игрок-7").reply(day1, f"Обсуждаем, {i}.")
    deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=150)
    game = write_game(tmp_path / "game", real_board, day1, results, deadline=deadline,
                      lock=True)
    toml = game / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + HOUSE, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    log = game / "run.log"
    try:
        for voter in ("Маша_2", "Кот"):             # page 2
            real_board.player(voter).reply(day1, "Голосую: [color=red]Игрок-7[/color]")
        assert wait_for(lambda: log.exists() and "poll" in log.read_text(encoding="utf-8"),
                        30)
        import time
        time.sleep(8)                               # the run has read page 1 by now
        real_board.player("Вася").edit(vasya, "Голосую: [color=red]Big Joe[/color]")
        edited = datetime.now(timezone.utc).replace(second=0, microsecond=0)
        # the edit notice shows the minute only: NightOwl votes in a later minute, so the
        # edit is before his vote whatever second it had
        while datetime.now(timezone.utc) < edited + timedelta(minutes=1, seconds=1):
            time.sleep(0.5)
        real_board.player("NightOwl").reply(day1, "Голосую: [color=red]Игрок-7[/color]")
        time.sleep(25)                              # several polls of the last page
        notices = [p for p in admin.topic_posts(day1, start=10)
                   if p["author"] == "admin" and "Набрано большинство" in p["text"]]
        assert notices == [], log.read_text(encoding="utf-8")
        assert not admin._has_tool(day1, "unlock")  # not locked before the deadline
        assert datetime.now(timezone.utc) < deadline
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    assert "Traceback" not in err
