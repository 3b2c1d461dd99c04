"""House rules of other communities (RULES R2.12-R2.16, docs/rules-house.md), table by table,
in the pure rules core: ``rules.house`` judged by ``rules.tally.count_votes``, a day played
through ``rules.replay.play_day`` (with the slots and the host's decisions of R10/R11), the
final-vote word read from real phpBB markup (LocalBoard, parsed by the real parser), and the
``[rules]`` keys of game.toml.

The game: 8 players, day 2 of 9-10 April 2024 (Moscow time); day 2's deadline is Wed 10 April
20:00; «Ира» is frozen for day 2 where a table says so.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.errors import ConfigError
from scraper_mod.forum.phpbb.parse import parse_topic_page
from scraper_mod.game.setup.config import parse_game
from scraper_mod.rules.house import (
    HouseDay,
    house_day,
    majority_needed,
    next_streaks,
    remove_non_voters,
    window_start,
)
from scraper_mod.rules.model import Player, Role, RuleOptions, Vote
from scraper_mod.rules.replay import DayInput, play_day
from scraper_mod.rules.slots import Replacement, VoteDecision, build_book
from scraper_mod.rules.state import GameState, initial_state
from scraper_mod.rules.tally import count_votes, decide_lynch
from scraper_mod.rules.votes import extract_votes, reason_text

MSK = ZoneInfo("Europe/Moscow")
PLAYERS = (Player("Вася", Role.BOSS), Player("Игорь", Role.MAFIA),
           Player("Маша", Role.COMMISSAR), Player("Ира", Role.DOCTOR),
           Player("Петя", Role.SERGEANT), Player("Коля", Role.CIVILIAN),
           Player("Эль", Role.CIVILIAN), Player("Таня", Role.VSB))
NICKS = [p.nick for p in PLAYERS]
ORDER = ("Таня", "Петя", "Ира", "Игорь", "Коля", "Вася", "Эль", "Маша")
DEADLINE = datetime(2024, 4, 10, 20, 0, tzinfo=MSK)


def t(hh: int, mm: int = 0, day: int = 10) -> datetime:
    return datetime(2024, 4, day, hh, mm, tzinfo=MSK)


def v(voter: str, target: str, hh: int, mm: int = 0, pid: int = 0, final: bool = False) -> Vote:
    return Vote(voter=voter, target=target, at=t(hh, mm), post_id=pid or hh * 100 + mm,
                final=final)


def opts(**kw) -> RuleOptions:
    return dataclasses.replace(RuleOptions(), **kw)


def house(final: bool = True, **kw) -> HouseDay:
    return house_day(opts(**kw), DEADLINE, MSK, final=final)


def count(votes, *, frozen=(), alive=NICKS, final=True, **kw):
    return count_votes(votes, alive=alive, frozen=frozen, house=house(final, **kw))


def counts(tally) -> list[tuple[str, int]]:
    return [(c.target, c.votes) for c in tally.counts]


def rejected(tally) -> list[tuple[int, str]]:
    return [(r.post_id, r.reason) for r in tally.rejected]


def state(frozen: str | None = None, streaks: dict | None = None) -> GameState:
    st = initial_state(PLAYERS, "Игорь", ORDER).evolve(day=1, frozen_next_day=frozen)
    return st.evolve(no_vote_days=streaks or {})


# -- defaults: the seed's rules, unchanged ---------------------------------------------------

def test_defaults_change_nothing():
    votes = [v("Маша", "Коля", 10), v("Маша", "Игорь", 11), v("Маша", "Вася", 12, final=True),
             v("Петя", "Вася", 13), v("Коля", "Вася", 14), v("Вася", "Коля", 15),
             v("Игорь", "Коля", 16), v("Таня", "Вася", 17)]
    plain = count_votes(votes, alive=NICKS)
    with_house = count_votes(votes, alive=NICKS, house=house())
    assert with_house == plain
    assert counts(plain) == [("Вася", 4), ("Коля", 2)] and plain.majority is None
    assert RuleOptions().tie_break == "random_list" and RuleOptions().vote_changes == -1


# -- R2.12 tie by the earliest final count ---------------------------------------------------

TIE = [v("Вася", "Коля", 10), v("Маша", "Игорь", 11), v("Игорь", "Коля", 12),
       v("Петя", "Игорь", 13)]


@pytest.mark.parametrize("tie_break, jailed, by, tied", [
    ("random_list", "Таня", "random", ("Коля", "Игорь")),   # R2.10: the list's first, Таня
    ("earliest", "Коля", "votes", ("Коля", "Игорь")),        # Коля had 2 at 12:00, Игорь 13:00
])
def test_R2_12_a_tie_goes_to_the_earliest_final_count(tie_break, jailed, by, tied):
    o = opts(tie_break=tie_break)
    lynch = decide_lynch(count_votes(TIE, alive=NICKS), alive=NICKS, order=ORDER, cursor=0,
                         options=o)
    assert (lynch.player, lynch.by, lynch.tied) == (jailed, by, tied)
    assert (lynch.earliest == t(12)) is (tie_break == "earliest")
    assert lynch.cursor == (0 if by == "votes" else 1)     # the list is not used


def test_R2_12_the_final_count_is_the_last_counted_vote_not_the_first():
    """Игорь had 2 first (11:00) but lost one and got it back at 14:00; Коля reached 2 at 12:30."""
    votes = [v("Маша", "Игорь", 10), v("Петя", "Игорь", 11), v("Петя", "Вася", 11, 30),
             v("Вася", "Коля", 12), v("Эль", "Коля", 12, 30), v("Петя", "Игорь", 14)]
    lynch = decide_lynch(count_votes(votes, alive=NICKS), alive=NICKS, order=ORDER, cursor=0,
                         options=opts(tie_break="earliest"))
    assert (lynch.player, lynch.earliest) == ("Коля", t(12, 30))


@pytest.mark.parametrize("votes", [
    [],                                                           # no vote at all
    [v("Вася", "Коля", 10, pid=1), v("Маша", "Игорь", 10, pid=2)],   # the same instant
])
def test_R2_12_no_vote_or_the_same_instant_goes_to_the_random_list(votes):
    lynch = decide_lynch(count_votes(votes, alive=NICKS), alive=NICKS, order=ORDER, cursor=0,
                         options=opts(tie_break="earliest"))
    assert (lynch.player, lynch.by) == ("Таня", "random")


def test_R2_12_R5_4_a_frozen_players_vote_does_not_reach_a_count():
    """Ира is frozen: her 11:00 vote for Игорь is not his; Коля (12:00) vs Игорь (13:00)."""
    votes = TIE + [v("Ира", "Игорь", 11, 30)]
    tally = count_votes(votes, alive=NICKS, frozen=["Ира"])
    lynch = decide_lynch(tally, alive=NICKS, order=ORDER, cursor=0,
                         options=opts(tie_break="earliest"))
    assert lynch.player == "Коля" and ("frozen" in [r.reason for r in tally.rejected])


# -- R2.13 limited vote changes --------------------------------------------------------------

CHANGES = [v("Маша", "Коля", 10), v("Маша", "Коля", 10, 30),    # restated: no change
           v("Маша", "Игорь", 11), v("Маша", "Вася", 12), v("Маша", "Игорь", 13)]


@pytest.mark.parametrize("limit, target, refused", [
    (-1, "Игорь", []),                                   # unlimited (the seed)
    (0, "Коля", [1100, 1200, 1300]),                     # the first vote is final
    (1, "Игорь", [1200]),           # one change: Коля -> Игорь; 13:00 restates it
    (2, "Вася", [1300]),
    (3, "Игорь", []),
])
def test_R2_13_changes_a_day(limit, target, refused):
    tally = count(CHANGES, vote_changes=limit)
    assert [x.target for x in tally.votes] == [target]
    assert rejected(tally) == [(p, "change_limit") for p in refused]


def test_R2_13_windows_before_the_deadline():
    """Unlimited until 19:00, one change from 19:00, none from 19:50 (the later window wins)."""
    votes = [v("Маша", "Коля", 10), v("Маша", "Игорь", 15), v("Маша", "Вася", 16),   # free
             v("Маша", "Коля", 19, 10),        # the window's one change
             v("Маша", "Игорь", 19, 30),       # over it
             v("Петя", "Коля", 12), v("Петя", "Вася", 19, 55),   # none from 19:50
             v("Эль", "Коля", 19, 52)]         # a first vote is no change
    tally = count(votes, vote_change_limits=(("19:00", 1), ("19:50", 0)))
    assert {x.voter: x.target for x in tally.votes} == {"Маша": "Коля", "Петя": "Коля",
                                                        "Эль": "Коля"}
    assert rejected(tally) == [(1930, "change_limit"), (1955, "change_limit")]


def test_R2_13_the_day_limit_and_a_window_together():
    votes = [v("Маша", "Коля", 10), v("Маша", "Игорь", 19, 5), v("Маша", "Вася", 19, 10)]
    tally = count(votes, vote_changes=5, vote_change_limits=(("19:00", 1),))
    assert [x.target for x in tally.votes] == ["Игорь"]
    tally = count(votes, vote_changes=0, vote_change_limits=(("19:00", 5),))
    assert [x.target for x in tally.votes] == ["Коля"]


@pytest.mark.parametrize("hhmm, start", [
    ("19:00", t(19)), ("20:00", t(20)), ("21:30", t(21, 30, day=9)), ("00:00", t(0))])
def test_R2_13_a_window_starts_at_its_last_time_before_the_deadline(hhmm, start):
    assert window_start(hhmm, DEADLINE, MSK) == start.astimezone(timezone.utc)


def test_R2_13_R2_8_votes_that_do_not_count_are_no_change():
    """A vote for the dead, a frozen player's votes: R2.8 rejects them first; no change used."""
    votes = [v("Маша", "Коля", 10), v("Маша", "Вася", 11), v("Маша", "Игорь", 12),
             v("Ира", "Коля", 10), v("Ира", "Вася", 11)]
    tally = count(votes, alive=[n for n in NICKS if n != "Вася"], frozen=["Ира"],
                  vote_changes=1)
    assert [x.target for x in tally.votes] == ["Игорь"]
    assert rejected(tally) == [(1000, "frozen"), (1100, "dead_target"), (1100, "frozen")]


