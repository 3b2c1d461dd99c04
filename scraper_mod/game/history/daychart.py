"""A day's vote count through the day: each candidate's number of votes after every change
(the host's page draws it as a chart).

The rules judge every vote: each (voter, target) pair of the day's vote events
(``DayTally.events``, as the votes module extracted them up to the count's cutoff) is judged
by ``rules.tally.count_votes``; in time order a vote it rejects (R2.8) changes nothing, and a
voter's later valid vote replaces his earlier one (R2.5); the count after each change is each
target's number of standing votes. The last step is the day's count (tests/web/test_web.py checks it).
The house rules apply as the count applied them: a vote it judged past a limit or a final
vote changes nothing, the chart stops at the majority (R2.15), and the penalty votes of R2.16
are a last step at the deadline.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone

from scraper_mod.game.day.tally import DayTally

from ...rules.house import HOUSE_REASONS
from ...rules.model import Vote
from ...rules.tally import count_votes

__all__ = ["Step", "vote_history"]


@dataclass(frozen=True)
class Step:
    """The count from ``at`` on: candidate -> votes (candidates with none left out)."""

    at: datetime
    counts: dict[str, int]


def _key(v) -> tuple[datetime, int]:
    return (v.at.astimezone(timezone.utc), v.post_id)


def vote_history(tally: DayTally, *, self_votes: bool = True) -> list[Step]:
    """Every change of the day's count up to the tally's cutoff, in time order (a step only
    where the counts change). ``self_votes``: the game's R2.8 option, as the count had it."""
    events = sorted((v for v in tally.events if v.at <= tally.as_of), key=_key)
    valid = _valid_pairs(events, tally.state.alive, tally.state.frozen, self_votes)
    # R2.13-R2.15: the votes the count judged by the house rules did not count either
    house = {r.post_id for r in tally.tally.rejected if r.reason in HOUSE_REASONS}
    standing: dict[str, str] = {}             # voter -> the target of his vote that counts
    steps: list[Step] = []
    for v in events:
        if (v.voter, v.target) not in valid or v.post_id in house:
            continue                          # rejected: the previous vote stands
        if standing.get(v.voter) == v.target:
            continue                          # restated: nothing changes
        standing[v.voter] = v.target          # R2.5: the latest valid vote, in time order
        steps.append(Step(at=v.at, counts=dict(Counter(standing.values()))))
        if tally.tally.majority is not None and v.post_id == tally.tally.majority.post_id:
            break                             # R2.15: the majority ends the vote
    penalties = {c.target: c.penalty for c in tally.tally.counts if c.penalty}
    if penalties:                             # R2.16: at the deadline
        counts = Counter(standing.values())
        counts.update(penalties)
        steps.append(Step(at=tally.deadline, counts=dict(counts)))
    return steps


def _valid_pairs(events: list, alive, frozen, self_votes: bool) -> set[tuple[str, str]]:
    """The (voter, target) pairs the rules accept (R2.8: alive voter and target, not frozen,
    the self-vote option: a judgement of the pair alone). ``count_votes`` judges them in
    rounds where each voter appears once, so each round's counted votes are its valid ones."""
    pending: dict[str, dict[str, Vote]] = {}
    for v in events:
        pending.setdefault(v.voter, {}).setdefault(v.target, v)
    rounds = [list(p.values()) for p in pending.values()]
    valid: set[tuple[str, str]] = set()
    for r in range(max((len(x) for x in rounds), default=0)):
        batch = [x[r] for x in rounds if r < len(x)]
        counted = count_votes(batch, alive=alive, frozen=frozen, self_votes=self_votes).votes
        valid.update((v.voter, v.target) for v in counted)
    return valid
