"""`scraper-mod poll` (placeholder until its issue lands)."""

from __future__ import annotations

from ..errors import ScraperModError


def register(sub) -> None:
    p = sub.add_parser("poll", help="(not built yet)")
    p.set_defaults(func=run)


def run(args) -> int:
    raise ScraperModError("'poll' is not built yet")
