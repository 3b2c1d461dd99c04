"""`scraper-mod run GAME|FOLDER`: the unattended daemon (``daemon/many.py``'s ``Host``; one
game is the folder case with one game).

Polls the day's topic and the move source on the game's schedule, resolves at each deadline
plus the grace, writes ``out/day-N/``, on autopilot posts it and does the day's work (counts,
reminders, alerts), opens the next day, catches up after downtime. One per game (a lock in
the game folder); Ctrl-C or SIGTERM stops it cleanly. The log goes to stderr and to
``run.log`` in the game folder, or the games folder (``--log``).
"""

from __future__ import annotations

import argparse
import logging
import logging.handlers
import os
from pathlib import Path

from scraper_mod.game.setup.config import GAME_FILE, load_game

from ..daemon.autopilot import RUNNING_KEY, GameOps, note_start, preflight
from ..errors import ScraperModError
from .common import SubParsers, add_game_argument

__all__ = ["RUNNING_KEY", "PublishingOps", "preflight", "register", "run"]


def register(sub: SubParsers) -> None:
    p = sub.add_parser(
        "run", help="the unattended daemon: polls on a timer, resolves at each deadline, "
                    "writes the posts, opens the next day",
        description="Runs until the game is over or it is stopped (Ctrl-C, SIGTERM). "
                    "Cadence from [schedule] in game.toml: poll_minutes (5), "
                    "final_poll_minutes (1) within final_window_minutes (30) of the "
                    "deadline, grace_seconds (60) after it. Fractions are allowed "
                    "(poll_minutes = 0.05 is every 3 s), for trials against a local board.")
    add_game_argument(p, many=True)
    p.add_argument("--log", metavar="FILE",
                   help="also append the log to FILE (default: run.log in the game folder; "
                        "'-' for stderr only)")
    p.set_defaults(func=run)


LOG_MAX_BYTES = 10 * 1024 * 1024   # run.log is rotated at this size ...
LOG_BACKUPS = 5                      # ... keeping run.log.1 to run.log.5: at most 60 MB


def _owner_only(path: str) -> None:
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))


def _rotate(source: str, dest: str) -> None:
    """The rotation's rename, then the fresh log made owner-only before the handler opens it."""
    if os.path.exists(source):
        os.replace(source, dest)
    _owner_only(source)


def _file_handler(path: Path, *, max_bytes: int = LOG_MAX_BYTES) -> logging.Handler:
    """The log file, readable by its owner only: the files of a resolved day it names
    (pm/<nick>.txt) tell who gets the mafia's news and the checks (issue 18 item 5).
    Rotated at ``max_bytes`` (issue 27 item 7: a month unattended must not fill the disk)."""
    try:
        _owner_only(str(path))
        if path.is_file() and os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o600)
    except OSError:
        pass            # the handler says what is wrong
    try:
        h = logging.handlers.RotatingFileHandler(path, maxBytes=max_bytes,
                                                 backupCount=LOG_BACKUPS, encoding="utf-8")
    except OSError as e:
        raise ScraperModError(f"{path}: cannot open the log file: {e}",
                              hint="give another --log FILE or '-'") from None
    h.rotator = _rotate
    h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    return h


# the autopilot and the crash check live in the daemon (daemon/autopilot.py): the same for
# every game of ``run FOLDER`` and for ``run GAME``
PublishingOps = GameOps
_note_start = note_start


def run(args: argparse.Namespace) -> int:
    from ..daemon.many import is_games_folder
    from .many import run_folder
    if is_games_folder(Path(args.game)):
        return run_folder(args, _file_handler)
    game = load_game(args.game)        # a bad game file: one clear line, before anything
    return run_folder(args, _file_handler, single=game.folder
                      if game.path.name == GAME_FILE else game.path)
