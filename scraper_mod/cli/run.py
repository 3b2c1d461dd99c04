"""`scraper-mod run GAME`: the unattended daemon (scraper_mod/schedule.py).

Polls the day's topic and the move source on the game's schedule, resolves at each deadline
plus the grace, writes ``out/day-N/``, opens the next day, catches up after downtime. One per
game (a lock in the game folder); Ctrl-C or SIGTERM stops it cleanly. The log goes to stderr
and to ``run.log`` in the game folder (``--log``).
"""

from __future__ import annotations

import argparse
import logging
import logging.handlers
import os
import signal
import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..daemon.lock import GameLock
from ..daemon.scheduler import Daemon
from ..daemon.scheduler import log as daemon_log
from ..daemon.work import LiveOps
from ..errors import LoginRequiredError, ScraperModError
from ..game import daytime
from ..game.connect import game_board
from ..game.context import GameContext, open_game
from ..game.majority import post_majority_notice
from ..game.publish import Outcome, auto_publish, publish_move_answers
from ..game.setup import setup_problems
from .common import SubParsers, add_game_argument

if TYPE_CHECKING:
    from ..daemon.work import PollResult


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


class PublishingOps(LiveOps):
    """LiveOps that, in [publish] mode auto, first posts what a resolved day still owes the
    board (a failure retried on each poll, before the next day's start in any case), and
    does the day's work on the board (docs/daytime.md): counts, reminders, the host's
    alerts."""

    def poll(self, ctx: GameContext, day: int, *, full: bool) -> PollResult:
        self._step(ctx, "publishing", lambda: self.publish(ctx))
        res = super().poll(ctx, day, full=full)
        if not full:
            # each step on its own: an internal error in one never stops the others (the
            # alerts included)
            self._step(ctx, "the majority notice", lambda: post_majority_notice(ctx, day))
            self._step(ctx, "the move answers",
                       lambda: self._report(ctx, publish_move_answers(ctx, day)))
            self._step(ctx, "the counts on request",
                       lambda: self._report(ctx, daytime.answer_requests(ctx, day)))
            self._step(ctx, "the host's alerts", lambda: daytime.alert_new_problems(ctx, day))
        return res

    @staticmethod
    def _step(ctx: GameContext, what: str, step) -> None:
        try:
            step()
        except ScraperModError as e:
            daemon_log.warning("%s: %s", what, e)
        except Exception:       # an internal error: said, the poll's other steps go on
            daemon_log.exception("internal error in %s; please report it", what)

    def publish(self, ctx: GameContext) -> None:
        """``auto_publish``, and an alert for each publication that failed just now."""
        self._report(ctx, auto_publish(ctx))

    def chores(self, ctx: GameContext, day: int) -> None:
        self._report(ctx, daytime.run_chores(ctx, day))

    def next_chore_at(self, ctx: GameContext, day: int, now: datetime) -> datetime | None:
        return daytime.next_chore_at(ctx, day, now)

    def alert(self, ctx: GameContext, kind: str, detail: str, day: int | None) -> str:
        return daytime.alert(ctx, kind, detail, day=day)

    def _report(self, ctx: GameContext, outcomes: list[Outcome]) -> None:
        for o in outcomes:
            if o.status == "posted" and o.kind in ("tally", "reminder"):
                daemon_log.info("posted the %s to %s: %s", o.kind, o.to, o.url or "")
            if o.status != "failed" or not o.fresh or o.kind == "alert":
                continue
            daemon_log.error("could not post %s to %s: %s (it stays in out/ and is tried "
                             "again)", o.kind, o.to, o.error)
            refused = getattr(ctx.client, "login_refused", None)
            daytime.alert(ctx, "login" if refused is not None else "publish",
                          str(refused) if refused is not None else
                          f"{o.kind} to {o.to}: {o.error}",
                          day=o.item.day if o.item else None)


RUNNING_KEY = "daemon_running"   # set while `run` runs: found set at a start, it crashed


