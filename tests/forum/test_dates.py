"""Shown dates (English and Russian, absolute and relative) read into time ranges (R2.6)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from test_parser_helpers import moscow, truth

from scraper_mod.forum.dates import DateParseError, parse_shown_date

MSK = ZoneInfo("Europe/Moscow")
# the board clock of the relative-dates captures: 2024-04-09 20:35:05 MSK
NOW = datetime(2024, 4, 9, 17, 35, 5, tzinfo=timezone.utc)

ABSOLUTE = [
    # (shown, minute start in Moscow) — phpBB formats named in the comment
    ("09 апр 2024, 19:59", "2024-04-09 19:59"),             # |d M Y|, H:i (ru pack default)
    ("|09 апр 2024|, 19:59", "2024-04-09 19:59"),           # the raw format with its bars
    ("09 АПР 2024, 19:59", "2024-04-09 19:59"),
    ("08 май 2024, 07:05", "2024-05-08 07:05"),             # «май» abbreviation
    ("9 апреля 2024, 19:59", "2024-04-09 19:59"),           # genitive
    ("Вт 09 апр 2024, 19:59", "2024-04-09 19:59"),          # D d M Y (ru weekday)
    ("Вторник, 9 апреля 2024 г., 19:59", "2024-04-09 19:59"),
    ("Tue Apr 09, 2024 7:59 pm", "2024-04-09 19:59"),       # D M d, Y g:i a (en default)
    ("Tue Apr 09, 2024 7:59 PM", "2024-04-09 19:59"),
    ("Mon Apr 08, 2024 12:03 am", "2024-04-08 00:03"),      # 12 am is midnight
    ("Tue Apr 09, 2024 12:03 pm", "2024-04-09 12:03"),      # 12 pm is noon
    ("Tue Apr 09, 2024 19:59", "2024-04-09 19:59"),         # D M d, Y H:i
    ("09 Apr 2024 19:59", "2024-04-09 19:59"),              # d M Y H:i
    ("09 Dec 2009 11:19", "2009-12-09 11:19"),
    ("Tuesday, April 9, 2024 7:59 pm", "2024-04-09 19:59"),  # l, F j, Y g:i a
    ("Apr 9th, '24, 19:59", "2024-04-09 19:59"),            # M jS, 'y, H:i
    ("Apr 1st, '24, 09:00", "2024-04-01 09:00"),
    ("09.04.2024 19:59", "2024-04-09 19:59"),               # d.m.Y H:i
    ("09.04.2024, 19:59", "2024-04-09 19:59"),
    ("09.04.24 19:59", "2024-04-09 19:59"),                 # d.m.y
    ("2024-04-09 19:59", "2024-04-09 19:59"),               # Y-m-d H:i
    ("9 September 2024 at 08:00", "2024-09-09 08:00"),
    ("1 сентября 2024, 08:00", "2024-09-01 08:00"),
    ("31 дек 2024, 23:59", "2024-12-31 23:59"),
]


@pytest.mark.parametrize("shown,start", ABSOLUTE)
def test_absolute_dates_are_one_minute(shown, start):
    r = parse_shown_date(shown, tz=MSK)
    assert r.precision == "minute"
    assert r.earliest == moscow(start + ":00")
    assert r.latest == moscow(start + ":59")


def test_seconds_and_iso():
    r = parse_shown_date("2024-04-09 19:59:30", tz=MSK)
    assert r == (moscow("2024-04-09 19:59:30"),) * 2 + ("second",)
    r = parse_shown_date("2024-04-09T16:59:30+00:00", tz=MSK)   # prosilver <time datetime>
    assert r.precision == "second" and r.earliest == moscow("2024-04-09 19:59:30")
    assert r.earliest.tzinfo is MSK
    r = parse_shown_date("Tue Apr 09, 2024 7:59:30 pm", tz=MSK)
    assert r.precision == "second" and r.earliest == moscow("2024-04-09 19:59:30")


RELATIVE_DAY = [
    ("Сегодня, 19:05", "2024-04-09 19:05"),
    ("сегодня, 08:12", "2024-04-09 08:12"),
    ("Вчера, 21:00", "2024-04-08 21:00"),
    ("ВЧЕРА, 23:48", "2024-04-08 23:48"),
    ("Завтра, 10:00", "2024-04-10 10:00"),
    ("Today, 7:58 pm", "2024-04-09 19:58"),
    ("Today, 19:58", "2024-04-09 19:58"),
    ("Yesterday, 9:00 pm", "2024-04-08 21:00"),
]


@pytest.mark.parametrize("shown,start", RELATIVE_DAY)
def test_today_yesterday_tomorrow_resolve_against_board_clock(shown, start):
    r = parse_shown_date(shown, tz=MSK, fetched_at=NOW)
    assert r.precision == "minute"
    assert (r.earliest, r.latest) == (moscow(start + ":00"), moscow(start + ":59"))


def test_today_with_seconds():
    r = parse_shown_date("Сегодня, 19:05:30", tz=MSK, fetched_at=NOW)
    assert r == (moscow("2024-04-09 19:05:30"), moscow("2024-04-09 19:05:30"), "second")


def test_today_just_after_midnight_is_ambiguous():
    """Fetched at 00:00:01 the page may have been rendered before midnight: either day."""
    r = parse_shown_date("Сегодня, 23:59", tz=MSK,
                         fetched_at=moscow("2024-04-10 00:00:01"))
    assert r.precision == "relative"
    assert r.earliest == moscow("2024-04-09 23:59:00")
    assert r.latest == moscow("2024-04-10 23:59:59")


AGO = [
    # (shown, minutes) — phpBB: floor((now - t) / 60)
    ("35 минут назад", 35), ("34 минуты назад", 34), ("1 минуту назад", 1),
    ("минуту назад", 1), ("21 минуту назад", 21), ("5 минут назад", 5),
    ("менее минуты назад", 0), ("less than a minute ago", 0), ("1 minute ago", 1),
    ("5 minutes ago", 5), ("59 minutes ago", 59), ("55 МИНУТ НАЗАД", 55),
]


@pytest.mark.parametrize("shown,minutes", AGO)
def test_minutes_ago(shown, minutes):
    r = parse_shown_date(shown, tz=MSK, fetched_at=NOW)
    assert r.precision == "relative"
    assert r.latest == NOW - timedelta(minutes=minutes)
    assert r.earliest == NOW - timedelta(minutes=minutes, seconds=61)
    assert r.earliest.tzinfo is MSK


def test_every_shown_form_of_the_real_topic_contains_the_true_time():
    """All 40 posts: ru, en and the relative form at the capture's board clock."""
    for p in truth()["topic"]["posts"]:
        exact = moscow(p["time_moscow"])
        for shown in (p["shown_ru"], p["shown_en"], p["shown_ru_relative"]):
            r = parse_shown_date(shown, tz=MSK, fetched_at=NOW)
            assert r.earliest <= exact <= r.latest, (p["n"], shown)
            assert r.latest - r.earliest <= timedelta(seconds=61)


