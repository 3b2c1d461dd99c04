"""Private messages as every engine's adapter gives them: an inbox row (``PmSummary``), a row
that cannot be read (``PmRowProblem``) and one message (``PrivateMessage``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .model import Precision


@dataclass(frozen=True)
class PmSummary:
    """One row of the inbox."""

    msg_id: int
    subject: str
    author: str
    author_id: int | None
    sent_at: datetime            # start of the shown minute (== earliest)
    earliest: datetime
    latest: datetime
    precision: Precision
    unread: bool
    url: str                     # the message's view page, absolute when the inbox URL was


@dataclass(frozen=True)
class PmRowProblem:
    """An inbox row that cannot be read (no sender or date, a date the parser does not
    know): what of it could be read, why, and the row's text (to store and report)."""

    msg_id: int | None
    author: str | None
    reason: str
    text: str


@dataclass(frozen=True)
class PrivateMessage:
    """One private message as its view page shows it."""

    msg_id: int
    author: str
    author_id: int | None
    sent_at: datetime            # start of the shown minute (== earliest)
    earliest: datetime
    latest: datetime
    precision: Precision
    subject: str
    text: str                    # own text: quotes and signatures removed
    quoted_msg_ids: tuple[int, ...] = ()
    bold: tuple[str, ...] = ()
    url: str = ""
