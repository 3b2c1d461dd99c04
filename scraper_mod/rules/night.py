"""Resolving a game day at its deadline (docs/rules.md R6), with the night moves' effects (R5).

``resolve_day(day, state, lynch, orders, options)`` is a pure function: the day's lynch
(from ``tally.decide_lynch``), the night's orders (from the moves module: who sent which
counted move) and the state before the day give the ``DayResult`` and the state after it.

The steps, in R6's order:

1. The lynch (R2.9): the jailed player dies at once; his night move is void and the kills,
   heals and freezes aimed at him do nothing (a check of him is still answered: his role is
   public anyway). With ``lynch_first = False`` the lynch is
   simultaneous with the night: his own move still acts, and a kill aimed at him finds a man
   who dies once, by the lynch.
2. The freeze (R5.4): the Boss's freeze on a living non-mafioso voids the frozen player's
   move this night and his vote on the next day (``GameState.frozen_next_day``). It holds even
   if the Boss dies this night (night deaths never void a move of the same night).
3. Heals, then kills (R5.6, R5.2, R5.3): a healed target survives both kills; a player killed
   by the mafia and the Maniac dies once (reported as killed by the mafia). A mafia kill on a
   mafioso, a dead player or the ВСБ is a miss ("the mafia killed no one"); on the ВСБ it
   also sets ``vsb_protected`` for the host (published only with
   ``announce_vsb_protection``). The Doctor's self-heal limit and the same-patient option
   are checked here, with the counters kept in the state.
4. The check (R5.5) is delivered even if the Commissar died this night; exact role (the ВСБ
   shows as ``civilian``, "чиж") or, with ``check_result = "binary"``, ``mafia`` /
   ``not_mafia``. ``allow_rechecks = False`` voids a check of someone already checked.
5. The Sergeant becomes Commissar if the Commissar died (R5.5).
6. Victory (R7).

Moves that reach this function but cannot act (a dead or frozen sender, a target that is no
longer alive) are void; each such case is explained in ``DayResult.notes`` for the host report,
as a language-neutral ``notes.Note`` (a code and its values; the wording is in
``templates/night-notes.toml``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import RulesError
from .model import CheckResult, DayResult, Death, Role, RuleOptions
from .notes import Note
from .state import GameState
from .tally import Lynch
from .victory import check_victory


@dataclass(frozen=True)
class NightOrders:
    """The night's counted moves, one per kind, with who sent each (R5).

    ``mafia_by`` is the mafioso whose move the mafia kill is (R5.2: the duty mafioso, or the
    Boss, or the fallback); ``mafia_also`` lists other mafiosi whose counted moves named the
    same target, so that the kill stands if only ``mafia_by`` was jailed that day.
    """

    mafia_kill: str | None = None
    mafia_by: str | None = None
    mafia_story: str | None = None
    maniac_kill: str | None = None
    maniac: str | None = None
    heal: str | None = None
    doctor: str | None = None
    check: str | None = None
    checker: str | None = None
    freeze: str | None = None
    boss: str | None = None
    mafia_also: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def check_result(role: Role, options: RuleOptions) -> str:
    """R5.5: what a check shows: the exact role id (the ВСБ as ``civilian``) or, with
    ``check_result = "binary"``, ``mafia`` / ``not_mafia``."""
    if options.check_result == "binary":
        return "mafia" if role.is_mafia else "not_mafia"
    return Role.CIVILIAN.value if role is Role.VSB else role.value


def check_recipients(check: CheckResult, before: GameState) -> tuple[str, ...]:
    """R5.5: who receives a check's text: the Commissar who made it (even if he died this
    night) and the Sergeant, if he was alive when the day began."""
    out = [check.by]
    if before.sergeant and before.sergeant in before.alive and before.sergeant != check.by:
        out.append(before.sergeant)
    return tuple(out)


def resolve_day(day: int, state: GameState, lynch: Lynch | None, orders: NightOrders,
                options: RuleOptions = RuleOptions()) -> tuple[DayResult, GameState]:
    # long: R6's steps in the order RULES gives them, on one state
    """R6: resolve day ``day`` from the state before it. Pure and deterministic."""
    if day <= state.day:
        raise RulesError(f"day {day} is already resolved (the state is after day {state.day})")
    roles = state.roles
    notes: list[Note] = []
    alive0 = state.alive

    # 1. the lynch
    lynched: Death | None = None
    jailed: set[str] = set()
    if lynch is not None:
        if lynch.player not in roles:
            raise RulesError(f"the lynched player {lynch.player!r} is not a player")
        if lynch.player not in alive0:
            raise RulesError(f"the lynched player {lynch.player!r} is already dead")
        lynched = Death(lynch.player, roles[lynch.player], lynch.by)
        jailed = {lynch.player}
    # Who can act and be aimed at tonight.
    night_alive = alive0 - jailed if options.lynch_first else alive0

    def why_not_alive(nick: str) -> str:
        """A ``notes.WHY`` code."""
        if nick in jailed:
            return "jailed"
        if nick not in roles:
            return "not_player"
        return "dead"

    # 2. the freeze
    t: str | None
    frozen: str | None = None
    if orders.freeze is not None:
        boss, t = orders.boss, orders.freeze
        if boss is None or roles.get(boss) is not Role.BOSS:
            notes.append(Note.of("freeze_not_boss", target=t, sender=boss))
        elif boss not in night_alive:
            notes.append(Note.of("freeze_boss_gone", target=t, boss=boss, why=why_not_alive(boss)))
        elif t not in night_alive:
            notes.append(Note.of("freeze_target_gone", target=t, why=why_not_alive(t)))
        elif roles[t].is_mafia:
            notes.append(Note.of("freeze_mafioso", target=t))
        else:
            frozen = t

    def can_act(actor: str, move: str) -> bool:
        """``move``: heal, maniac_kill, check (the note codes' prefix)."""
        if actor not in night_alive:
            notes.append(Note.of(f"{move}_by_gone", actor=actor, why=why_not_alive(actor)))
            return False
        if actor == frozen:
            notes.append(Note.of(f"{move}_by_frozen", actor=actor))
            return False
        return True

    def target_ok(t: str, move: str) -> bool:
        """``move``: heal, mafia_kill, maniac_kill (the note codes' prefix)."""
        if t not in night_alive:
            notes.append(Note.of(f"{move}_on_gone", target=t, why=why_not_alive(t)))
            return False
        if t in jailed:  # simultaneous lynch: he dies once, by the lynch
            notes.append(Note.of(f"{move}_on_jailed", target=t))
            return False
        return True

    # 3a. the heal
    heal_target: str | None = None
    self_heal = False
    if orders.heal is not None:
        doc, t = orders.doctor, orders.heal
        if doc is None or roles.get(doc) is not Role.DOCTOR:
            notes.append(Note.of("heal_not_doctor", target=t, sender=doc))
        elif can_act(doc, "heal") and target_ok(t, "heal"):
            if t == doc and state.doctor_self_heals_used >= options.doctor_self_heals:
                notes.append(Note.of("heal_self_limit", target=t,
                                     limit=options.doctor_self_heals))
            elif not options.doctor_same_patient_twice and t == state.last_heal_target:
                notes.append(Note.of("heal_same_patient", target=t))
            else:
                heal_target = t
                self_heal = t == doc

    # 3b. the kills
    vsb_protected = False
    mafia_target: str | None = None
    if orders.mafia_kill is not None:
        t = orders.mafia_kill
        backers = [b for b in (orders.mafia_by, *orders.mafia_also) if b is not None]
        mafia_backers = [b for b in backers if b in roles and roles[b].is_mafia]
        if not mafia_backers:
            notes.append(Note.of("mafia_kill_no_mafioso", target=t))
        elif not any(b in night_alive for b in mafia_backers):
            notes.append(Note.of("mafia_kill_backers_gone", target=t, who=mafia_backers,
                                 why=why_not_alive(mafia_backers[0])))
        elif t not in roles:
            notes.append(Note.of("mafia_kill_not_player", target=t))
        elif roles[t] is Role.VSB and t in night_alive and t not in jailed:
            vsb_protected = True
            notes.append(Note.of("mafia_kill_vsb", target=t))
        elif roles[t].is_mafia:
            notes.append(Note.of("mafia_kill_mafioso", target=t))
        elif target_ok(t, "mafia_kill"):
            mafia_target = t
    maniac_target: str | None = None
    if orders.maniac_kill is not None:
        m, t = orders.maniac, orders.maniac_kill
        if m is None or roles.get(m) is not Role.MANIAC:
            notes.append(Note.of("maniac_kill_not_maniac", target=t, sender=m))
        elif can_act(m, "maniac_kill"):
            if t == m:
                notes.append(Note.of("maniac_kill_self"))
            elif target_ok(t, "maniac_kill"):
                maniac_target = t

    saved = False
    victims: dict[str, str] = {}
    for by, t in (("mafia", mafia_target), ("maniac", maniac_target)):
        if t is None:
            continue
        if t == heal_target:
            saved = True
            notes.append(Note.of(f"{by}_kill_healed", target=t))
            continue
        if t in victims:
            notes.append(Note.of("double_kill", target=t))
            continue
        victims[t] = by
    killed = tuple(Death(t, roles[t], by) for t, by in victims.items())
    story = orders.mafia_story if victims.get(mafia_target or "") == "mafia" else None

    # 4. the check
    checks: tuple[CheckResult, ...] = ()
    checked = state.checked
    if orders.check is not None:
        c, t = orders.checker, orders.check
        if c is None or c != state.commissar:
            notes.append(Note.of("check_not_commissar", target=t, sender=c))
        elif can_act(c, "check"):
            if t not in roles or t not in alive0:
                notes.append(Note.of("check_target_gone", target=t, why=why_not_alive(t)))
            elif t == c:
                notes.append(Note.of("check_self", target=t))
            elif not options.allow_rechecks and t in state.checked:
                notes.append(Note.of("check_recheck", target=t))
            else:
                checks = (CheckResult(by=c, target=t, result=check_result(roles[t], options)),)
                checked = checked | {t}
                if c in victims:
                    notes.append(Note.of("check_commissar_died", commissar=c))

    # deaths
    alive1 = alive0 - jailed - set(victims)
    died_at = dict(state.died_at)
    if lynched is not None:
        died_at[lynched.player] = (day, lynched.by)
    for d in killed:
        died_at[d.player] = (day, d.by)

    # 5. the Sergeant's promotion
    commissar, sergeant, promoted = state.commissar, state.sergeant, None
    if sergeant is not None and sergeant not in alive1:
        sergeant = None
    if commissar is not None and commissar not in alive1:
        if sergeant is not None:
            promoted, commissar, sergeant = sergeant, sergeant, None
        else:
            commissar = None

    # 6. victory
    winner = check_victory(roles, alive1, options)

    result = DayResult(
        day=day, lynched=lynched, killed=killed, saved=saved, frozen=frozen, checks=checks,
        promoted=promoted, alive=tuple(n for n in roles if n in alive1), winner=winner,
        story=story, vsb_protected=vsb_protected, notes=tuple(notes))
    after = state.evolve(
        alive=frozenset(alive1), commissar=commissar, sergeant=sergeant,
        cursor=lynch.cursor if lynch is not None else state.cursor,
        doctor_self_heals_used=state.doctor_self_heals_used + (1 if self_heal else 0),
        last_heal_target=heal_target, frozen_next_day=frozen, checked=checked,
        died_at=died_at, day=day)
    return result, after
