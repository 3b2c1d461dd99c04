"""The Judge's pardon as a count knows it (R14.1 (1)): the final count says what ``resolve``
says once the pardon is known, and before the deadline the count is the count."""

from __future__ import annotations

from scraper_mod.errors import ScraperModError
from scraper_mod.game.context import GameContext
from scraper_mod.game.night.intake import day_orders, state_before_day
from scraper_mod.game.roster.slotbook import resolve_view
from scraper_mod.rules.deal import effective_players
from scraper_mod.rules.model import MoveKind
from scraper_mod.rules.night import resolve_day
from scraper_mod.rules.roles import CATALOGUE
from scraper_mod.rules.tally import Lynch


def pardon_spares(ctx: GameContext, day: int, lynch: Lynch | None) -> str | None:
    """R14.1 (1): whom the Judge's pardon spares on day ``day`` (the count's lynch), once
    the pardon is known, so the final count says what ``resolve`` says (nobody jailed).

    Known means: the day's stored resolution says ``pardoned``; or, the deadline passed and
    the day not resolved yet, the Judge's pardon is among the day's stored moves and the
    rules let it stand (not frozen, alive, once a game: ``rules.night.resolve_day`` judges it
    exactly as ``resolve`` will). Before the deadline a pardon is a secret move and the count
    is the count. Without a Judge dealt: None, nothing read."""
    if lynch is None:
        return None
    stored = ctx.store.resolution(day)
    if isinstance(stored, dict):
        result = stored.get("result", stored)
        return lynch.player if isinstance(result, dict) and result.get("pardoned") else None
    players = effective_players(ctx.game, ctx.store.get("deal"))
    if not any(p.role is not None and any(m.kind is MoveKind.PARDON
                                           for m in CATALOGUE[p.role].moves)
               for p in players):
        return None

    try:
        before = resolve_view(ctx, state_before_day(ctx, day), day=day,
                              cutoff=ctx.calendar().deadline(day))[0]
        if lynch.player not in before.alive:
            return None
        orders = day_orders(ctx, day, state=before)
        result, _ = resolve_day(day, before, lynch, orders, ctx.game.rules)
    except ScraperModError:      # the count never refuses: the resolution will say why
        return None
    return result.spared
