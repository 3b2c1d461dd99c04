"""Counting votes and deciding the lynch (docs/rules.md R2.5, R2.8-R2.10, R3.2, R3.3, R5.4).

Votes are the ones of the phpBB fixture topic t=4 (day 1 of «Игра 2», deadline Tue 9 April
2024 20:00 MSK) and variations of it.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from zoneinfo import ZoneInfo

from scraper_mod.rules.model import RuleOptions, Vote
from scraper_mod.rules.tally import Tally, count_votes, decide_lynch

MSK = ZoneInfo("Europe/Moscow")
PLAYERS = ["Вася", "Маша_2", "Big Joe", "Алексей", "NightOwl", "Игрок-7", "Ёжик в тумане",
           "doc_Holiday"]
ALIVE = set(PLAYERS)
ORDER = ["NightOwl", "Маша_2", "doc_Holiday", "Вася", "Ёжик в тумане", "Big Joe", "Игрок-7",
         "Алексей"]


def at(day: int, hh: int, mm: int, ss: int = 0) -> datetime:
    return datetime(2024, 4, day, hh, mm, ss, tzinfo=MSK)


def v(voter, target, when, post_id) -> Vote:
    return Vote(voter=voter, target=target, at=when, post_id=post_id)


# The fixture topic's first votes: NightOwl->Big Joe (p65), Big Joe->NightOwl (p66),
# Ёжик->Вася (p68), Алексей->Вася (p70).
BASE = [
    v("NightOwl", "Big Joe", at(8, 21, 15, 40), 65),
    v("Big Joe", "NightOwl", at(8, 21, 33, 5), 66),
    v("Ёжик в тумане", "Вася", at(8, 23, 48, 19), 68),
    v("Алексей", "Вася", at(9, 9, 25), 70),
]


def opts(**kw) -> RuleOptions:
    return dataclasses.replace(RuleOptions(), **kw)


def test_R2_9_most_votes_is_jailed_and_counts_ordered():
    """R2.9: Вася has 2 votes, the most: jailed by votes; counts by votes then first reached."""
    t = count_votes(BASE, alive=ALIVE)
    assert [(c.target, c.votes, c.voters) for c in t.counts] == [
        ("Вася", 2, ("Ёжик в тумане", "Алексей")),
        ("Big Joe", 1, ("NightOwl",)),
        ("NightOwl", 1, ("Big Joe",)),
    ]
    assert t.not_voting == ("doc_Holiday", "Вася", "Игрок-7", "Маша_2")
    lynch = decide_lynch(t, alive=ALIVE, order=ORDER, cursor=0)
    assert (lynch.player, lynch.by, lynch.cursor, lynch.tied) == ("Вася", "votes", 0, ())


def test_counts_equal_votes_ordered_by_who_reached_first():
    """CONTRACT: a count that reached 2 earlier comes first, whatever the nick or input order."""
    votes = [
        v("Маша_2", "NightOwl", at(9, 10, 0), 80),
        v("Вася", "Big Joe", at(9, 11, 0), 81),
        v("Игрок-7", "NightOwl", at(9, 12, 0), 82),
        v("doc_Holiday", "Big Joe", at(9, 11, 30), 83),
    ]
    t = count_votes(list(reversed(votes)), alive=ALIVE)
    assert [(c.target, c.votes) for c in t.counts] == [("Big Joe", 2), ("NightOwl", 2)]
    assert t.counts[0].reached_at == at(9, 11, 30)
    assert t.counts[1].voters == ("Маша_2", "Игрок-7")


def test_R2_5_latest_vote_counts_and_restating_keeps_first_time():
    """R2.5: a changed vote counts for the new target; restating a vote keeps its first time."""
    votes = BASE + [
        v("NightOwl", "Вася", at(9, 12, 0), 75),           # changes from Big Joe to Вася
        v("Ёжик в тумане", "Вася", at(9, 19, 0), 90),      # restates Вася
        v("Маша_2", "Big Joe", at(9, 13, 0), 76),
    ]
    t = count_votes(votes, alive=ALIVE)
    top = t.counts[0]
    assert (top.target, top.votes) == ("Вася", 3)
    assert top.voters == ("Ёжик в тумане", "Алексей", "NightOwl")
    assert top.reached_at == at(9, 12, 0)
    assert {x.voter: x.post_id for x in t.votes}["Ёжик в тумане"] == 90  # the latest post
    assert {x.voter: x.target for x in t.votes}["NightOwl"] == "Вася"


def test_R2_5_same_instant_later_post_id_wins():
    votes = [v("Маша_2", "Вася", at(9, 12, 0), 100), v("Маша_2", "Big Joe", at(9, 12, 0), 101)]
    t = count_votes(votes, alive=ALIVE)
    assert [(c.target, c.votes) for c in t.counts] == [("Big Joe", 1)]


def test_R2_8_dead_voters_and_dead_targets_rejected_previous_vote_stands():
    """R2.8: only alive players vote, and only for alive players; the previous vote stands."""
    alive = ALIVE - {"Игрок-7", "Big Joe"}
    votes = BASE + [
        v("Игрок-7", "Вася", at(9, 10, 0), 71),          # dead voter
        v("Маша_2", "Алексей", at(9, 10, 30), 72),
        v("Маша_2", "Big Joe", at(9, 11, 0), 73),         # dead target: Алексей stands
    ]
    t = count_votes(votes, alive=alive)
    reasons = {(r.author, r.text): r.reason for r in t.rejected}
    assert reasons[("Игрок-7", "Вася")] == "dead_voter"
    assert reasons[("Маша_2", "Big Joe")] == "dead_target"
    assert reasons[("NightOwl", "Big Joe")] == "dead_target"
    assert reasons[("Big Joe", "NightOwl")] == "dead_voter"
    assert {x.voter: x.target for x in t.votes} == {
        "Ёжик в тумане": "Вася", "Алексей": "Вася", "Маша_2": "Алексей"}


def test_R2_8_self_votes_count_by_default():
    """R2.8: self-votes count."""
    t = count_votes([v("Маша_2", "Маша_2", at(9, 10, 0), 80)], alive=ALIVE)
    assert t.counts[0].target == "Маша_2" and not t.rejected


def test_R2_8_option_self_votes_forbidden():
    """R2.8 option self_votes = false: a self-vote is rejected, the previous vote stands."""
    votes = [v("Маша_2", "Вася", at(9, 9, 0), 79), v("Маша_2", "Маша_2", at(9, 10, 0), 80)]
    t = count_votes(votes, alive=ALIVE, self_votes=False)
    assert [(c.target, c.votes) for c in t.counts] == [("Вася", 1)]
    assert t.rejected[0].reason == "self_vote"


def test_R5_4_frozen_players_vote_does_not_count():
    """R5.4 / R2.8: a frozen player's vote does not count that day; he is not 'not voting'."""
    t = count_votes(BASE, alive=ALIVE, frozen={"Алексей"})
    assert t.counts[0].votes == 1
    assert [(r.author, r.reason) for r in t.rejected] == [("Алексей", "frozen")]
    assert "Алексей" not in t.not_voting and t.frozen == ("Алексей",)


