"""`scraper-mod resolve` (placeholder until its issue lands)."""

from __future__ import annotations

from ..errors import ScraperModError


def register(sub) -> None:
    p = sub.add_parser("resolve", help="(not built yet)")
    p.set_defaults(func=run)


def run(args) -> int:
    raise ScraperModError("'resolve' is not built yet")