# -- R2.14 final votes -----------------------------------------------------------------------

def test_R2_14_later_votes_after_a_final_vote_do_not_count():
    votes = [v("Маша", "Коля", 10), v("Маша", "Игорь", 11, final=True),
             v("Маша", "Вася", 12), v("Маша", "Игорь", 13), v("Петя", "Вася", 12, final=True)]
    tally = count(votes)     # the flag comes from the post's words (see extract_votes below)
    assert {x.voter: x.target for x in tally.votes} == {"Маша": "Игорь", "Петя": "Вася"}
    assert rejected(tally) == [(1200, "after_final"), (1300, "after_final")]
    assert "окончательный голос" in reason_text("after_final", "ru")


def test_R2_14_R2_8_a_final_vote_that_does_not_count_binds_nobody():
    votes = [v("Маша", "Вася", 10, final=True), v("Маша", "Игорь", 11)]
    tally = count(votes, alive=[n for n in NICKS if n != "Вася"])
    assert [x.target for x in tally.votes] == ["Игорь"]


def _topic_posts(bodies: list[tuple[str, str, datetime]]) -> list:
    with LocalBoard(language="ru", clock=lambda: t(19)) as board:
        uid = {n: 200 + i for i, n in enumerate(NICKS)}
        for n, u in uid.items():
            board.add_user(n, u)
        topic = board.add_topic("День 2")
        for author, body, at in bodies:
            board.add_post(author, uid[author], body, at, topic=topic)
        page = parse_topic_page(board.render_topic(topic).encode("utf-8"),
                                url=board.topic_url(topic), fetched_at=t(19), board_tz=MSK)
    return [(p, t(19)) for p in page.posts]


