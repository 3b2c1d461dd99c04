"""Issue 40, items 1 and 10: what the host's account posts comes from a full read of the day
topic (RULES R2.15, R12.4, docs/security.md "Attacks by players").

The attack, on a LocalBoard (the phpBB 3.3.15 prosilver look-alike) with three posts a page:
an ordinary poll reads the last page only, so Вася's edit of his vote on page 1 (Коля ->
Игорь) is unseen; Ирина's vote on page 2 then makes Коля's 4 of 7 in the stored posts. The
majority notice (and the lock) is owed only once a full read of every page confirms it: here
it does not, and nothing is posted. The game: the seven players of tests/game/test_resolve.py,
day 1 to Tue 9 April 2024 20:00 Moscow time.
"""

from __future__ import annotations

from pathlib import Path

from test_house_rules_day import IDS
from test_resolve import ORDER, PLAYERS, msk, write_game

from scraper_mod.clock import FakeClock
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.game.context import open_game
from scraper_mod.game.day.majority import majority_items
from scraper_mod.game.day.poll import poll_day
from scraper_mod.game.day.tally import tally_day

RED = "Голосую: [color=red]{}[/color]"


def _game(tmp_path: Path, board: LocalBoard) -> tuple[Path, int, dict]:
    for nick, uid in IDS.items():
        board.add_user(nick, uid)
    topic = board.add_topic("День 1")
    posts = {"host": board.add_post("Ведущий", 2, "[b]День 1.[/b]", msk(8, 21), topic=topic)}
    for voter, hh in (("Вася", 10), ("Игорь", 11), ("Петя", 12)):
        posts[voter] = board.add_post(voter, IDS[voter], RED.format("Коля"), msk(9, hh),
                                      topic=topic)
    folder = write_game(tmp_path / "game", board, {1: topic}, players=PLAYERS, order=ORDER)
    toml = folder / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n[rules]\nmajority_ends_day = true\n"
                    "\n[publish]\nlock_day_topic = true\n", encoding="utf-8")
    return folder, topic, posts


def test_R2_15_a_majority_is_announced_only_after_a_full_read_confirms_it(tmp_path):
    with LocalBoard(language="ru", clock=lambda: msk(9, 13, 5), per_page=3) as board:
        folder, topic, posts = _game(tmp_path, board)
        first = open_game(folder, clock=FakeClock(msk(9, 12, 30)))
        try:
            poll_day(first, 1)                              # every page, the first time
        finally:
            first.close()
        # the attack: an edit on page 1 that the last-page polls do not see
        board.edit_post(posts["Вася"], RED.format("Игорь"), edited_at=msk(9, 12, 40),
                        notice=True)
        board.add_post("Ирина", IDS["Ирина"], RED.format("Коля"), msk(9, 13), topic=topic)
        ctx = open_game(folder, clock=FakeClock(msk(9, 13, 5)))
        try:
            report = poll_day(ctx, 1)                       # an ordinary poll: the last page
            assert report is not None and not report.full
            stale = tally_day(ctx, 1)
            assert stale.tally.majority is not None         # what the stored posts say
            assert majority_items(ctx, 1, confirm=True) == []   # the full read says no
            fresh = tally_day(ctx, 1)
            assert fresh.tally.majority is None
            assert {c.target: c.votes for c in fresh.tally.counts} == {"Коля": 3, "Игорь": 1}
            # an honest majority is confirmed by the full read and owed with its lock
            board.add_post("Маша", IDS["Маша"], RED.format("Коля"), msk(9, 13, 3),
                           topic=topic)
            poll_day(ctx, 1)
            items = majority_items(ctx, 1, confirm=True)
            assert [i.kind for i in items] == ["majority", "lock"]
        finally:
            ctx.close()
