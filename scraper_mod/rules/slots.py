"""Replacements (RULES R10) and the host's decisions (R11) as data the rules take as input.

A **slot** is a place in the game: a role, its being alive, its moves, its vote, its place in
the random list. It starts with the game file's player and may pass to other forum users
(«замена»): ``Slot.users`` is its nick history, ``(nick, from)``, the first from ``None``.
The ``Book`` holds every slot with the decisions in force (undone ones are left out by the
service that builds it) and answers, for any instant ``t``:

- ``who(author, t)``: whose slot a post or message by ``author`` is (R10.2: the old user's
  after the instant are not the slot's: ``"replaced"``; a newcomer's before it: ``"not_yet"``);
- ``nick_at(name, t)``: the slot's nick at ``t`` for any nick it ever had (a vote or a move
  naming the old nick counts for the slot, R10.2);
- ``rename_at(t)``: every nick a slot had up to ``t`` -> its nick at ``t`` (states and votes
  are named by the slot's current nick, R10.3);
- ``names_at(t)``: the names that match a slot at ``t`` (its nick, its earlier nicks, the game
  file's aliases), for the name index: R2.3's ambiguity is judged against the live set of
  nicks at each instant;
- ``vote_decision(post_id)`` (R11.1) and the host's kills (R11.2).

``day_view(state, book, cutoff=..., day=...)`` is the state a day is counted and resolved on:
renamed to the nicks at ``cutoff`` and with every player the host removed before ``cutoff``
dead (``died_at = (day, "host")``). ``read_vote`` reads one bare ``Vote`` (the replay's) the
way ``rules.votes`` reads a post. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ..errors import RulesError
from .model import HostKilled, Replaced, Vote
from .state import GameState

__all__ = ["Replacement", "VoteDecision", "HostKill", "Slot", "Book", "build_book",
           "rename_state", "day_view", "read_vote", "EMPTY"]


def _utc(t: datetime) -> datetime:
    return t.astimezone(timezone.utc)


def _key(nick: str) -> str:
    return nick.strip().casefold()


@dataclass(frozen=True)
class Replacement:
    """R10.1: ``new`` takes the slot ``old`` plays from ``at`` (``k``: its number)."""

    old: str
    new: str
    at: datetime
    k: int = 0
    contact: str | None = None
    why: str = ""


@dataclass(frozen=True)
class VoteDecision:
    """R11.1: post ``post_id`` is read as a vote for ``target``, or as no vote (None)."""

    post_id: int
    target: str | None
    why: str = ""
    k: int = 0


@dataclass(frozen=True)
class HostKill:
    """R11.2: the host removes ``nick`` (any nick of the slot) at ``at``."""

    nick: str
    at: datetime
    why: str = ""
    k: int = 0


@dataclass(frozen=True)
class Slot:
    """One place in the game and the forum users who held it, ``(nick, from)`` in order."""

    users: tuple[tuple[str, datetime | None], ...]
    aliases: tuple[str, ...] = ()

    @property
    def first(self) -> str:
        return self.users[0][0]

    def nick_at(self, t: datetime | None) -> str:
        """The slot's nick at ``t`` (``None``: its latest)."""
        nick = self.users[0][0]
        for n, since in self.users[1:]:
            if t is None or since is None or _utc(since) <= _utc(t):
                nick = n
        return nick

    def nicks_until(self, t: datetime | None) -> tuple[str, ...]:
        """Every nick the slot had up to ``t``, the current one last."""
        return tuple(n for n, since in self.users
                     if since is None or t is None or _utc(since) <= _utc(t))

    def span(self, nick: str) -> tuple[datetime | None, datetime | None] | None:
        """When ``nick`` held the slot: ``[from, until)``; None if he never did."""
        for i, (n, since) in enumerate(self.users):
            if _key(n) == _key(nick):
                until = self.users[i + 1][1] if i + 1 < len(self.users) else None
                return since, until
        return None


