"""Judging night moves (docs/rules.md R5) — pure: no I/O, no clock.

``judge_moves(requests, state=..., deadline=..., options=..., players=...)`` takes every move
request of one game day (already read from the messages by the move grammar) and gives each a
``Move`` with a CONTRACT status:

- ``counted``        the move that counts for its player and kind (so far / at the deadline);
- ``replaced``       an earlier move of the same player and kind, replaced by a later one
                     (R5.1), or a mafia kill overridden by the Boss's (R5.2);
- ``late``           received at or after the deadline (R5.1: a late move is a miss);
- ``invalid``        the role cannot make it, or the target is not valid for it (R5.2–R5.6);
                     an invalid move does not replace the player's earlier valid move (as a
                     vote that names no one leaves the previous vote standing, R2.3);
- ``unknown_sender`` the sender is no player's ``contact`` (for forum PMs: no player's nick), or
                     the game uses secret codes and the message lacks the player's code.

``reason`` is a short code (see ``REASONS``) the answer templates and the host report turn
into words. Frozen players' moves are voided at resolution (R6.2), not here.

``orders_from_moves(moves, state, options)`` picks what resolution acts on (``NightOrders``):
the mafia kill by R5.2 (the Boss's target over the duty mafioso's; with the duty dead the
Boss's; with both dead the last move of any living mafioso; with ``mafia_consensus`` only a
target every living mafioso named), the maniac's kill, the heal, the check, the freeze.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Iterable, Sequence

from .model import Move, MoveKind, Player, Role, RuleOptions
from .night import Act, NightOrders
from .roles import moves_of, spec
from .slots import Book
from .state import GameState

#: reason codes and what they mean (the answer templates word them for the player)
REASONS = {
    "": "accepted",
    "replaced": "replaced by a later move of the same kind",
    "overridden_by_boss": "the Boss sent a kill too; the Boss's move counts (R5.2)",
    "not_duty": "only the duty mafioso's or the Boss's kill counts while they are alive (R5.2)",
    "late": "received at or after the deadline (R5.1)",
    "unknown_sender": "the sender is not a player's contact address",
    "code_missing": "the message lacks the player's secret code",
    "sender_dead": "the sender is dead",
    "no_move": "no move found in the message",
    "unreadable": "the message could not be read",
    "story": "the murder story, kept for the newspaper",
    "role_cannot": "the sender's role cannot make this move",
    "not_commissar": "only the Commissar checks; the Sergeant checks after promotion (R5.5)",
    "no_target": "the move names no target",
    "unknown_target": "the target is no player",
    "ambiguous_target": "the target could be more than one player",
    "target_dead": "the target is dead",
    "target_is_mafia": "the target is a mafioso",
    "target_is_vsb": "the target is the ВСБ, whom the mafia cannot kill (R5.2)",
    "self_target": "a player cannot aim this move at oneself",
    "self_heal_limit": "the Doctor has used up the self-heals (R5.6)",
    "same_patient": "the same patient two nights running is not allowed (R5.6 option)",
    "recheck": "this player was checked before; re-checks are off (R5.5 option)",
    "sender_replaced": "the sender's slot passed to a replacement before this move (R10.2)",
    "sender_not_yet": "the sender takes a slot only later (R10.1)",
    "same_target": "not the same player two nights running (R14)",
    "target_not_mafia": "the target is not a mafioso (R14: the Lawyer defends the mafia)",
    "same_pair": "a comparison needs two different players (R14)",
    "used_once": "this move is once a game, and it was used (R14)",
}

#: the same in Russian (the host report and the host's page of a game in Russian)
REASONS_RU = {
    "": "принят",
    "replaced": "заменён более поздним ходом того же вида",
    "overridden_by_boss": "Босс прислал своё убийство: засчитан ход Босса (R5.2)",
    "not_duty": "пока живы дежурный и Босс, засчитывается только их убийство (R5.2)",
    "late": "получен после срока (R5.1)", "unknown_sender": "адрес не принадлежит игроку",
    "code_missing": "нет секретного кода игрока", "sender_dead": "отправитель уже вне игры",
    "no_move": "в письме нет хода", "unreadable": "письмо не прочитать",
    "story": "история убийства, для газеты", "role_cannot": "роль не позволяет такой ход",
    "not_commissar": "проверяет только Комиссар (R5.5)", "no_target": "не названа цель",
    "unknown_target": "цель — не игрок", "ambiguous_target": "цель подходит к нескольким игрокам",
    "target_dead": "цель уже вне игры", "target_is_mafia": "цель — мафиози",
    "target_is_vsb": "цель — ВСБ, сын Босса: мафии не убить (R5.2)",
    "self_target": "на себя этот ход нельзя",
    "self_heal_limit": "Доктор исчерпал самолечения (R5.6)",
    "same_patient": "тот же пациент две ночи подряд запрещён (R5.6)",
    "recheck": "повторные проверки запрещены (R5.5)",
    "sender_replaced": "место отправителя уже занято заменой (R10.2)",
    "sender_not_yet": "отправитель вступает в игру позже (R10.1)",
    "same_target": "тот же игрок две ночи подряд запрещён (R14)",
    "target_not_mafia": "цель — не мафиози (R14: Адвокат защищает мафию)",
    "same_pair": "для сравнения нужны два разных игрока (R14)",
    "used_once": "этот ход — раз за игру, и он уже сделан (R14)",
}


def reason_texts(lang: str) -> dict[str, str]:
    """Every reason code's words in ``lang`` ("ru" or English)."""
    return REASONS_RU if lang == "ru" else REASONS


