"""Issue 35 item 1: one daemon. ``run GAME`` is ``run FOLDER`` with one game
(``daemon.many.run_alone``: ``Host(single=True)``), with the whole evening (the autopilot,
counts, reminders, alerts) for every game; one step of a poll that breaks (a bug) is told to
the host (alert ``internal``) and the poll's other steps still run (docs/daytime.md)."""

from __future__ import annotations

import logging
import shutil

from test_daytime import REFEREE, host_posts, pms_to, world, write_game  # noqa: F401
from test_schedule_live import msk

from scraper_mod.daemon import autopilot
from scraper_mod.daemon.autopilot import GameOps
from scraper_mod.daemon.many import Host, run_alone
from scraper_mod.game.context import open_game


def test_run_game_is_the_folder_daemon_with_one_game_and_counts_on_schedule(world):  # noqa: F811
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_times = ["13:00"]')
    report = run_alone(folder, clock=clock, until=msk(14, 13, 30))
    assert report.stopped_by == "until" and report.polls > 0
    [count] = host_posts(board, t)
    assert "промежуточные итоги на 13:00 МСК" in count
    # a second run posts nothing twice
    run_alone(folder, clock=clock, until=msk(14, 14))
    assert len(host_posts(board, t)) == 1


def test_a_game_in_a_folder_gets_the_same_evening(world, tmp_path):  # noqa: F811
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_times = ["13:00"]')
    root = tmp_path / "games"
    root.mkdir()
    shutil.move(str(folder), root / "game")
    Host(root, clock=clock).run(until=msk(14, 13, 30))
    [count] = host_posts(board, t)
    assert "промежуточные итоги на 13:00 МСК" in count


def test_a_bug_in_one_step_of_a_poll_is_told_and_the_other_steps_run(world, monkeypatch,  # noqa: F811
                                                                     caplog):
    clock, board, t, folder = world
    write_game(folder, board, t, 'alert_host = "pm"')
    ran = []

    def broken(ctx, day):
        raise ZeroDivisionError("a bug in the majority notice")

    monkeypatch.setattr(autopilot, "post_majority_notice", broken)
    monkeypatch.setattr(autopilot.daytime, "alert_new_problems",
                        lambda ctx, day: ran.append(day))
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    ctx = open_game(folder, clock=clock)
    try:
        res = GameOps().poll(ctx, 1, full=False)
        assert res.new_posts == 4                      # the topic was read all the same
        assert ran == [1]                              # the step after the broken one ran
        kinds = [e[2]["kind"] for e in ctx.store.events("alert")]
        assert kinds == ["internal"]
    finally:
        ctx.close()
    [(subject, text)] = pms_to(board, REFEREE[1])
    assert subject.startswith("Дневная проверка: нужен ведущий")
    # a Russian game's alert is Russian only (issue 39): the error itself is in run.log
    assert "внутренняя ошибка scraper-mod" in text and "run.log" in text
    assert "день 1: внутренняя ошибка на шаге «объявление о большинстве»" in text
    assert "ZeroDivisionError" not in text and "majority notice" not in text
    assert "internal error in the majority notice step" in caplog.text


def test_a_bug_in_a_job_is_told_in_russian_in_a_russian_game(world, caplog):  # noqa: F811
    """Issue 39 item 4: a job's internal error reaches a Russian game's host as a Russian
    alert line and a Russian problem in ``status``; its English text stays in the log."""
    from scraper_mod.daemon.scheduler import Daemon

    clock, board, t, folder = world
    write_game(folder, board, t, 'alert_host = "pm"')

    def broken():
        raise ZeroDivisionError("a bug in the poll job")

    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    ctx = open_game(folder, clock=clock)
    try:
        Daemon(ctx, ops=GameOps())._guard("poll", broken)()
    finally:
        ctx.close()
    [(_, text)] = pms_to(board, REFEREE[1])
    assert "внутренняя ошибка в задаче «чтение форума» (подробности — в run.log)" in text
    assert "ZeroDivisionError" not in text
    assert "internal error in the poll job" in caplog.text
    from scraper_mod.daemon import overview
    ctx = open_game(folder, clock=clock)
    try:
        [ru] = overview.recent_errors(ctx, clock.now() - overview.PROBLEM_WINDOW, lang="ru")
    finally:
        ctx.close()
    assert ru.startswith("внутренняя ошибка в задаче «чтение форума»")