def test_R2_14_the_word_counts_in_the_post_not_in_a_quote():
    """phpBB markup as the board renders it: «окончательно» inside a quote is somebody else's."""
    versions = _topic_posts([
        ("Маша", "[color=red]Коля[/color] окончательно!", t(10)),
        ("Петя", "[quote=Маша]окончательно[/quote] [color=red]Коля[/color]", t(11)),
        ("Эль", "Голос: [color=red]Игорь[/color] (Окончательно)", t(12)),
        ("Коля", "[color=red]Игорь[/color] неокончательно", t(13)),
    ])
    o = opts(final_vote_words=("окончательно",))
    votes, _rej, _notes = extract_votes(versions, players=PLAYERS, alive=NICKS, host=None,
                                        deadline=DEADLINE, options=o)
    assert {x.voter: x.final for x in votes} == {"Маша": True, "Петя": False, "Эль": True,
                                                 "Коля": False}
    off, _r, _n = extract_votes(versions, players=PLAYERS, alive=NICKS, host=None,
                                deadline=DEADLINE)
    assert not any(x.final for x in off)


# -- R2.15 a majority ends the day -----------------------------------------------------------

@pytest.mark.parametrize("eligible, needed", [(12, 7), (11, 6), (8, 5), (7, 4), (2, 2)])
def test_R2_15_more_than_half(eligible, needed):
    assert majority_needed(eligible) == needed


