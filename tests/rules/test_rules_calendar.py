"""The calendar (docs/rules.md R1)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.errors import RulesError
from scraper_mod.rules.calendar import Calendar

MSK = ZoneInfo("Europe/Moscow")
BERLIN = ZoneInfo("Europe/Berlin")


def cal(start=date(2024, 4, 8), **kw) -> Calendar:
    kw.setdefault("tz", MSK)
    return Calendar(start=start, day_start=kw.pop("day_start", time(21, 0)),
                    deadline=kw.pop("deadline", time(20, 0)), **kw)


def test_R1_1_instants_are_aware_in_game_zone():
    """R1.1: game time is Moscow by default; instants come back aware in that zone."""
    c = cal()
    d = c.deadline(1)
    assert d.tzinfo is not None and d.utcoffset() == timedelta(hours=3)
    assert d.astimezone(timezone.utc) == datetime(2024, 4, 9, 17, 0, tzinfo=timezone.utc)


def test_R1_2_day_runs_from_21_to_20_next_evening():
    """R1.2: a day starts at 21:00 and ends at 20:00 the next evening."""
    c = cal()
    assert c.day_start(1) == datetime(2024, 4, 8, 21, 0, tzinfo=MSK)
    assert c.deadline(1) == datetime(2024, 4, 9, 20, 0, tzinfo=MSK)
    assert c.day_start(2) == datetime(2024, 4, 9, 21, 0, tzinfo=MSK)
    assert c.deadline(2) == datetime(2024, 4, 10, 20, 0, tzinfo=MSK)


def test_R1_5_day_one_starts_on_start_date():
    """R1.5: day 1 starts at day_start on the start date (a custom day_start too)."""
    c = cal(start=date(2024, 3, 14), day_start=time(18, 30), deadline=time(17, 0))
    assert c.day_start(1) == datetime(2024, 3, 14, 18, 30, tzinfo=MSK)
    assert c.deadline(1) == datetime(2024, 3, 15, 17, 0, tzinfo=MSK)


def test_R1_3_saturday_deadline_moves_to_sunday():
    """R1.3: the day that would end Saturday 20:00 ends Sunday 20:00: one lynch per weekend."""
    c = cal()  # Monday 8 April 2024
    assert [c.deadline(n).strftime("%a %d") for n in range(1, 8)] == [
        "Tue 09", "Wed 10", "Thu 11", "Fri 12", "Sun 14", "Mon 15", "Tue 16"]
    assert c.day_start(5) == datetime(2024, 4, 12, 21, 0, tzinfo=MSK)  # Friday evening
    assert c.day_start(6) == datetime(2024, 4, 14, 21, 0, tzinfo=MSK)  # Sunday evening


def test_R1_3_option_merge_weekends_off():
    """R1.3 option merge_weekends = false: Saturday has its own deadline."""
    c = cal(merge_weekends=False)
    assert c.deadline(5) == datetime(2024, 4, 13, 20, 0, tzinfo=MSK)
    assert c.deadline(6) == datetime(2024, 4, 14, 20, 0, tzinfo=MSK)


def test_R1_3_option_weekend_days_sat_and_sun():
    """R1.3 option weekend_days: with sat and sun both merged, Friday's day runs to Monday."""
    c = cal(weekend_days=("sat", "sun"))
    assert c.deadline(5) == datetime(2024, 4, 15, 20, 0, tzinfo=MSK)
    assert c.day_start(6) == datetime(2024, 4, 15, 21, 0, tzinfo=MSK)


def test_R1_3_every_weekday_merged_is_an_error():
    with pytest.raises(RulesError, match="every day of the week"):
        cal(weekend_days=("mon", "tue", "wed", "thu", "fri", "sat", "sun"))


def test_R1_3_unknown_weekday_is_an_error():
    with pytest.raises(RulesError, match="unknown weekday 'saturday'"):
        cal(weekend_days=("saturday",))


def test_R1_4_moved_deadline_and_following_days():
    """R1.4: day 2 moved to Thursday 20:00; day 3 starts Thursday 21:00 and follows on."""
    moved = datetime(2024, 4, 11, 20, 0, tzinfo=MSK)
    c = cal(moved={2: moved})
    assert c.deadline(2) == moved and c.is_moved(2) and not c.is_moved(1)
    assert c.scheduled_deadline(2) == datetime(2024, 4, 10, 20, 0, tzinfo=MSK)
    assert c.day_start(3) == datetime(2024, 4, 11, 21, 0, tzinfo=MSK)
    assert c.deadline(3) == datetime(2024, 4, 12, 20, 0, tzinfo=MSK)
    assert c.deadline(4) == datetime(2024, 4, 14, 20, 0, tzinfo=MSK)  # weekend still merged


def test_R1_4_moved_deadline_earlier_and_naive_is_game_time():
    """R1.4: a deadline moved earlier (a naive time is read as game time)."""
    c = cal(moved={1: datetime(2024, 4, 9, 18, 0)})
    assert c.deadline(1) == datetime(2024, 4, 9, 18, 0, tzinfo=MSK)
    assert c.day_start(2) == datetime(2024, 4, 9, 21, 0, tzinfo=MSK)


def test_R1_4_moved_deadline_before_day_start_is_an_error():
    c = cal(moved={2: datetime(2024, 4, 9, 20, 30, tzinfo=MSK)})
    with pytest.raises(RulesError, match="day 2: the deadline .* is not after"):
        c.deadline(2)


