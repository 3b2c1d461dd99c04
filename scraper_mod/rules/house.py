"""House rules of other communities (RULES R2.12-R2.16, docs/rules-house.md), each off by default.

``house_day`` turns the ``[rules]`` options into one day's terms (the windows of R2.13 as
instants before the deadline); ``HouseJudge`` is what ``rules.tally.count_votes`` asks, vote by
vote in time order, after R2.8 has let the vote through:

- R2.13 a *change* is a counted vote for another target than the voter's standing vote (the
  first vote of the day and a restated vote are no change). ``vote_changes`` limits the
  changes of the whole day, each window of ``vote_change_limits`` the changes made at or after
  its start (the later window wins); a change past a limit does not count
  (``change_limit``), the vote before it stands.
- R2.14 after a counted vote marked final (``Vote.final``), the voter's later votes do not
  count (``after_final``).
- R2.15 the vote that gives one candidate more votes than half of ``eligible`` (the living
  players who may vote that day, the frozen not counted) ends the vote: every later vote is
  ``after_majority``.
- R2.16 ``non_voter_votes`` votes against each living, unfrozen player with no counted vote,
  at the deadline only (a live count shows none), and not on a day a majority ended.
- R2.18 a vote cast before the voting window opens (``voting_opens``) does not count
  (``before_window``); it is judged first, so it is no change and binds nothing.
- R2.20 with ``edit_is_change`` a vote standing in an edited post (``Vote.edited``) is a
  change even when it names the voter's standing target, and even as the day's first vote
  (with ``vote_changes = 0`` an edited vote post never counts).

R2.19 (pass votes, ``NO_ONE``) and R2.21 (words with a vote) are read off the post's text:
``pass_word_in`` and ``own_chars`` here, used by rules/votes.py.

``next_streaks`` keeps, across days, how many game days in a row each player had no counted
vote (``GameState.no_vote_days``); ``non_voter_removals`` names who reaches the limit.
Nothing here reads the clock.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, time, timedelta, timezone, tzinfo

from ..errors import RulesError
from .model import DayResult, HostKilled, RuleOptions, Vote
from .state import GameState
from .victory import check_victory

__all__ = ["HouseDay", "HouseJudge", "house_day", "window_start", "majority_needed",
           "pass_word_in", "own_chars", "next_streaks", "non_voter_removals", "remove_non_voters", "HOUSE_REASONS"]

# count_votes' codes for the house rules -> a line for the host
HOUSE_REASONS: dict[str, dict[str, str]] = {
    "change_limit": {"en": "vote not counted: a vote change over the limit (the previous vote "
                           "stands)",
                     "ru": "голос не засчитан: смена голоса сверх лимита (в силе прежний)"},
    "after_final": {"en": "vote not counted: the voter's final vote was already cast",
                    "ru": "голос не засчитан: окончательный голос уже отдан"},
    "after_majority": {"en": "vote not counted: the majority was reached, the vote is over",
                       "ru": "голос не засчитан: большинство набрано, голосование окончено"},
    "before_window": {"en": "vote not counted: posted before the voting window opened",
                      "ru": "голос не засчитан: подан до начала голосования"},
    "too_few_words": {"en": "vote not counted: a bare nick, the vote needs the voter's own "
                            "words",
                      "ru": "голос не засчитан: один ник без слов, к голосу нужны свои слова"},
}


def _fold(text: str) -> str:
    return text.casefold().replace("ё", "е")


def pass_word_in(text: str, words: Iterable[str]) -> bool:
    """R2.19 (and R2.14's way): one of ``words`` is a whole word of ``text`` (any case,
    ё = е). ``text``: the post's own words, quotes set aside."""
    folded = _fold(text)
    return any(re.search(r"(?<!\w)" + re.escape(_fold(w.strip())) + r"(?!\w)", folded)
               for w in words if w.strip())


def own_chars(text: str, nicks: Iterable[str]) -> int:
    """R2.21: the letters and digits of ``text`` (the post's own words) besides the colored
    vote fragments ``nicks`` (each taken out once)."""
    rest = text
    for n in nicks:
        if n:
            rest = rest.replace(n, " ", 1)
    return len(re.findall(r"\w", rest))


def _utc(t: datetime) -> datetime:
    return t.astimezone(timezone.utc)


def window_start(hhmm: str, deadline: datetime, tz: tzinfo) -> datetime:
    """R2.13: the last instant at or before ``deadline`` whose game time is ``hhmm``."""
    try:
        h, m = (int(x) for x in hhmm.split(":"))
        at = time(h, m)
    except ValueError:
        raise RulesError(f"vote_change_limits: {hhmm!r} is not a time of day",
                         hint='write it as "HH:MM" in game time, e.g. "19:00"') from None
    local = deadline.astimezone(tz)
    start = datetime.combine(local.date(), at, tzinfo=tz)
    if start > local:
        start = datetime.combine(local.date() - timedelta(days=1), at, tzinfo=tz)
    return _utc(start)


def majority_needed(eligible: int) -> int:
    """R2.15: more than half of ``eligible`` voters (12 -> 7, 11 -> 6)."""
    return eligible // 2 + 1


@dataclass(frozen=True)
class HouseDay:
    """One day's house terms. The defaults change nothing (the seed's rules)."""

    change_limit: int = -1
    windows: tuple[tuple[datetime, int], ...] = ()   # (start in UTC, changes), ascending
    majority: bool = False
    non_voter_votes: int = 0          # 0 before the deadline: a live count adds none
    penalty_at: datetime | None = None  # the deadline: when the penalty votes are "reached"
    opens: datetime | None = None     # R2.18: the voting window's opening (UTC)
    edit_is_change: bool = False      # R2.20


