"""Counting the day's votes and deciding the lynch ("посадка", docs/rules.md R2.5, R2.8-R2.16, R3).

``count_votes`` takes the day's vote events (already extracted from the posts and cut off at
the deadline or the as-of instant by the votes module) and applies:

- R2.8 only alive players vote, only for alive players; a frozen player's votes do not count
  that day (R5.4); self-votes count unless the ``self_votes`` option is off. A vote that
  breaks these is rejected and does not replace the voter's previous valid vote.
- R2.5 each voter's latest valid vote (by time, then post id) is the one that counts.

``Tally.counts`` is sorted as docs/commands.md has it: by votes, descending, then by who reached the
count first. A candidate *reached* his count at ``reached_at``, the moment his last current
voter started voting for him; a voter who writes the same nick again keeps the time of his
first vote in that run, so restating a vote does not lose a candidate his place. Ties on
both are ordered by nick so the result never depends on input order.

The house rules R2.13-R2.16 (rules/house.py) are judged after R2.8 when ``house`` is given;
R2.12 (``tie_break = "earliest"``): the tied leader who reached his count first is jailed.

``decide_lynch`` applies R2.9 (most votes is jailed) and R2.10 / R3 (a tie or no valid vote:
the random list decides, among all alive players by default, R3.3, or among the tied ones
with ``tie_scope = "tied_only"``; ``frozen_immune_to_random`` keeps the frozen out of it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone

from .house import HouseDay, HouseJudge
from .model import NO_ONE, RuleOptions, Vote
from .randomlist import pick_random


@dataclass(frozen=True)
class Rejection:
    """A post (or a vote in it) that was not counted, and why; for the host report (R9.4).

    Reasons used here: ``dead_voter``, ``dead_target``, ``not_a_player``, ``frozen``,
    ``self_vote``. The votes module adds its own (``quoted``, ``ambiguous``, ``late`` ...).
    """

    post_id: int
    author: str
    text: str
    reason: str

    def to_json(self) -> dict:
        return {"post_id": self.post_id, "author": self.author, "text": self.text,
                "reason": self.reason}


@dataclass(frozen=True)
class Count:
    """One candidate: his number of votes, his voters in time order, when he reached it."""

    target: str
    votes: int
    voters: tuple[str, ...]
    reached_at: datetime
    penalty: int = 0     # R2.16: votes for not voting, included in ``votes``
    doubled: tuple[str, ...] = ()   # R14: voters whose vote counts as two (the Mayor)

    def to_json(self) -> dict:
        return {"target": self.target, "votes": self.votes, "voters": list(self.voters),
                **({"penalty": self.penalty} if self.penalty else {}),
                **({"doubled": list(self.doubled)} if self.doubled else {})}


@dataclass(frozen=True)
class Tally:
    """The counted votes of a day (R2.5, R2.8)."""

    votes: tuple[Vote, ...]          # the counted (latest valid) vote per voter, in time order
    counts: tuple[Count, ...]        # CONTRACT order
    not_voting: tuple[str, ...]      # alive, not frozen, no counted vote
    rejected: tuple[Rejection, ...]
    frozen: tuple[str, ...] = ()     # alive players whose vote does not count today (R5.4)
    majority: Vote | None = None     # R2.15: the vote that gave a candidate the majority

    @property
    def leaders(self) -> tuple[str, ...]:
        """Candidates with the most votes (empty when nobody voted)."""
        if not self.counts:
            return ()
        top = self.counts[0].votes
        return tuple(c.target for c in self.counts if c.votes == top)


@dataclass(frozen=True)
class Lynch:
    """Who is jailed (R2.9) and how: ``by`` is "votes" or "random" (R2.10, R3).

    ``cursor`` is the random list's cursor after this day (unchanged when the votes decided),
    ``tied`` the tied leaders when there was a tie (empty otherwise), ``picked_from`` the
    players the random could pick (empty when the votes decided).
    """

    player: str
    by: str
    cursor: int
    tied: tuple[str, ...] = ()
    picked_from: tuple[str, ...] = ()
    earliest: datetime | None = None  # R2.12: a tie decided by the earliest final count

    def to_json(self) -> dict:
        return {"player": self.player, "by": self.by}


def _sort_key(nick: str) -> tuple[str, str]:
    return (nick.casefold(), nick)


def _utc(t: datetime) -> datetime:
    # Aware datetimes sharing a ZoneInfo compare by wall time in Python; UTC is real time.
    return t.astimezone(timezone.utc)


def _vote_key(v: Vote) -> tuple[datetime, int]:
    return (_utc(v.at), v.post_id)


def count_votes(votes: Iterable[Vote], *, alive: Iterable[str], frozen: Iterable[str] = (),
                self_votes: bool = True, players: Iterable[str] | None = None,
                house: HouseDay | None = None, double: Iterable[str] = ()) -> Tally:
    """R2.5, R2.8: each alive, unfrozen voter's latest valid vote, and the counts.

    ``players`` (all nicks, dead too), when given, lets a vote by or for someone who is not a
    player be rejected as ``not_a_player`` rather than as dead. ``house``: the day's house
    rules (R2.13-R2.16, rules/house.py), judged after R2.8. ``double``: voters whose
    counted vote counts as two (R14: the Mayor).
    """
    twice = set(double)
    alive_set = set(alive)
    everyone = set(players) if players is not None else None
    frozen_set = {f for f in frozen if f in alive_set}
    judge = HouseJudge(house, len(alive_set - frozen_set)) if house is not None else None
    ordered = sorted(votes, key=_vote_key)
    rejected: list[Rejection] = []
    latest: dict[str, Vote] = {}
    since: dict[str, datetime] = {}  # start of the voter's current run for the same target
    for v in ordered:
        reason = None
        if everyone is not None and (v.voter not in everyone or
                                     (v.target not in everyone and v.target != NO_ONE)):
            reason = "not_a_player"
        elif v.voter not in alive_set:
            reason = "dead_voter"
        elif v.voter in frozen_set:
            reason = "frozen"
        elif v.target not in alive_set and v.target != NO_ONE:    # R2.19: a pass
            reason = "dead_target"
        elif v.voter == v.target and not self_votes:
            reason = "self_vote"
        elif judge is not None:
            reason = judge.reason(v, latest.get(v.voter))
        if reason:
            rejected.append(Rejection(v.post_id, v.voter, v.target, reason))
            continue
        prev = latest.get(v.voter)
        if prev is None or prev.target != v.target:
            since[v.voter] = v.at
        latest[v.voter] = v
        if judge is not None:
            judge.counted(v, latest)

    not_voting = tuple(sorted((p for p in alive_set if p not in latest and p not in frozen_set),
                              key=_sort_key))
    majority = judge.majority if judge is not None else None
    # R2.16: penalty votes, reached at the deadline (none before it, none after a majority)
    penalty_at = house.penalty_at if house is not None and majority is None else None
    penalty = house.non_voter_votes if house is not None and penalty_at is not None else 0
    by_target: dict[str, list[str]] = {}
    for voter in sorted(latest, key=lambda x: (_utc(since[x]), latest[x].post_id, _sort_key(x))):
        by_target.setdefault(latest[voter].target, []).append(voter)
    for nick in not_voting if penalty else ():
        by_target.setdefault(nick, [])
    counts = []
    for t, vs in by_target.items():
        extra = penalty if t in not_voting else 0
        times = [since[x] for x in vs] + ([penalty_at] if extra and penalty_at else [])
        doubled = tuple(x for x in vs if x in twice)
        counts.append(Count(target=t, votes=len(vs) + extra + len(doubled), voters=tuple(vs),
                            reached_at=max(times, key=_utc), penalty=extra, doubled=doubled))
    counts.sort(key=lambda c: (-c.votes, _utc(c.reached_at), _sort_key(c.target)))
    counted = tuple(sorted(latest.values(), key=_vote_key))
    return Tally(votes=counted, counts=tuple(counts), not_voting=not_voting,
                 rejected=tuple(rejected), frozen=tuple(sorted(frozen_set, key=_sort_key)),
                 majority=majority)


def decide_lynch(tally: Tally, *, alive: Iterable[str], order: list[str] | tuple[str, ...],
                 cursor: int, options: RuleOptions = RuleOptions(),
                 immune: Iterable[str] = frozenset()) -> Lynch | None:
    """R2.9, R2.10, R3.2, R3.3: who is jailed today.

    The single leader is jailed "by votes". A tie for the most votes, or no valid vote at all,
    goes to the random list: the first eligible player at or after ``cursor``. Eligible are all
    alive players (R3.3) or, with ``tie_scope = "tied_only"``, the tied leaders (all alive
    when nobody voted); ``immune`` players, and with ``frozen_immune_to_random`` the day's
    frozen players (``tally.frozen``), are left out unless that leaves nobody. Returns None
    when nobody is alive, and when the house's rules jail no one (R2.19): the pass votes
    («пас», ``NO_ONE``) lead alone, or a tie with ``tie_jails_no_one``. A tie of "no one"
    with players goes to the random list among the players.
    """
    alive_set = set(alive)
    if not alive_set:
        return None
    if tally.leaders == (NO_ONE,):           # R2.19: "no one" leads: no one is jailed
        return None
    if len(tally.leaders) > 1 and options.tie_jails_no_one:   # R2.19's option
        return None
    leaders = tuple(t for t in tally.leaders if t in alive_set)
    if len(leaders) == 1 and NO_ONE not in tally.leaders:
        return Lynch(player=leaders[0], by="votes", cursor=cursor)
    if len(leaders) > 1 and options.tie_break == "earliest":   # R2.12
        reached = {c.target: _utc(c.reached_at) for c in tally.counts}
        first = min(reached[t] for t in leaders)
        earliest = [t for t in leaders if reached[t] == first]
        if len(earliest) == 1:   # the same instant twice: the random list, as R2.10
            at = next(c.reached_at for c in tally.counts if c.target == earliest[0])
            return Lynch(player=earliest[0], by="votes", cursor=cursor, tied=leaders,
                         earliest=at)
    pool = set(leaders) if (leaders and options.tie_scope == "tied_only") else alive_set
    excluded = set(immune)
    if options.frozen_immune_to_random:
        excluded |= set(tally.frozen)
    eligible = (pool - excluded) or pool
    player, new_cursor = pick_random(order, cursor, eligible)
    return Lynch(player=player, by="random", cursor=new_cursor,
                 tied=leaders if len(leaders) > 1 else (),
                 picked_from=tuple(sorted(eligible, key=_sort_key)))