def _note_start(ctx: GameContext, ops: PublishingOps) -> None:
    """Mark the daemon running; if the last run never said it stopped, it crashed (a
    ``kill -9``, a reboot): log it and tell the host."""
    before = ctx.store.get(RUNNING_KEY)
    ctx.store.put(RUNNING_KEY, {"pid": os.getpid(), "since": ctx.now().isoformat()})
    if before:
        msg = (f"the last run (pid {before.get('pid')}, since {before.get('since')}) did not "
               "stop cleanly: restarted after a crash")
        daemon_log.warning("%s", msg)
        ops.alert(ctx, "restart", msg, None)


def _check_login(ctx: GameContext, ops: PublishingOps) -> None:
    """Where the run posts or reads the board's PMs, log in once at the start: a refused
    login is told at once (the log, the host's alert) and never tried again in this run
    (issue 40: a wrong password tried once per PM got the account locked out). The board
    being down is no reason to stop: the run tries again at its steps."""
    g = ctx.game
    posts = g.publish.mode == "auto"
    reads_pms = g.moves.source in ("forum_pm", "phpbb_pm")
    if not g.forum.url or not g.forum.username or not (posts or reads_pms):
        return
    try:
        game_board(ctx).login()
    except LoginRequiredError as e:
        daemon_log.error("the board refused the login: %s; nothing is posted in this run "
                         "until it is restarted with the right password", e)
        ops.alert(ctx, "login", str(e), None)
    except ScraperModError as e:
        daemon_log.warning("the login could not be checked now: %s", e)


def preflight(ctx: GameContext) -> list[str]:
    """What must be right before the daemon starts (raises the first such problem, naming
    the file and key), and what is worth a warning (the checks of game/setup.py)."""
    problems = setup_problems(ctx)
    fatal = [p for p in problems if p.fatal]
    if fatal:
        raise fatal[0].error()
    lang = ctx.game.language
    warnings = [p.in_language(lang) for p in problems]
    if not ctx.game.moves.source:
        warnings.append("в game.toml нет [moves] source: ночные ходы читаться не будут"
                        if lang == "ru" else
                        "no [moves] source in game.toml: night moves will not be read")
    ctx.calendar().deadline(1)   # a bad moved deadline fails here, clearly
    return warnings


def run(args: argparse.Namespace) -> int:
    from ..daemon.many import is_games_folder
    if is_games_folder(Path(args.game)):
        from .many import run_folder
        return run_folder(args, _file_handler)
    ctx = open_game(args.game)
    stop = threading.Event()
    handler = None
    try:
        warnings = preflight(ctx)
        with GameLock(ctx.game.folder):
            if args.log != "-":
                handler = _file_handler(Path(args.log) if args.log
                                        else ctx.game.folder / "run.log")
                logging.getLogger("scraper_mod").addHandler(handler)   # the poller's too
            daemon_log.setLevel(logging.INFO)
            for w in warnings:
                daemon_log.warning("%s", w)
            if handler is not None:
                daemon_log.info("the log is also written to %s",
                                getattr(handler, "baseFilename", "?"))

            def on_signal(signum, frame) -> None:
                daemon_log.info("got %s: stopping after the current step",
                                signal.Signals(signum).name)
                stop.set()

            old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
            try:
                ops = PublishingOps()
                _note_start(ctx, ops)
                _check_login(ctx, ops)
                report = Daemon(ctx, ops=ops, stop=stop,
                                on_resolved=lambda out: ops.publish(ctx)).run()
                ctx.store.put(RUNNING_KEY, None)      # a clean stop: no crash to tell
            finally:
                for s, h in old.items():
                    signal.signal(s, h)
            daemon_log.info("stopped (%s); %d poll%s, resolved day%s %s, %d error%s",
                            report.stopped_by, report.polls, "" if report.polls == 1 else "s",
                            "" if len(report.resolved) == 1 else "s",
                            ", ".join(map(str, report.resolved)) or "none",
                            len(report.errors), "" if len(report.errors) == 1 else "s")
    finally:
        if handler is not None:
            logging.getLogger("scraper_mod").removeHandler(handler)
            handler.close()
        ctx.close()
    return 0
