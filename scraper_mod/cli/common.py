"""Helpers shared by the command modules: arguments, time parsing, output."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any

from scraper_mod.game.setup.timearg import parse_time_arg

__all__ = ["SubParsers", "add_game_argument", "parse_time_arg", "print_json", "setup_logging"]

# what argparse's add_subparsers() returns (its class, _SubParsersAction, is private)
SubParsers = Any


def setup_logging(*, verbose: bool = False) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    # pymorphy3 says "Loading dictionaries" twice at INFO: noise for a host, kept for -v
    logging.getLogger("pymorphy3").setLevel(logging.INFO if verbose else logging.WARNING)


def add_game_argument(p: argparse.ArgumentParser, *, many: bool = False) -> None:
    """GAME; ``many``: the command also takes a folder of game folders (CONTRACT "Many
    games")."""
    p.add_argument("game", metavar="GAME",
                   help="the game folder (holding game.toml) or the file"
                        + (", or a folder of game folders (every game under it)" if many
                           else ""))


def print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))
