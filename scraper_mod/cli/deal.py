"""`scraper-mod deal GAME`: deal the roles and the random list, write the role cards.

Draws (with ``secrets``) the roles the game file leaves out (R4), the duty mafioso if the file
names none (R4.1), and the random list with a secret salt (R3.1, unless the file gives
``random_list``); prints the list's SHA-256 commitment for the host to publish; writes one
role card per player to ``out/role-cards/<nick>.txt`` (R9.3) and the secret list with its salt
to ``out/random-list.secret.txt`` (published at the end of the game, so players can check the
commitment). The deal is stored in the state file (kv ``"deal"``); a second deal is refused
unless ``--force``, and refused even then once a day has been resolved.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from random import Random
from typing import TYPE_CHECKING

from ..errors import ConfigError, RulesError, ScraperModError
from ..game.context import open_game
from ..game.setup import setup_problems
from ..posts.dayfolder import write_atomic
from ..posts.render import render_text
from ..rules.deal import (
    choose_duty,
    deal_roles,
    effective_duty,
    effective_players,
    effective_random_list,
    role_card,
    safe_filename,
)
from ..rules.randomlist import commitment, commitment_text, draw_random_list, new_salt
from .common import SubParsers, add_game_argument

if TYPE_CHECKING:
    from ..game.config import Game

__all__ = ["register", "run", "make_deal", "effective_players", "effective_random_list",
           "effective_duty", "write_atomic"]


def register(sub: SubParsers) -> None:
    p = sub.add_parser(
        "deal", help="deal the roles and the random list, write the role cards",
        description="Draws the roles the game file leaves out and the host's random list "
                    "(cryptographic randomness), prints the list's SHA-256 commitment to "
                    "publish, and writes one role card per player under out/role-cards/.")
    add_game_argument(p)
    p.add_argument("--force", action="store_true",
                   help="deal again although a deal is stored (only before day 1 is resolved)")
    p.set_defaults(func=run)


def make_deal(game: Game, *, rng: Random | None = None, salt: str | None = None) -> dict:
    """The deal as stored under kv ``"deal"``: roles (all players), drawn (nicks whose role
    was drawn), duty, random_list, salt, commitment. ``rng`` defaults to secrets."""
    roles = deal_roles(game.players, game.deal or None, duty=game.duty, rng=rng)
    duty = game.duty or choose_duty(roles, rng=rng)
    if game.random_list:
        order = list(game.random_list)
    else:
        order = draw_random_list([p.nick for p in game.players], rng=rng)
    salt = salt or new_salt()
    return {
        "roles": {n: r.value for n, r in roles.items()},
        "drawn": [p.nick for p in game.players if p.role is None],
        "duty": duty,
        "random_list": order,
        "salt": salt,
        "commitment": commitment(order, salt),
    }


def write_role_cards(game: Game, deal: dict) -> list[Path]:
    """R9.3: one card per player under ``out/role-cards/``; returns the paths written."""
    from ..rules.model import Role
    roles = {n: Role(r) for n, r in deal["roles"].items()}
    folder = game.out_dir / "role-cards"
    written = []
    for p in game.players:
        card = role_card(p.nick, roles, duty=deal["duty"], code=p.code, title=game.title)
        text = render_text("role-card", game.language, "txt", **card)
        path = folder / f"{safe_filename(p.nick)}.txt"
        write_atomic(path, text)
        written.append(path)
    return written


def _secret_list_text(game, deal: dict) -> str:
    return (
        f"{game.title}: the host's random list (RULES R3). SECRET until the game ends.\n"
        f"Commitment (SHA-256), published at the start: {deal['commitment']}\n"
        "At the end publish the text between the lines; its SHA-256 (UTF-8, as is, with the\n"
        "final line feed) is the commitment:\n"
        "-----\n"
        f"{commitment_text(deal['random_list'], deal['salt'])}"
        "-----\n")


def run(args: argparse.Namespace) -> int:
    ctx = open_game(args.game)
    try:
        game, store = ctx.game, ctx.store
        old = store.get("deal")
        if old is not None:
            if not args.force:
                raise ScraperModError(
                    f"{game.path}: the roles were already dealt "
                    f"(commitment {old.get('commitment', '?')})",
                    hint="use --force to deal again before the game starts")
            if store.resolutions():
                raise ScraperModError(
                    f"{game.path}: day {min(store.resolutions())} is already resolved; "
                    "dealing again would change roles mid-game")
        if not game.players:
            raise ConfigError("no [[players]] to deal to", path=str(game.path), key="players")
        try:
            deal = make_deal(game)
        except RulesError as e:  # a setup that cannot be dealt: the host fixes game.toml
            raise ConfigError(e.message, path=str(game.path), hint=e.hint) from None
        deal["dealt_at"] = ctx.now().isoformat()
        # Cards first, then the store: a failed write leaves no half-recorded deal.
        cards = write_role_cards(game, deal)
        write_atomic(game.out_dir / "random-list.secret.txt", _secret_list_text(game, deal))
        store.put("deal", deal)
        store.log_event("deal", {"commitment": deal["commitment"], "drawn": deal["drawn"],
                                 "forced": bool(old)}, at=ctx.now())
        players = effective_players(game, deal)
        print(f"dealt {len(players)} roles ({len(deal['drawn'])} drawn); duty mafioso: "
              f"{deal['duty']}")
        print(f"random list commitment (SHA-256): {deal['commitment']}")
        print("publish the commitment now; the list and its salt are in "
              f"{game.out_dir / 'random-list.secret.txt'} (publish them when the game ends)")
        print(f"role cards: {len(cards)} in {game.out_dir / 'role-cards'}")
        for problem in setup_problems(ctx):
            print(f"warning: {problem}", file=sys.stderr)
        return 0
    finally:
        ctx.close()
