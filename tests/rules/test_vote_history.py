"""Issue 40, items 2 and 3: edits and deletions walk around neither the house limits nor a
majority (RULES R2.7, R2.12-R2.15, docs/security.md "Attacks by players").

Each attack is played on phpBB markup as the board renders it (LocalBoard, parsed by the real
parser), with the poller's sightings between the edits: every version of a post that held a
vote is a vote at its own time (R2.7), so a vote change, a final vote, the time a candidate
reached his count and the majority follow the post's whole history; after a majority the
count is as of the majority post, whatever is edited or deleted later (R2.15).
"""

from __future__ import annotations

import dataclasses

import pytest
from test_votes_rules import DEADLINE, MSK, NICKS, PLAYERS, Clock, play, t  # noqa: F401

from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.rules.house import house_day
from scraper_mod.rules.majority import as_of_majority
from scraper_mod.rules.model import RuleOptions
from scraper_mod.rules.tally import count_votes, decide_lynch
from scraper_mod.rules.votes import extract_votes


@pytest.fixture()
def board():
    clock = Clock()
    with LocalBoard(language="ru", clock=clock) as b:
        yield b, clock


def red(nick: str, extra: str = "") -> str:
    return f"Голосую: [color=#FF0000]{nick}[/color]{extra}"


def day(versions, deleted=None, **kw):
    o = dataclasses.replace(RuleOptions(), **kw)
    votes, rejected, _ = extract_votes(versions, players=PLAYERS, alive=NICKS, host="admin",
                                       deadline=DEADLINE, options=o, deleted=deleted)
    tally = count_votes(votes, alive=NICKS, house=house_day(o, DEADLINE, MSK, final=True))
    return tally, rejected, o


def standing(tally) -> dict[str, str]:
    return {v.voter: v.target for v in tally.votes}


def test_R2_13_R2_7_an_edited_vote_is_a_change(board):
    """vote_changes = 0: Вася votes Алексей, then edits the post to NightOwl: the edit is a
    change over the limit, Алексей stands."""
    versions, _ = play(*board, [
        ("post", "Вася", red("Алексей"), "10:00:00"), ("fetch", "10:30:00"),
        ("post", "Маша_2", "Флуд", "10:40:00"),
        ("edit", 0, red("NightOwl"), "11:00:00"), ("fetch", "21:00:00")])
    tally, _, _ = day(versions, vote_changes=0)
    assert standing(tally) == {"Вася": "Алексей"}
    assert [r.reason for r in tally.rejected] == ["change_limit"]
    free, _, _ = day(versions)                       # without the limit the edit counts
    assert standing(free) == {"Вася": "NightOwl"}


def test_R2_14_R2_7_a_final_vote_edited_to_another_player_does_not_count(board):
    versions, _ = play(*board, [
        ("post", "Вася", red("Алексей", " окончательно"), "10:00:00"), ("fetch", "10:30:00"),
        ("post", "Маша_2", "Флуд", "10:40:00"),
        ("edit", 0, red("NightOwl", " окончательно"), "11:00:00"), ("fetch", "21:00:00")])
    tally, _, _ = day(versions, final_vote_words=("окончательно",))
    assert standing(tally) == {"Вася": "Алексей"}
    assert [r.reason for r in tally.rejected] == ["after_final"]


def test_R2_14_R2_7_editing_the_word_out_frees_nobody(board):
    versions, _ = play(*board, [
        ("post", "Вася", red("Алексей", " окончательно"), "10:00:00"), ("fetch", "10:30:00"),
        ("post", "Маша_2", "Флуд", "10:40:00"),
        ("edit", 0, red("Алексей"), "11:00:00"), ("fetch", "11:30:00"),
        ("post", "Вася", red("NightOwl"), "12:00:00"), ("fetch", "21:00:00")])
    tally, _, _ = day(versions, final_vote_words=("окончательно",))
    assert standing(tally) == {"Вася": "Алексей"}
    assert [r.reason for r in tally.rejected] == ["after_final"]


def test_R2_12_R2_7_an_edit_does_not_move_when_a_count_was_reached(board):
    """tie_break = "earliest": Вася voted Алексей at 10:00, NightOwl at 11:00, and at 13:00
    edits his 11:00 post back to Алексей. Алексей's second vote came at 13:00, not 10:00:
    NightOwl (2 votes at 12:30) reached the tied count first and is jailed."""
    versions, _ = play(*board, [
        ("post", "Big Joe", red("Алексей"), "09:00:00"),
        ("post", "Вася", red("Алексей"), "10:00:00"),
        ("post", "Вася", red("NightOwl"), "11:00:00"), ("fetch", "11:30:00"),
        ("post", "Маша_2", red("NightOwl"), "12:00:00"),
        ("post", "Игрок-7", red("NightOwl"), "12:30:00"),
        ("edit", 2, red("Алексей"), "13:00:00"), ("fetch", "21:00:00")])
    tally, _, o = day(versions, tie_break="earliest")
    reached = {c.target: (c.votes, c.reached_at) for c in tally.counts}
    # the notice shows the edit's minute: counted from its end, 13:00:59
    assert reached == {"Алексей": (2, t("13:00:59")), "NightOwl": (2, t("12:30:00"))}
    lynch = decide_lynch(tally, alive=NICKS, order=list(NICKS), cursor=0, options=o)
    assert lynch is not None and lynch.player == "NightOwl"


