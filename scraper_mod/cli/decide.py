"""`scraper-mod decide GAME vote POST_ID NICK|none --why TEXT`, `decide GAME kill NICK [--at
TIME] --why TEXT`, `decide GAME list`, `decide GAME undo K` (RULES R11).

A decided post reads as the host said (``none``: no vote, the voter's previous vote stands);
a removed player dies at the instant (his vote and moves stop counting, moves at him do
nothing, the next newspaper reveals his role). Every decision is numbered, listed with its
time and reason, and can be taken back; each resolves the resolved days it touches again.
"""

from __future__ import annotations

import argparse

from .common import SubParsers, add_game_argument, parse_time_arg, print_json
from .replace import _print_effects


def register(sub: SubParsers) -> None:
    p = sub.add_parser("decide", help="the host's decisions (R11): how a post reads, removing "
                                      "a player; list them, take one back",
        description="The host's decisions (R11): how a post reads, removing a player; list them, "
                    "take one back.")
    add_game_argument(p)      # CONTRACT: `decide GAME ACTION ...`
    dsub = p.add_subparsers(dest="decide_command", metavar="ACTION", required=True,
                            help="vote, kill, list or undo")

    v = dsub.add_parser("vote", help="read post POST_ID as a vote for NICK, or as no vote: "
                                     "scraper-mod decide GAME vote POST_ID NICK|none --why TEXT",
        description="Read post POST_ID as a vote for NICK, or as no vote: scraper-mod decide GAME "
                    "vote POST_ID NICK|none --why TEXT.")
    v.add_argument("post_id", metavar="POST_ID", type=int, help="the post's id (?p=ID)")
    v.add_argument("nick", metavar="NICK|none", help="the player it votes for, or 'none'")
    v.add_argument("--why", metavar="TEXT", required=True, help="the reason (host report)")
    v.set_defaults(func=run_vote)

    k = dsub.add_parser("kill", help="remove NICK from the game at TIME ('убит ведущим'): "
                                     "scraper-mod decide GAME kill NICK [--at TIME] --why TEXT",
        description="Remove NICK from the game at TIME ('убит ведущим'): scraper-mod decide GAME "
                    "kill NICK [--at TIME] --why TEXT.")
    k.add_argument("nick", metavar="NICK", help="the player removed")
    k.add_argument("--at", metavar="TIME",
                   help="from when (ISO 8601; game time when it has no offset; default: now)")
    k.add_argument("--why", metavar="TEXT", required=True, help="the reason (host report)")
    k.set_defaults(func=run_kill)

    ls = dsub.add_parser("list", help="every decision and replacement: number, kind, time, "
                                     "reason, in force or undone",
        description="Every decision and replacement: number, kind, time, reason, in force or "
                    "undone.")
    ls.add_argument("--format", choices=("text", "json"), default="text",
                    help="text (default) or json")
    ls.set_defaults(func=run_list)

    u = dsub.add_parser("undo", help="take decision K back: scraper-mod decide GAME undo K",
        description="Take decision K back: scraper-mod decide GAME undo K.")
    u.add_argument("k", metavar="K", type=int, help="the decision's number (see 'list')")
    u.set_defaults(func=run_undo)


def _run(args: argparse.Namespace, call) -> int:
    from ..game.context import open_game
    with open_game(args.game) as ctx:
        done = call(ctx)
        print(f"{done.k}: {done.summary}")
        _print_effects(done)
    return 0


def run_vote(args: argparse.Namespace) -> int:
    from scraper_mod.game.roster.host import decide_vote
    nick = None if args.nick.strip().lower() in ("none", "-") else args.nick
    return _run(args, lambda ctx: decide_vote(ctx, args.post_id, nick, why=args.why))


def run_kill(args: argparse.Namespace) -> int:
    from scraper_mod.game.roster.host import decide_kill

    def call(ctx):
        at = parse_time_arg(args.at, ctx.game.timezone) if args.at else None
        return decide_kill(ctx, args.nick, at=at, why=args.why)
    return _run(args, call)


def run_undo(args: argparse.Namespace) -> int:
    from scraper_mod.game.roster.host import undo_decision
    return _run(args, lambda ctx: undo_decision(ctx, args.k))


def run_list(args: argparse.Namespace) -> int:
    from scraper_mod.game.roster.host import list_decisions

    from ..game.context import open_game
    with open_game(args.game) as ctx:
        tz = ctx.game.timezone
        rows = list_decisions(ctx)
        t = lambda x: x.astimezone(tz).isoformat(timespec="seconds") if x else None  # noqa: E731
        if args.format == "json":
            print_json([{"k": d.k, "kind": d.kind, "at": t(d.at), "made_at": t(d.made_at),
                         "player": d.nick, "new": d.new, "post_id": d.post_id, "why": d.why,
                         "in_force": d.in_force, "undone_at": t(d.undone_at)} for d in rows])
            return 0
        if not rows:
            print("no decisions")
        for d in rows:
            print(f"{d.k:>3}  {d.kind:7}  {t(d.at) or t(d.made_at)}  {_what(d)}  "
                  f"{'in force' if d.in_force else f'undone {t(d.undone_at)}'}"
                  + (f"  why: {d.why}" if d.why else ""))
    return 0


def _what(d) -> str:
    if d.kind == "replace":
        return f"{d.new} replaces {d.nick}"
    if d.kind == "vote":
        return f"post {d.post_id}: " + (f"a vote for {d.new}" if d.new else "no vote")
    return f"{d.nick} removed"