@dataclass(frozen=True)
class Book:
    """The slots and the host's decisions in force (R10, R11)."""

    slots: tuple[Slot, ...] = ()
    replacements: tuple[Replacement, ...] = ()
    votes: Mapping[int, VoteDecision] = field(default_factory=dict)
    kills: tuple[HostKill, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.replacements or self.votes or self.kills)

    def slot_of(self, nick: str) -> Slot | None:
        """The slot any of whose users is called ``nick`` (case-insensitive)."""
        k = _key(nick)
        for s in self.slots:
            if any(_key(n) == k for n, _ in s.users):
                return s
        return None

    def who(self, author: str, t: datetime) -> tuple[Slot | None, str]:
        """Whose slot a post or message by ``author`` at ``t`` is: ``(slot, "")``; or
        ``(slot, "replaced")`` for the old user after the replacement, ``(slot,
        "not_yet")`` for a newcomer before it; ``(None, "")`` for a non-player."""
        s = self.slot_of(author)
        span = s.span(author) if s is not None else None
        if s is None or span is None:
            return None, ""
        since, until = span
        if since is not None and _utc(t) < _utc(since):
            return s, "not_yet"
        if until is not None and _utc(t) >= _utc(until):
            return s, "replaced"
        return s, ""

    def nick_at(self, name: str, t: datetime | None) -> str:
        """The slot's nick at ``t`` for any nick it had; ``name`` itself for no slot."""
        s = self.slot_of(name)
        return s.nick_at(t) if s is not None else name

    def rename_at(self, t: datetime | None) -> dict[str, str]:
        """Every nick a slot had up to ``t`` -> the slot's nick at ``t``."""
        out: dict[str, str] = {}
        for s in self.slots:
            now = s.nick_at(t)
            for n in s.nicks_until(t):
                out[n] = now
        return out

    def names_at(self, t: datetime | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """``(nick at t, other names)`` per slot: its earlier nicks and the game file's
        aliases name it too (R10.2); a newcomer's nick names nobody before he comes."""
        out = []
        for s in self.slots:
            nicks = s.nicks_until(t)
            out.append((nicks[-1], tuple(nicks[:-1]) + tuple(s.aliases)))
        return tuple(out)

    def vote_decision(self, post_id: int) -> VoteDecision | None:
        return self.votes.get(post_id)

    def replaced_between(self, since: datetime | None, until: datetime) -> tuple[Replaced, ...]:
        """The replacements made in ``[since, until)``, named as the users are called."""
        return tuple(Replaced(r.old, r.new, r.at) for r in self.replacements
                     if (since is None or _utc(r.at) >= _utc(since)) and _utc(r.at) < _utc(until))


EMPTY = Book()


def build_book(players: Iterable, replacements: Iterable[Replacement] = (),
               votes: Iterable[VoteDecision] = (), kills: Iterable[HostKill] = ()) -> Book:
    """The book from the game file's players (``Player`` objects or ``(nick, aliases)``)
    and the decisions in force. A replacement must name the slot's nick at its instant (a
    chain A -> B -> C names B second) and a newcomer no nick a slot ever had."""
    slots: list[list] = []
    for p in players:
        nick, aliases = (p.nick, tuple(p.aliases)) if hasattr(p, "nick") else (p[0], tuple(p[1]))
        slots.append([[(nick, None)], aliases])
    done: list[Replacement] = []
    for r in sorted(replacements, key=lambda r: (_utc(r.at), r.k)):
        if any(_key(n) == _key(r.new) for s in slots for n, _ in s[0]):
            raise RulesError(f"replacement {r.k}: {r.new!r} already held a slot of this game",
                             hint="a newcomer must be a new forum user")
        found = None
        for s in slots:
            if _key(Slot(tuple(s[0])).nick_at(r.at)) == _key(r.old):
                found = s
        if found is None:
            raise RulesError(f"replacement {r.k}: {r.old!r} plays no slot at "
                             f"{r.at.isoformat()}", hint="name the player the slot has then")
        found[0].append((r.new, r.at))
        done.append(r)
    book_slots = tuple(Slot(tuple(s[0]), tuple(s[1])) for s in slots)
    return Book(slots=book_slots, replacements=tuple(done),
                votes={v.post_id: v for v in votes},
                kills=tuple(sorted(kills, key=lambda k: (_utc(k.at), k.k))))


def rename_state(state: GameState, mapping: Mapping[str, str]) -> GameState:
    """The same state with every nick renamed (a slot passes to its newcomer, R10.1)."""
    if not mapping or all(k == v for k, v in mapping.items()):
        return state
    r = lambda n: mapping.get(n, n) if n is not None else None  # noqa: E731
    return state.evolve(
        roles={r(n): role for n, role in state.roles.items()},
        alive=frozenset(r(n) for n in state.alive), commissar=r(state.commissar),
        sergeant=r(state.sergeant), duty=r(state.duty), order=tuple(r(n) for n in state.order),
        last_heal_target=r(state.last_heal_target), frozen_next_day=r(state.frozen_next_day),
        checked=frozenset(r(n) for n in state.checked),
        died_at={r(n): v for n, v in state.died_at.items()},
        no_vote_days={r(n): k for n, k in state.no_vote_days.items()},
        # R14 (R10.1: the slot keeps its once-a-game move used, its standing move, …)
        last_targets={r(n): r(t) for n, t in state.last_targets.items()},
        used_once=frozenset(r(n) for n in state.used_once),
        mortal=frozenset(r(n) for n in state.mortal),
        standing={r(n): r(t) for n, t in state.standing.items()})


def removals_before(book: Book, cutoff: datetime) -> list[tuple[str, HostKill]]:
    """Every host's removal before ``cutoff`` (R11.2), with the removed slot's nick at
    ``cutoff``: whom the vote count and the resolution both hold dead by then."""
    return [(book.nick_at(k.nick, cutoff), k) for k in book.kills if _utc(k.at) < _utc(cutoff)]


def day_view(state: GameState, book: Book, *, cutoff: datetime, day: int
             ) -> tuple[GameState, tuple[HostKilled, ...]]:
    """The state day ``day`` is counted and resolved on as of ``cutoff``: every slot named
    by its nick at ``cutoff`` (R10.3), and every player the host removed before ``cutoff``
    and still alive dead from now (R11.2), returned as ``HostKilled`` for the newspaper."""
    st = rename_state(state, book.rename_at(cutoff))
    killed: list[HostKilled] = []
    alive = set(st.alive)
    died_at = dict(st.died_at)
    for nick, k in removals_before(book, cutoff):
        if nick in alive:
            alive.discard(nick)
            died_at[nick] = (day, "host")
            killed.append(HostKilled(nick, st.roles[nick], k.at, k.why))
    if not killed:
        return st, ()
    return st.evolve(alive=frozenset(alive), died_at=died_at), tuple(killed)


def read_vote(v: Vote, book: Book, cutoff: datetime) -> tuple[Vote | None, str]:
    """One vote event as the book reads it at ``cutoff``: the voter's slot by the post's
    time (``"replaced_player"`` / ``"not_in_game"`` when the author is not the slot's then),
    the host's decision on the post (``"decided_no_vote"``), the target and voter by their
    slots' nicks at ``cutoff``. Returns ``(vote or None, reason)``."""
    slot, how = book.who(v.voter, v.at)
    if how == "replaced":
        return None, "replaced_player"
    if how == "not_yet":
        return None, "not_in_game"
    voter = slot.nick_at(cutoff) if slot is not None else v.voter
    target, decided = v.target, False
    d = book.vote_decision(v.post_id)
    if d is not None:
        if d.target is None:
            return None, "decided_no_vote"
        target, decided = d.target, True
    return Vote(voter=voter, target=book.nick_at(target, cutoff), at=v.at, post_id=v.post_id,
                decided=decided, final=v.final), ""