FIVE_FOR_ALEKSEY = [
    ("post", "Вася", red("Алексей"), "10:00:00"),
    ("post", "Маша_2", red("Алексей"), "10:10:00"),
    ("post", "Big Joe", red("Алексей"), "10:20:00"),
    ("post", "NightOwl", red("Алексей"), "10:30:00"),
    ("post", "Игрок-7", red("Алексей"), "12:00:00"),     # 5 of 8: the majority
    ("fetch", "12:05:00"),
    ("post", "Алексей", red("Игрок-7"), "13:10:00"),
    ("post", "Ёжик в тумане", red("Игрок-7"), "13:20:00"),
    ("post", "doc_Holiday", red("Игрок-7"), "13:30:00"),
]


def test_R2_15_R2_7_a_majority_is_not_undone_by_an_edit_after_it(board):
    """phpBB: after the notice the 5th voter edits his vote to Игрок-7 and three more vote
    Игрок-7: without R2.15 that is a 4-4 tie for the random list; the vote ended at 12:00."""
    versions, _ = play(*board, FIVE_FOR_ALEKSEY + [
        ("edit", 4, red("Игрок-7"), "13:00:00"), ("fetch", "21:00:00")])
    tally, _, _ = day(versions, majority_ends_day=True)
    assert tally.majority is not None and tally.majority.at == t("12:00:00")
    assert [(c.target, c.votes) for c in tally.counts] == [("Алексей", 5)]
    assert {r.reason for r in tally.rejected} == {"after_majority"}
    assert len(tally.rejected) == 4


def test_R2_15_a_majority_is_not_undone_by_a_deletion_after_it(board):
    """SMF lets a member delete his post: the 5th voter deletes it after the majority (found
    missing at 13:05), three vote Игрок-7. The count is as of the majority post; a deletion
    found before the majority still takes its post's vote away."""
    versions, ids = play(*board, FIVE_FOR_ALEKSEY + [("delete", 4), ("fetch", "21:00:00")])
    o = dataclasses.replace(RuleOptions(), majority_ends_day=True)
    house = house_day(o, DEADLINE, MSK, final=True)

    def count(deleted):
        votes, rej, _ = extract_votes(versions, players=PLAYERS, alive=NICKS, host="admin",
                                      deadline=DEADLINE, options=o, deleted=deleted)
        return rej, count_votes(votes, alive=NICKS, house=house)

    late = {ids[4]: t("13:05:00")}
    _, tally = as_of_majority(late, count)
    assert tally.majority is not None and tally.majority.post_id == ids[4]
    assert [(c.target, c.votes) for c in tally.counts] == [("Алексей", 5)]
    _, naive = count(late)                         # what the attack gave before
    assert naive.majority is None
    assert sorted((c.target, c.votes) for c in naive.counts) == [("Алексей", 4),
                                                                  ("Игрок-7", 3)]
    # found deleted after the majority post: changes nothing either
    _, same = as_of_majority({ids[4]: t("12:01:00"), ids[0]: t("12:02:00")}, count)
    assert same.majority is not None and same.majority.post_id == ids[4]
    # Вася's vote deleted before the majority post: it never counted, no majority is reached
    rej, early = as_of_majority({ids[0]: t("11:00:00"), ids[4]: t("13:05:00")}, count)
    assert early.majority is None
    assert {r.reason for r in rej} >= {"deleted_post"}


def test_R2_15_R2_7_an_edit_in_the_majoritys_minute_is_after_it(board):
    """The real board's attack (tests/e2e/test_hardening40_real.py): phpBB's edit notice
    shows the minute only. Вася voted at 11:59:50; the majority came at 12:00:20; Вася's
    edit at 12:00:40 shows «12:00», and was first seen at 12:00:45. Placed at the minute's
    start it would come before the majority and undo it; it is placed at the latest instant
    it can have been (12:00:45), after the majority: not counted."""
    versions, _ = play(*board, [
        ("post", "Вася", red("Алексей"), "11:59:50"),
        ("post", "Маша_2", red("Алексей"), "12:00:00"),
        ("post", "Big Joe", red("Алексей"), "12:00:05"),
        ("post", "NightOwl", red("Алексей"), "12:00:10"),
        ("post", "Игрок-7", red("Алексей"), "12:00:20"), ("fetch", "12:00:30"),
        ("post", "doc_Holiday", "Флуд", "12:00:35"),
        ("edit", 0, red("Игрок-7"), "12:00:40"), ("fetch", "12:00:45"),
        ("fetch", "21:00:00")])
    tally, _, _ = day(versions, majority_ends_day=True)
    assert tally.majority is not None and tally.majority.at == t("12:00:20")
    assert [(c.target, c.votes) for c in tally.counts] == [("Алексей", 5)]
    assert [r.reason for r in tally.rejected] == ["after_majority"]
