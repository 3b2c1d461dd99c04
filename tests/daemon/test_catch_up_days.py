"""Issue 18 item 12: the catch-up log line after a long downtime names the missed days as
ranges («days 1–6»), not one number after another (851 of them in one line)."""

from __future__ import annotations

import logging

from test_schedule import FakeForum, daemon, msk, topic, write_game

from scraper_mod.clock import FakeClock
from scraper_mod.posts.numbers import number_ranges


def test_number_ranges():
    assert number_ranges(range(1, 852)) == "1–851"
    assert number_ranges([3, 1, 2, 2, 7, 9, 10, 11, 12, 20, 21]) == "1–3, 7, 9–12, 20, 21"
    assert number_ranges([1, 2]) == "1, 2"
    assert number_ranges([5]) == "5" and number_ranges([]) == ""


def test_a_week_missed_is_one_range_in_the_log(tmp_path, caplog):
    """Down from Wednesday evening to the next Wednesday noon: six deadlines missed (the
    Saturday merged into Sunday), caught up in order, logged as «days 1–6»."""
    game = write_game(tmp_path / "game", {n: topic(n) for n in range(1, 12)})
    clock = FakeClock(msk(13, 21))
    ops = FakeForum()
    daemon(game, clock, ops).run(until=msk(14, 12))
    clock.set(msk(21, 12))
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    report = daemon(game, clock, ops).run(until=msk(21, 13))
    assert report.caught_up == [1, 2, 3, 4, 5, 6]
    line = next(ln for ln in caplog.text.splitlines() if "catching up" in ln)
    assert "the deadlines of days 1–6 passed while scraper-mod was not running" in line
