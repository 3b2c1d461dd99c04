"""`scraper-mod moves GAME [--day N] [--format text|json] [--offline]`: the night moves
received for a day and how each was judged (docs/rules.md R5), after reading the move source
(unless ``--offline``). New messages get their answers written to the outbox (and sent when
``[moves] smtp_host`` is set)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from ..errors import MailboxError
from ..game.context import open_game
from ..game.russian import russian_error
from .common import SubParsers, add_game_argument, print_json

if TYPE_CHECKING:
    from ..rules.model import Move


def register(sub: SubParsers) -> None:
    p = sub.add_parser(
        "moves", help="the night moves received for a day and how each was judged",
        description="Reads the move source (unless --offline), answers new messages, and "
                    "shows every night move of the day with its status: counted, replaced, "
                    "late, invalid or unknown_sender.")
    add_game_argument(p)
    p.add_argument("--day", type=int, metavar="N",
                   help="the game day (default: the current day)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="output format (default: text)")
    p.add_argument("--offline", action="store_true",
                   help="do not read the move source; judge what is stored")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from scraper_mod.game.day.tally import current_day
    from scraper_mod.game.night.intake import day_moves, poll_moves
    from scraper_mod.game.night.nightmoves import moves_json
    with open_game(args.game) as ctx:
        status = 0
        ru = ctx.game.language == "ru"     # issue 39: Russian only where a Russian line exists
        if not args.offline and ctx.game.moves.source:
            try:
                report = poll_moves(ctx)
                for e in (*report.fetch.errors, *report.errors):
                    # a message's own reason (its size, its sender...) has no Russian line
                    # yet: kept, as the command line keeps such errors (game/russian.py)
                    ru_line = getattr(e, "ru", None) if ru else None
                    print(f"предупреждение: {ru_line}" if ru_line else f"warning: {e}",
                          file=sys.stderr)
            except MailboxError as e:
                # what is stored still shows; the exit status tells the script
                line = russian_error(e) if ru else None
                print(f"ошибка: {line}" if line else f"error: {e}", file=sys.stderr)
                status = 1
        cal = ctx.calendar()
        day = args.day if args.day is not None else current_day(ctx, ctx.now())
        if day < 1:
            from ..errors import ConfigError
            raise ConfigError(f"--day: no day {day}", hint="days are numbered from 1",
                              ru=f"--day: дня {day} нет (дни нумеруются с 1)")
        moves = day_moves(ctx, day)
        if args.format == "json":
            print_json(moves_json(ctx, day, moves))
        else:
            # where each message came from (a file name, an IMAP UID), to find a bad one
            origins = {m.id: f"{m.source} {m.key}" for m in ctx.store.messages()}
            print(render_moves_text(day, cal.deadline(day), moves, ctx.game.timezone, origins))
        return status


def render_moves_text(day: int, deadline: datetime, moves: Sequence[Move], tz: tzinfo,
                      origins: dict | None = None) -> str:
    """A plain table: received, player, role, move, target, status, reason; an unreadable
    message also names where it came from (``origins``: stored message id -> source and key)."""
    from ..rules.moves import REASONS
    lines = [f"Day {day}: night moves (deadline {deadline.astimezone(tz):%Y-%m-%d %H:%M %Z})"]
    if not moves:
        lines.append("  no moves received")
    rows = [("received", "player", "role", "move", "target", "status", "reason")]
    for m in moves:
        rows.append((m.received_at.astimezone(tz).strftime("%m-%d %H:%M:%S"), m.player,
                     m.role.value if m.role else "-", m.kind.value if m.kind else "-",
                     m.target or "-", m.status, (REASONS.get(m.reason, m.reason) if m.reason
                                                 else "")
                     + (f" ({origins[m.message_id]})" if m.reason == "unreadable"
                        and origins and m.message_id in origins else "")))
    if moves:
        widths = [max(len(r[i]) for r in rows) for i in range(6)]
        for r in rows:
            lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(r[:6], widths))
                         + ("  " + r[6] if r[6] else ""))
    seen: set[int | None] = set()
    for m in moves:
        if m.story and m.message_id not in seen:
            seen.add(m.message_id)
            story = m.story.replace("\n", "\n    ")
            lines.append(f"  story from {m.player} ({m.status}):\n    {story}")
    return "\n".join(lines)
