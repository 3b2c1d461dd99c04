"""Dates as phpBB shows them, read back into time ranges.

phpBB formats every date with the *viewer's* date format and time zone (for a guest: the board
default). A shown date is therefore a range, not an instant:

* ``09 апр 2024, 19:59`` / ``Tue Apr 09, 2024 7:59 pm``  -> [19:59:00, 19:59:59], "minute"
* ``2024-04-09 19:59:30`` (a format with seconds)       -> one instant, "second"
* ``Сегодня, 19:05`` / ``Yesterday, 21:00``              -> the minute on the day resolved
  against the board's clock at fetch time, "minute" (or "relative" when the fetch happened
  so close to midnight that the day is in doubt)
* ``35 минут назад`` / ``less than a minute ago``         -> a range of about a minute counted
  back from the board's clock, "relative"

``fetched_at`` is the board's clock when the page was rendered, in practice the HTTP ``Date``
header (whole seconds, sent after the page was rendered). phpBB computes "N minutes ago" as
``floor((now - t) / 60)`` with ``now`` the render time, so a post shown "N минут назад" was
made in ``[now - N*60 - 59 s, now - N*60]``; ``now`` is taken in
``[fetched_at - RENDER_SLACK, fetched_at]``.

Supported (case-insensitive; English and Russian month and weekday names, full, abbreviated
and genitive; 12- and 24-hour clocks), e.g. the phpBB formats ``D M d, Y g:i a``,
``|d M Y|, H:i``, ``d M Y H:i``, ``D M d, Y H:i``, ``d.m.Y H:i``, ``M jS, 'y, H:i``,
``Y-m-d H:i(:s)`` and ISO 8601 with an offset.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Literal, NamedTuple, cast

from scraper_mod.errors import ParseError
from scraper_mod.forum.model import Precision

#: seconds between the board rendering a page and the ``Date`` header it sent
RENDER_SLACK = timedelta(seconds=2)

_MONTHS: dict[str, int] = {}
for _n, _names in enumerate([
    "jan january январь января янв",
    "feb february февраль февраля фев февр",
    "mar march март марта мар",
    "apr april апрель апреля апр",
    "may май мая",
    "jun june июнь июня июн",
    "jul july июль июля июл",
    "aug august август августа авг",
    "sep sept september сентябрь сентября сен сент",
    "oct october октябрь октября окт",
    "nov november ноябрь ноября ноя нояб",
    "dec december декабрь декабря дек",
], start=1):
    for _w in _names.split():
        _MONTHS[_w] = _n

_WEEKDAYS = set(
    "mon tue wed thu fri sat sun tues thur thurs monday tuesday wednesday thursday friday "
    "saturday sunday пн вт ср чт пт сб вс пнд втр срд чтв птн сбт вск понедельник вторник "
    "среда среду четверг пятница пятницу суббота субботу воскресенье".split())

_DAY_WORDS = {"today": 0, "сегодня": 0, "yesterday": -1, "вчера": -1, "tomorrow": 1,
              "завтра": 1}

# words that may stand between the parts of a date and mean nothing for it
_FILLER = {"at", "on", "в", "г", "года", "год", "um", "le", "de"}

_AMPM = {"am": "am", "a.m.": "am", "pm": "pm", "p.m.": "pm", "дп": "am", "пп": "pm"}

_RE_ISO = re.compile(
    r"^\s*(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*"
    r"(Z|[+-]\d{2}:?\d{2})?\s*$", re.I)
_RE_AGO_EN = re.compile(r"^\s*(?:(\d+)|an?|one)\s+minutes?\s+ago\s*$", re.I)
_RE_AGO_RU = re.compile(r"^\s*(\d+)?\s*(?:минут[уы]?|мин\.?)\s+назад\s*$", re.I)
_RE_LESS = re.compile(r"^\s*(?:less\s+than\s+a\s+minute\s+ago|менее\s+минуты\s+назад|"
                      r"только\s+что|just\s+now)\s*$", re.I)
_RE_TIME = re.compile(
    r"(?<!\d)(\d{1,2}):(\d{2})(?::(\d{2}))?(?!\d)\s*(a\.m\.|p\.m\.|am|pm|дп|пп)?(?![^\W\d_])",
    re.I)
_RE_NUMDATE = re.compile(r"(?<!\d)(\d{1,4})([./-])(\d{1,2})\2(\d{2,4})(?!\d)")
_RE_TOKEN = re.compile(r"'\d{2}(?!\d)|\d+(?:st|nd|rd|th|-?е|-?го)?|[^\W\d_]+\.?", re.I)


class DateParseError(ValueError):
    """A shown date that could not be read; the message quotes it."""


class TimeRange(NamedTuple):
    """Where a shown date puts the real instant: [earliest, latest] and how precise that is."""

    earliest: datetime
    latest: datetime
    precision: Precision


def _aware(naive: datetime, tz: tzinfo) -> datetime:
    return naive.replace(tzinfo=tz)


def parse_shown_date(text: str, *, tz: tzinfo, fetched_at: datetime | None = None) -> TimeRange:
    # long: one branch per date format phpBB shows, tried in order
    """Read a date as phpBB shows it into a ``TimeRange`` in ``tz`` (aware datetimes).

    ``tz`` is the zone the board shows times in; ``fetched_at`` (aware) is the board's clock
    at fetch time, needed for «Сегодня», «Вчера», «N минут назад» and dates without a year.
    Raises ``DateParseError`` (a ValueError) with the text when it cannot be read.
    """
    if not isinstance(text, str):
        raise DateParseError(f"not a date: {text!r}")
    s = " ".join(text.replace("|", " ").split())      # (split() folds \xa0 too)
    if not s:
        raise DateParseError("empty date")
    if len(s) > 80:
        raise DateParseError(f"not a date (too long): {s[:80]!r}…")
    if fetched_at is not None and fetched_at.tzinfo is None:
        raise DateParseError("fetched_at must be timezone-aware")
    m = _RE_ISO.match(s)
    if m:
        return _iso(m, s, tz)

    # "N minutes ago" / "менее минуты назад"
    if _RE_LESS.match(s):
        return _ago(0, s, tz, fetched_at)
    m = _RE_AGO_EN.match(s) or _RE_AGO_RU.match(s)
    if m:
        return _ago(int(m.group(1)) if m.group(1) else 1, s, tz, fetched_at)

    low = s.lower()
    tm = list(_RE_TIME.finditer(low))
    if len(tm) != 1:
        raise DateParseError(f"no time of day (HH:MM) in date {s!r}" if not tm
                             else f"more than one time of day in date {s!r}")
    t = tm[0]
    hour, minute = int(t.group(1)), int(t.group(2))
    second = int(t.group(3)) if t.group(3) else None
    ampm = _AMPM.get((t.group(4) or "").lower())
    rest = low[:t.start()] + " " + low[t.end():]
    if ampm is None:
        # "7:59 pm" with a space before a separate am/pm token is handled by the regex;
        # a stray "pm" elsewhere is not a date we know
        if re.search(r"(?<![^\W\d_])(am|pm)(?![^\W\d_])", rest):
            raise DateParseError(f"am/pm not next to the time in {s!r}")
    if ampm:
        if not 1 <= hour <= 12:
            raise DateParseError(f"hour {hour} with {ampm} in {s!r}")
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    if hour > 23 or minute > 59 or (second is not None and second > 59):
        raise DateParseError(f"impossible time of day in {s!r}")

    year = month = day = None
    day_offset = None
    nd = _RE_NUMDATE.search(rest)
    if nd:
        a, sep, b, c = nd.group(1), nd.group(2), nd.group(3), nd.group(4)
        if len(a) == 4:            # Y-m-d / Y.m.d
            year, month, day = int(a), int(b), int(c)
        elif sep == "/":
            raise DateParseError(f"ambiguous numeric date (m/d or d/m?) in {s!r}")
        else:                      # d.m.Y / d-m-Y
            day, month, year = int(a), int(b), int(c)
            if len(c) == 2:
                year += 2000
            elif len(c) != 4:
                raise DateParseError(f"bad year in {s!r}")
        rest = rest[:nd.start()] + " " + rest[nd.end():]

    numbers: list[str] = []
    for tok in _RE_TOKEN.findall(rest):
        word = tok.rstrip(".")
        if tok[0] == "'":
            numbers.append(tok)
        elif tok[0].isdigit():
            numbers.append(re.sub(r"\D+$", "", tok))
        elif word in _MONTHS or tok in _MONTHS:
            if month is not None:
                raise DateParseError(f"two months in date {s!r}")
            month = _MONTHS.get(word, _MONTHS.get(tok))
        elif word in _WEEKDAYS:
            continue
        elif word in _DAY_WORDS:
            if day_offset is not None:
                raise DateParseError(f"two day words in date {s!r}")
            day_offset = _DAY_WORDS[word]
        elif word in _FILLER:
            continue
        else:
            raise DateParseError(f"unknown word {tok!r} in date {s!r}")

    if day_offset is not None:
        if month is not None or numbers or year is not None:
            raise DateParseError(f"both a day word and a date in {s!r}")
        return _day_word(day_offset, hour, minute, second, s, tz, fetched_at)

    if year is None:
        if month is None:
            raise DateParseError(f"no date in {s!r}")
        for n in numbers:
            if n.startswith("'"):
                if year is not None:
                    raise DateParseError(f"two years in {s!r}")
                year = 2000 + int(n[1:])
            elif len(n) == 4:
                if year is not None:
                    raise DateParseError(f"two years in {s!r}")
                year = int(n)
            elif len(n) <= 2:
                if day is not None:
                    raise DateParseError(f"two day numbers in {s!r}")
                day = int(n)
            else:
                raise DateParseError(f"bad number {n!r} in date {s!r}")
        if day is None:
            raise DateParseError(f"no day of month in {s!r}")
        if year is None:
            if fetched_at is None:
                raise DateParseError(f"date without a year needs the fetch time: {s!r}")
            year = fetched_at.astimezone(tz).year
    elif numbers:
        raise DateParseError(f"extra numbers in date {s!r}")

    try:
        naive = datetime(year, cast(int, month), cast(int, day), hour, minute, second or 0)
    except (ValueError, TypeError, OverflowError) as e:
        raise DateParseError(f"impossible date {s!r}: {e}") from None
    start = _aware(naive, tz)
    if second is not None:
        return TimeRange(start, start, "second")
    return TimeRange(start, start + timedelta(seconds=59), "minute")


def _iso(m: re.Match, s: str, tz: tzinfo) -> TimeRange:
    y, mo, d, h, mi = (int(m.group(i)) for i in range(1, 6))
    sec = m.group(6)
    off = m.group(7)
    zone: tzinfo = tz
    if off:
        if off.upper() == "Z":
            zone = timezone.utc
        else:
            sign = 1 if off[0] == "+" else -1
            digits = off[1:].replace(":", "")
            try:
                zone = timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
            except ValueError as e:
                raise DateParseError(f"bad offset in {s!r}: {e}") from None
    try:
        start = datetime(y, mo, d, h, mi, int(sec) if sec else 0, tzinfo=zone)
    except ValueError as e:
        raise DateParseError(f"impossible date {s!r}: {e}") from None
    if zone is not tz:
        start = start.astimezone(tz)
    if sec is not None:
        return TimeRange(start, start, "second")
    return TimeRange(start, start + timedelta(seconds=59), "minute")


def _need_fetch(s: str, fetched_at: datetime | None) -> datetime:
    if fetched_at is None:
        raise DateParseError(f"relative date {s!r} needs the board's clock at fetch time")
    return fetched_at


def _ago(minutes: int, s: str, tz: tzinfo, fetched_at: datetime | None) -> TimeRange:
    now = _need_fetch(s, fetched_at).astimezone(tz)
    if minutes > 59 * 24 * 366:
        raise DateParseError(f"implausible relative date {s!r}")
    # now_render in [now - slack, now]; t in [now_render - 60*N - 59, now_render - 60*N]
    latest = now - timedelta(minutes=minutes)
    earliest = now - RENDER_SLACK - timedelta(minutes=minutes, seconds=59)
    return TimeRange(earliest, latest, "relative")


def _day_word(offset: int, hour: int, minute: int, second: int | None, s: str, tz: tzinfo,
              fetched_at: datetime | None) -> TimeRange:
    now = _need_fetch(s, fetched_at)
    days = {(now - RENDER_SLACK).astimezone(tz).date(), now.astimezone(tz).date()}
    # the wall time on the day (or days) the board's «today» can have been
    starts = sorted(_aware(datetime.combine(d + timedelta(days=offset),
                                            datetime.min.time()).replace(
        hour=hour, minute=minute, second=second or 0), tz) for d in days)
    width = timedelta(0) if second is not None else timedelta(seconds=59)
    precision: Literal["second", "minute"] = "second" if second is not None else "minute"
    return TimeRange(starts[0], starts[-1] + width, precision if len(starts) == 1 else "relative")


def read_shown_date(text: str, *, what: str, tz: tzinfo, fetched_at: datetime | None,
                    url: str, hint: str = "") -> TimeRange:
    """``parse_shown_date``, a date it cannot read being the page's ``ParseError`` that names
    ``what`` and the page (with the engine's ``hint``: what the host sets on the board)."""
    try:
        return parse_shown_date(text, tz=tz, fetched_at=fetched_at)
    except DateParseError as e:
        raise ParseError(f"{what}: {e}", url=url or None, hint=hint) from None
