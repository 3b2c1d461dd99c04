"""A day's vote count through the day: each candidate's number of votes after every change
(the host's page draws it as a chart).

The rules decide every step: the day's vote events (``DayTally.events``, as the votes module
extracted them up to the count's cutoff) are fed to ``rules.tally.count_votes`` in time
order, each on top of the votes that stood just before it, so a rejected vote changes
nothing and a voter's later vote replaces his earlier one exactly as in the count (R2.5,
R2.8).
"""

from __future__ import annotations

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
    standing: list = []
    steps: list[Step] = []
    last: dict[str, int] = {}
    for v in sorted(tally.events, key=_key):
        if v.at > tally.as_of:
            break
        counted = count_votes([*standing, v], alive=alive, frozen=frozen, self_votes=self_votes)
        standing = list(counted.votes)
        counts = {c.target: c.votes for c in counted.counts if c.votes}
        if counts != last:
            steps.append(Step(at=v.at, counts=counts))
            last = counts
    return steps
