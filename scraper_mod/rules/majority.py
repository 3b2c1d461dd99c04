"""R2.15: the count as of the majority post, whatever was deleted after it.

A post deleted before the deadline does not count (R2.6, ``deleted_post``); but a day a
majority ended is over at the majority post: a deletion made after it changes nothing (the
majority voter who deletes his vote post after the notice undoes nothing). The deletion is
known only by when it was found missing, so the count is tried with the deletions found up
to each instant, earliest first, and the first count whose majority came after every deletion
it applied and before every one it left out is the day's. Without a majority the count applies
every deletion, as before. Nothing here reads the clock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import TypeVar

from .tally import Tally

__all__ = ["as_of_majority"]

R = TypeVar("R")


def _utc(t: datetime) -> datetime:
    return t.astimezone(timezone.utc)


def as_of_majority(deleted: Mapping[int, datetime],
                   count: Callable[[dict[int, datetime]], tuple[R, Tally]]
                   ) -> tuple[R, Tally]:
    """``count(deleted)`` -> (anything, its Tally), called with the deletions that stand.

    Returns the result for every deletion when no majority survives them all, else the
    result whose majority was reached after each deletion it applies and at or before each
    one it leaves out (R2.15: the count is as of that post)."""
    times = sorted({_utc(d) for d in deleted.values()})
    if not times:
        return count({})
    every = count(dict(deleted))
    if every[1].majority is not None and _utc(every[1].majority.at) > times[-1]:
        return every
    for k in range(len(times)):     # apply the deletions found before times[k]
        applied = {p: d for p, d in deleted.items() if _utc(d) < times[k]}
        got = count(applied)
        m = got[1].majority
        if m is None:
            continue
        at = _utc(m.at)
        if all(_utc(d) < at for d in applied.values()) and at <= times[k]:
            return got
    return every
