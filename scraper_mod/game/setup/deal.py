"""Dealing a game (R4, R3.1, R9.3): the roles and the random list drawn, the role cards and the
secret list written, the deal stored. ``scraper-mod deal`` and the built-in demo both call
``deal_game``.

Draws (with ``secrets``) the roles the game file leaves out (R4), the duty mafioso if the file
names none (R4.1), and the random list with a secret salt (R3.1, unless the file gives
``random_list``); writes one role card per player to ``out/role-cards/<nick>.txt`` (R9.3) and
the secret list with its salt to ``out/random-list.secret.txt`` (published at the end of the
game, so players can check the commitment). The deal is stored in the state file (kv
``"deal"``); a second deal is refused unless ``force``, and refused even then once a day has
been resolved.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from random import Random

from scraper_mod.errors import ConfigError, RulesError, ScraperModError
from scraper_mod.game.context import GameContext
from scraper_mod.game.results.wording import Formatter
from scraper_mod.game.setup.config import Game
from scraper_mod.posts.dayfolder import write_atomic
from scraper_mod.posts.render import render_text
from scraper_mod.rules.deal import (
    choose_duty,
    deal_roles,
    effective_players,
    moves_howto,
    role_card,
    safe_filename,
)
from scraper_mod.rules.model import Role
from scraper_mod.rules.randomlist import commitment, commitment_text, draw_random_list, new_salt

__all__ = ["make_deal", "write_role_cards", "deal_game", "deal_lines", "move_help", "move_route"]


def make_deal(game: Game, *, rng: Random | None = None, salt: str | None = None) -> dict:
    """The deal as stored under kv ``"deal"``: roles (all players), drawn (nicks whose role
    was drawn), duty, random_list, salt, commitment. ``rng`` defaults to secrets."""
    roles = deal_roles(game.players, game.deal or None, duty=game.duty, rng=rng,
                       setup=game.roles.counts)
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
    roles = {n: Role(r) for n, r in deal["roles"].items()}
    folder = game.out_dir / "role-cards"
    written = []
    how = move_route(game)
    for p in game.players:
        card = role_card(p.nick, roles, duty=deal["duty"], code=p.code, title=game.title,
                         how=how)
        text = render_text("role-card", game.language, "txt", **card)
        path = folder / f"{safe_filename(p.nick)}.txt"
        write_atomic(path, text)
        written.append(path)
    return written


def move_route(game: Game) -> dict:
    """R14.3 / issue 37: where a player sends his night move (the host's forum account for
    forum PMs, the host's mail address for mail) and by when (the deadline in game time)."""
    source = game.moves.source or ""
    if source in ("forum_pm", "phpbb_pm"):
        via, to = "pm", game.forum.username or game.host or ""
    elif source in ("maildir", "imap"):
        via, to = "mail", game.moves.smtp_from or game.moves.username or ""
    else:
        via, to = "", ""
    at = datetime.combine(game.start, game.deadline, tzinfo=game.timezone)
    fmt = Formatter(game.language, game.timezone)
    return {"via": via if to else "", "to": to,
            "deadline": f"{game.deadline:%H:%M} {fmt.zone(at)}"}


def move_help(game: Game, roles: Iterable[Role]) -> dict:
    """R14.3 / issue 37: what the post opening a day says about night moves: where they go
    (``move_route``), whether they carry the player's code, and the moves of the dealt
    roles with an example and the house's own words (``rules.deal.moves_howto``)."""
    return {**move_route(game), "code": game.moves.require_code,
            "roles": moves_howto(roles, game.roles.words)}


def _secret_list_text(game: Game, deal: dict) -> str:
    return (
        f"{game.title}: the host's random list (RULES R3). SECRET until the game ends.\n"
        f"Commitment (SHA-256), published at the start: {deal['commitment']}\n"
        "At the end publish the text between the lines; its SHA-256 (UTF-8, as is, with the\n"
        "final line feed) is the commitment:\n"
        "-----\n"
        f"{commitment_text(deal['random_list'], deal['salt'])}"
        "-----\n")


def deal_game(ctx: GameContext, *, force: bool = False) -> dict:
    """Deal an open game: checks first (a stored deal without ``force``, a resolved day, no
    players), then the role cards and the secret list, then the store. Returns the deal."""
    game, store = ctx.game, ctx.store
    old = store.get("deal")
    if old is not None:
        if not force:
            raise ScraperModError(
                f"{game.path}: the roles were already dealt "
                f"(commitment {old.get('commitment', '?')})",
                hint="use --force to deal again before the game starts",
                ru=f"{game.path}: роли уже розданы; раздать заново до начала игры можно с "
                   "ключом --force")
        if store.resolutions():
            raise ScraperModError(
                f"{game.path}: day {min(store.resolutions())} is already resolved; "
                "dealing again would change roles mid-game",
                ru=f"{game.path}: итоги дня {min(store.resolutions())} уже подведены; новая "
                   "раздача сменила бы роли посреди игры")
    if not game.players:
        raise ConfigError("no [[players]] to deal to", path=str(game.path), key="players",
                          ru="раздавать некому: [[players]] ещё нет (добавьте их или "
                             "выполните `scraper-mod signup GAME URL --write`)")
    try:
        deal = make_deal(game)
    except RulesError as e:  # a setup that cannot be dealt: the host fixes game.toml
        raise ConfigError(e.message, path=str(game.path), hint=e.hint, ru=e.ru) from None
    deal["dealt_at"] = ctx.now().isoformat()
    # Cards first, then the store: a failed write leaves no half-recorded deal.
    write_role_cards(game, deal)
    write_atomic(game.out_dir / "random-list.secret.txt", _secret_list_text(game, deal))
    store.put("deal", deal)
    store.log_event("deal", {"commitment": deal["commitment"], "drawn": deal["drawn"],
                             "forced": bool(old)}, at=ctx.now())
    return deal


def deal_lines(game: Game, deal: dict) -> list[str]:
    """What the host reads after a deal: the counts, the commitment to publish, where the
    secret list and the role cards are."""
    players = effective_players(game, deal)
    return [
        f"dealt {len(players)} roles ({len(deal['drawn'])} drawn); duty mafioso: {deal['duty']}",
        f"random list commitment (SHA-256): {deal['commitment']}",
        "publish the commitment now; the list and its salt are in "
        f"{game.out_dir / 'random-list.secret.txt'} (publish them when the game ends)",
        f"role cards: {len(game.players)} in {game.out_dir / 'role-cards'}"]
