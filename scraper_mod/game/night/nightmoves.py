"""A day's night moves for the host (CONTRACT ``moves --format json``), and whose move the
night still waits for. ``scraper-mod moves`` and the host's page both read these.

Roles and moves are secret: only the host sees them (the page shows them after a click).
"""

from __future__ import annotations

from scraper_mod.game.context import GameContext
from scraper_mod.game.night.intake import day_moves, state_before_day
from scraper_mod.rules.model import Move, MoveKind, Role
from scraper_mod.rules.roles import CATALOGUE

__all__ = ["moves_json", "awaiting_moves"]


def moves_json(ctx: GameContext, day: int, moves: list[Move] | None = None) -> dict:
    """``moves --format json``: every move of day ``day`` with its status and reason, where its
    message came from (a file name, an IMAP UID), and the murder story when there is one."""
    moves = day_moves(ctx, day) if moves is None else moves
    origins = {m.id: f"{m.source} {m.key}" for m in ctx.store.messages()}
    tz = ctx.game.timezone
    return {
        "day": day, "deadline": ctx.calendar().deadline(day).isoformat(),
        "moves": [{
            "player": m.player, "role": m.role.value if m.role else None,
            "kind": m.kind.value if m.kind else None, "target": m.target,
            "received_at": m.received_at.astimezone(tz).isoformat(),
            "status": m.status, "reason": m.reason, "message_id": m.message_id,
            "origin": origins.get(m.message_id) if m.message_id is not None else None,
            **({"story": m.story} if m.story else {}),
            **({"target2": m.target2} if m.target2 else {}),   # R14: a comparison
        } for m in moves]}


def awaiting_moves(ctx: GameContext, day: int, moves: list[Move] | None = None) -> list[dict]:
    """Who the night still waits for: each move the rules act on (R5.2-R5.6) — the mafia's
    kill (from the duty mafioso, else the Boss), the Maniac's kill, the Doctor's heal, the
    acting Commissar's check — that no counted move of day ``day`` makes yet. Each as
    ``{"player", "role", "kind"}``. The Boss's freeze is his choice, never awaited."""
    state = state_before_day(ctx, day)
    moves = day_moves(ctx, day, state=state) if moves is None else moves
    made = {(m.player, m.kind) for m in moves if m.status == "counted"}
    alive = state.alive
    out: list[dict] = []

    def want(nick: str | None, kind: MoveKind) -> None:
        if nick and nick in alive and (nick, kind) not in made:
            out.append({"player": nick, "role": state.roles[nick].value, "kind": kind.value})

    mafia = state.mafiosi
    if mafia and not any(p in mafia and k is MoveKind.KILL for p, k in made):
        duty = state.duty if state.duty in alive else None
        boss = state.boss if state.boss in alive else None
        want(duty or boss or mafia[0], MoveKind.KILL)
    for role, kind in ((Role.MANIAC, MoveKind.KILL), (Role.DOCTOR, MoveKind.HEAL)):
        for nick in state.with_role(role):
            want(nick, kind)
    want(state.commissar, MoveKind.CHECK)
    # R14: the other roles' nightly moves (the Judge's pardon and the Kamikaze's standing
    # taking are their choice, never awaited)
    for nick, role in state.roles.items():
        sp = CATALOGUE[role]
        if sp.r14:
            for m in sp.moves:
                if not (m.once_a_game or m.standing):
                    want(nick, m.kind)
    return out
