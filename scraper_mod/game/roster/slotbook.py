"""The slots and the host's decisions of an opened game (RULES R10, R11), read from the store
and handed to the pure rules (``rules.slots``) by the tally, the move intake and the
resolution. Nothing here decides a rule: it reads the store and adapts the values.

- ``decisions(ctx)``: every replacement and decision the host made, in force or undone;
- ``load_book(ctx)``: the ``Book`` of the game file's players and the decisions in force;
- ``slot_users(ctx)``: every forum user who ever held a slot, as ``Player`` values (a
  newcomer with the contact given to ``replace``), for the move intake's sender and name
  matching;
- ``tally_view`` / ``resolve_view``: a day's starting state as the book sees it at an
  instant (renamed to the slots' nicks then, the host's removals dead).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping

from scraper_mod.game.context import GameContext
from scraper_mod.morphology import inflect
from scraper_mod.rules.model import DayResult, HostKilled, Player, Replaced
from scraper_mod.rules.names import NameIndex, name_index
from scraper_mod.rules.slots import (
    EMPTY,
    Book,
    HostKill,
    Replacement,
    VoteDecision,
    build_book,
    day_view,
    removals_before,
)
from scraper_mod.rules.state import GameState

__all__ = ["Decision", "decisions", "load_book", "slot_users", "tally_view", "resolve_view",
           "with_book", "day_of_instant", "report_extras", "book_of"]


@dataclass(frozen=True)
class Decision:
    """One stored replacement or decision (``store.host_decisions``)."""

    k: int
    kind: str                      # replace | vote | kill
    made_at: datetime
    at: datetime | None = None     # replace, kill: when it takes effect
    nick: str | None = None        # replace: the old nick; kill: the player
    new: str | None = None         # replace: the newcomer; vote: the target (None: no vote)
    post_id: int | None = None
    contact: str | None = None
    why: str = ""
    undone_at: datetime | None = None

    @property
    def in_force(self) -> bool:
        return self.undone_at is None


def decisions(ctx: GameContext) -> list[Decision]:
    return [Decision(**row) for row in ctx.store.host_decisions()]


def book_of(players: Iterable[Player], rows: list[Decision]) -> Book:
    """The ``Book`` of ``players`` with the decisions of ``rows`` that are in force."""
    live = [d for d in rows if d.in_force]
    return build_book(
        players,
        [Replacement(d.nick or "", d.new or "", d.at or d.made_at, k=d.k, contact=d.contact,
                     why=d.why) for d in live if d.kind == "replace"],
        [VoteDecision(d.post_id or 0, d.new or None, why=d.why, k=d.k)
         for d in live if d.kind == "vote"],
        [HostKill(d.nick or "", d.at or d.made_at, why=d.why, k=d.k)
         for d in live if d.kind == "kill"])


def load_book(ctx: GameContext) -> Book:
    """The book in force for this game (``rules.slots.EMPTY`` when the host made none)."""
    rows = decisions(ctx)
    if not any(d.in_force for d in rows):
        return EMPTY
    return book_of(ctx.game.players, rows)


def slot_users(ctx: GameContext, book: Book | None = None, *, at: datetime | None = None
               ) -> tuple[Player, ...]:
    """The game file's players, then every newcomer (with the contact ``replace`` was
    given and the slot's code): whom a message may come from and whom a move may name.
    With ``at``, only the newcomers in the game by then: a move's target is matched against
    the names live when it was received (R2.3 at each instant)."""
    book = load_book(ctx) if book is None else book
    players = tuple(ctx.game.players)
    if book.empty:
        return players
    utc = at.astimezone(timezone.utc) if at is not None else None
    return players + tuple(Player(nick=r.new, contact=r.contact, code=slot_code(ctx, book, r.new))
                           for r in book.replacements
                           if utc is None or r.at.astimezone(timezone.utc) <= utc)


def slot_code(ctx: GameContext, book: Book, nick: str) -> str | None:
    """The secret move code of the slot ``nick`` holds (a newcomer inherits it with the role
    card, when the game uses codes)."""
    slot = book.slot_of(nick)
    first = slot.first if slot is not None else nick
    return next((p.code for p in ctx.game.players if p.nick == first), None)


def _index(ctx: GameContext, names: tuple) -> NameIndex:
    """The name index of ``names``, built once per list while the game is open."""
    return ctx.remember(("names", names), lambda: name_index(names, inflect=inflect))


def index_at(ctx: GameContext, book: Book) -> Callable[[datetime], NameIndex]:
    """instant -> the name index of the names live then (R2.3 at each instant, R10.2)."""
    return lambda t: _index(ctx, book.names_at(t))


def tally_view(ctx: GameContext, st: Any, *, day: int, cutoff: datetime
               ) -> tuple[Any, NameIndex | None, dict]:
    """A vote count's ``DayState`` as the book sees it at ``cutoff``, its name index and the
    extra arguments of ``extract_votes``: ``(DayState, index or None, kwargs)``."""
    book = load_book(ctx)
    if book.empty:
        return st, None, {}
    names = book.rename_at(cutoff)
    r = lambda n: names.get(n, n)  # noqa: E731
    alive = {r(n) for n in st.alive} - {nick for nick, _ in removals_before(book, cutoff)}
    st = replace(st, alive=frozenset(alive), frozen=frozenset(r(n) for n in st.frozen) & alive,
                 order=tuple(r(n) for n in st.order),
                 last_word_until={r(n): t for n, t in st.last_word_until.items()})
    return st, _index(ctx, book.names_at(cutoff)), {"book": book,
                                                     "index_at": index_at(ctx, book)}


def resolve_view(ctx: GameContext, before: GameState, *, day: int, cutoff: datetime,
                 book: Book | None = None) -> tuple[GameState, tuple[HostKilled, ...], Book]:
    """The state day ``day`` resolves on (``rules.slots.day_view``), its players in the
    slots' order (the game file's), the host's removals, and the book (default: in force)."""
    book = load_book(ctx) if book is None else book
    if book.empty:
        return before, (), book
    st, killed = day_view(before, book, cutoff=cutoff, day=day)
    order = [s.nick_at(cutoff) for s in book.slots]
    roles = {n: st.roles[n] for n in order if n in st.roles}
    roles.update({n: r for n, r in st.roles.items() if n not in roles})
    return st.evolve(roles=roles), killed, book


