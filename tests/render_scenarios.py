"""Hand-built scenario days for the rendering tests (golden files, escaping, preview).

A ten-player game, «Вечерний Мафиозник», Moscow time, days ending at 20:00. Each scenario is
one resolved day as ``DayReport``: the outcome, the final vote table, the judged night moves.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from scraper_mod.game.results.report import (
    Candidate,
    DayReport,
    RandomReveal,
    Rejected,
    VoteLine,
    post_url,
)
from scraper_mod.rules.deal import moves_howto
from scraper_mod.rules.model import CheckResult, DayResult, Death, Move, MoveKind, Role, RuleOptions
from scraper_mod.rules.night import NightOrders as Orders
from scraper_mod.rules.randomlist import commitment
from scraper_mod.rules.votes import EditNote

MSK = ZoneInfo("Europe/Moscow")
TOPIC = "https://forum.example.org/viewtopic.php?t=12"

ROLES = {
    "Вася": Role.BOSS,
    "Маша_2": Role.CIVILIAN,
    "doc_Holiday": Role.DOCTOR,
    "Big Joe": Role.MAFIA,
    "NightOwl": Role.SERGEANT,
    "Ёжик в тумане": Role.COMMISSAR,
    "Алексей": Role.MANIAC,
    "Игрок-7": Role.VSB,
    "Кот": Role.MAFIA,
    "Лиса": Role.CIVILIAN,
}
ORDER = ("Лиса", "Игрок-7", "Big Joe", "Маша_2", "Вася", "Алексей", "doc_Holiday", "Кот",
         "NightOwl", "Ёжик в тумане")


def t(day: int, hh: int, mm: int, ss: int = 0) -> datetime:
    """An instant in March 2024, Moscow time."""
    return datetime(2024, 3, day, hh, mm, ss, tzinfo=MSK)


def cand(target: str, *voters: tuple[str, datetime, int]) -> Candidate:
    return Candidate(target=target, votes=len(voters), voters=tuple(
        VoteLine(voter=v, at=at, post_id=pid, url=post_url(TOPIC, pid)) for v, at, pid in voters))


def move(player, kind, target, at, status="counted", reason="", story=None):
    return Move(player=player, role=ROLES.get(player), kind=kind and MoveKind(kind),
                target=target, received_at=at, status=status, reason=reason, story=story)


def alive_minus(alive, *gone):
    return tuple(n for n in alive if n not in gone)


ALL = tuple(ROLES)


def base(day: int, **kw) -> DayReport:
    deadline = kw.pop("deadline", t(14 + day, 20, 0))
    defaults = dict(
        title="Вечерний Мафиозник", day=day, lang="ru", tz=MSK, options=RuleOptions(),
        roles=ROLES, alive_before=ALL, deadline=deadline,
        newspaper_at=deadline + timedelta(hours=1),
        next_deadline=deadline + timedelta(days=1), random_order=ORDER,
        commissar="Ёжик в тумане", sergeant="NightOwl", duty="Big Joe",
        commissar_after="Ёжик в тумане", duty_after="Big Joe", topic=TOPIC,
        # R14.3 / issue 37: moves go to the host's PMs on the board
        move_help={"via": "pm", "to": "Ведущий", "code": False,
                   "roles": moves_howto(ROLES.values())})
    defaults.update(kw)
    return DayReport(**defaults)


def votes_lynch() -> DayReport:
    """Day 1: Маша_2 jailed by 6 votes of 9; the mafia kills NightOwl (the Sergeant)."""
    alive = alive_minus(ALL, "Маша_2", "NightOwl")
    result = DayResult(day=1, lynched=Death("Маша_2", Role.CIVILIAN, "votes"),
                       killed=(Death("NightOwl", Role.SERGEANT, "mafia"),),
                       checks=(CheckResult("Ёжик в тумане", "Big Joe", "mafia"),),
                       alive=alive, story="Его нашли утром в парке, у пруда с утками...")
    return base(1, result=result, lynch_by="votes", next_deadline=t(17, 20, 0),
                next_day_merged=True, candidates=(
        cand("Маша_2", ("Игрок-7", t(15, 12, 36, 5), 31), ("doc_Holiday", t(15, 19, 47, 12), 43),
             ("Вася", t(15, 19, 52), 44), ("Big Joe", t(15, 19, 55, 30), 45),
             ("Ёжик в тумане", t(15, 19, 59, 1), 47), ("Алексей", t(15, 19, 59, 59), 48)),
        cand("Вася", ("Маша_2", t(14, 22, 10), 22), ("Лиса", t(15, 19, 58, 40), 46)),
        cand("Лиса", ("Кот", t(15, 9, 5), 29)),
    ), not_voting=("NightOwl",), rejected=(
        Rejected(40, "NightOwl", "Вася", "quoted"),
        Rejected(49, "Лиса", "Маша_2", "late", "пост после срока"),
    ), tally_notes=("#38 Кот: «Васе» прочитано как Вася (склонение)",),
        moves=(
            move("Big Joe", "kill", "Лиса", t(15, 10, 0), "replaced", "replaced"),
            move("Кот", "kill", "Игрок-7", t(15, 12, 0), "invalid", "not_duty"),
            move("Big Joe", "kill", "NightOwl", t(15, 18, 30), story="Его нашли утром в парке, у пруда с утками..."),
            move("doc_Holiday", "heal", "Маша_2", t(15, 17, 0)),
            move("Ёжик в тумане", "check", "Big Joe", t(15, 16, 0)),
            move("Алексей", "kill", "Кот", t(15, 20, 0, 2), "late", "late"),
            move("stranger@example.org", None, None, t(15, 11, 0), "unknown_sender",
                 "unknown_sender"),
        ),
        orders=Orders(mafia_kill="NightOwl", mafia_by="Big Joe", heal="Маша_2",
                      doctor="doc_Holiday", check="Big Joe", checker="Ёжик в тумане"),
        posts_by=(("Вася", 5), ("Маша_2", 3), ("doc_Holiday", 2), ("Big Joe", 4),
                  ("Ёжик в тумане", 1), ("Алексей", 1), ("Игрок-7", 2), ("Кот", 2),
                  ("Лиса", 3)),
        edits=(EditNote(44, "Вася", t(15, 19, 52), before=("Лиса",), after=("Маша_2",)),
               EditNote(47, "Ёжик в тумане", t(15, 20, 3), before=("Маша_2",),
                        after=("Вася",), counted=False)),
        late_posts=(49,))


def random_tie() -> DayReport:
    """Day 2 (Saturday merged into Sunday): a 2-2 tie; the random list jails Big Joe; the
    Maniac's kill is healed (a save); the vote table as aligned text in [code]."""
    alive_before = alive_minus(ALL, "Маша_2", "NightOwl")
    alive = alive_minus(alive_before, "Big Joe")
    result = DayResult(day=2, lynched=Death("Big Joe", Role.MAFIA, "random"), saved=True,
                       checks=(CheckResult("Ёжик в тумане", "Игрок-7", "civilian"),),
                       alive=alive)
    return base(2, result=result, lynch_by="random", tied=("Вася", "Лиса"),
                alive_before=alive_before, sergeant=None, cursor_before=2, cursor_after=3,
                deadline=t(17, 20, 0), next_deadline=t(18, 20, 0),
                options=RuleOptions(), vote_table="code", candidates=(
                    cand("Вася", ("Лиса", t(16, 21, 30), 60), ("Ёжик в тумане", t(17, 11, 2), 71)),
                    cand("Лиса", ("Вася", t(17, 12, 0), 72), ("Кот", t(17, 19, 40), 80)),
                ), not_voting=("doc_Holiday", "Big Joe", "Алексей", "Игрок-7"),
                moves=(move("Алексей", "kill", "Лиса", t(17, 15, 0)),
                       move("doc_Holiday", "heal", "Лиса", t(17, 16, 0)),
                       move("Ёжик в тумане", "check", "Игрок-7", t(17, 17, 0))),
                orders=Orders(maniac_kill="Лиса", maniac="Алексей", heal="Лиса",
                              doctor="doc_Holiday", check="Игрок-7", checker="Ёжик в тумане"),
                duty_after="Вася",
                posts_by=(("Вася", 2), ("Лиса", 4), ("Кот", 1), ("Ёжик в тумане", 3)))