def reason_text(code: str, lang: str) -> str:
    """A reason code in words, in ``lang`` (the code itself when unknown)."""
    return reason_texts(lang).get(code, code)


#: R14: the moves ``orders_from_moves`` passes on as ``NightOrders.acts``
ACT_KINDS = frozenset({MoveKind.BLOCK, MoveKind.GUARD, MoveKind.DEFEND, MoveKind.COMPARE,
                       MoveKind.PARDON, MoveKind.TAKE})


@dataclass(frozen=True)
class MoveRequest:
    """One move as read from one message, before judging.

    A message with no move at all is one request with ``kind=None``. ``sender`` is the From
    address (mail, queue) or the forum author (``via="pm"``). ``text`` is the sender's own
    text with the subject, where the secret code is looked for. ``problem`` is the grammar's
    complaint about the target ("no_target", "unknown_target", "ambiguous_target").
    """

    message_id: int
    received_at: datetime
    sender: str | None
    kind: MoveKind | None = None
    target: str | None = None
    written: str = ""
    problem: str = ""
    story: str | None = None
    target2: str | None = None   # R14: the second player of a comparison
    codes: tuple[str, ...] = ()
    has_code: frozenset[str] = frozenset()  # players whose code appears in the message
    via: str = "mail"
    index: int = 0
    sender_id: int | None = None    # the forum member id of a PM's author, where shown



def identify(sender: str | None, players: Iterable[Player], *, via: str = "mail",
             sender_id: int | None = None) -> Player | None:
    """The player who sent a message: the one whose ``contact`` is the sender's address
    (case-insensitive, display name ignored); for a forum PM also the one whose nick is the
    PM's author. R12.5 (a display name can be changed on some boards): a PM whose author's member id
    the board shows (``sender_id``) is the player's whose ``forum_id`` it is; a nick match
    is no one's when that player's ``forum_id`` is another member's (an impostor who took
    his name)."""
    players = tuple(players)
    if via == "pm" and sender_id is not None:
        by_id = next((p for p in players if p.forum_id == sender_id), None)
        if by_id is not None:
            return by_id
    if not sender:
        return None
    s = _addr(sender)
    for p in players:
        if p.contact and _addr(p.contact) == s:
            return p
        if via == "pm" and p.nick.casefold() == sender.strip().casefold():
            if sender_id is not None and p.forum_id is not None and p.forum_id != sender_id:
                return None
            return p
    return None


def _addr(s: str) -> str:
    s = s.strip()
    if "<" in s and ">" in s:
        s = s[s.rindex("<") + 1:s.rindex(">")]
    if s.lower().startswith("mailto:"):
        s = s[7:]
    return s.strip().casefold()