def report_extras(ctx: GameContext, book: Book, contacts: Mapping[str, str]) -> dict:
    """What a day's report adds for the host (R11.3): every decision, in force or undone,
    and the newcomers' contacts for their private messages."""
    rows = decisions(ctx)
    if not rows:
        return {}
    extra = {r.new: r.contact for r in book.replacements if r.contact}
    return {"decisions": tuple(rows), "contacts": {**contacts, **extra}}


def day_of_instant(ctx: GameContext, at: datetime) -> int:
    """The day whose count and resolution an instant falls in: the first day whose deadline
    is after it."""
    return ctx.calendar().last_due_day(at) + 1


def with_book(ctx: GameContext, result: DayResult, book: Book, day: int,
              killed: tuple[HostKilled, ...]) -> DayResult:
    """The day's result with the host's removals and the replacements made during the day
    (from the previous deadline to this one), their instants in game time."""
    if book.empty:
        return result
    cal = ctx.calendar()
    tz = ctx.game.timezone
    since = cal.deadline(day - 1) if day > 1 else None
    swaps = tuple(Replaced(r.old, r.new, r.at.astimezone(tz))
                  for r in book.replaced_between(since, cal.deadline(day)))
    kills = tuple(replace(k, at=k.at.astimezone(tz)) for k in killed)
    return replace(result, host_kills=kills, replacements=swaps)
