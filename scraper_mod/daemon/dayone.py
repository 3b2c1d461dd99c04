"""Day 1's topic opened by the autopilot at the game's start (issue 29).

Each later day's topic is opened by ``publish`` from the day before's ``day-start.bbcode``;
day 1 has no day before. On autopilot (``[publish] mode = "auto"``, ``day_topic = "open"``,
``[forum] forum`` set), once day 1 has started and no topic is known or found in the forum
by its title, the daemon opens it with ``out/day-1-start.bbcode`` (the players and the
deadline), through the publication journal: never twice, looked for on the board after a
crash, a failure retried later.
"""

from __future__ import annotations

from scraper_mod.game.publishing.publish import (
    AUTO_RETRY_SECONDS,
    Item,
    publish_items,
    vote_topic_item,
)
from scraper_mod.game.results.wording import Formatter
from scraper_mod.game.setup.deal import move_help

from ..forum.engine import Board
from ..game.context import GameContext
from ..posts.dayfolder import write_atomic
from ..posts.render import render_text
from ..rules.model import Role

DAY_ONE_FILE = "day-1-start.bbcode"


def day_one_text(ctx: GameContext) -> str:
    """The post that opens day 1: who plays (in the game file's order, the sign-up's: never
    the host's secret random list), the deadline, and how to send night moves (R14.3)."""
    g = ctx.game
    players = [p.nick for p in g.players]
    deadline = ctx.calendar().deadline(1)
    dealt = (ctx.store.get("deal") or {}).get("roles") or {}
    roles = [Role(r) for r in dealt.values()] or [p.role for p in g.players if p.role]
    text = render_text("day-one", g.language, "bbcode", title=g.title, players=players,
                       deadline=deadline, fmt=Formatter(g.language, g.timezone),
                       howto=move_help(g, roles), howto_until=deadline)
    return "\n".join(ln.rstrip() for ln in text.split("\n")).strip("\n") + "\n"


def open_day_one(ctx: GameContext, board: Board) -> str | None:
    """Day 1's topic URL once opened (see the module), else None (not on autopilot, day 1
    not started, or the post failed: said in the log, tried again later)."""
    g, pub = ctx.game, ctx.game.publish
    if ctx.topic_for_day(1):
        return ctx.topic_for_day(1)
    if pub.mode != "auto" or pub.day_topic != "open" or not g.forum.forum:
        return None
    if ctx.now() < ctx.calendar().day_start(1):
        return None
    path = g.out_dir / DAY_ONE_FILE
    if not path.exists():
        write_atomic(path, day_one_text(ctx))
    item = Item(0, "day-topic", "day-1", g.forum.forum, path.read_text(encoding="utf-8"),
                subject=pub.title_template.format(title=g.title, day=1), source=str(path))
    items = [item]
    if pub.vote_title_template and not ctx.vote_topic_for_day(1):   # R2.17: the voting topic
        items.append(vote_topic_item(ctx, 1, after=0))
    publish_items(ctx, items, board=board, retry_after=AUTO_RETRY_SECONDS)
    return ctx.topic_for_day(1)