def freeze() -> DayReport:
    """Day 3: the Boss freezes doc_Holiday; the vote table in the board's own [table]; the
    previous night's frozen player did not vote; a moved next deadline (R1.4)."""
    alive_before = alive_minus(ALL, "Маша_2", "NightOwl", "Big Joe")
    result = DayResult(day=3, lynched=Death("Кот", Role.MAFIA, "votes"),
                       killed=(Death("Лиса", Role.CIVILIAN, "maniac"),),
                       frozen="doc_Holiday", alive=alive_minus(alive_before, "Кот", "Лиса"))
    return base(3, result=result, lynch_by="votes", alive_before=alive_before,
                deadline=t(18, 20, 0), next_deadline=t(20, 20, 0),
                next_deadline_regular=t(19, 20, 0), sergeant=None,
                options=RuleOptions(table_bbcode=True), vote_table="table",
                frozen_today="Игрок-7", duty="Вася", duty_after="Вася", candidates=(
                    cand("Кот", ("Лиса", t(18, 10, 0), 90), ("Вася", t(18, 11, 0), 91),
                         ("Ёжик в тумане", t(18, 12, 0), 92), ("Алексей", t(18, 13, 0), 93)),
                    cand("Лиса", ("Кот", t(18, 14, 0), 94)),
                ), not_voting=("doc_Holiday", "Игрок-7"),
                rejected=(Rejected(95, "Игрок-7", "Кот", "frozen"),),
                moves=(move("Вася", "freeze", "doc_Holiday", t(18, 9, 0)),
                       move("doc_Holiday", "heal", "Лиса", t(18, 9, 30)),
                       move("Алексей", "kill", "Лиса", t(18, 15, 0))),
                orders=Orders(freeze="doc_Holiday", boss="Вася", maniac_kill="Лиса",
                              maniac="Алексей"))