MAJ = [v("Вася", "Коля", 10), v("Игорь", "Коля", 11), v("Петя", "Коля", 12),
       v("Эль", "Игорь", 12, 30), v("Ира", "Коля", 12, 45),
       v("Таня", "Коля", 13),                                # the 5th of 8: the majority
       v("Коля", "Игорь", 14), v("Таня", "Игорь", 15), v("Маша", "Вася", 16)]


def test_R2_15_the_vote_ends_at_the_post_that_gives_the_majority():
    tally = count(MAJ, majority_ends_day=True)
    assert tally.majority is not None and (tally.majority.post_id, tally.majority.target) == \
        (1300, "Коля")
    assert counts(tally) == [("Коля", 5), ("Игорь", 1)]
    assert rejected(tally) == [(1400, "after_majority"), (1500, "after_majority"),
                               (1600, "after_majority")]
    assert count(MAJ).majority is None and counts(count(MAJ)) == [("Коля", 4), ("Игорь", 3),
                                                                  ("Вася", 1)]


def test_R2_15_R5_4_the_frozen_are_not_counted_in_the_half():
    """8 alive, Ира frozen: 7 may vote, 4 is a majority (the 4th vote for Коля at 13:00)."""
    tally = count(MAJ, frozen=["Ира"], majority_ends_day=True)
    assert tally.majority is not None and tally.majority.post_id == 1300


def test_R2_15_a_live_count_shows_the_majority_too():
    live = [x for x in MAJ if x.at < t(13, 30)]
    assert count(live, final=False, majority_ends_day=True).majority.post_id == 1300


# -- R2.16 not voting costs -------------------------------------------------------------------

def test_R2_16_non_voters_get_votes_at_the_deadline():
    votes = [v("Вася", "Коля", 10), v("Игорь", "Коля", 11), v("Маша", "Игорь", 12),
             v("Петя", "Игорь", 13), v("Ира", "Таня", 14), v("Коля", "Вася", 15)]
    tally = count(votes, frozen=["Ира"], non_voter_votes=2)   # Эль, Таня do not vote
    # penalties are reached at the deadline: after every counted vote (R2.12's order)
    assert [(c.target, c.votes, c.penalty) for c in tally.counts] == [
        ("Коля", 2, 0), ("Игорь", 2, 0), ("Таня", 2, 2), ("Эль", 2, 2), ("Вася", 1, 0)]
    assert tally.counts[2].reached_at == DEADLINE and tally.not_voting == ("Таня", "Эль")
    assert "Ира" not in [c.target for c in tally.counts]
    live = count(votes, frozen=["Ира"], final=False, non_voter_votes=2)
    assert all(c.penalty == 0 for c in live.counts)          # not before the deadline
    assert decide_lynch(tally, alive=NICKS, order=ORDER, cursor=0,
                        options=opts(tie_break="earliest")).player == "Коля"


def test_R2_16_no_penalty_on_a_day_a_majority_ended():
    tally = count(MAJ, majority_ends_day=True, non_voter_votes=2)
    assert all(c.penalty == 0 for c in tally.counts)


@pytest.mark.parametrize("before, voted, exempt, counts_day, after", [
    ({}, {"Вася"}, (), True, {"Игорь": 1, "Коля": 1}),
    ({"Коля": 1, "Вася": 2}, {"Вася"}, (), True, {"Игорь": 1, "Коля": 2}),
    ({"Коля": 1}, set(), {"Коля"}, True, {"Вася": 1, "Игорь": 1, "Коля": 1}),  # frozen: kept
    ({"Коля": 1}, {"Игорь"}, (), False, {"Коля": 1}),                   # a majority day
])
def test_R2_16_streaks(before, voted, exempt, counts_day, after):
    assert next_streaks(before, alive=["Вася", "Игорь", "Коля"], voted=voted, exempt=exempt,
                        counts_day=counts_day) == after


