"""`scraper-mod demo [DIR] [--temporary]`: plays the built-in game from the deal to the victory on a
local look-alike of the board and a local Maildir, on a simulated clock (scraper_mod/demo.py), and
prints each day's newspaper and a summary. The game folder is kept (./scraper-mod-demo by
default) for `scraper-mod serve` to open. No network, no set-up; well under a minute."""

from __future__ import annotations

import argparse
from pathlib import Path

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
    p.add_argument("dir", metavar="DIR", nargs="?",
                   help="the folder to write the demo game into, kept afterwards for "
                        "`scraper-mod serve DIR` (default: ./scraper-mod-demo, or "
                        "./scraper-mod-demo-2 and so on when that one is not empty)")
    p.add_argument("--keep", metavar="DIR",
                   help="the same as DIR (kept for scripts written before DIR)")
    p.add_argument("--temporary", action="store_true",
                   help="play in a temporary folder and delete it afterwards")
    p.set_defaults(func=run)


def default_folder(base: Path) -> Path:
    """``base/scraper-mod-demo``, or the first ``-2``, ``-3``... that is new or empty."""
    n = 1
    while True:
        folder = base / ("scraper-mod-demo" if n == 1 else f"scraper-mod-demo-{n}")
        if not folder.exists() or (folder.is_dir() and not any(folder.iterdir())):
            return folder
        n += 1


def run(args: argparse.Namespace) -> int:
    keep = None if args.temporary else (args.dir or args.keep or default_folder(Path.cwd()))
    result = run_demo(keep=keep, out=print, verbose=getattr(args, "verbose", False))
    return 0 if result.winner else 1