def test_R1_1_dst_spring_forward_berlin():
    """R1.1: across the March change in Europe/Berlin deadlines stay at 20:00 local time."""
    c = cal(start=date(2024, 3, 27), tz=BERLIN)
    d3 = c.deadline(3)  # Friday's day runs over the weekend into Sunday 31 March (DST)
    assert (d3.day, d3.hour, d3.utcoffset()) == (31, 20, timedelta(hours=2))
    assert c.day_start(3).utcoffset() == timedelta(hours=1)
    # 46 real hours: Friday 21:00 CET to Sunday 20:00 CEST (47 on the wall clock)
    assert d3.astimezone(timezone.utc) - c.day_start(3).astimezone(timezone.utc) == \
        timedelta(hours=46)
    assert c.deadline(4) == datetime(2024, 4, 1, 20, 0, tzinfo=BERLIN)


def test_R1_1_dst_fall_back_berlin():
    """R1.1: across the October change the Sunday deadline is 20:00 CET (+01:00)."""
    c = cal(start=date(2024, 10, 23), tz=BERLIN)  # Wednesday
    d = c.deadline(3)
    assert (d.month, d.day, d.hour) == (10, 27, 20) and d.utcoffset() == timedelta(hours=1)
    assert c.day_start(3).utcoffset() == timedelta(hours=2)
    assert d.astimezone(timezone.utc) - c.day_start(3).astimezone(timezone.utc) == \
        timedelta(hours=48)


def test_R1_1_dst_gap_wall_time_resolved():
    """A day_start inside the spring gap (02:30 on 31 March) becomes a real instant."""
    c = cal(start=date(2024, 3, 31), tz=BERLIN, day_start=time(2, 30), deadline=time(20, 0))
    s = c.day_start(1)
    assert s.utcoffset() == timedelta(hours=2) and s.hour == 3 and s.minute == 30
    assert c.deadline(1) == datetime(2024, 3, 31, 20, 0, tzinfo=BERLIN)


def test_day_at_and_last_due_day():
    """R1.2: instants map to day numbers; the processing hour still belongs to the day."""
    c = cal()
    at = lambda *a: datetime(*a, tzinfo=MSK)  # noqa: E731
    assert c.day_at(at(2024, 4, 8, 20, 59)) == 0
    assert c.day_at(at(2024, 4, 8, 21, 0)) == 1
    assert c.day_at(at(2024, 4, 9, 20, 30)) == 1
    assert c.day_at(at(2024, 4, 9, 21, 0)) == 2
    assert c.day_at(at(2024, 4, 13, 20, 30)) == 5  # Saturday evening: weekend day
    assert c.last_due_day(at(2024, 4, 9, 19, 59, 59)) == 0
    assert c.last_due_day(at(2024, 4, 9, 20, 0)) == 1
    assert c.last_due_day(at(2024, 4, 13, 20, 30)) == 4
    assert c.last_due_day(at(2024, 4, 14, 20, 0)) == 5
    # an instant in another zone means the same moment
    assert c.day_at(datetime(2024, 4, 9, 18, 0, tzinfo=timezone.utc)) == 2


def test_naive_instant_is_rejected():
    with pytest.raises(RulesError, match="naive"):
        cal().day_at(datetime(2024, 4, 9, 12, 0))


def test_days_numbered_from_one():
    with pytest.raises(RulesError, match="numbered from 1"):
        cal().deadline(0)


def test_r1_4_deadline_moved_past_the_day_start_does_not_skip_a_day():
    """R1.4: Thursday's deadline moved 20:00 -> 22:30; the next day starts after the usual
    hour of processing (23:30) and ends at Friday's regular 20:00, not a day later."""
    from datetime import date, datetime
    from zoneinfo import ZoneInfo

    from scraper_mod.rules.calendar import Calendar
    msk = ZoneInfo("Europe/Moscow")
    # 2024-03-14 is a Thursday: day 1 runs Thu 21:00 -> Fri 20:00; day 0 does not exist, so
    # start on Wednesday: day 1 = Wed 21:00 -> Thu 20:00 (moved to 22:30).
    cal = Calendar(start=date(2024, 3, 13), tz=msk,
                   moved={1: datetime(2024, 3, 14, 22, 30, tzinfo=msk)})
    assert cal.deadline(1) == datetime(2024, 3, 14, 22, 30, tzinfo=msk)
    assert cal.day_start(2) == datetime(2024, 3, 14, 23, 30, tzinfo=msk)
    assert cal.deadline(2) == datetime(2024, 3, 15, 20, 0, tzinfo=msk)
    # a deadline moved a little (20:30) keeps the regular 21:00 start
    cal2 = Calendar(start=date(2024, 3, 13), tz=msk,
                    moved={1: datetime(2024, 3, 14, 20, 30, tzinfo=msk)})
    assert cal2.day_start(2) == datetime(2024, 3, 14, 21, 0, tzinfo=msk)
    # moved past midnight: the next day still ends at that Friday's 20:00
    cal3 = Calendar(start=date(2024, 3, 13), tz=msk,
                    moved={1: datetime(2024, 3, 15, 1, 0, tzinfo=msk)})
    assert cal3.day_start(2) == datetime(2024, 3, 15, 2, 0, tzinfo=msk)
    assert cal3.deadline(2) == datetime(2024, 3, 15, 20, 0, tzinfo=msk)
