"""A time the host types (a command's TIME or --at, a form field of the host's page):
ISO 8601, in game time when it has no offset (docs/commands.md)."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from scraper_mod.errors import ConfigError, RulesError
from scraper_mod.rules.calendar import wall_time


def parse_time_arg(value: str, tz: ZoneInfo, *, name: str = "--at") -> datetime:
    """ISO 8601; in game time when it has no offset (docs/commands.md). ``name`` is what the
    error calls the value (the option or field it came from)."""
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        raise ConfigError(f"{name}: not an ISO 8601 time: {value!r}",
                          hint="e.g. 2024-03-15T19:30 or 2024-03-15T19:30:00+03:00",
                          ru=f"{name}: это не время в формате ISO 8601: {value!r} (например "
                             "2024-03-15T19:30)") from None
    try:     # issue 18 item 11: no wall time skipped or shown twice by DST
        t = wall_time(t, tz)
    except RulesError as e:
        raise ConfigError(f"{name}: {e.message}", hint=e.hint) from None
    try:  # year 1 or 9999 in another zone is no instant Python can compare
        t.astimezone(timezone.utc)
    except OverflowError:
        raise ConfigError(f"{name}: out of range: {value!r}",
                          hint="give a time within the game, e.g. 2024-03-15T19:30",
                          ru=f"{name}: время вне допустимого: {value!r} (нужно время внутри "
                             "игры, например 2024-03-15T19:30)") from None
    return t
