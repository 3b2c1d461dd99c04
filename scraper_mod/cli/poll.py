"""`scraper-mod poll GAME [--full]`: one poll of the current day's topic and the move source;
stores what is new and prints a short summary."""

from __future__ import annotations

import argparse
import importlib
import logging
import re
import sys
from typing import Any

from ..errors import ConfigError, ForumError
from .common import SubParsers, add_game_argument

log = logging.getLogger(__name__)


def _read_failed_ru(english: str) -> str:
    """A poll's error in Russian (the English one is in the log): a topic the board does not
    have, or a read that failed."""
    if "does not exist" in english:     # where to fix it: game/day/poll.py's _where_from
        came = re.search(r"the address of day (\d+)'s topic came from the command line.*?"
                         r"`(scraper-mod day open [^`]*)`", english)
        if came:
            return (f"форум отвечает, что такой темы нет: адрес темы дня {came.group(1)} "
                    f"взят из командной строки (`scraper-mod day open`) или автопилотом, а не "
                    f"из game.toml: укажите верный адрес командой `{came.group(2)}`")
        also = " или vote_topic" if "or vote_topic" in english else ""
        return ("форум отвечает, что такой темы нет: проверьте адрес темы в game.toml "
                f"([[days]] topic{also}); подробности — с ключом -v")
    return ("форум прочитан не весь: проверьте адрес темы и сеть, повторите позже; "
            "подробности — с ключом -v")


def register(sub: SubParsers) -> None:
    p = sub.add_parser(
        "poll", help="one poll of the current day's topic and the move source",
        description="Reads the current day's topic (only its last known page unless it grew, "
                    "or every page with --full) and the night-move source once, and stores "
                    "what is new in the game's state file.")
    add_game_argument(p)
    p.add_argument("--full", action="store_true",
                   help="re-read every page of the topic (records edits and deletions)")
    p.add_argument("--day", type=int, help="the day whose topic to read (default: the current)")
    p.set_defaults(func=run)


def _load_intake():
    """MOVES' intake module, or None when this build has none."""
    try:
        return importlib.import_module("scraper_mod.game.night.intake")
    except ModuleNotFoundError as e:
        if e.name in ("scraper_mod.game", "scraper_mod.game.night.intake"):
            return None
        raise


def _moves_summary(report: Any, ru: bool = False) -> tuple[str, tuple[Any, ...]]:
    fetch = getattr(report, "fetch", None)
    parts = []
    if fetch is not None:
        parts.append(f"новых писем: {len(fetch.new)} ({fetch.source})" if ru else
                     f"{len(fetch.new)} new message(s) from {fetch.source}")
    answers = getattr(report, "answers", ())
    parts.append(f"ответов записано: {len(answers)}" if ru else
                 f"{len(answers)} answer(s) written")
    dups = getattr(report, "duplicates", ())
    if dups:
        parts.append(f"повторов: {len(dups)}" if ru else f"{len(dups)} duplicate(s)")
    errors = tuple(getattr(report, "errors", ())) + tuple(getattr(fetch, "errors", ()) or ())
    if errors:
        parts.append(f"ошибок: {len(errors)}" if ru else f"{len(errors)} error(s)")
    return ", ".join(parts), errors


def run(args: argparse.Namespace) -> int:
    from scraper_mod.game.day.poll import poll_day_topics
    from scraper_mod.game.day.tally import current_day

    from ..game.context import open_game

    status = 0
    with open_game(args.game) as ctx:
        now = ctx.now()
        if args.day is not None and args.day < 1:
            raise ConfigError(f"--day: must be 1 or more, not {args.day}",
                              ru=f"--day: нужен номер дня от 1, а не {args.day}")
        day = args.day if args.day is not None else ctx.calendar().day_at(now)
        if args.day is None and day > 0:
            day = current_day(ctx, now)     # a game that is over: its last day
        ru = ctx.game.language == "ru"      # issue 39: a Russian game's lines in Russian
        if day <= 0:
            start = ctx.calendar().day_start(1)
            print(f"форум: игра ещё не началась (день 1 начинается "
                  f"{start:%d.%m.%Y в %H:%M})" if ru else
                  f"forum: the game has not started yet (day 1 starts {start.isoformat()})")
        elif not ctx.topic_for_day(day):
            print(f"форум: у дня {day} ещё нет темы (добавьте её в [[days]] или "
                  f"командой `scraper-mod day open`)" if ru else
                  f"forum: day {day} has no topic yet "
                  f"(add it under [[days]] or with `scraper-mod day`)")
        else:
            try:
                reports = poll_day_topics(ctx, day, full=args.full)   # R2.17: both topics
            except ForumError as e:
                report = getattr(e, "report", None)
                if ru:
                    log.debug("the error in English: %s", e)
                    print(f"форум: день {day}: "
                          f"{report.summary_ru() if report else 'не прочитан'}")
                    print(f"ошибка: {e.ru or _read_failed_ru(str(e))}", file=sys.stderr)
                else:
                    print(f"forum: day {day}: {report.summary() if report else 'failed'}")
                    print(f"error: {e}", file=sys.stderr)
                status = 1
            else:
                for i, report in enumerate(reports):
                    if ru:
                        what = f"день {day}" + (" (тема голосования)" if i else "")
                        print(f"форум: {what}: {report.summary_ru()}")
                    else:
                        what = f"day {day}" if i == 0 else f"day {day} (voting topic)"
                        print(f"forum: {what}: {report.summary()}")
                    for err in report.errors:
                        if ru:          # the board's own English: to the log
                            log.debug("the error in English: %s", err)
                        print(f"ошибка: {_read_failed_ru(str(err))}" if ru else
                              f"error: {err}", file=sys.stderr)
                    if report.errors:
                        status = 1
        intake = _load_intake()
        if (intake is None or not hasattr(intake, "poll_moves")
                or not ctx.game.moves.source):
            print("ходы: источник не настроен ([moves] source)" if ru else
                  "moves: no source configured")
        else:
            summary, errors = _moves_summary(intake.poll_moves(ctx), ru)
            print(f"ходы: {summary}" if ru else f"moves: {summary}")
            for err in errors:
                if ru:          # the English to the log
                    log.debug("moves, in English: %s", err)
                print("ошибка: ходы: письмо не прочитано или ответ не записан (подробности — "
                      "с ключом -v)" if ru else f"error: moves: {err}", file=sys.stderr)
            if errors:
                status = 1
    return status
