"""What every move source gives back (``FetchReport``) and what it is (``MoveSource``); the
sources themselves are in ``moves/sources.py`` and ``moves/maildir.py``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Protocol

from ..store import Store


@dataclass(frozen=True)
class FetchReport:
    """What one ``fetch_new`` did."""

    source: str
    new: tuple[int, ...] = ()        # store ids of messages stored by this fetch
    seen: int = 0                    # messages looked at (new or already stored)
    errors: tuple[str, ...] = ()     # per-message problems; those messages are retried next time

    @property
    def ok(self) -> bool:
        return not self.errors


class MoveSource(Protocol):
    """A place night moves arrive at."""

    name: str

    def fetch_new(self, store: Store, *, now: datetime) -> FetchReport:
        """Store every message not stored before (raw, with its receive time)."""
        ...


def _utc(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=timezone.utc)
