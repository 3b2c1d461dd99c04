"""Issue 40, items 6 and 8: the host's account misused through the counts on request
(docs/daytime.md, docs/security.md "Attacks by players"), on LocalBoard with the daemon, the
real client and poller on a simulated clock (tests/daemon/test_daytime.py's world).

- item 6 (R12.5): a board user named «Гость !голоса» asks once; every count lists his name, so
  the count itself held the command and the account answered itself each cooldown. The
  host's own posts never request anything, and a name is never a request.
- item 8: a flood of requests is one entry per requester, a count longer than the board's
  limit is split as the newspaper is, and a count the board refuses never blocks the next.
"""

from __future__ import annotations

import re

from test_daytime import HOST_UID, host_posts, run, world, write_game  # noqa: F401
from test_schedule_live import msk


def test_R12_5_a_count_never_requests_itself(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_command = "!голоса"\ntally_cooldown_minutes = 0')
    board.add_user("Гость !голоса", 900)
    ask = board.add_post("Гость !голоса", 900, "!голоса", msk(14, 12, 1), topic=t)
    # a player who names him in his own words asks for nothing
    board.add_post("Маша", 303, "Кто такой Гость !голоса?", msk(14, 12, 2), topic=t)
    run(folder, clock, msk(14, 12, 30))
    posts = host_posts(board, t)
    assert len(posts) == 1, posts                   # before: one count per poll, each asking
    assert f"p={ask}#p{ask}]Гость !голоса[/url]" in posts[0]
    assert posts[0].count("Гость !голоса[/url]") == 1


def test_a_flood_of_requests_is_one_entry_per_requester_and_split_under_the_limit(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_command = "!голоса"\ntally_cooldown_minutes = 0')
    toml = folder / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        "retries = 1\n", "retries = 1\nmax_post_chars = 5000\n"), encoding="utf-8")
    for i in range(30):                              # one player, thirty requests
        board.add_post("Петя", 305, f"!голоса {i}", msk(14, 11, 0, i), topic=t)
    for i in range(120):                             # and 120 accounts made for the flood
        board.add_user(f"Флудер_{i:03d}", 1000 + i)
        board.add_post(f"Флудер_{i:03d}", 1000 + i, "!голоса", msk(14, 11, 30, i % 60),
                       topic=t)
    run(folder, clock, msk(14, 12, 20))
    posts = [p.body for p in board.topics[t].posts if p.author_id == HOST_UID
             and ("запрос" in p.body or "Флудер" in p.body)]
    assert len(posts) >= 2 and all(len(p) <= 5000 for p in posts), [len(p) for p in posts]
    named = re.findall(r"\](Петя|Флудер_\d{3})\[/url\]", "\n".join(posts))
    missing = {f"Флудер_{i:03d}" for i in range(120)} - set(named)
    assert named.count("Петя") == 1 and len(named) == 121 == len(set(named)), (missing, posts)


def test_a_refused_count_never_blocks_the_next(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_command = "!голоса"\ntally_cooldown_minutes = 0\n'
                                 'tally_times = ["13:00"]')
    board.moderators = frozenset()                   # the account may not post in a locked
    board.lock(t)                                    # topic: the count is refused
    board.add_post("Петя", 305, "!голоса", msk(14, 12, 1), topic=t)
    run(folder, clock, msk(14, 12, 40))
    assert host_posts(board, t) == []
    board.lock(t, locked=False)
    run(folder, clock, msk(14, 13, 10))
    posts = host_posts(board, t)
    # the request is answered once the board takes posts again, and the 13:00 count follows
    assert len(posts) == 2 and "промежуточные итоги на 13:00" in posts[-1], posts
    assert sum("]Петя[/url]" in p for p in posts) == 1


def test_an_alert_shows_a_players_bbcode_inert(world):
    """Item 9: a vote the count cannot read («not a player») holds an [img] pointing at the
    attacker's server: the host's alert PM shows it as written, the board never renders it."""
    from test_daytime import REFEREE, pms_to
    clock, board, t, folder = world
    write_game(folder, board, t, 'alert_host = "pm"')
    clock.schedule(msk(14, 19, 10), lambda: board.add_post(
        "Таня", 307, "[color=red]Никто[img]http://evil.test/x.png[/img][/color]",
        msk(14, 19, 10), topic=t))
    run(folder, clock, msk(14, 19, 40))
    [(_, text)] = pms_to(board, REFEREE[1])
    assert "[img]" not in text and "http://evil.test/x.png" in text
    assert "\uff3bimg\uff3d" in text


def test_reminders_follow_the_days_replacements_and_removals(world):
    """Item 10 (R10, R11.2): at 17:00 the Doctor Ирина is replaced by Лена, at 17:30 the host
    removes Игорь; the 18:00 reminders go to Лена (not Ирина) and not to Игорь."""
    from test_daytime import pms_to

    from scraper_mod.game.context import open_game
    clock, board, t, folder = world
    write_game(folder, board, t, 'remind_moves_at = "18:00"')
    board.add_user("Лена", 320)
    ctx = open_game(folder, clock=clock)
    try:
        ctx.store.add_host_decision("replace", made_at=msk(14, 12), at=msk(14, 17),
                                    nick="Ирина", new="Лена", why="ушла")
        ctx.store.add_host_decision("kill", made_at=msk(14, 12), at=msk(14, 17, 30),
                                    nick="Игорь", why="неактивен")
    finally:
        ctx.close()
    run(folder, clock, msk(14, 18, 30))
    got = sorted({to for _, _, to, _, _ in board.sent_pms_log})
    assert got == [301, 303, 320], got                # Вася, Маша, Лена: no Ирина, no Игорь
    [(_, doctor)] = pms_to(board, 320)
    assert "лечение" in doctor


def test_an_internal_error_in_one_step_of_a_poll_leaves_the_others_running(world,
                                                                          monkeypatch):
    """"Also": the majority notice's step fails with an internal error at every poll; the
    counts on request and the host's alerts still run at each poll."""
    from scraper_mod.daemon import autopilot as run_mod
    from scraper_mod.game.day import daytime
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_command = "!голоса"\ntally_cooldown_minutes = 0')

    def broken(ctx, day):
        raise RuntimeError("a bug in one step")
    monkeypatch.setattr(run_mod, "post_majority_notice", broken)
    alerts: list = []
    real = daytime.alert_new_problems
    monkeypatch.setattr(daytime, "alert_new_problems",
                        lambda ctx, day: alerts.append(day) or real(ctx, day))
    board.add_post("Петя", 305, "!голоса", msk(14, 12, 1), topic=t)
    run(folder, clock, msk(14, 12, 20))
    assert alerts                                    # the alerts' step ran at the polls
    assert len(host_posts(board, t)) == 1            # and the count on request went up
