"""`scraper-mod signup GAME [URL] [--players N] [--close TIME] [--write] [--format text|json]`
(issue 29, docs/signup.md): the sign-up topic read whole, the players, the reserve, the
withdrawn and the late, ``out/signup.bbcode``; ``--write`` puts them into game.toml; on
autopilot (``[publish] mode = "auto"``) the list is posted in the sign-up topic, edited in
place as it changes, never posted twice.
"""

from __future__ import annotations

import argparse

from .common import SubParsers, add_game_argument, parse_time_arg, print_json


def register(sub: SubParsers) -> None:
    p = sub.add_parser("signup", help="read the sign-up topic: the players, the reserve, "
                                      "the withdrawn and the late",
                       description="Reads every page of the sign-up topic: a post whose own "
                                   "words are (or hold on a line of their own) a sign-up mark "
                                   "signs its author up, a withdrawal mark takes him off; the "
                                   "first N by the time of the sign-up that stands play, the "
                                   "rest is the reserve. The host's posts never count.")
    add_game_argument(p)
    p.add_argument("url", metavar="URL", nargs="?",
                   help="the sign-up topic (default: [signup] topic)")
    p.add_argument("--players", type=int, metavar="N",
                   help="how many play (default: [signup] players)")
    p.add_argument("--close", metavar="TIME",
                   help="sign-ups after this are late (ISO 8601; game time when it has no "
                        "offset; default: [signup] close)")
    p.add_argument("--late-to-reserve", action="store_true", default=None,
                   help="put late sign-ups at the end of the reserve")
    p.add_argument("--write", action="store_true",
                   help="write the players and the reserve into game.toml")
    p.add_argument("--force", action="store_true",
                   help="with --write: change the players even after `deal`")
    p.add_argument("--skip", metavar="NICK", action="append", default=[],
                   help="with --write: leave this board user out (repeatable)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (default) or the JSON of docs/signup.md")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from scraper_mod.game.publishing.publish import Item, publish_items
    from scraper_mod.game.setup.signup import read_signups, write_players

    from ..errors import ScraperModError
    from ..game.context import open_game

    with open_game(args.game) as ctx:
        if args.players is not None and args.players < 1:
            raise ScraperModError(f"--players must be at least 1, not {args.players}")
        close = parse_time_arg(args.close, ctx.game.timezone) if args.close else None
        read = read_signups(ctx, args.url, players=args.players, close=close,
                            late_to_reserve=args.late_to_reserve)
        written = (write_players(ctx, read, force=args.force, skip=tuple(args.skip))
                   if args.write else [])
        outcomes = []
        if ctx.game.publish.mode == "auto":
            text = read.bbcode.read_text(encoding="utf-8")
            outcomes = publish_items(ctx, [Item(0, "signup", "signup", read.topic, text,
                                                source=str(read.bbcode))])
    res = read.result
    if args.format == "json":
        print_json(res.to_json())
    else:
        _print_text(read, written, outcomes)
    return 1 if any(o.status == "failed" for o in outcomes) else 0


def _print_text(read, written, outcomes) -> None:
    res = read.result
    print(f"sign-up topic {read.topic}: {read.poll.summary()}")
    print(f"players ({len(res.players)}): " + ", ".join(res.players))
    for name, nicks in (("reserve", res.reserve), ("withdrawn", res.withdrawn),
                        ("late", res.late)):
        print(f"{name} ({len(nicks)}): " + (", ".join(nicks) or "-"))
    for note in res.ignored:
        print(f"ignored post {note.post}: {note.why}")
    for note in res.warnings:
        print(f"warning (post {note.post}): {note.why}")
    for note in res.unclear:
        print(f"to decide (post {note.post}): {note.why}")
    print(f"list: {read.bbcode}")
    for line in written:
        print(f"game.toml: {line}")
    for o in outcomes:
        print(f"board: {o.status} {o.kind} {o.url or o.to}"
              + (f" (error: {o.error})" if o.error else ""))
