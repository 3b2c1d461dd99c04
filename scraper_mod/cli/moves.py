"""`scraper-mod moves` (placeholder until its issue lands)."""

from __future__ import annotations

from ..errors import ScraperModError


def register(sub) -> None:
    p = sub.add_parser("moves", help="(not built yet)")
    p.set_defaults(func=run)


def run(args) -> int:
    raise ScraperModError("'moves' is not built yet")