def vsb_miss() -> DayReport:
    """Day 2 variant: the mafia shoots the ВСБ (a miss, never revealed); no votes at all, so
    the random list jails Маша_2; this day's own deadline was moved."""
    alive_before = alive_minus(ALL, "NightOwl")
    result = DayResult(day=2, lynched=Death("Маша_2", Role.CIVILIAN, "random"),
                       alive=alive_minus(alive_before, "Маша_2"), vsb_protected=True,
                       checks=(CheckResult("Ёжик в тумане", "Вася", "boss"),))
    return base(2, result=result, lynch_by="random", alive_before=alive_before,
                deadline=t(18, 12, 0), deadline_regular=t(17, 20, 0), newspaper_at=t(18, 21, 0),
                next_deadline=t(19, 20, 0), sergeant=None, cursor_before=9, cursor_after=4,
                not_voting=alive_before,
                moves=(move("Big Joe", "kill", "Игрок-7", t(18, 1, 0),
                            story="Пуля отскочила от медальона."),),
                orders=Orders(mafia_kill="Игрок-7", mafia_by="Big Joe",
                              mafia_story="Пуля отскочила от медальона."))


def promotion() -> DayReport:
    """Day 1 variant: the mafia kills the Commissar; his last check still reaches him and the
    Sergeant, who becomes Commissar (R6.4, R6.5)."""
    result = DayResult(day=1, lynched=Death("Лиса", Role.CIVILIAN, "votes"),
                       killed=(Death("Ёжик в тумане", Role.COMMISSAR, "mafia"),),
                       checks=(CheckResult("Ёжик в тумане", "Кот", "mafia"),),
                       promoted="NightOwl", alive=alive_minus(ALL, "Лиса", "Ёжик в тумане"),
                       story="[b]Комиссара[/b] нашли в [url=http://evil.example]архиве[/url].")
    return base(1, result=result, lynch_by="votes", commissar_after="NightOwl",
                options=RuleOptions(check_result="binary"), candidates=(
                    cand("Лиса", ("Вася", t(15, 10, 0), 11), ("Кот", t(15, 10, 5), 12),
                         ("Big Joe", t(15, 11, 0), 13)),
                ), not_voting=("Маша_2", "doc_Holiday", "NightOwl", "Ёжик в тумане",
                               "Алексей", "Игрок-7", "Лиса"),
                orders=Orders(mafia_kill="Ёжик в тумане", mafia_by="Big Joe",
                              check="Кот", checker="Ёжик в тумане"))


