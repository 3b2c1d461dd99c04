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
from .model import CheckResult, DayResult, Death, MoveKind, Role, RuleOptions
from .notes import Note
from .roles import CATALOGUE, is_r14
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
    acts: tuple[Act, ...] = ()   # R14: the moves of the other roles (rules/roles.py)

    def to_json(self) -> dict:
        out = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()
               if k != "acts"}
        if self.acts:
            out["acts"] = [a.to_json() for a in self.acts]
        return out


@dataclass(frozen=True)
class Act:
    """R14: one counted move of a role the seed's fields do not name: who, which move
    (a ``MoveKind`` value), on whom (two players for a comparison)."""

    actor: str
    kind: str
    target: str | None = None
    target2: str | None = None

    def to_json(self) -> dict:
        return {"actor": self.actor, "kind": self.kind, "target": self.target,
                **({"target2": self.target2} if self.target2 else {})}

    @classmethod
    def from_json(cls, data: dict) -> "Act":
        return cls(actor=str(data["actor"]), kind=str(data["kind"]),
                   target=data.get("target"), target2=data.get("target2"))


def check_result(role: Role, options: RuleOptions) -> str:
    """R5.5: what a check shows: the exact role id (the ВСБ as ``civilian``) or, with
    ``check_result = "binary"``, ``mafia`` / ``not_mafia``."""
    if options.check_result == "binary":
        return "mafia" if role.is_mafia else "not_mafia"
    shown = CATALOGUE[role].shown_as or role
    return shown.value


def compare_result(a: Role, b: Role) -> str:
    """R14 (the Journalist): ``same`` when the two roles' sides are the same (the ВСБ is
    town, the Lawyer mafia, the Maniac alone), else ``different``."""
    return "same" if a.side is b.side else "different"


def _effect(roles: dict[str, Role], act: Act) -> str:
    """The catalogue's effect of an act (``""`` when the actor's role has no such move)."""
    role = roles.get(act.actor)
    try:
        kind = MoveKind(act.kind)
    except ValueError:
        return ""
    ms = CATALOGUE[role].move(kind) if role is not None else None
    return ms.effect if ms is not None else ""