NOBODY_VOTES_BUT = [v("Вася", "Таня", 10), v("Игорь", "Таня", 11), v("Маша", "Таня", 12),
                    v("Ира", "Таня", 13), v("Петя", "Игорь", 14), v("Таня", "Игорь", 15)]


def test_R2_16_R11_2_the_kth_day_without_a_vote_removes_the_player():
    """Коля and Эль have not voted on day 1; on day 2 neither votes again: both removed."""
    o = opts(non_voter_removal_after=2)
    st = state(streaks={"Коля": 1, "Эль": 1})
    day = play_day(st, DayInput(2, tuple(NOBODY_VOTES_BUT)), o, deadline=DEADLINE)
    assert day.result.lynched.player == "Таня"
    assert [(k.player, k.role, k.no_vote_days, k.at) for k in day.result.host_kills] == [
        ("Коля", Role.CIVILIAN, 2, DEADLINE), ("Эль", Role.CIVILIAN, 2, DEADLINE)]
    assert "Коля" not in day.after.alive and day.after.died_at["Коля"] == (2, "host")
    assert "Коля" not in day.result.alive and day.after.no_vote_days == {}
    # one day later in the streak: nobody is removed yet, the streak goes on
    first = play_day(state(), DayInput(2, tuple(NOBODY_VOTES_BUT)), o, deadline=DEADLINE)
    assert first.result.host_kills == () and first.after.no_vote_days == {"Коля": 1, "Эль": 1}


def test_R2_16_R7_a_removal_can_end_the_game():
    """Three left: Вася (Boss), Коля, Эль; Эль is jailed, Коля removed: the mafia wins."""
    st = state(streaks={"Коля": 1}).evolve(alive=frozenset({"Вася", "Коля", "Эль", "Маша"}))
    votes = (v("Вася", "Эль", 10), v("Маша", "Эль", 11))
    day = play_day(st, DayInput(2, votes), opts(non_voter_removal_after=2), deadline=DEADLINE)
    assert [k.player for k in day.result.host_kills] == ["Коля"]
    assert day.result.winner == "mafia"


def test_R2_16_R5_5_a_removed_commissar_promotes_the_sergeant():
    st = state(streaks={"Маша": 1})
    votes = tuple(x for x in NOBODY_VOTES_BUT if x.voter != "Маша") + (v("Коля", "Таня", 9),
                                                                       v("Эль", "Таня", 9, 5))
    day = play_day(st, DayInput(2, votes), opts(non_voter_removal_after=2), deadline=DEADLINE)
    assert [k.player for k in day.result.host_kills] == ["Маша"]
    assert (day.after.commissar, day.after.sergeant, day.result.promoted) == ("Петя", None,
                                                                             "Петя")


def test_R2_16_off_keeps_no_streaks():
    day = play_day(state(), DayInput(2, tuple(NOBODY_VOTES_BUT)), opts(), deadline=DEADLINE)
    assert day.after.no_vote_days == {} and "no_vote_days" not in day.after.to_json()
    kept = state(streaks={"Коля": 1})
    assert GameState.from_json(kept.to_json()).no_vote_days == {"Коля": 1}


def test_R2_16_the_dead_keep_no_streak_and_get_no_votes():
    o = opts(non_voter_removal_after=3, non_voter_votes=1)
    st = state(streaks={"Коля": 1}).evolve(alive=frozenset(set(NICKS) - {"Коля"}))
    day = play_day(st, DayInput(2, tuple(NOBODY_VOTES_BUT)), o, deadline=DEADLINE)
    assert "Коля" not in day.after.no_vote_days
    assert "Коля" not in [c.target for c in day.tally.counts]


# -- R10 replacements and R11 decisions: as an ordinary vote ---------------------------------

SWAP = t(12)


def test_R10_a_newcomer_inherits_the_slots_change_count():
    """Маша changed once (10:00 Коля -> 11:00 Игорь); Лиса takes the slot at 12:00: with one
    change a day, her vote for Вася at 13:00 is a second change for the slot."""
    book = build_book(PLAYERS, [Replacement("Маша", "Лиса", SWAP, k=1)])
    votes = (v("Маша", "Коля", 10), v("Маша", "Игорь", 11), v("Лиса", "Вася", 13))
    day = play_day(state(), DayInput(2, votes), opts(vote_changes=1, tie_break="earliest"),
                   deadline=DEADLINE, book=book)
    assert [(x.voter, x.target) for x in day.tally.votes] == [("Лиса", "Игорь")]
    assert (1300, "change_limit") in rejected(day.tally)


