"""A day's vote count through the day: each candidate's number of votes after every change
(the host's page draws it as a chart).

The rules judge every vote: each of the day's vote events (``DayTally.events``, as the votes
module extracted them up to the count's cutoff) goes through ``rules.tally.count_votes``
alone, in time order, so a vote it rejects (R2.8) changes nothing, and a voter's later valid
vote replaces his earlier one (R2.5); the count after each change is each target's number of
standing votes. The last step is the day's count (tests/test_web.py checks it).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone

from ..rules.tally import count_votes
from .tally import DayTally

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
    alive, frozen = tally.state.alive, tally.state.frozen
    standing: dict[str, str] = {}             # voter -> the target of his vote that counts
    steps: list[Step] = []
    valid: dict[tuple[str, str], bool] = {}   # the judgement depends on voter and target only
    for v in sorted(tally.events, key=_key):
        if v.at > tally.as_of:
            break
        # the rules judge each vote (R2.8: alive voter and target, not frozen, the self-vote
        # option); a rejected vote leaves the voter's previous one standing
        pair = (v.voter, v.target)
        if pair not in valid:
            valid[pair] = bool(count_votes([v], alive=alive, frozen=frozen,
                                           self_votes=self_votes).votes)
        if not valid[pair]:
            continue
        if standing.get(v.voter) == v.target:
            continue                          # restated: nothing changes
        standing[v.voter] = v.target          # R2.5: the latest valid vote, in time order
        steps.append(Step(at=v.at, counts=dict(Counter(standing.values()))))
    return steps
