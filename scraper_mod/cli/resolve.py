"""`scraper-mod resolve GAME [--day N] [--format text|json] [--force] [--offline] [--preview]`

Resolves a day whose deadline has passed (RULES R6) and writes its posts under
``out/day-N/`` (R9): the newspaper, the start-of-day post, the private messages, the host
report and ``result.json``.
"""

from __future__ import annotations

import argparse

from scraper_mod.game.results.resolve import ResolveOutcome, default_day, resolve_day_files

from ..game.context import GameContext, open_game
from .common import SubParsers, add_game_argument, print_json


def register(sub: SubParsers) -> None:
    p = sub.add_parser(
        "resolve", help="resolve a day whose deadline has passed and write its posts",
        description="Resolves a game day by the rules (the lynch, then the night: freeze, "
                    "heals, kills, the check, the Sergeant's promotion, victory) after a "
                    "final full re-scan of the day's topic and a last read of the move "
                    "source, records it, and writes out/day-N/: newspaper.bbcode, "
                    "day-{N+1}-start.bbcode (the next day's start; also as day-start.bbcode "
                    "for a while), pm/<nick>.txt, host-report.txt and result.json. "
                    "Running it again gives the same bytes; resolving an earlier day again "
                    "rewrites the later resolved days from it.")
    add_game_argument(p)
    p.add_argument("--day", type=int, metavar="N",
                   help="the day to resolve (default: the first day whose deadline has "
                        "passed and that is not resolved yet, else the last resolved day)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="what to print: a summary (text) or the result as JSON")
    p.add_argument("--force", action="store_true",
                   help="resolve even though the day's deadline has not passed yet, or "
                        "(with --offline) its topic was never read")
    p.add_argument("--offline", action="store_true",
                   help="use only what is stored: no final re-scan of the topic, no last "
                        "read of the move source")
    p.add_argument("--preview", action="store_true",
                   help="also write out/day-N/preview/*.html: each post as phpBB shows it")
    p.set_defaults(func=run)


def choose_day(ctx: GameContext, *, force: bool = False) -> int:
    """The first due day not resolved yet; once every due day is, the last resolved one.
    With ``force`` and no due day unresolved, the day running now (to resolve it early)."""
    resolved = ctx.store.resolutions()
    if force:
        running = max(1, ctx.calendar().day_at(ctx.now()))
        due = ctx.calendar().last_due_day(ctx.now())
        if all(d in resolved for d in range(1, due + 1)) and running not in resolved:
            return running
    last_due = default_day(ctx)
    for day in range(1, last_due + 1):
        if day not in resolved:
            return day
        if resolved[day].get("winner"):
            return day
    return last_due


def run(args: argparse.Namespace) -> int:
    with open_game(args.game) as ctx:
        day = args.day if args.day is not None else choose_day(ctx, force=args.force)
        out = resolve_day_files(ctx, day, force=args.force, offline=args.offline,
                                preview=args.preview)
    if args.format == "json":
        print_json(out.result.to_json())
    else:
        print(summary(out))
    return 0


def summary(out: ResolveOutcome) -> str:
    """A few lines for the host: what happened and what was written where."""
    r = out.result
    lines = [f"day {out.day} resolved"]
    if r.lynched:
        lines.append(f"  jailed: {r.lynched.player} ({r.lynched.role.value}, by {r.lynched.by})")
    else:
        lines.append("  jailed: nobody")
    for x in r.replacements:        # R10
        lines.append(f"  replaced: {x.old} -> {x.new} from {x.at.isoformat()}")
    for k in r.host_kills:          # R11.2
        lines.append(f"  removed by the host: {k.player} ({k.role.value}) at {k.at.isoformat()}")
    if r.killed:
        lines.append("  killed: " + ", ".join(f"{d.player} ({d.role.value}, by {d.by})"
                                              for d in r.killed))
    else:
        lines.append("  killed: nobody")
    if r.saved:
        lines.append("  the Doctor saved someone")
    if r.frozen:
        lines.append(f"  frozen: {r.frozen}")
    if r.promoted:
        lines.append(f"  promoted to Commissar: {r.promoted}")
    if r.winner:
        lines.append(f"  the game is over: {r.winner} wins")
    lines.append(f"  alive ({len(r.alive)}): {', '.join(r.alive)}")
    pms = [f for f in out.files if f.startswith("pm/")]
    posts = [f for f in out.files if not f.startswith(("pm/", "preview/"))]
    lines.append(f"wrote {out.out_dir}/: {', '.join(posts)}"
                 + (f", {len(pms)} private message(s) in pm/" if pms else ""))
    if any(f.startswith("preview/") for f in out.files):
        lines.append(f"preview: {out.out_dir / 'preview' / 'newspaper.html'}")
    if out.rewritten:
        lines.append("rewrote the later days from this one: "
                     + ", ".join(str(d) for d in out.rewritten))
    if out.withdrawn:
        lines.append("the game now ends on this day; withdrew the later days: "
                     + ", ".join(str(d) for d in out.withdrawn))
    return "\n".join(lines)