def test_R2_10_tie_goes_to_random_among_all_alive_R3_3():
    """R2.10, R3.3: a 1-1-1 tie; the random picks the first alive on the list, tied or not."""
    t = count_votes(BASE[:2] + [v("Маша_2", "doc_Holiday", at(9, 10, 0), 77)], alive=ALIVE)
    assert [c.votes for c in t.counts] == [1, 1, 1]
    lynch = decide_lynch(t, alive=ALIVE, order=ORDER, cursor=1)
    assert (lynch.player, lynch.by, lynch.cursor) == ("Маша_2", "random", 2)
    assert lynch.tied == ("Big Joe", "NightOwl", "doc_Holiday")
    assert set(lynch.picked_from) == ALIVE


def test_R3_3_option_tied_only():
    """R3.3 option tie_scope = tied_only: the random picks among the tied candidates."""
    t = count_votes(BASE[:2], alive=ALIVE)
    lynch = decide_lynch(t, alive=ALIVE, order=ORDER, cursor=1, options=opts(tie_scope="tied_only"))
    # from cursor 1: Маша_2, doc_Holiday, Вася, Ёжик, Big Joe -> Big Joe (index 5)
    assert (lynch.player, lynch.by, lynch.cursor) == ("Big Joe", "random", 6)
    assert set(lynch.picked_from) == {"Big Joe", "NightOwl"}


def test_R2_10_no_valid_vote_goes_to_random_skipping_dead():
    """R2.10, R3.2: no votes at all; the dead NightOwl at the cursor is skipped."""
    alive = ALIVE - {"NightOwl"}
    t = count_votes([v("NightOwl", "Вася", at(9, 10, 0), 80)], alive=alive)
    assert not t.counts and t.rejected[0].reason == "dead_voter"
    for scope in ("all_alive", "tied_only"):
        lynch = decide_lynch(t, alive=alive, order=ORDER, cursor=0, options=opts(tie_scope=scope))
        assert (lynch.player, lynch.by, lynch.cursor, lynch.tied) == ("Маша_2", "random", 2, ())


def test_R5_4_option_frozen_immune_to_random():
    """R5.4 option frozen_immune_to_random: the frozen Маша_2 is skipped by the random."""
    t = count_votes([], alive=ALIVE, frozen={"Маша_2"})
    default = decide_lynch(t, alive=ALIVE, order=ORDER, cursor=1)
    assert default.player == "Маша_2"
    immune = decide_lynch(t, alive=ALIVE, order=ORDER, cursor=1,
                          options=opts(frozen_immune_to_random=True))
    assert (immune.player, immune.cursor) == ("doc_Holiday", 3)


def test_immune_that_leaves_nobody_falls_back():
    """If immunity would leave nobody to pick, the random picks among the whole pool."""
    t = count_votes([], alive={"Вася"}, frozen={"Вася"})
    lynch = decide_lynch(t, alive={"Вася"}, order=ORDER, cursor=0,
                         options=opts(frozen_immune_to_random=True))
    assert lynch.player == "Вася"


def test_nobody_alive_no_lynch():
    assert decide_lynch(Tally((), (), (), ()), alive=set(), order=ORDER, cursor=0) is None


def test_counts_each_alive_voter_at_most_once_R2_5():
    votes = [v("Маша_2", t, at(9, h, 0), 100 + h) for h, t in
             enumerate(["Вася", "Big Joe", "Вася", "Алексей", "Вася"], start=9)]
    t = count_votes(votes, alive=ALIVE)
    assert sum(c.votes for c in t.counts) == 1 and len(t.votes) == 1
    assert t.counts[0].reached_at == at(9, 13, 0)


def test_R2_8_votes_by_or_for_non_players_rejected_when_players_given():
    """R2.8: with the player list, a stranger's vote or a vote for a stranger is not_a_player."""
    votes = [v("Гость", "Вася", at(9, 10, 0), 80), v("Маша_2", "Гость", at(9, 11, 0), 81)]
    t = count_votes(votes, alive=ALIVE, players=PLAYERS)
    assert [(r.author, r.reason) for r in t.rejected] == [("Гость", "not_a_player"),
                                                          ("Маша_2", "not_a_player")]
    t = count_votes(votes, alive=ALIVE)
    assert [r.reason for r in t.rejected] == ["dead_voter", "dead_target"]