def test_R10_a_final_vote_binds_the_slot_and_the_old_users_posts_are_not_the_slots():
    book = build_book(PLAYERS, [Replacement("Маша", "Лиса", SWAP, k=1)])
    votes = (v("Маша", "Коля", 10, final=True), v("Маша", "Вася", 13), v("Лиса", "Игорь", 14))
    day = play_day(state(), DayInput(2, votes), opts(final_vote_words=("окончательно",)),
                   deadline=DEADLINE, book=book)
    assert [(x.voter, x.target) for x in day.tally.votes] == [("Лиса", "Коля")]
    assert rejected(day.tally) == [(1300, "replaced_player"), (1400, "after_final")]


def test_R10_R2_16_the_streak_passes_to_the_newcomer():
    book = build_book(PLAYERS, [Replacement("Коля", "Лиса", SWAP, k=1)])
    st = state(streaks={"Коля": 1})
    day = play_day(st, DayInput(2, tuple(NOBODY_VOTES_BUT)), opts(non_voter_removal_after=2),
                   deadline=DEADLINE, book=book)
    assert [k.player for k in day.result.host_kills] == ["Лиса"]
    assert day.after.no_vote_days == {"Эль": 1}


def test_R11_1_a_decided_vote_is_judged_as_an_ordinary_vote():
    """The host reads Маша's 12:00 post as a vote for Вася: with no change allowed, it is
    over the limit like any vote; a post decided as no vote is no change at all."""
    votes = (v("Маша", "Коля", 10), v("Маша", "Эль", 12), v("Петя", "Коля", 10),
             v("Петя", "Игорь", 11), v("Петя", "Эль", 13))
    book = build_book(PLAYERS, votes=[VoteDecision(1200, "Вася", k=1),
                                      VoteDecision(1100, None, k=2)])
    day = play_day(state(), DayInput(2, votes), opts(vote_changes=1), deadline=DEADLINE,
                   book=book)
    assert {x.voter: x.target for x in day.tally.votes} == {"Маша": "Вася", "Петя": "Эль"}
    strict = play_day(state(), DayInput(2, votes), opts(vote_changes=0), deadline=DEADLINE,
                      book=book)
    assert {x.voter: x.target for x in strict.tally.votes} == {"Маша": "Коля", "Петя": "Коля"}


def test_R11_2_a_host_removal_before_the_majority_lowers_the_half():
    """The host removes Эль and Таня at 9:00: 6 may vote, 4 is a majority (Коля at 12:45)."""
    from scraper_mod.rules.slots import HostKill
    book = build_book(PLAYERS, kills=[HostKill("Эль", t(9), k=1), HostKill("Таня", t(9), k=2)])
    day = play_day(state(), DayInput(2, tuple(MAJ)), opts(majority_ends_day=True),
                   deadline=DEADLINE, book=book)
    assert day.tally.majority is not None and day.tally.majority.post_id == 1245
    assert day.result.lynched.player == "Коля"


def test_R2_15_R2_12_a_majority_day_resolves_by_votes():
    day = play_day(state(), DayInput(2, tuple(MAJ)),
                   opts(majority_ends_day=True, tie_break="earliest"), deadline=DEADLINE)
    assert (day.lynch.player, day.lynch.by) == ("Коля", "votes")


# -- game.toml -------------------------------------------------------------------------------

def _game(rules: str):
    import tomllib
    from pathlib import Path
    text = f"""[game]
title = "x"
start = 2024-04-08

[rules]
{rules}

[[players]]
nick = "Вася"
"""
    return parse_game(tomllib.loads(text), path=Path("games/x/game.toml"))


def test_config_reads_every_house_option():
    g = _game('tie_break = "earliest"\nvote_changes = 2\n'
              'vote_change_limits = [{ from = "19:00", changes = 2 }, '
              '{ from = "19:50", changes = 1 }]\n'
              'final_vote_words = ["Окончательно"]\nmajority_ends_day = true\n'
              'non_voter_votes = 2\nnon_voter_removal_after = 2')
    r = g.rules
    assert (r.tie_break, r.vote_changes, r.vote_change_limits, r.final_vote_words,
            r.majority_ends_day, r.non_voter_votes, r.non_voter_removal_after) == (
        "earliest", 2, (("19:00", 2), ("19:50", 1)), ("окончательно",), True, 2, 2)


