"""`scraper-mod stats FOLDER`: the forum's memory (docs/memory.md) over every game record
under FOLDER (the finished games' record.json and the host's record.toml of older games): per
player games, wins, sides, roles, days survived, votes on mafiosi and a team rating; per role
and per setup how often each side won. Text, JSON, or a BBCode post for the board.
"""

from __future__ import annotations

import argparse
from collections import Counter

from .common import SubParsers, print_json


def register(sub: SubParsers) -> None:
    p = sub.add_parser("stats", help="the forum's statistics and ratings over every game "
                                     "record under a folder",
                       description="Statistics and team ratings over every game record under "
                                   "FOLDER (record.json of finished games, record.toml of "
                                   "older ones); FOLDER/stats.toml's [aliases] joins a "
                                   "player's nicks.")
    p.add_argument("folder", metavar="FOLDER",
                   help="the folder holding the games' folders (searched below it)")
    p.add_argument("--format", choices=("text", "json", "bbcode"), default="text",
                   help="text (default), json, or bbcode: a post for the board")
    p.add_argument("--since", metavar="DATE",
                   help="only the games that started on or after DATE (YYYY-MM-DD)")
    p.add_argument("--lang", choices=("ru", "en"),
                   help="the language of text and bbcode (default: the games' language)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from datetime import date

    from ..errors import ConfigError
    from ..game.history.stats import forum_stats, load_aliases, load_records
    from ..game.history.statstext import stats_bbcode, stats_text
    since = None
    if args.since:
        try:
            since = date.fromisoformat(args.since)
        except ValueError:
            raise ConfigError(f"--since {args.since!r} is not a date",
                              hint="write it as YYYY-MM-DD, e.g. --since 2024-01-01") from None
    records = load_records(args.folder)
    stats = forum_stats(records, load_aliases(args.folder), since=since)
    if args.format == "json":
        print_json(stats.to_json())
        return 0
    langs = Counter(str(r.get("language", "ru")) for r in records)
    lang = args.lang or (langs.most_common(1)[0][0] if langs else "ru")
    print(stats_bbcode(stats, lang) if args.format == "bbcode" else stats_text(stats, lang),
          end="")
    return 0