def house_day(options: RuleOptions, deadline: datetime, tz: tzinfo, *, final: bool) -> HouseDay:
    """The options of R2.13, R2.15, R2.16 for the day ending at ``deadline``; ``final``: the
    count is as of the deadline (the penalty votes of R2.16 apply then only)."""
    windows = sorted((window_start(f, deadline, tz), int(n))
                     for f, n in options.vote_change_limits)
    opens = window_start(options.voting_opens, deadline, tz) if options.voting_opens else None
    return HouseDay(change_limit=options.vote_changes, windows=tuple(windows),
                    majority=options.majority_ends_day,
                    non_voter_votes=options.non_voter_votes if final else 0,
                    penalty_at=deadline, opens=opens, edit_is_change=options.edit_is_change)


@dataclass
class HouseJudge:
    """R2.13-R2.15 over one day's valid votes, in time order (see the module's docstring)."""

    house: HouseDay
    eligible: int
    changes: Counter = field(default_factory=Counter)            # voter -> changes today
    in_window: Counter = field(default_factory=Counter)          # (voter, window) -> changes
    final: set[str] = field(default_factory=set)
    majority: Vote | None = None

    def reason(self, v: Vote, standing: Vote | None) -> str | None:
        """Why ``v`` does not count, or None; a counted change is remembered."""
        if self.house.opens is not None and _utc(v.at) < self.house.opens:
            return "before_window"      # R2.18
        if self.majority is not None:
            return "after_majority"
        if v.voter in self.final:
            return "after_final"
        if (standing is not None and standing.target != v.target) or \
                (self.house.edit_is_change and v.edited):      # R2.20
            window = self._window(v.at)
            if 0 <= self.house.change_limit <= self.changes[v.voter]:
                return "change_limit"
            if window is not None and self.in_window[(v.voter, window)] >= \
                    self.house.windows[window][1]:
                return "change_limit"
            self.changes[v.voter] += 1
            if window is not None:
                self.in_window[(v.voter, window)] += 1
        return None

    def counted(self, v: Vote, latest: Mapping[str, Vote]) -> None:
        """After ``v`` counted: a final vote binds its voter; a majority ends the vote."""
        if v.final:
            self.final.add(v.voter)
        if self.house.majority and self.eligible > 0:
            top = Counter(x.target for x in latest.values()).get(v.target, 0)
            if top >= majority_needed(self.eligible):
                self.majority = v

    def _window(self, at: datetime) -> int | None:
        found = None
        for i, (start, _n) in enumerate(self.house.windows):
            if _utc(at) >= start:
                found = i
        return found


def next_streaks(streaks: Mapping[str, int], *, alive: Iterable[str], voted: Iterable[str],
                 exempt: Iterable[str] = (), counts_day: bool = True) -> dict[str, int]:
    """R2.16: game days in a row without a counted vote, after a day. A voter's streak ends;
    the exempt (frozen) keep theirs; ``counts_day`` False (a majority ended the day) leaves
    the non-voters' as they were. Only the living are kept."""
    voted_set, exempt_set = set(voted), set(exempt)
    out: dict[str, int] = {}
    for nick in sorted(alive):
        n = streaks.get(nick, 0)
        if nick in voted_set:
            n = 0
        elif nick not in exempt_set and counts_day:
            n += 1
        if n:
            out[nick] = n
    return out


def non_voter_removals(streaks: Mapping[str, int], after: int) -> tuple[str, ...]:
    """R2.16: who reached ``after`` days in a row without a vote (0: the option is off)."""
    if after <= 0:
        return ()
    return tuple(sorted((n for n, k in streaks.items() if k >= after),
                        key=lambda x: (x.casefold(), x)))


def remove_non_voters(result: DayResult, after: GameState, *, options: RuleOptions,
                      voted: Iterable[str], exempt: Iterable[str], counts_day: bool,
                      at: datetime) -> tuple[DayResult, GameState]:
    """R2.16 after a resolved day: the streaks go on in ``after``, and whoever reaches
    ``non_voter_removal_after`` days is removed as a host's removal at ``at`` (R11.2, the
    deadline): after the night (his moves sent before the deadline stood), dead from the
    newspaper on, listed with the host's removals; victory (R7) is checked again.
    With the option off nothing changes (the state keeps no streaks)."""
    k = options.non_voter_removal_after
    if k <= 0 or result.winner:
        return result, after
    streaks = next_streaks(after.no_vote_days, alive=after.alive, voted=voted, exempt=exempt,
                           counts_day=counts_day)
    gone = non_voter_removals(streaks, k)
    if not gone:
        return result, after.evolve(no_vote_days=streaks)
    alive = after.alive - set(gone)
    died_at = {**after.died_at, **{n: (result.day, "host") for n in gone}}
    commissar, sergeant, promoted = after.commissar, after.sergeant, result.promoted
    if sergeant in gone:
        sergeant = None
    if commissar in gone:
        commissar, sergeant = sergeant, None
        promoted = commissar or promoted
    state = after.evolve(alive=frozenset(alive), died_at=died_at, commissar=commissar,
                         sergeant=sergeant,
                         no_vote_days={n: d for n, d in streaks.items() if n not in gone})
    kills = tuple(HostKilled(n, after.roles[n], at, f"R2.16: {streaks[n]} days without a vote",
                             no_vote_days=streaks[n]) for n in gone)
    out = replace(result, host_kills=result.host_kills + kills,
                  alive=tuple(n for n in result.alive if n not in gone), promoted=promoted,
                  winner=check_victory(after.roles, alive, options))
    return out, state
