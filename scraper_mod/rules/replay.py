"""A whole game played through the rules core alone (no forum, no mail, no store).

``replay(state, days, options, calendar=...)`` runs, for each day, R2 (count the votes as they
stood at the deadline), R3 (the random list if needed), R6 (``resolve_day``) and stops at the
winner (R7). It is what the resolution service does each evening, minus reading posts and
mail, and what the property tests drive.

``game.scenario.scenario_from_dict`` reads a scenario (a game file's tables plus a
``[[script]]`` of days) so whole games can live in ``fixtures/scenarios/`` as TOML or JSON::

    [game] ... [[players]] ... [mafia] ... [rules] ...   # as in game.toml
    [[script]]
    day = 1
    votes = [["Вася", "Маша_2", "2024-04-09T10:00:00"], ...]  # voter, target, game time[, post id]
    [script.night]                                          # NightOrders fields
    mafia_kill = "Алексей"
    mafia_by = "Вася"
    [script.expect]                                         # checked by the tests
    lynched = "Маша_2"
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone

from ..errors import RulesError
from .calendar import Calendar
from .house import house_day, remove_non_voters
from .model import DayResult, Role, RuleOptions, Vote
from .night import NightOrders, resolve_day
from .slots import EMPTY, Book, day_view, read_vote
from .state import GameState
from .tally import Lynch, Rejection, Tally, count_votes, decide_lynch


@dataclass(frozen=True)
class DayInput:
    """One day's inputs: its votes (any order, any time) and the night's counted orders."""

    day: int
    votes: tuple[Vote, ...] = ()
    orders: NightOrders = field(default_factory=NightOrders)


@dataclass(frozen=True)
class ReplayDay:
    """Everything one day produced."""

    day: int
    deadline: datetime | None
    tally: Tally
    late: tuple[Rejection, ...]
    lynch: Lynch | None
    result: DayResult
    before: GameState
    after: GameState


def play_day(state: GameState, day: DayInput, options: RuleOptions, *,
             deadline: datetime | None = None, book: Book = EMPTY,
             since: datetime | None = None) -> ReplayDay:
    """R2, R3, R6 for one day. Votes at or after ``deadline`` are late (R2.6).

    ``book``: the slots and the host's decisions (R10, R11; needs ``deadline``): the day is
    played on ``day_view`` (slots named by their nicks at the deadline, the host's removals
    dead), each vote read by ``read_vote``; ``since`` (the previous deadline) bounds the
    replacements the day's result names."""
    cut = deadline.astimezone(timezone.utc) if deadline is not None else None
    late = tuple(Rejection(v.post_id, v.voter, v.target, "late") for v in day.votes
                 if cut is not None and v.at.astimezone(timezone.utc) >= cut)
    on_time = [v for v in day.votes if cut is None or v.at.astimezone(timezone.utc) < cut]
    host_kills: tuple = ()
    book_rejected: list[Rejection] = []
    if not book.empty and deadline is not None:
        state, host_kills = day_view(state, book, cutoff=deadline, day=day.day)
        read = []
        for v in on_time:
            got, reason = read_vote(v, book, deadline)
            if got is None:
                book_rejected.append(Rejection(v.post_id, v.voter, v.target, reason))
            else:
                read.append(got)
        on_time = read
    house = (house_day(options, deadline, deadline.tzinfo or timezone.utc, final=True)
             if deadline is not None else None)
    tally = count_votes(on_time, alive=state.alive, frozen=state.frozen_today(),
                        self_votes=options.self_votes, house=house,
                        double=state.with_role(Role.MAYOR))
    if book_rejected:
        tally = replace(tally, rejected=tuple(book_rejected) + tally.rejected)
    if not state.order:
        raise RulesError("the game has no random list", hint="draw it with `scraper-mod deal`")
    lynch = decide_lynch(tally, alive=state.alive, order=state.order, cursor=state.cursor,
                         options=options)
    orders = day.orders
    if not book.empty and deadline is not None:
        orders = _orders_by_slot(orders, book, deadline)
    result, after = resolve_day(day.day, state, lynch, orders, options)
    if not book.empty and deadline is not None:
        result = replace(result, host_kills=host_kills,
                         replacements=book.replaced_between(since, deadline))
    if deadline is not None:   # R2.16
        result, after = remove_non_voters(
            result, after, options=options, voted={v.voter for v in tally.votes},
            exempt=tally.frozen, counts_day=tally.majority is None, at=deadline)
    return ReplayDay(day=day.day, deadline=deadline, tally=tally, late=late, lynch=lynch,
                     result=result, before=state, after=after)


def _orders_by_slot(orders: NightOrders, book: Book, deadline: datetime) -> NightOrders:
    """The night's orders with every nick named by its slot's nick at the deadline (R10)."""
    def r(n: str | None) -> str | None:
        return book.nick_at(n, deadline) if n is not None else None
    o = orders
    return replace(o, mafia_kill=r(o.mafia_kill), mafia_by=r(o.mafia_by),
                   maniac_kill=r(o.maniac_kill), maniac=r(o.maniac), heal=r(o.heal),
                   doctor=r(o.doctor), check=r(o.check), checker=r(o.checker),
                   freeze=r(o.freeze), boss=r(o.boss),
                   mafia_also=tuple(book.nick_at(n, deadline) for n in o.mafia_also),
                   acts=tuple(replace(a, actor=book.nick_at(a.actor, deadline),
                                      target=r(a.target), target2=r(a.target2))
                              for a in o.acts))


def replay(state: GameState, days: Iterable[DayInput], options: RuleOptions = RuleOptions(),
           *, calendar: Calendar | None = None, book: Book = EMPTY) -> list[ReplayDay]:
    """Play the days in order from ``state`` until a side wins or the inputs run out."""
    out: list[ReplayDay] = []
    since = None
    for d in days:
        deadline = calendar.deadline(d.day) if calendar is not None else None
        rd = play_day(state, d, options, deadline=deadline, book=book, since=since)
        since = deadline
        out.append(rd)
        state = rd.after
        if rd.result.winner:
            break
    return out
