"""`scraper-mod replace GAME OLD NEW [--at TIME] [--contact ADDR] [--why TEXT]` (RULES R10).

NEW takes OLD's slot from TIME (default: now): the role, being alive, the night moves, the
freeze, the Doctor's self-heal used, the place in the random list and the current vote. The
newcomer's role card is written to ``out/role-cards/<NEW>.txt``; every resolved day the
replacement touches is resolved again (and, on autopilot, edited on the board).
"""

from __future__ import annotations

import argparse

from .common import SubParsers, add_game_argument, parse_time_arg, print_json


def register(sub: SubParsers) -> None:
    p = sub.add_parser(
        "replace", help="a newcomer takes a player's slot from a time on (R10)",
        description="NEW takes OLD's slot from TIME (default: now): role, alive, moves, "
                    "freeze, the Doctor's self-heal used, the random-list place and the "
                    "current vote. From then on OLD's posts and messages are not the slot's; "
                    "votes and moves naming OLD count for the slot.")
    add_game_argument(p)
    p.add_argument("old", metavar="OLD", help="the player who leaves (the slot's nick then)")
    p.add_argument("new", metavar="NEW", nargs="?", help="the newcomer's forum nick")
    p.add_argument("--from-reserve", action="store_true",
                   help="the newcomer is the first of game.toml's reserve not playing yet; "
                        "he leaves the reserve (docs/signup.md)")
    p.add_argument("--at", metavar="TIME",
                   help="from when (ISO 8601; game time when it has no offset; default: now)")
    p.add_argument("--contact", metavar="ADDR",
                   help="the newcomer's mail address, for night moves by mail and answers")
    p.add_argument("--why", metavar="TEXT", default="", help="the reason, for the host report")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (default) or json")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from scraper_mod.game.roster.host import replace_player
    from scraper_mod.game.setup.signup import drop_from_reserve, first_in_reserve, newcomers

    from ..errors import ScraperModError
    from ..game.context import open_game

    if (args.new is None) == (not args.from_reserve):
        raise ScraperModError("give the newcomer NEW or --from-reserve (one of them)")
    with open_game(args.game) as ctx:
        at = parse_time_arg(args.at, ctx.game.timezone) if args.at else None
        new = args.new or first_in_reserve(ctx, newcomers(ctx))
        done = replace_player(ctx, args.old, new, at=at, contact=args.contact,
                              why=args.why)
        if args.from_reserve:
            drop_from_reserve(ctx.game, new)
        if args.format == "json":
            print_json({"k": done.k, "kind": done.kind, "summary": done.summary,
                        "day": done.day, "rewritten": list(done.rewritten),
                        "card": str(done.card) if done.card else None,
                        "published": list(done.published)})
        else:
            print(f"{done.k}: {done.summary}")
            if done.card:
                print(f"role card: {done.card} (send it: scraper-mod publish {args.game} "
                      "--role-cards, or by mail)")
            _print_effects(done)
    return 0


def _print_effects(done) -> None:
    if done.rewritten:
        print("resolved again: " + ", ".join(f"day {d}" for d in done.rewritten))
    for line in done.published:
        print(f"board: {line}")
