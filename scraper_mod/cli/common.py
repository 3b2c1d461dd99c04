"""Helpers shared by the command modules: arguments, time parsing, output."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

from ..errors import ConfigError, RulesError
from ..rules.calendar import wall_time

# what argparse's add_subparsers() returns (its class, _SubParsersAction, is private)
SubParsers = Any


def setup_logging(*, verbose: bool = False) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)


def add_game_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", metavar="GAME", help="the game folder (holding game.toml) or the file")


def parse_time_arg(value: str, tz: ZoneInfo, *, name: str = "--at") -> datetime:
    """ISO 8601; in game time when it has no offset (CONTRACT.md)."""
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        raise ConfigError(f"{name}: not an ISO 8601 time: {value!r}",
                          hint="e.g. 2024-03-15T19:30 or 2024-03-15T19:30:00+03:00") from None
    try:     # issue 18 item 11: no wall time skipped or shown twice by DST
        t = wall_time(t, tz)
    except RulesError as e:
        raise ConfigError(f"{name}: {e.message}", hint=e.hint) from None
    try:  # year 1 or 9999 in another zone is no instant Python can compare
        t.astimezone(timezone.utc)
    except OverflowError:
        raise ConfigError(f"{name}: out of range: {value!r}",
                          hint="give a time within the game, e.g. 2024-03-15T19:30") from None
    return t


def print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))
