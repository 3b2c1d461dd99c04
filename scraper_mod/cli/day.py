"""`scraper-mod day open N URL` / `day move N TIME` / `day list`: the host's hand on the
calendar while a game runs (the daemon reads both from the state file at its next step).

- ``open``: day N's topic is URL (stored; overrides ``[[days]]``).
- ``move``: day N's deadline is TIME (R1.4; stored in the state file's ``moved_deadlines``,
  which the calendar reads; the days after follow on from it).
- ``list``: every day so far with its topic, start, deadline and whether it is resolved.

The logic is the service ``game/day/days.py`` (the host's page calls it too); this module only
reads the arguments and prints what changed.
"""

from __future__ import annotations

import argparse

from scraper_mod.game.day.days import check_day, check_topic_url, list_days, move_deadline, open_day

from ..game.context import open_game
from .common import SubParsers, add_game_argument


def register(sub: SubParsers) -> None:
    p = sub.add_parser("day", help="open a day's topic, move a deadline (R1.4), list the days",
        description="Open a day's topic, move a deadline (R1.4), list the days.")
    dsub = p.add_subparsers(dest="day_command", metavar="ACTION", required=True,
                            help="open, move or list")

    o = dsub.add_parser("open", help="set day N's topic: scraper-mod day open GAME N URL",
        description="Set day N's topic: scraper-mod day open GAME N URL.")
    add_game_argument(o)
    o.add_argument("number", metavar="N", type=int, help="the day number")
    o.add_argument("url", metavar="URL", help="the day's topic (viewtopic.php?t=...)")
    o.set_defaults(func=run_open)

    m = dsub.add_parser("move", help="move day N's deadline (R1.4): "
                                     "scraper-mod day move GAME N TIME",
        description="Move day N's deadline (R1.4): scraper-mod day move GAME N TIME.")
    add_game_argument(m)
    m.add_argument("number", metavar="N", type=int, help="the day number")
    m.add_argument("time", metavar="TIME",
                   help="the new deadline, ISO 8601, in game time when it has no offset "
                        "(e.g. 2024-03-18T20:00); 'default' undoes a move made here")
    m.add_argument("--force", action="store_true",
                   help="accept a deadline already past: a running 'scraper-mod run' then "
                        "resolves the day and publishes its results at once")
    m.set_defaults(func=run_move)

    ls = dsub.add_parser("list", help="the days so far (to the first unresolved one and each "
                                     "day with a topic): topic, start, deadline, resolved",
        description="The days so far (to the first unresolved one and each day with a topic): "
                    "topic, start, deadline, resolved.")
    add_game_argument(ls)
    ls.set_defaults(func=run_list)


def run_open(args: argparse.Namespace) -> int:
    check_day(args.number)
    check_topic_url(args.url)
    with open_game(args.game) as ctx:
        opened = open_day(ctx, args.number, args.url)
    print("\n".join(opened.lines()))
    return 0


def run_move(args: argparse.Namespace) -> int:
    check_day(args.number)
    with open_game(args.game) as ctx:
        moved = move_deadline(ctx, args.number, args.time, force=args.force)
    print("\n".join(moved.lines()))
    return 0


def run_list(args: argparse.Namespace) -> int:
    with open_game(args.game) as ctx:
        tz = ctx.game.timezone
        for row in list_days(ctx):
            print(row.line(tz))
    return 0
