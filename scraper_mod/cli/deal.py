"""`scraper-mod deal GAME`: deal the roles and the random list, write the role cards.

The deal itself is ``game.deal.deal_game`` (R4, R3.1, R9.3); this prints its SHA-256
commitment for the host to publish and where the cards and the secret list are.
"""

from __future__ import annotations

import argparse
import sys

from scraper_mod.game.setup.deal import deal_game, deal_lines
from scraper_mod.game.setup.newgame import setup_problems

from ..game.context import open_game
from .common import SubParsers, add_game_argument

__all__ = ["register", "run"]


def register(sub: SubParsers) -> None:
    p = sub.add_parser(
        "deal", help="deal the roles and the random list, write the role cards",
        description="Draws the roles the game file leaves out and the host's random list "
                    "(cryptographic randomness), prints the list's SHA-256 commitment to "
                    "publish, and writes one role card per player under out/role-cards/.")
    add_game_argument(p)
    p.add_argument("--force", action="store_true",
                   help="deal again although a deal is stored (only before day 1 is resolved)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with open_game(args.game) as ctx:
        deal = deal_game(ctx, force=args.force)
        for line in deal_lines(ctx.game, deal):
            print(line)
        lang = ctx.game.language
        for problem in setup_problems(ctx):   # a Russian game: Russian only (issue 39)
            print(("предупреждение: " if lang == "ru" else "warning: ")
                  + problem.in_language(lang), file=sys.stderr)
        return 0