def judge_moves(requests: Sequence[MoveRequest], *, state: GameState, deadline: datetime,
                options: RuleOptions, players: Sequence[Player] = (),
                require_code: bool = False, book: Book | None = None) -> list[Move]:
    """Judge one game day's move requests (R5). Returns one ``Move`` per request, in the
    order received (received_at, message, position in the message).

    ``state`` is the ``GameState`` at the start of the night (roles, alive, commissar, duty,
    the doctor's self-heals, the last patient, who was checked); ``players`` the game file's
    players (contacts and codes). With a ``book`` (R10, R11) ``players`` are every user who
    ever held a slot: a message is its sender's slot's by when it was received (the old
    user's after the replacement are ``sender_replaced``, never counted), and players and
    targets are named by the slots' nicks at the deadline, as ``state`` is (``day_view``).
    """
    order = sorted(requests, key=lambda r: (r.received_at, r.message_id, r.index))
    judged: list[Move] = []
    stories: dict[int, str] = {}
    senders: dict[tuple[str | None, str, int | None], Player | None] = {}
    for req in order:
        key = (req.sender, req.via, req.sender_id)
        if key not in senders:
            senders[key] = identify(req.sender, players, via=req.via, sender_id=req.sender_id)
        sender, req, slot_how = _by_slot(req, senders[key], book, deadline)
        if slot_how and sender is not None:
            judged.append(Move(player=sender.nick, role=None, kind=req.kind, target=req.target,
                               received_at=req.received_at, status=slot_how[0],
                               reason=slot_how[1], message_id=req.message_id))
            continue
        judged.append(_judge_one(req, sender, state=state, deadline=deadline,
                                 options=options, require_code=require_code))
        if req.story:
            stories[req.message_id] = req.story
    judged = _last_counts(judged)
    judged = _mafia_kill(judged, state=state, options=options)
    # attach each message's story to its moves, for the newspaper
    return [replace(m, story=stories.get(m.message_id)) if m.message_id in stories else m
            for m in judged]


def _by_slot(req: MoveRequest, sender: Player | None, book: Book | None, deadline: datetime
             ) -> tuple[Player | None, MoveRequest, tuple[str, str] | None]:
    """R10: the sender as his slot (by the nick it has at the deadline) and the target by
    its slot's nick; or why the message is not the slot's (status, reason)."""
    if book is None:
        return sender, req, None
    if req.target is not None:
        req = replace(req, target=book.nick_at(req.target, deadline))
    if req.target2 is not None:
        req = replace(req, target2=book.nick_at(req.target2, deadline))
    if sender is None:
        return None, req, None
    slot, how = book.who(sender.nick, req.received_at)
    if how == "replaced":
        return sender, req, ("invalid", "sender_replaced")
    if how == "not_yet":
        return sender, req, ("unknown_sender", "sender_not_yet")
    if slot is None:
        return sender, req, None
    return replace(sender, nick=slot.nick_at(deadline)), req, None


