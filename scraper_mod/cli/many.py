"""`scraper-mod run FOLDER` and `scraper-mod status FOLDER`: every game folder under FOLDER
(CONTRACT "Many games"). Called by cli/run.py and cli/status.py when GAME is a folder of game
folders."""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from ..daemon.lock import GameLock
from ..daemon.many import Host
from ..daemon.overview import folder_status
from ..daemon.scheduler import log as daemon_log
from ..daemon.status import fmt_delta
from ..daemon.work import winner_ru
from ..errors import ScraperModError
from ..game.results.wording import Formatter
from ..game.russian import game_language
from .common import print_json


def run_folder(args: argparse.Namespace,
               file_handler: Callable[[Path], logging.Handler], *,
               single: Path | None = None) -> int:
    """The daemon over every game under ``args.game``, or over the one game ``single`` (its
    folder or file: ``run GAME``, the same daemon with one game)."""
    folder = Path(args.game)
    lock = None
    if single is None:
        lock = GameLock(folder)
        try:
            lock.acquire()
        except ScraperModError:
            raise ScraperModError(f"{folder}: another 'scraper-mod run' already hosts this "
                                  "folder", hint="stop it first; each game also has its own "
                                  "lock") from None
    game_dir = None if single is None else (single if single.is_dir() else single.parent)
    stop = threading.Event()
    handler = None
    try:
        if args.log != "-":
            handler = file_handler(Path(args.log) if args.log
                                   else (game_dir or folder) / "run.log")
            logging.getLogger("scraper_mod").addHandler(handler)   # the poller's too
        daemon_log.setLevel(logging.INFO)
        if handler is not None and single is not None:
            daemon_log.info("the log is also written to %s",
                            getattr(handler, "baseFilename", "?"))
        host = Host(single or folder, stop=stop, single=single is not None)

        def on_signal(signum, frame) -> None:
            if signum == signal.SIGHUP:
                daemon_log.info("got SIGHUP: looking for new and removed games now")
                host.rescan()
                return
            daemon_log.info("got %s: stopping after the current steps",
                            signal.Signals(signum).name)
            stop.set()

        sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        old = {s: signal.signal(s, on_signal) for s in sigs}
        try:
            host.run()
        finally:
            for s, h in old.items():
                signal.signal(s, h)
        if single is None:
            daemon_log.info("stopped (stop); every game let go")
        else:
            _say_stopped(host, Host.name_of(single))
    finally:
        if handler is not None:
            logging.getLogger("scraper_mod").removeHandler(handler)
            handler.close()
        if lock is not None:
            lock.release()
    return 0


def _say_stopped(host: Host, name: str) -> None:
    report = host.reports.get(name)
    why = "game over" if name in host.finished else "stop"
    if report is None:
        daemon_log.info("stopped (%s)", why)
        return
    daemon_log.info("stopped (%s); %d poll%s, resolved day%s %s, %d error%s",
                    why, report.polls, "" if report.polls == 1 else "s",
                    "" if len(report.resolved) == 1 else "s",
                    ", ".join(map(str, report.resolved)) or "none",
                    len(report.errors), "" if len(report.errors) == 1 else "s")


def folder_status_text(data: dict) -> str:
    lines = []
    now = datetime.fromisoformat(data["now"])
    for g in data["games"]:
        if g.get("language") == "ru":        # issue 39 item 4: a Russian game's line
            lines += _game_line_ru(g, now)
            continue
        if "day" not in g:
            lines.append(f"{g['name']}: NOT RUNNING: {g['problems'][0]}")
            continue
        head = f"{g['name']} ({g['title']}): "
        if g.get("winner"):
            lines.append(head + f"over, {g['winner']} wins")
            continue
        deadline = datetime.fromisoformat(g["deadline"])
        left = deadline - now
        when = (f"{fmt_delta(left)} left" if left.total_seconds() > 0
                else f"passed {fmt_delta(-left)} ago")
        lead = (", ".join(f"{x['target']} ({x['votes']})" for x in g["leaders"])
                or (g.get("tally_note") or "none"))
        last = g.get("last_fetch")
        last_s = (f"{fmt_delta(now - datetime.fromisoformat(last))} ago" if last else "never")
        pid = g.get("daemon_pid")
        lines.append(head + f"day {g['day']}, deadline {deadline:%Y-%m-%d %H:%M %Z}"
                     f"{' (moved)' if g.get('deadline_moved') else ''}, {when}; leader: {lead}; "
                     f"last poll {last_s}; daemon "
                     + (f"pid {pid}" if pid else "not running"))
        for p in g.get("problems", []):
            lines.append(f"  problem: {p}")
    if lines:
        return "\n".join(lines)
    return (f"в {data['folder']} нет папок игр" if game_language(data["folder"]) == "ru"
            else f"no game folders under {data['folder']}")


def _game_line_ru(g: dict, now: datetime) -> list[str]:
    """A Russian game's line of ``status FOLDER`` (its problems already in Russian)."""
    if "day" not in g:
        return [f"{g['name']}: НЕ ЗАПУЩЕНА: {g['problems'][0]}"]
    head = f"{g['name']} ({g['title']}): "
    if g.get("winner"):
        return [head + f"игра окончена, победа: {winner_ru(g['winner'])}"]
    deadline = datetime.fromisoformat(g["deadline"])
    fmt = Formatter("ru", ZoneInfo(g.get("timezone") or "Europe/Moscow"))
    left = deadline - now
    when = (f"осталось {fmt_delta(left, 'ru')}" if left.total_seconds() > 0
            else f"срок прошёл {fmt_delta(-left, 'ru')} назад")
    lead = (", ".join(f"{x['target']} ({x['votes']})" for x in g["leaders"])
            or (g.get("tally_note_ru") or "нет"))
    last = g.get("last_fetch")
    last_s = (f"{fmt_delta(now - datetime.fromisoformat(last), 'ru')} назад" if last
              else "ещё не было")
    pid = g.get("daemon_pid")
    lines = [head + f"день {g['day']}, срок — до {fmt.when(deadline)}"
             f"{' (перенесён ведущим)' if g.get('deadline_moved') else ''}, {when}; "
             f"лидер: {lead}; последнее чтение форума: {last_s}; демон "
             + (f"работает (процесс {pid})" if pid else "не запущен")]
    lines += [f"  проблема: {p}" for p in g.get("problems", [])]
    return lines


def status_folder(args: argparse.Namespace) -> int:
    data = folder_status(Path(args.game), localized=args.format != "json")
    if args.format == "json":
        print_json(data)
    else:
        print(folder_status_text(data))
    return 0