def check_recipients(check: CheckResult, before: GameState) -> tuple[str, ...]:
    """R5.5: who receives a check's text: the Commissar who made it (even if he died this
    night) and the Sergeant, if he was alive when the day began."""
    out = [check.by]
    if check.other is None and before.sergeant and before.sergeant in before.alive and before.sergeant != check.by:
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

    # 1b. R14.1 (1): the Judge's pardon cancels the jailing; the Kamikaze takes X with him
    acts = orders.acts
    r14 = is_r14(roles.values())

    def acts_of(effect: str) -> list[Act]:
        return [a for a in acts if _effect(roles, a) == effect]

    pardoned = False
    used_once = state.used_once
    for a in acts_of("pardon"):
        if a.actor not in alive0:
            notes.append(Note.of("pardon_by_gone", actor=a.actor, why="dead"))
        elif a.actor in state.frozen_today():
            notes.append(Note.of("pardon_by_frozen", actor=a.actor))
        elif a.actor in used_once:
            notes.append(Note.of("pardon_used", actor=a.actor))
        elif lynched is None:
            notes.append(Note.of("pardon_no_jailing", actor=a.actor))
        elif not pardoned:
            pardoned = True
            used_once = used_once | {a.actor}
            notes.append(Note.of("pardon", actor=a.actor, target=lynched.player))
    spared = lynched.player if pardoned and lynched is not None else None
    if pardoned:
        lynched, jailed = None, set()
    standing = {n: t for n, t in state.standing.items() if n in alive0}
    for a in acts_of("take"):
        if a.actor in alive0 and a.target is not None:
            standing[a.actor] = a.target
    taken: dict[str, str] = {}   # X -> the Kamikaze who took X
    if lynched is not None and any(
            m.effect == "take" for m in CATALOGUE[lynched.role].moves):
        x = standing.get(lynched.player)
        if x is not None and x in alive0 and x != lynched.player:
            taken[x] = lynched.player
        elif x is not None:
            notes.append(Note.of("take_target_gone", actor=lynched.player, target=x))
    # Who can act and be aimed at tonight.
    night_alive = (alive0 - jailed if options.lynch_first else alive0) - set(taken)

    def why_not_alive(nick: str) -> str:
        """A ``notes.WHY`` code."""
        if nick in taken:
            return "taken"
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

    blocked: set[str] = set()

    def can_act(actor: str, move: str) -> bool:
        """``move``: heal, maniac_kill, check, … (the note codes' prefix)."""
        if actor not in night_alive:
            notes.append(Note.of(f"{move}_by_gone", actor=actor, why=why_not_alive(actor)))
            return False
        if actor == frozen:
            notes.append(Note.of(f"{move}_by_frozen", actor=actor))
            return False
        if actor in blocked:
            notes.append(Note.of(f"{move}_by_blocked", actor=actor))
            return False
        return True

    # 2b. R14.1 (2): blocks, after the freeze (a frozen Putana blocks nothing)
    last_targets: dict[str, str] = {}
    for a in acts_of("block"):
        if not can_act(a.actor, "block"):
            continue
        t = a.target
        if t is None or t not in night_alive:
            notes.append(Note.of("block_on_gone", target=t, why=why_not_alive(t or "")))
        elif t == a.actor:
            notes.append(Note.of("block_self", target=t))
        elif state.last_targets.get(a.actor) == t:
            notes.append(Note.of("block_same_target", actor=a.actor, target=t))
        else:
            blocked.add(t)
            last_targets[a.actor] = t
            notes.append(Note.of("block", actor=a.actor, target=t))

    # 3. R14.1 (3): the Lawyer's defence
    defended: set[str] = set()
    for a in acts_of("defend"):
        if can_act(a.actor, "defend"):
            t = a.target
            if t is None or t not in night_alive or not roles[t].is_mafia or t == a.actor:
                notes.append(Note.of("defend_bad_target", actor=a.actor, target=t))
            else:
                defended.add(t)

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
        elif not any(b in night_alive and b not in blocked for b in mafia_backers):
            notes.append(Note.of("mafia_kill_by_blocked", target=t, who=mafia_backers))
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

    # R14: guards, and the other roles' kills (the Sheriff's)
    guards: dict[str, str] = {}   # X -> the Bodyguard guarding X
    for a in acts_of("guard"):
        if can_act(a.actor, "guard") and a.target is not None and target_ok(a.target, "guard"):
            if a.target == a.actor:
                notes.append(Note.of("guard_self", target=a.target))
            else:
                guards[a.target] = a.actor
    kills: list[tuple[str, str | None]] = [("mafia", mafia_target), ("maniac", maniac_target)]
    for a in acts_of("kill"):
        by = roles[a.actor].value
        if can_act(a.actor, "role_kill") and a.target is not None:
            if a.target == a.actor:
                notes.append(Note.of("role_kill_self", actor=a.actor))
            elif target_ok(a.target, "role_kill"):
                kills.append((by, a.target))

    saved = False
    survived = False
    attacked: set[str] = set()
    guarded: list[str] = []
    victims: dict[str, str] = {}
    for by, t in kills:
        if t is None:
            continue
        if t == heal_target:
            saved = True
            notes.append(Note.of(f"{by}_kill_healed", target=t) if by in ("mafia", "maniac")
                         else Note.of("role_kill_healed", target=t))
            continue
        if t in guards:   # R14: the Bodyguard dies instead; a heal on him saves him too
            g = guards[t]
            notes.append(Note.of("guard_took", actor=g, target=t))
            if g == heal_target:
                saved = True
                notes.append(Note.of("role_kill_healed", target=g))
                continue
            t = g
            if g not in guarded:
                guarded.append(g)
        if CATALOGUE[roles[t]].passive == "immortal" and (t not in state.mortal
                                                         or t in attacked):
            survived = True      # R14: every kill on him fails his first attacked night
            attacked.add(t)
            notes.append(Note.of("kill_immortal", target=t))
            continue
        if t in victims:
            notes.append(Note.of("double_kill", target=t))
            continue
        victims[t] = by
    killed = tuple(Death(x, roles[x], "kamikaze") for x in taken) + tuple(
        Death(t, roles[t], by) for t, by in victims.items())
    story = orders.mafia_story if "mafia" in victims.values() else None

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
                shown = Role.CIVILIAN if t in defended else roles[t]   # R14: the Lawyer
                checks = (CheckResult(by=c, target=t, result=check_result(shown, options)),)
                checked = checked | {t}
                if c in victims:
                    notes.append(Note.of("check_commissar_died", commissar=c))

    # R14.1 (5): the Journalist's comparisons, delivered even if he died this night
    for a in acts_of("compare"):
        if not can_act(a.actor, "compare"):
            continue
        t1, t2 = a.target, a.target2
        if t1 is None or t2 is None or t1 not in alive0 or t2 not in alive0:
            notes.append(Note.of("compare_target_gone", actor=a.actor, target=t1, other=t2))
        elif t1 == t2 or a.actor in (t1, t2):
            notes.append(Note.of("compare_bad", actor=a.actor, target=t1, other=t2))
        else:
            checks = checks + (CheckResult(by=a.actor, target=t1, other=t2,
                                           result=compare_result(roles[t1], roles[t2])),)

    # deaths
    alive1 = alive0 - jailed - set(taken) - set(victims)
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
        story=story, vsb_protected=vsb_protected, notes=tuple(notes), r14=r14,
        blocked=tuple(n for n in roles if n in blocked), pardoned=pardoned, spared=spared,
        survived=survived, guarded=tuple(guarded))
    after = state.evolve(
        alive=frozenset(alive1), commissar=commissar, sergeant=sergeant,
        cursor=lynch.cursor if lynch is not None and not pardoned else state.cursor,
        last_targets=last_targets, used_once=used_once, mortal=state.mortal | attacked,
        standing={n: t for n, t in standing.items() if n in alive1},
        doctor_self_heals_used=state.doctor_self_heals_used + (1 if self_heal else 0),
        last_heal_target=heal_target, frozen_next_day=frozen, checked=checked,
        died_at=died_at, day=day)
    return result, after
