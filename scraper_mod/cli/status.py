"""`scraper-mod status GAME`: where the game stands, at a glance.

The current day, its topic, deadline and time left, the current leader of the vote count
(from the stored posts, no polling), the night-move messages received this day, the resolved
days, and whether a ``scraper-mod run`` is running for the game.
"""

from __future__ import annotations

from ..game.context import open_game
from ..daemon.scheduler import game_status
from .common import add_game_argument, print_json


def register(sub) -> None:
    p = sub.add_parser("status", help="the day, deadline, time left, current leader, moves "
                                      "received, and whether the daemon runs")
    add_game_argument(p)
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (default) or json")
    p.set_defaults(func=run)


def run(args) -> int:
    ctx = open_game(args.game)
    try:
        st = game_status(ctx)
    finally:
        ctx.close()
    if args.format == "json":
        print_json(st.to_json())
    else:
        print(st.to_text())
    return 0
