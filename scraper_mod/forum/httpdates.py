"""HTTP dates and ``Retry-After``: when the board says to come back (RFC 7231)."""

from __future__ import annotations

from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

__all__ = ["parse_http_date", "retry_after_seconds"]


def parse_http_date(value: str | None) -> datetime | None:
    """An RFC 7231 date (``Wed, 02 Dec 2026 13:13:42 GMT``) as an aware datetime, else None."""
    if not value:
        return None
    try:
        t = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if t is None:
        return None
    if t.tzinfo is None:  # "-0000" means UTC of unknown origin
        t = t.replace(tzinfo=timezone.utc)
    return t


def retry_after_seconds(value: str | None, *, now: datetime) -> float | None:
    """``Retry-After`` as seconds to wait: delta-seconds or an HTTP date (relative to ``now``)."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    when = parse_http_date(value)
    if when is None:
        return None
    return max(0.0, (when - now).total_seconds())
