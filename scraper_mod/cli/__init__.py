"""The command line: the only place that prints, reads argv or exits.

Each command lives in its own module ``scraper_mod/cli/<name>.py`` with a
``register(subparsers)`` function that adds its parser and sets ``func``. ``func(args)``
returns the exit status. Library errors (``ScraperModError``) become one ``error: ...`` line
with exit status 1; usage errors exit 2 (argparse), also as one line. A failing state file
or disk (``sqlite3.Error``, ``OSError``) and even a bug are one line too: never a traceback
(``-v`` logs it).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sqlite3
import sys

from .. import __version__
from ..errors import ScraperModError

COMMANDS = ("demo", "new", "deal", "posts", "poll", "tally", "moves", "resolve", "run", "status",
            "day", "publish", "serve", "replace", "decide", "signup", "record", "stats")


class _Parser(argparse.ArgumentParser):
    """An argparse parser: a usage error is one ``error: ...`` line (docs/commands.md), exit 2."""

    def error(self, message: str):
        self.exit(2, f"error: {self.prog}: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="scraper-mod",
        description="Hosts a forum mafia game beside a phpBB board: reads the votes and the "
                    "night moves, resolves each day by the rules and writes the BBCode posts.")
    parser.add_argument("--version", action="version", version=f"scraper-mod {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more detail to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                help="what to do; `scraper-mod COMMAND --help` for its options")
    for name in COMMANDS:
        module = importlib.import_module(f"{__name__}.{name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``scraper-mod`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from ..forum.session import logged_in
    from .common import setup_logging
    setup_logging(verbose=args.verbose)
    held = logged_in()     # sessions open before this command are not its to end
    from ..game.russian import game_language, russian_error, russian_os_error, russian_unexpected
    # issue 39: a Russian game's host reads Russian only; the English goes to the log
    ru = game_language(getattr(args, "game", None)) == "ru"
    log = logging.getLogger(__name__)
    try:
        return int(args.func(args) or 0)
    except ScraperModError as e:
        line = russian_error(e) if ru else None
        print(f"ошибка: {line}" if line else f"error: {e}", file=sys.stderr)
        return 1
    except sqlite3.Error as e:
        where = getattr(args, 'game', None) or 'the game folder'
        if ru:
            log.debug("state.sqlite3: %s", e)
        print(f"ошибка: {where}: файл состояния state.sqlite3 не работает (проверьте, что в "
              f"папку игры и в state.sqlite3 можно писать и диск не заполнен)" if ru else
              f"error: {where}: the state file "
              f"state.sqlite3 failed: {e} (check that the game folder and its state.sqlite3 "
              f"are writable and the disk is not full)", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"ошибка: {russian_os_error(e)}" if ru else
              f"error: {where}{e.strerror or e} (check that the path exists, is writable "
              f"and the disk is not full)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("ошибка: прервано" if ru else "error: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug: still one line, the details with -v (never a traceback)
        log.debug("unexpected error", exc_info=True)
        print(f"ошибка: {russian_unexpected()}" if ru else
              f"error: unexpected {type(e).__name__}: {e} (this is a bug in scraper-mod; "
              f"run again with -v for the details and report them)", file=sys.stderr)
        return 1
    finally:
        _end_board_sessions(held)


def _end_board_sessions(held: tuple = ()) -> None:
    """Log out of the board where this command logged in (forum/session.py), not out of
    the sessions ``held`` before it began (a process running several commands: tests)."""
    from ..forum.session import end_sessions
    end_sessions(keep=held)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
