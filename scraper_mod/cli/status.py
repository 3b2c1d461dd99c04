"""`scraper-mod status GAME`: where the game stands, at a glance.

The current day, its topic, deadline and time left, the current leader of the vote count
(from the stored posts, no polling), the night-move messages received this day, the resolved
days, and whether a ``scraper-mod run`` is running for the game.
"""

from __future__ import annotations

import argparse

from scraper_mod.game.publishing.publish import failures
from scraper_mod.game.setup.newgame import setup_problems

from ..daemon.autopilot import KINDS_RU
from ..daemon.overview import PROBLEM_WINDOW, recent_errors
from ..daemon.status import game_status
from ..game.context import open_game
from .common import SubParsers, add_game_argument, print_json


def register(sub: SubParsers) -> None:
    p = sub.add_parser("status", help="the day, deadline, time left, current leader, moves "
                                      "received, and whether the daemon runs",
        description="The day, deadline, time left, current leader, moves received, and whether the "
                    "daemon runs.")
    add_game_argument(p, many=True)
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (default) or json")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..daemon.many import is_games_folder
    if is_games_folder(Path(args.game)):
        from .many import status_folder
        return status_folder(args)
    with open_game(args.game, readonly=True) as ctx:   # only reads: works on a read-only copy
        st = game_status(ctx)
        unposted = failures(ctx)
        problems = [p.in_language(ctx.game.language) for p in setup_problems(ctx)]
        ru = ctx.game.language == "ru"
        errors = recent_errors(ctx, ctx.now() - PROBLEM_WINDOW)
        errors_ru = recent_errors(ctx, ctx.now() - PROBLEM_WINDOW, lang="ru")
    if args.format == "json":
        print_json(st.to_json() | {"setup_problems": problems, "problems": errors})
    elif ru:                  # issue 39 item 4: Russian only (the English reasons: run.log)
        print(st.to_text("ru"))
        for f in unposted:
            print(f"не опубликовано: день {f['day']}, {KINDS_RU.get(f['kind'], f['kind'])} "
                  f"для {f['recipient']} (лежит в out/day-{f['day']}/, отправится снова "
                  "командой publish или при run; причина — в run.log)")
        for p in problems:
            print(f"исправьте: {p}")
        for e in errors_ru:
            print(f"проблема: {e}")
    else:
        print(st.to_text())
        for f in unposted:   # R12.3: what the board does not have yet, and why
            print(f"not posted: day {f['day']} {f['kind']} to {f['recipient']}: {f['error']} "
                  f"(kept in out/day-{f['day']}/; tried again by publish or run)")
        for p in problems:    # the set-up checks of deal and run (game/setup/newgame.py)
            print(f"to fix: {p}")
        for e in errors:      # the daemon's errors, as `status FOLDER` shows them
            print(f"problem: {e}")
    return 0

