"""The command line: the only place that prints, reads argv or exits.

Each command lives in its own module ``scraper_mod/cli/<name>.py`` with a
``register(subparsers)`` function that adds its parser and sets ``func``. ``func(args)``
returns the exit status. Library errors (``ScraperModError``) become one ``error: ...`` line
with exit status 1; usage errors exit 2 (argparse).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..errors import ScraperModError

COMMANDS = ("demo", "deal", "posts", "poll", "tally", "moves", "resolve", "run", "status", "day")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scraper-mod",
        description="Hosts a forum mafia game beside a phpBB board: reads the votes and the "
                    "night moves, resolves each day by the rules and writes the BBCode posts.")
    parser.add_argument("--version", action="version", version=f"scraper-mod {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more detail to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = importlib.import_module(f"{__name__}.{name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``scraper-mod`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from .common import setup_logging
    setup_logging(verbose=args.verbose)
    try:
        return int(args.func(args) or 0)
    except ScraperModError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