@pytest.mark.parametrize("rules, key", [
    ('tie_break = "first"', "rules.tie_break"),
    ("vote_changes = -2", "rules.vote_changes"),
    ('vote_change_limits = [{ from = "7pm", changes = 1 }]', "rules.vote_change_limits[1]"),
    ('vote_change_limits = [{ from = "19:00" }]', "rules.vote_change_limits[1]"),
    ('vote_change_limits = [{ from = "19:00", changes = -1 }]', "rules.vote_change_limits[1]"),
    ("non_voter_votes = -1", "rules.non_voter_votes"),
    ('final_vote_words = "окончательно"', "rules.final_vote_words"),
])
def test_config_refuses_bad_house_options_naming_the_key(rules, key):
    with pytest.raises(ConfigError) as e:
        _game(rules)
    assert key in str(e.value) and "game.toml" in str(e.value)


def test_penalty_and_windows_stay_off_in_a_live_count():
    h = house(final=False, non_voter_votes=3, vote_change_limits=(("19:00", 1),))
    assert h.non_voter_votes == 0 and h.windows[0][0] == t(19).astimezone(timezone.utc)
    assert h.penalty_at == DEADLINE and DEADLINE - timedelta(hours=1) == t(19)


_ = remove_non_voters   # exercised through play_day above


def test_R11_1_R2_14_a_decided_post_is_final_if_its_words_say_so():
    """Маша's 10:00 post says «окончательно» but names nobody the host accepts: the host reads
    it as a vote for Вася; it binds her, her 12:00 vote does not count."""
    votes = (v("Маша", "Коля", 10, final=True), v("Маша", "Игорь", 12))
    book = build_book(PLAYERS, votes=[VoteDecision(1000, "Вася", k=1)])
    day = play_day(state(), DayInput(2, votes), opts(final_vote_words=("окончательно",)),
                   deadline=DEADLINE, book=book)
    assert [(x.voter, x.target, x.decided) for x in day.tally.votes] == [("Маша", "Вася", True)]
    assert rejected(day.tally) == [(1200, "after_final")]


def test_R11_1_R2_15_a_decided_vote_can_make_the_majority():
    """Эль's 12:30 post for Игорь is read by the host as a vote for Коля: the 5th, at 12:30."""
    book = build_book(PLAYERS, votes=[VoteDecision(1230, "Коля", k=1)])
    day = play_day(state(), DayInput(2, tuple(MAJ)), opts(majority_ends_day=True),
                   deadline=DEADLINE, book=book)
    assert day.tally.majority is not None and day.tally.majority.post_id == 1245


def test_R10_R2_15_the_majority_counts_by_slot():
    """Лиса takes Таня's slot at 12:00; Таня's 9:00 vote stands for the slot, Лиса restates
    it at 13:00 (no new voter): the 5th vote is still the one at 12:45."""
    book = build_book(PLAYERS, [Replacement("Таня", "Лиса", SWAP, k=1)])
    votes = tuple(x for x in MAJ if x.voter != "Таня") + (v("Таня", "Коля", 9),
                                                          v("Лиса", "Коля", 13))
    day = play_day(state(), DayInput(2, votes), opts(majority_ends_day=True),
                   deadline=DEADLINE, book=book)
    assert day.tally.majority is not None and day.tally.majority.post_id == 1245
    assert (day.tally.majority.voter, day.result.lynched.player) == ("Ира", "Коля")


def test_R11_2_R2_16_a_host_removal_ends_the_streak():
    from scraper_mod.rules.slots import HostKill
    book = build_book(PLAYERS, kills=[HostKill("Коля", t(9), k=1)])
    day = play_day(state(streaks={"Коля": 1, "Эль": 1}), DayInput(2, tuple(NOBODY_VOTES_BUT)),
                   opts(non_voter_removal_after=2), deadline=DEADLINE, book=book)
    assert [(k.player, k.no_vote_days) for k in day.result.host_kills] == [("Коля", 0),
                                                                           ("Эль", 2)]
    assert day.after.no_vote_days == {}
