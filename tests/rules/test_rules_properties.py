"""Property tests of the rules core (hypothesis): random games of 7-20 players over many days.

- resolution is deterministic (R6: run twice, the same result);
- it never kills a dead player, and each death is recorded once with its day (R8);
- the tally counts each alive, unfrozen voter at most once, and only for alive targets (R2.5,
  R2.8, R5.4);
- the random list always jails an alive player (R3.2).
"""

from __future__ import annotations

import json
import random
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scraper_mod.rules.calendar import WEEKDAYS, Calendar
from scraper_mod.rules.deal import deal_roles
from scraper_mod.rules.model import Player, Role, RuleOptions, Vote
from scraper_mod.rules.night import NightOrders, resolve_day
from scraper_mod.rules.randomlist import draw_random_list
from scraper_mod.rules.state import initial_state
from scraper_mod.rules.tally import count_votes, decide_lynch

T0 = datetime(2024, 4, 8, 18, 0, tzinfo=timezone.utc)

options_st = st.builds(
    RuleOptions,
    tie_scope=st.sampled_from(["all_alive", "tied_only"]),
    self_votes=st.booleans(),
    frozen_immune_to_random=st.booleans(),
    check_result=st.sampled_from(["exact", "binary"]),
    allow_rechecks=st.booleans(),
    doctor_self_heals=st.integers(0, 2),
    doctor_same_patient_twice=st.booleans(),
    lynch_first=st.booleans(),
    maniac_must_die_for_town=st.booleans(),
)


def _game(seed: int, n: int):
    rng = random.Random(seed)
    nicks = [f"Игрок-{i}" for i in range(1, n + 1)]
    roles = deal_roles([Player(x) for x in nicks], rng=rng)
    players = [Player(x, roles[x]) for x in nicks]
    duty = next(x for x in nicks if roles[x].is_mafia)
    return initial_state(players, duty, draw_random_list(nicks, rng=rng))


def _orders(rng: random.Random, state) -> NightOrders:
    """Random orders: right or wrong senders, alive or dead targets, or none at all."""
    everyone = list(state.roles)
    maybe = lambda: rng.choice([None, *everyone])  # noqa: E731
    by_role = {r: [n for n, x in state.roles.items() if x is r] for r in Role}
    mafiosi = by_role[Role.BOSS] + by_role[Role.MAFIA]
    pick = lambda xs: rng.choice(xs) if xs else None  # noqa: E731
    return NightOrders(
        mafia_kill=maybe(), mafia_by=pick(mafiosi) if rng.random() < 0.8 else maybe(),
        mafia_story="story",
        maniac_kill=maybe(), maniac=pick(by_role[Role.MANIAC]),
        heal=maybe(), doctor=pick(by_role[Role.DOCTOR]),
        check=maybe(), checker=rng.choice([state.commissar, state.sergeant, pick(everyone)]),
        freeze=maybe(), boss=pick(by_role[Role.BOSS]))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(7, 20), options=options_st)
def test_random_games_properties(seed, n, options):
    state = _game(seed, n)
    rng = random.Random(seed)
    everyone = list(state.roles)
    for day in range(1, 3 * n):
        frozen = state.frozen_today()
        # votes from anyone (dead too) for anyone, at random minutes of the day
        votes = [Vote(voter=rng.choice(everyone), target=rng.choice(everyone),
                      at=T0 + timedelta(days=day, minutes=rng.randint(0, 1380)),
                      post_id=day * 1000 + i)
                 for i in range(rng.randint(0, 2 * n))]
        tally = count_votes(votes, alive=state.alive, frozen=frozen,
                            self_votes=options.self_votes)
        # R2.5/R2.8: each alive, unfrozen voter at most once, for alive targets only
        voters = [x for c in tally.counts for x in c.voters]
        assert len(voters) == len(set(voters)) == len(tally.votes)
        assert sum(c.votes for c in tally.counts) == len(voters)
        assert set(voters) <= state.alive - frozen
        assert {c.target for c in tally.counts} <= state.alive
        assert [c.votes for c in tally.counts] == sorted((c.votes for c in tally.counts),
                                                         reverse=True)
        lynch = decide_lynch(tally, alive=state.alive, order=state.order, cursor=state.cursor,
                             options=options)
        assert lynch is not None and lynch.player in state.alive  # R3.2
        orders = _orders(rng, state)
        result, after = resolve_day(day, state, lynch, orders, options)
        again = resolve_day(day, state, lynch, orders, options)
        # R6: deterministic, byte for byte
        assert again == (result, after)
        assert json.dumps(again[0].to_json(), ensure_ascii=False) == \
            json.dumps(result.to_json(), ensure_ascii=False)
        # never kills a dead player; each death once, recorded with its day
        dead_now = [d.player for d in result.killed] + [result.lynched.player]
        assert len(dead_now) == len(set(dead_now))
        assert set(dead_now) <= state.alive
        assert after.alive == state.alive - set(dead_now)
        assert all(after.died_at[p][0] == day for p in dead_now)
        assert set(result.alive) == after.alive
        # the mafia never kills a mafioso or the VSB
        assert all(not (d.by == "mafia" and (d.role.is_mafia or d.role is Role.VSB))
                   for d in result.killed)
        # the acting Commissar is alive or nobody
        assert after.commissar is None or after.commissar in after.alive
        state = after
        if result.winner:
            break
        assert state.alive


ZONES = ["Europe/Moscow", "Europe/Berlin", "America/New_York", "Australia/Sydney",
         "Asia/Kolkata", "Europe/London"]


@settings(max_examples=60, deadline=None)
@given(start=st.dates(min_value=date(2020, 1, 1), max_value=date(2030, 12, 31)),
       zone=st.sampled_from(ZONES), merge=st.booleans(),
       weekend=st.sets(st.sampled_from(WEEKDAYS), max_size=3),
       day_start=st.sampled_from([time(21, 0), time(18, 30), time(0, 0), time(9, 0)]),
       deadline=st.sampled_from([time(20, 0), time(17, 0), time(23, 59), time(12, 0)]))
def test_calendar_properties_R1(start, zone, merge, weekend, day_start, deadline):
    """R1.1-R1.3, R1.5 for any start, zone (with or without DST) and weekend set: days follow
    each other without gaps, deadlines are at the configured local time and never on a merged
    weekend day, and day_at / last_due_day invert day_start / deadline."""
    tz = ZoneInfo(zone)
    cal = Calendar(start=start, day_start=day_start, deadline=deadline, tz=tz,
                   merge_weekends=merge, weekend_days=tuple(sorted(weekend)))
    utc = lambda t: t.astimezone(timezone.utc)  # noqa: E731
    assert cal.day_start(1).date() == start  # R1.5
    for n in range(1, 30):
        s, d, nxt = cal.day_start(n), cal.deadline(n), cal.day_start(n + 1)
        assert utc(s) < utc(d) <= utc(nxt)
        assert (d.hour, d.minute) == (deadline.hour, deadline.minute)  # R1.2 (local time)
        assert d.tzinfo is not None and d.utcoffset() == d.astimezone(tz).utcoffset()
        if merge:
            assert WEEKDAYS[d.weekday()] not in weekend  # R1.3
        # no day is longer than the weekend run + one day
        assert utc(d) - utc(s) <= timedelta(days=len(weekend) + 1, hours=1)
        assert cal.day_at(s) == n and cal.day_at(utc(nxt) - timedelta(seconds=1)) == n
        assert cal.last_due_day(d) == n
        assert cal.last_due_day(utc(d) - timedelta(seconds=1)) == n - 1
