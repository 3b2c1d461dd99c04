"""R4.1 across the move judging and the resolution: the host names another duty mafioso in
game.toml after day 1; the player told «counted» for his kill is the one whose kill the day's
resolution applies (issue 12, item 1: `moves` counted the new duty's kill, `resolve` the old
one's)."""

from __future__ import annotations

from test_resolve import PLAYERS, board, clock, ctx_at, mail, msk, write_game  # noqa: F401

from scraper_mod.game.night.intake import day_moves, poll_moves
from scraper_mod.game.results.resolve import resolve_day_files

MORE = PLAYERS + [("Сеня", "mafia", 208, "senya@example.org"),
                  ("Лена", "civilian", 209, "lena@example.org"),
                  ("Оля", "civilian", 210, "olya@example.org")]
ORDER = ["Таня", "Петя", "Игорь", "Коля", "Вася", "Ирина", "Маша", "Сеня", "Лена", "Оля"]


def uid(nick: str) -> int:
    return next(u for n, _, u, _ in MORE if n == nick)


def test_R4_1_a_duty_named_after_day_1_is_the_one_whose_kill_counts(tmp_path, board, clock):
    t1 = board.add_topic("День 1")
    board.add_post("Ведущий", 2, "[b]День 1.[/b]", msk(8, 21, 0))
    for voter, target, hh in [("Вася", "Коля", 10), ("Игорь", "Коля", 11), ("Ирина", "Коля", 12),
                              ("Маша", "Игорь", 13)]:
        board.add_post(voter, uid(voter), f"[color=red]{target}[/color]", msk(9, hh))
    t2 = board.add_topic("День 2")
    board.add_post("Ведущий", 2, "[b]День 2.[/b]", msk(9, 21, 0))
    for voter, hh in [("Лена", 10), ("Таня", 11), ("Петя", 12)]:
        board.add_post(voter, uid(voter), "[color=red]Оля[/color]", msk(10, hh))
    folder = write_game(tmp_path / "m7", board, {1: t1, 2: t2}, players=MORE, order=ORDER,
                        duty="Игорь")
    mail(folder, "n1", "igor@example.org", "убить Маша", msk(9, 9, 0))
    day1 = resolve_day_files(ctx_at(folder, clock, msk(9, 20, 5)), 1).result
    assert day1.lynched.player == "Коля" and [d.player for d in day1.killed] == ["Маша"]

    # the host names Сеня the duty mafioso for night 2 (R4.1)
    toml = folder / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('duty = "Игорь"', 'duty = "Сеня"'),
                    encoding="utf-8")
    mail(folder, "n2", "senya@example.org", "убить Петя", msk(10, 9, 0))
    mail(folder, "n3", "igor@example.org", "убить Ирина", msk(10, 9, 30))

    ctx = ctx_at(folder, clock, msk(10, 20, 5))
    poll_moves(ctx, send=False)
    judged = {m.player: m.status for m in day_moves(ctx, 2)}
    assert judged["Сеня"] == "counted" and judged["Игорь"] != "counted"

    day2 = resolve_day_files(ctx_at(folder, clock, msk(10, 20, 5)), 2).result
    assert day2.lynched.player == "Оля"
    assert [(d.player, d.by) for d in day2.killed] == [("Петя", "mafia")]