def _judge_one(req: MoveRequest, sender: Player | None, *, state, deadline, options,
               require_code) -> Move:
    player = sender if req.problem != "unreadable" else None

    def move(status: str, reason: str = "") -> Move:
        return Move(player=player.nick if player else (req.sender or "?"),
                    role=state.roles.get(player.nick) if player else None,
                    kind=req.kind, target=req.target, received_at=req.received_at,
                    status=status, reason=reason, message_id=req.message_id,
                    target2=req.target2)

    if req.problem == "unreadable":
        return move("invalid", "unreadable")
    if player is None:
        return move("unknown_sender", "unknown_sender")
    if require_code and (not player.code or player.nick not in req.has_code):
        return move("unknown_sender", "code_missing")
    if req.received_at >= deadline:
        return move("late", "late")
    nick = player.nick
    role = state.roles.get(nick)
    if nick not in state.alive:
        return move("invalid", "sender_dead")
    if req.kind is None:
        if req.story and role is not None and role.is_mafia:
            return move("counted", "story")
        return move("invalid", "no_move")
    if role is None or req.kind not in moves_of(role):
        return move("invalid", "role_cannot")
    if req.kind is MoveKind.CHECK and state.commissar != nick:
        return move("invalid", "not_commissar" if role is Role.SERGEANT else "role_cannot")
    ms = spec(role).move(req.kind)
    if ms is not None and ms.target == "none":   # R14: the Judge's pardon
        if ms.once_a_game and nick in state.used_once:
            return move("invalid", "used_once")
        return move("counted")
    if req.problem:
        return move("invalid", req.problem)
    if req.target is None:
        return move("invalid", "no_target")
    target = req.target
    if target not in state.roles:
        return move("invalid", "unknown_target")
    if target not in state.alive:
        return move("invalid", "target_dead")
    trole = state.roles[target]
    if req.kind in ACT_KINDS:
        return move(*_judge_r14(req, nick, state, trole))
    if req.kind is MoveKind.KILL and role.is_mafia:
        if trole.is_mafia:
            return move("invalid", "target_is_mafia")
        if trole is Role.VSB:
            return move("invalid", "target_is_vsb")
    elif req.kind is MoveKind.KILL:  # the Maniac, R5.3
        if target == nick:
            return move("invalid", "self_target")
    elif req.kind is MoveKind.HEAL:  # R5.6
        if target == nick and state.doctor_self_heals_used >= options.doctor_self_heals:
            return move("invalid", "self_heal_limit")
        if not options.doctor_same_patient_twice and target == state.last_heal_target:
            return move("invalid", "same_patient")
    elif req.kind is MoveKind.CHECK:  # R5.5
        if target == nick:
            return move("invalid", "self_target")
        if not options.allow_rechecks and target in state.checked:
            return move("invalid", "recheck")
    elif req.kind is MoveKind.FREEZE:  # R5.4
        if trole.is_mafia:
            return move("invalid", "target_is_mafia")
    return move("counted")


def _judge_r14(req: MoveRequest, nick: str, state: GameState, trole: Role
               ) -> tuple[str, str]:
    """R14.2: a move of the other roles, on targets the table allows (status, reason)."""
    target = req.target
    if target == nick:
        return "invalid", "self_target"
    if req.kind is MoveKind.BLOCK and state.last_targets.get(nick) == target:
        return "invalid", "same_target"
    if req.kind is MoveKind.DEFEND and not trole.is_mafia:
        return "invalid", "target_not_mafia"
    if req.kind is MoveKind.COMPARE:
        t2 = req.target2
        if t2 is None:
            return "invalid", "no_target"
        if t2 not in state.roles:
            return "invalid", "unknown_target"
        if t2 not in state.alive:
            return "invalid", "target_dead"
        if t2 == nick:
            return "invalid", "self_target"
        if t2 == target:
            return "invalid", "same_pair"
    return "counted", ""


def _last_counts(moves: list[Move]) -> list[Move]:
    """R5.1: per player and kind, the last valid move before the deadline counts."""
    last: dict[tuple[str, MoveKind | None], int] = {}
    for i, m in enumerate(moves):
        if m.status == "counted":
            key = (m.player, m.kind)
            if key in last:
                moves[last[key]] = replace(moves[last[key]], status="replaced", reason="replaced")
            last[key] = i
    return moves


def _mafia_kill(moves: list[Move], *, state, options: RuleOptions) -> list[Move]:
    """R5.2: which mafia kill counts. With ``mafia_consensus`` every living mafioso's move
    stays counted and ``orders_from_moves`` takes the kill only if they agree."""
    idx = [i for i, m in enumerate(moves) if m.status == "counted" and m.kind is MoveKind.KILL
           and m.role is not None and m.role.is_mafia]
    if not idx or options.mafia_consensus:
        return moves
    alive = state.alive
    boss = _boss(state)
    duty = state.duty
    boss_alive = boss is not None and boss in alive
    duty_alive = duty is not None and duty in alive
    by_player = {moves[i].player: i for i in idx}
    chosen: int | None = None
    if boss_alive and boss in by_player:
        chosen = by_player[boss]
    elif duty_alive and duty in by_player:
        chosen = by_player[duty]
    elif not boss_alive and not duty_alive:
        chosen = max(idx, key=lambda i: (moves[i].received_at, moves[i].message_id or 0, i))
    for i in idx:
        if i == chosen:
            continue
        m = moves[i]
        if chosen is not None and m.player == duty:
            status, reason = "replaced", "overridden_by_boss"
        elif chosen is not None and not boss_alive and not duty_alive:
            status, reason = "replaced", "replaced"
        else:
            status, reason = "invalid", "not_duty"
        moves[i] = replace(m, status=status, reason=reason)
    return moves


