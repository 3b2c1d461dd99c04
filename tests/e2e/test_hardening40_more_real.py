"""Issue 40 (docs/security.md "Attacks by players") played on the real boards: the three
attacks the other e2e files leave to the local imitation or the rules.

- Item 4 (R12.5), phpBB: players' and another game's «День 1» topics are never adopted.
- Item 13 (R12.3), phpBB: a wrong password is tried once per run, whatever is to be sent.
- Item 2 (R2.15), SMF: a majority voter deletes his vote after the notice: nothing changes.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

from conftest import GAME_FORUM_ID, RESULTS_FORUM_ID, SMF_GAME_BOARD_ID, SMF_RESULTS_BOARD_ID
from test_publish_real import wait_for, write_game
from test_smf_evening_e2e import env as smf_env
from test_smf_evening_e2e import write_game as write_smf_game

from scraper_mod.game.context import open_game
from scraper_mod.game.day.daytime import alerts
from scraper_mod.game.publishing.publish import Item, publish_items
from scraper_mod.game.setup.connect import game_board


def _no_day_topic(game, title: str) -> None:
    """The game file names no day topic (the run finds it in the game forum)."""
    toml = game / "game.toml"
    text = toml.read_text(encoding="utf-8").replace('title = "Проверка"', f'title = "{title}"')
    lines = [ln for ln in text.splitlines() if not ln.startswith('topic = "')]
    toml.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_R12_5_only_the_hosts_own_day_topic_is_adopted_on_the_real_board(real_board,
                                                                          tmp_path):
    """Item 4 (R12.5): in the real board's game forum, before the host opens day 1, a player
    opens «День 1 — кто мафия?» and a forged «Мафия #8. День 1», and the host's other game
    has «Мафия #7. День 1». Game «Мафия #8» (no day topic in its file) adopts none of them;
    it adopts the topic its host's account opened for it after the day's start."""
    admin = real_board.player("admin")
    results = admin.new_topic(RESULTS_FORUM_ID, "Мафия #8. Итоги", "Здесь будут газеты.")
    deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(minutes=2)
    game = write_game(tmp_path / "game", real_board, 0, results, deadline=deadline,
                      mode="review")
    _no_day_topic(game, "Мафия #8")
    vasya = real_board.player("Вася")
    vasya.new_topic(GAME_FORUM_ID, "День 1 — кто мафия?", "Давайте думать.")
    vasya.new_topic(GAME_FORUM_ID, "Мафия #8. День 1", "Голосуем здесь!")
    admin.new_topic(GAME_FORUM_ID, "Мафия #7. День 1", "День 1 другой игры.")
    from scraper_mod.daemon.work import open_next_day
    ctx = open_game(game)
    try:
        assert ctx.topic_for_day(1) is None
        assert open_next_day(ctx, 1) is None
        own = admin.new_topic(GAME_FORUM_ID, "Мафия #8. День 1", "День 1 начался.")
        url = open_next_day(ctx, 1)
        assert url is not None and url.endswith(f"t={own}"), url
        assert ctx.topic_for_day(1) == url
    finally:
        ctx.close()


def _admin_login_attempts(board) -> int:
    db = sqlite3.connect(board.folder / "db" / "phpbb.sqlite3")
    try:
        return db.execute("SELECT user_login_attempts FROM phpbb_users "
                          "WHERE username = 'admin'").fetchone()[0]
    finally:
        db.close()


def _login_posts(board) -> int:
    log = (board.folder / "php.log").read_text(encoding="utf-8", errors="replace")
    return sum(1 for ln in log.splitlines() if "POST" in ln and "mode=login" in ln)


def test_R12_3_a_wrong_password_is_tried_once_on_the_real_board(real_board, tmp_path,
                                                                 monkeypatch):
    """Item 13 (R12.3): with a wrong password, publishing four PMs logs in once and stops the
    run's posting; ``run`` checks the login once at its start, alerts the host (``login``)
    and never asks again while it polls. phpBB's own failed-login counter of the account
    goes up by one per process, far from its captcha (3)."""
    admin = real_board.player("admin")
    day1 = admin.new_topic(GAME_FORUM_ID, "Проверка. День 1", "День 1 начался.")
    results = admin.new_topic(RESULTS_FORUM_ID, "Проверка. Итоги", "Здесь будут газеты.")
    deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(hours=1)
    game = write_game(tmp_path / "game", real_board, day1, results, deadline=deadline)
    toml = game / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        'mode = "auto"', 'mode = "auto"\nalert_host = "pm"'), encoding="utf-8")
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", "wrong-password")
    assert _admin_login_attempts(real_board) == 0
    posts0 = _login_posts(real_board)
    ctx = open_game(game)
    try:
        host = game_board(ctx)
        cards = [Item(1, "pm", nick, nick, f"Ваша роль, {nick}.", subject="Проверка: роль")
                 for nick in ("Вася", "Маша_2", "Big Joe", "Кот")]
        out = publish_items(ctx, cards, board=host)
        assert [o.status for o in out] == ["failed"] * 4, out
        assert all("refused the login" in (o.error or "") for o in out), out
        again = publish_items(ctx, cards, board=host)        # the run's next try
        assert [o.status for o in again] == ["failed"] * 4
    finally:
        ctx.close()
    assert _admin_login_attempts(real_board) == 1
    assert _login_posts(real_board) - posts0 == 1

    import os
    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    log = game / "run.log"
    try:
        assert wait_for(lambda: log.exists() and "refused the login" in
                        log.read_text(encoding="utf-8"), 40), (
            log.read_text(encoding="utf-8") if log.exists() else "no run.log")
        time.sleep(12)                                 # many polls of the day and the PMs
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    assert "Traceback" not in err
    assert _admin_login_attempts(real_board) == 2       # one for the run: no captcha yet
    assert _login_posts(real_board) - posts0 == 2
    ctx = open_game(game)
    try:
        told = [a for a in alerts(ctx) if a["kind"] == "login"]
        assert told and "refused the login" in told[0]["detail"], alerts(ctx)
    finally:
        ctx.close()
    assert not [m for m in real_board.player("Вася").list_pms("inbox")
                if m["from"] == "admin"]


def test_R2_15_a_deletion_after_the_majority_changes_nothing_on_the_real_smf_board(
        real_smf_board, tmp_path):
    """Item 2 (R2.15) on SMF: ``run`` watches day 1 with ``majority_ends_day``. Four of the
    seven vote Игрок-7 and admin's majority notice goes up; then NightOwl, whose vote made
    the majority, removes his post with SMF's own «Remove» button, and Big Joe, Алексей and
    Игрок-7 vote Вася: counted as the board shows it at the deadline that is 3:3, a tie for
    the random list. The count is as of the majority post: Игрок-7 is jailed with four."""
    board = real_smf_board
    admin = board.player("admin")
    day1 = admin.new_topic(SMF_GAME_BOARD_ID, "Проверка. День 1", "День 1 начался.")
    results = admin.new_topic(SMF_RESULTS_BOARD_ID, "Проверка. Итоги", "Здесь будут газеты.")
    deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=90)
    game = write_smf_game(tmp_path / "game", board, day1, results, deadline=deadline)
    toml = game / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        "lock_day_topic = true", "lock_day_topic = false")
        + "\n[rules]\nmajority_ends_day = true\n", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "run", str(game)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=smf_env())
    log = game / "run.log"
    try:
        posts = {}
        for voter in ("Маша_2", "Вася", "Кот", "NightOwl"):
            posts[voter] = board.player(voter).reply(day1, "Голосую: [color=red]Игрок-7[/color]")

        def notice() -> list[dict]:
            return [p for p in admin.topic_posts(day1)
                    if p["author"] == "admin" and "Набрано большинство" in p["text"]]
        assert wait_for(lambda: bool(notice()), 50), (
            log.read_text(encoding="utf-8") if log.exists() else "no run.log")
        # the attack: the majority voter removes his vote, three more vote Вася
        board.player("NightOwl").delete(posts["NightOwl"])
        assert posts["NightOwl"] not in [p["id"] for p in admin.topic_posts(day1)]
        for voter in ("Big Joe", "Алексей", "Игрок-7"):
            board.player(voter).reply(day1, "Голосую: [color=red]Вася[/color]")

        def paper() -> list[dict]:
            return [p for p in admin.topic_posts(results)[1:] if p["author"] == "admin"]
        assert wait_for(lambda: bool(paper()), 180), log.read_text(encoding="utf-8")
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