REVEAL = RandomReveal(order=ORDER, salt="4f1c0a9e2b7d",
                      commitment=commitment(list(ORDER), "4f1c0a9e2b7d"))


def town_wins() -> DayReport:
    """The last mafioso (the Boss) is jailed: town wins (R7.1); the random list is revealed."""
    alive_before = ("Вася", "doc_Holiday", "Ёжик в тумане", "Игрок-7")
    result = DayResult(day=4, lynched=Death("Вася", Role.BOSS, "votes"),
                       alive=("doc_Holiday", "Ёжик в тумане", "Игрок-7"), winner="town")
    return base(4, result=result, lynch_by="votes", alive_before=alive_before,
                deadline=t(19, 20, 0), next_deadline=None, reveal=REVEAL, sergeant=None,
                duty="Вася", duty_after=None, candidates=(
                    cand("Вася", ("doc_Holiday", t(19, 9, 0), 120),
                         ("Ёжик в тумане", t(19, 9, 30), 121), ("Игрок-7", t(19, 10, 0), 122)),
                    cand("Игрок-7", ("Вася", t(19, 9, 10), 123)),
                ))


def mafia_wins() -> DayReport:
    """The mafia kills the Doctor at night: 2 mafiosi vs 2 others — mafia wins (R7.2)."""
    alive_before = ("Вася", "Кот", "doc_Holiday", "Лиса", "Игрок-7")
    result = DayResult(day=4, lynched=Death("Игрок-7", Role.VSB, "votes"),
                       killed=(Death("doc_Holiday", Role.DOCTOR, "mafia"),),
                       alive=("Вася", "Кот", "Лиса"), winner="mafia",
                       story="Доктор не успел вылечить сам себя.")
    return base(4, result=result, lynch_by="votes", alive_before=alive_before,
                deadline=t(19, 20, 0), next_deadline=None, reveal=REVEAL, commissar=None,
                sergeant=None, duty="Кот", duty_after="Кот", candidates=(
                    cand("Игрок-7", ("Вася", t(19, 8, 0), 130), ("Кот", t(19, 8, 1), 131),
                         ("Лиса", t(19, 9, 0), 132)),
                    cand("Вася", ("Игрок-7", t(19, 9, 5), 133)),
                ), orders=Orders(mafia_kill="doc_Holiday", mafia_by="Кот"))


def maniac_wins() -> DayReport:
    """Three left; the lynch and the Maniac's kill leave him with one other (R7.3)."""
    alive_before = ("Алексей", "Вася", "Лиса")
    result = DayResult(day=5, lynched=Death("Вася", Role.BOSS, "random"),
                       alive=("Алексей", "Лиса"), winner="maniac")
    return base(5, result=result, lynch_by="random", tied=("Вася", "Лиса", "Алексей"),
                alive_before=alive_before, deadline=t(20, 20, 0), next_deadline=None,
                reveal=RandomReveal(order=ORDER), commissar=None, sergeant=None, duty="Вася",
                duty_after=None, cursor_before=3, cursor_after=5, candidates=(
                    cand("Вася", ("Лиса", t(20, 10, 0), 140)),
                    cand("Лиса", ("Алексей", t(20, 10, 5), 141)),
                    cand("Алексей", ("Вася", t(20, 11, 0), 142)),
                ))


SCENARIOS = {
    "votes-lynch": votes_lynch,
    "random-tie": random_tie,
    "freeze": freeze,
    "vsb-miss": vsb_miss,
    "promotion": promotion,
    "town-wins": town_wins,
    "mafia-wins": mafia_wins,
    "maniac-wins": maniac_wins,
}


def scenario(name: str, lang: str = "ru") -> DayReport:
    return replace(SCENARIOS[name](), lang=lang)
