"""`scraper-mod record GAME`: write the record of a finished game (docs/memory.md) into its
folder, ``record.json``; ``run`` writes it itself when a game ends. For an older game whose
folder holds only the host's ``record.toml``, the file is checked and the same record is
written from it. Nothing is written when the game has no winner or the file has a mistake.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import SubParsers


def register(sub: SubParsers) -> None:
    p = sub.add_parser("record", help="write a finished game's record (record.json), or an "
                                      "older game's from its record.toml",
                       description="Write the record of a finished game into its folder "
                                   "(record.json): the players of each slot, roles, votes, "
                                   "deaths and the winner. A folder holding only record.toml "
                                   "(an older game the host wrote down) is checked and gives "
                                   "the same record.")
    p.add_argument("game", metavar="GAME",
                   help="the game folder (holding game.toml, or record.toml for an older "
                        "game)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..game.history.oldgame import OLD_FILE, load_old_game
    from ..game.history.record import build_record, write_record
    target = Path(args.game)
    folder = target if target.is_dir() else target.parent
    if target.name == OLD_FILE or (folder / OLD_FILE).is_file() and not (
            folder / "game.toml").is_file():
        record = load_old_game(folder / OLD_FILE)
    else:
        from ..game.context import open_game
        ctx = open_game(args.game, readonly=True)
        try:
            record = build_record(ctx)
            folder = ctx.game.folder
        finally:
            ctx.close()
    path = write_record(folder, record)
    print(f"{path}: {record['title']}, {len(record['players'])} players, "
          f"{record['winner']} won on day {record['decided_day']}")
    return 0
