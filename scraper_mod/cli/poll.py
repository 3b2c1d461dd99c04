"""`scraper-mod poll GAME [--full]`: one poll of the current day's topic and the move source;
stores what is new and prints a short summary."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from ..errors import ConfigError, ForumError
from .common import SubParsers, add_game_argument


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
        return importlib.import_module("scraper_mod.game.intake")
    except ModuleNotFoundError as e:
        if e.name in ("scraper_mod.game", "scraper_mod.game.intake"):
            return None
        raise


def _moves_summary(report: Any) -> tuple[str, tuple[Any, ...]]:
    fetch = getattr(report, "fetch", None)
    parts = []
    if fetch is not None:
        parts.append(f"{len(fetch.new)} new message(s) from {fetch.source}")
    answers = getattr(report, "answers", ())
    parts.append(f"{len(answers)} answer(s) written")
    dups = getattr(report, "duplicates", ())
    if dups:
        parts.append(f"{len(dups)} duplicate(s)")
    errors = tuple(getattr(report, "errors", ())) + tuple(getattr(fetch, "errors", ()) or ())
    if errors:
        parts.append(f"{len(errors)} error(s)")
    return ", ".join(parts), errors


def run(args: argparse.Namespace) -> int:
    from ..game.context import open_game
    from ..game.poll import poll_day_topics
    from ..game.tally import current_day

    status = 0
    with open_game(args.game) as ctx:
        now = ctx.now()
        if args.day is not None and args.day < 1:
            raise ConfigError(f"--day: must be 1 or more, not {args.day}",
                              ru=f"--day: нужен номер дня от 1, а не {args.day}")
        day = args.day if args.day is not None else ctx.calendar().day_at(now)
        if args.day is None and day > 0:
            day = current_day(ctx, now)     # a game that is over: its last day
        if day <= 0:
            print(f"forum: the game has not started yet (day 1 starts "
                  f"{ctx.calendar().day_start(1).isoformat()})")
        elif not ctx.topic_for_day(day):
            print(f"forum: day {day} has no topic yet "
                  f"(add it under [[days]] or with `scraper-mod day`)")
        else:
            try:
                reports = poll_day_topics(ctx, day, full=args.full)   # R2.17: both topics
            except ForumError as e:
                report = getattr(e, "report", None)
                print(f"forum: day {day}: {report.summary() if report else 'failed'}")
                print(f"error: {e}", file=sys.stderr)
                status = 1
            else:
                for i, report in enumerate(reports):
                    what = f"day {day}" if i == 0 else f"day {day} (voting topic)"
                    print(f"forum: {what}: {report.summary()}")
                    for err in report.errors:
                        print(f"error: {err}", file=sys.stderr)
                    if report.errors:
                        status = 1
        intake = _load_intake()
        if intake is None or not hasattr(intake, "poll_moves"):
            print("moves: no source configured")
        elif not ctx.game.moves.source:
            print("moves: no source configured")
        else:
            summary, errors = _moves_summary(intake.poll_moves(ctx))
            print(f"moves: {summary}")
            for err in errors:
                print(f"error: moves: {err}", file=sys.stderr)
            if errors:
                status = 1
    return status
