"""`scraper-mod demo [--keep DIR]`: plays the built-in game from the deal to the victory on a
local phpBB look-alike and a local Maildir, on a simulated clock (scraper_mod/demo.py), and
prints each day's newspaper and a summary. No network, no set-up; well under a minute."""

from __future__ import annotations

import argparse

from ..demo.world import run_demo
from .common import SubParsers


def register(sub: SubParsers) -> None:
    p = sub.add_parser(
        "demo", help="play a whole built-in game on this machine (local forum and mailbox), "
                     "printing each day's newspaper",
        description="Writes a demo game folder, starts a local phpBB 3.3 look-alike on "
                    "127.0.0.1 and a local Maildir, and runs the 'scraper-mod run' daemon on a "
                    "simulated clock through a scripted 12-player game: colored, inflected, "
                    "quoted and edited votes, a post at 19:59:59 and one at 20:00:00, night "
                    "moves with invalid and forged ones, a weekend, a tie decided by the "
                    "random list, to a victory.")
    p.add_argument("--keep", metavar="DIR",
                   help="write the game into DIR (new or empty) and keep it: game.toml, the "
                        "state file, out/day-N/ posts, run.log")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    result = run_demo(keep=args.keep, out=print, verbose=getattr(args, "verbose", False))
    return 0 if result.winner else 1
