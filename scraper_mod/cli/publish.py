"""`scraper-mod publish GAME`: post what out/day-N/ holds and the board does not have yet.

The newspaper in the results topic, the next day's start (a new day topic or a reply), the PMs
of R9.3, the lock of the day's topic; `--role-cards` sends the role cards of `deal`. A second
run posts nothing (RULES R12.2). `--dry-run` prints exactly what would go where.
"""

from __future__ import annotations

import argparse

from scraper_mod.game.day import daytime
from scraper_mod.game.publishing.publish import (
    check_mode,
    day_to_publish,
    plan_day,
    plan_role_cards,
    publish_day,
    publish_items,
)

from ..game.context import open_game
from .common import SubParsers, add_game_argument, print_json


def register(sub: SubParsers) -> None:
    p = sub.add_parser("publish", help="post the newspaper, the next day's start and the PMs "
                                       "on the board (what it does not have yet)",
        description="Post the newspaper, the next day's start and the PMs on the board (what it "
                    "does not have yet).")
    add_game_argument(p)
    p.add_argument("--day", type=int, help="the day to publish (default: the last resolved)")
    p.add_argument("--role-cards", action="store_true",
                   help="send the role cards of `deal` as private messages")
    p.add_argument("--dry-run", action="store_true",
                   help="print what would be posted where; post nothing")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (default) or json (CONTRACT \"Posting on the board\")")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    day: int | None
    with open_game(args.game) as ctx:
        if args.role_cards:
            day, items = 0, plan_role_cards(ctx)
        elif args.dry_run and args.day is None and not ctx.store.resolutions():
            day, items = None, []       # nothing resolved yet: only what the day has planned
        else:
            day = day_to_publish(ctx, args.day)
            items = plan_day(ctx, day)
        if args.dry_run:
            ahead = [] if args.role_cards else daytime.chores_ahead(
                ctx, max(ctx.store.resolved_days(), default=0) + 1)
            if args.format == "json":
                print_json({"day": day, "posted": [
                    {"kind": i.kind, "to": i.to, "subject": i.subject or None, "text": i.text}
                    for i in items], "scheduled": ahead})
            else:
                for i in items:
                    print(f"=== {i.kind} -> {i.to}" + (f" [{i.subject}]" if i.subject else ""))
                    if i.text:
                        print(i.text.rstrip("\n"))
                for c in ahead:
                    if not c["done"]:
                        print(f"=== scheduled: {c['kind']} at {c['at']}")
            return 0
        check_mode(ctx)
        outcomes = (publish_items(ctx, items) if day is None or args.role_cards
                    else publish_day(ctx, day))
    if args.format == "json":
        print_json({"day": day, "posted": [o.to_json() for o in outcomes]})
    else:
        for o in outcomes:
            print(f"{o.status:8} {o.kind:10} {o.to}" + (f"  {o.url}" if o.url else "")
                  + (f"\n  error: {o.error}" if o.error else ""))
    return 1 if any(o.status == "failed" for o in outcomes) else 0