def _boss(state) -> str | None:
    for nick, role in state.roles.items():
        if role is Role.BOSS:
            return nick
    return None


def orders_from_moves(moves: Sequence[Move], state: GameState,
                      options: RuleOptions) -> NightOrders:
    """The night's orders (``NightOrders``) from judged moves: only ``counted`` ones."""
    counted = [m for m in moves if m.status == "counted" and m.kind is not None]
    mafia = [m for m in counted if m.kind is MoveKind.KILL and m.role is not None
             and m.role.is_mafia]
    mafia_kill = mafia_by = None
    if options.mafia_consensus:
        living = sorted(n for n in state.alive if state.roles[n].is_mafia)
        latest = {m.player: m for m in mafia}
        targets = {m.target for m in latest.values()}
        if living and set(latest) >= set(living) and len(targets) == 1:
            mafia_kill = targets.pop()
            duty = state.duty if state.duty in latest else living[0]
            mafia_by = duty
    elif mafia:
        mafia_kill, mafia_by = mafia[-1].target, mafia[-1].player
    story = _story(moves, state, mafia_by)
    also = _mafia_also(moves, mafia_kill, mafia_by)

    def pick(kind: MoveKind, roles: tuple[Role, ...]) -> Move | None:
        found = [m for m in counted if m.kind is kind and m.role in roles]
        return found[-1] if found else None

    maniac = pick(MoveKind.KILL, (Role.MANIAC,))
    heal = pick(MoveKind.HEAL, (Role.DOCTOR,))
    check = next((m for m in reversed(counted) if m.kind is MoveKind.CHECK
                  and m.player == state.commissar), None)
    freeze = pick(MoveKind.FREEZE, (Role.BOSS,))
    last_act: dict[tuple[str, MoveKind], Move] = {}
    for m in counted:   # R14: the other roles' moves, the last of each player and kind
        if m.kind is not None and (m.kind in ACT_KINDS or (
                m.kind is MoveKind.KILL and m.role is not None and not m.role.is_mafia
                and m.role is not Role.MANIAC)):
            last_act.pop((m.player, m.kind), None)
            last_act[(m.player, m.kind)] = m
    acts = tuple(Act(actor=m.player, kind=m.kind.value, target=m.target, target2=m.target2)
                 for m in last_act.values() if m.kind is not None)
    return NightOrders(
        mafia_kill=mafia_kill, mafia_by=mafia_by, mafia_story=story,
        maniac_kill=maniac.target if maniac else None, maniac=maniac.player if maniac else None,
        heal=heal.target if heal else None, doctor=heal.player if heal else None,
        check=check.target if check else None, checker=check.player if check else None,
        freeze=freeze.target if freeze else None, boss=freeze.player if freeze else None,
        mafia_also=also, acts=acts)


def _mafia_also(moves: Sequence[Move], target: str | None, by: str | None) -> tuple[str, ...]:
    """Other mafiosi whose latest valid kill named the same target (so the kill stands if
    ``by`` is jailed that day)."""
    if target is None:
        return ()
    latest: dict[str, Move] = {}
    for m in moves:
        if m.kind is MoveKind.KILL and m.role is not None and m.role.is_mafia and (
                m.status == "counted" or m.reason in ("overridden_by_boss", "not_duty")):
            latest[m.player] = m
    return tuple(sorted(p for p, m in latest.items() if p != by and m.target == target))


def _story(moves: Sequence[Move], state, mafia_by: str | None) -> str | None:
    """The murder story: from the counted kill's message, else the duty mafioso's (or the
    killer's) latest story sent on time."""
    if mafia_by is None:
        return None
    on_time = [m for m in moves if m.story and m.status in ("counted", "replaced")]
    for m in reversed(on_time):
        if m.player == mafia_by and m.kind is MoveKind.KILL and m.status == "counted":
            return m.story
    for who in (state.duty, mafia_by):
        for m in reversed(on_time):
            if m.player == who:
                return m.story
    return None
