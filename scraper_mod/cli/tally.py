"""`scraper-mod tally GAME [--day N] [--at TIME] [--format text|bbcode|json] [--offline]`.

The vote count of a day (RULES R2, R3; docs/commands.md): as of now, as of ``--at``, or final
once the deadline has passed (with the lynch, the random list deciding a tie or an empty
day). Reads the day's topic from the board first unless ``--offline``.
"""

from __future__ import annotations

import argparse

from .common import SubParsers, add_game_argument, print_json


def register(sub: SubParsers) -> None:
    p = sub.add_parser(
        "tally", help="the vote count of a day (now, --at a time, or final after the deadline)",
        description="Count a game day's votes from its forum topic, by the game's rules: as of "
                    "now, as of --at, or final once the deadline has passed (with the lynch). "
                    "Reads the topic from the board first unless --offline.")
    add_game_argument(p)
    p.add_argument("--day", type=int, metavar="N",
                   help="the game day (default: the current day)")
    p.add_argument("--at", metavar="TIME",
                   help="count as of this time (ISO 8601; game time when it has no offset)")
    p.add_argument("--at-post", type=int, metavar="ID",
                   help="count as of this post of the day (its number, viewtopic.php?p=ID), "
                        "the post included: for a dispute")
    p.add_argument("--format", choices=("text", "bbcode", "json"), default="text",
                   help="text for the host (default), bbcode for a forum post, or json")
    p.add_argument("--offline", action="store_true",
                   help="do not read the board: count the posts already stored")
    p.add_argument("--lang", choices=("ru", "en"),
                   help="language of the text and BBCode (default: the game's)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from scraper_mod.game.day.tally import count_asked

    from ..game.context import open_game

    with open_game(args.game, readonly=args.offline) as ctx:   # --offline only reads
        result = count_asked(ctx, day=args.day, at=args.at, poll=not args.offline,
                             at_post=args.at_post)
        if args.format == "json":
            print_json(result.to_json())
        else:
            print(result.render(args.format, args.lang), end="")
    return 0