def test_deadline_straddle_from_readme():
    """19:59:30 and 20:00:10 are both «3x минут назад»: R2.6 must see the doubt."""
    deadline = moscow("2024-04-09 20:00:00")
    r35 = parse_shown_date("35 минут назад", tz=MSK, fetched_at=NOW)
    assert r35.earliest < deadline <= r35.latest
    r34 = parse_shown_date("34 минуты назад", tz=MSK, fetched_at=NOW)
    assert r34.earliest < deadline + timedelta(seconds=10) <= r34.latest


def test_other_zone():
    r = parse_shown_date("Sun May 26, 2019 4:34 pm", tz=timezone(timedelta(hours=1)))
    assert r.earliest == datetime(2019, 5, 26, 15, 34, tzinfo=timezone.utc)


BAD = [
    ("", "empty"),
    ("вчера", "time of day"),
    ("35 минут назад", "board's clock"),      # no fetched_at
    ("Сегодня, 19:05", "board's clock"),
    ("Apr 31, 2024 10:00", "impossible"),
    ("31 фев 2024, 10:00", "impossible"),
    ("09 апр 2024, 25:00", "impossible"),
    ("Tue Apr 09, 2024 13:00 pm", "hour 13"),
    ("09 Foo 2024, 19:59", "unknown word"),
    ("09/04/2024 19:59", "ambiguous"),
    ("19:59", "no date"),
    ("09 апр 2024 19:59 19:59", "more than one"),
    ("Apr 9, 19:59", "needs the fetch time"),
    ("x" * 200, "too long"),
]


@pytest.mark.parametrize("shown,words", BAD)
def test_unreadable_dates_say_why(shown, words):
    with pytest.raises(DateParseError) as e:
        parse_shown_date(shown, tz=MSK)
    assert words in str(e.value)


def test_date_without_year_takes_the_fetch_year():
    r = parse_shown_date("Apr 9, 19:59", tz=MSK, fetched_at=NOW)
    assert r.earliest == moscow("2024-04-09 19:59:00")
