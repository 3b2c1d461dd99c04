"""RULES R10 (replacements) and R11 (the host's decisions) in the pure rules core, table by
table: the book (``rules.slots``), a day played through ``rules.replay.play_day`` with it,
the move judging (``rules.moves.judge_moves``) and the vote extraction on real phpBB markup
(LocalBoard, the phpBB 3.3.15 prosilver look-alike, parsed by the real parser).

The game: 8 players, day 2 of 9-10 April 2024 (Moscow time); day 2's deadline is Wed 10 April
20:00. The Doctor «Ира» is replaced by «Котя» at 12:00 on day 2.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.errors import RulesError
from scraper_mod.forum.phpbb.parse import parse_topic_page
from scraper_mod.rules.model import MoveKind, Player, Role, RuleOptions, Vote
from scraper_mod.rules.moves import MoveRequest, judge_moves, orders_from_moves
from scraper_mod.rules.names import NameIndex
from scraper_mod.rules.night import NightOrders
from scraper_mod.rules.replay import DayInput, play_day
from scraper_mod.rules.slots import EMPTY, HostKill, Replacement, VoteDecision, build_book, day_view
from scraper_mod.rules.state import initial_state
from scraper_mod.rules.tally import count_votes
from scraper_mod.rules.votes import extract_votes

MSK = ZoneInfo("Europe/Moscow")
PLAYERS = (Player("Вася", Role.BOSS, "vasya@example.org"),
           Player("Игорь", Role.MAFIA, "igor@example.org"),
           Player("Маша", Role.COMMISSAR, "masha@example.org"),
           Player("Ира", Role.DOCTOR, "ira@example.org"),
           Player("Петя", Role.SERGEANT, "petya@example.org"),
           Player("Коля", Role.CIVILIAN, "kolya@example.org"),
           Player("Эль", Role.CIVILIAN, "el@example.org", aliases=("Котик",)),
           Player("Таня", Role.VSB, "tanya@example.org"))
ORDER = ("Таня", "Петя", "Ира", "Игорь", "Коля", "Вася", "Эль", "Маша")
DEADLINE = datetime(2024, 4, 10, 20, 0, tzinfo=MSK)
SWAP = datetime(2024, 4, 10, 12, 0, tzinfo=MSK)


def t(hh: int, mm: int = 0, day: int = 10) -> datetime:
    return datetime(2024, 4, day, hh, mm, tzinfo=MSK)


def state_after_day_1():
    """Day 1 is over: the Doctor has used the self-heal, and the Boss froze Ира for day 2."""
    st = initial_state(PLAYERS, "Игорь", ORDER)
    return st.evolve(day=1, doctor_self_heals_used=1, frozen_next_day="Ира", cursor=1,
                     last_heal_target="Ира")


BOOK = build_book(PLAYERS, [Replacement("Ира", "Котя", SWAP, k=1, contact="kotya@example.org")])


# -- the book ------------------------------------------------------------------------------

@pytest.mark.parametrize("author, at, slot_now, how", [
    ("Ира", t(11, 59), "Котя", ""),            # the old user before the instant: the slot's
    ("Ира", t(12, 0), "Котя", "replaced"),     # from the instant on: not the slot's (R10.2)
    ("Котя", t(11, 59), "Котя", "not_yet"),    # the newcomer before it: not in the game yet
    ("Котя", t(12, 0), "Котя", ""),
    ("коля", t(9), "Коля", ""),                # another player, any case
])
def test_R10_2_whose_slot_a_post_is_by_its_time(author, at, slot_now, how):
    slot, got = BOOK.who(author, at)
    assert slot is not None and slot.nick_at(DEADLINE) == slot_now and got == how


def test_R10_2_book_for_a_stranger_is_no_slot():
    assert BOOK.who("Зритель", t(13)) == (None, "")


def test_R10_1_chained_replacements_A_B_C_name_one_slot():
    book = build_book(PLAYERS, [Replacement("Ира", "Котя", SWAP, k=1),
                                Replacement("Котя", "Лис", t(15), k=2)])
    assert book.nick_at("Ира", t(16)) == "Лис" and book.nick_at("Котя", t(13)) == "Котя"
    assert book.who("Котя", t(14))[1] == "" and book.who("Котя", t(15))[1] == "replaced"
    assert book.rename_at(t(16)) == {**{p.nick: p.nick for p in PLAYERS if p.nick != "Ира"},
                                     "Ира": "Лис", "Котя": "Лис", "Лис": "Лис"}
    # the old nick and the middle one still name the slot (R10.2)
    names = dict(book.names_at(t(16)))
    assert names["Лис"] == ("Ира", "Котя")


@pytest.mark.parametrize("replacements, message", [
    ([Replacement("Ира", "Котя", SWAP, k=1), Replacement("Ира", "Лис", t(15), k=2)],
     "'Ира' plays no slot"),                       # the chain must name Котя second
    ([Replacement("Ира", "Коля", SWAP, k=1)], "already held a slot"),
    ([Replacement("Незнакомец", "Лис", SWAP, k=1)], "plays no slot"),
])
def test_R10_1_a_replacement_must_name_the_slot_as_it_is_then(replacements, message):
    with pytest.raises(RulesError, match=message):
        build_book(PLAYERS, replacements)


# -- the state a day is played on ------------------------------------------------------------

def test_R10_1_the_newcomer_takes_role_alive_freeze_self_heal_and_random_place():
    st, killed = day_view(state_after_day_1(), BOOK, cutoff=DEADLINE, day=2)
    assert killed == ()
    assert st.roles["Котя"] is Role.DOCTOR and "Ира" not in st.roles
    assert "Котя" in st.alive and st.frozen_today() == frozenset({"Котя"})
    assert st.doctor_self_heals_used == 1 and st.last_heal_target == "Котя"
    assert st.order.index("Котя") == ORDER.index("Ира") and st.cursor == 1
    # before the instant the slot still has its old nick
    before, _ = day_view(state_after_day_1(), BOOK, cutoff=t(11), day=2)
    assert "Ира" in before.alive and "Котя" not in before.roles


# -- a whole day with the book (votes and the night) -----------------------------------------

def _day(votes, orders=NightOrders(), book=BOOK, state=None):
    st = state or state_after_day_1().evolve(frozen_next_day=None)
    return play_day(st, DayInput(2, tuple(votes), orders), RuleOptions(), deadline=DEADLINE,
                    book=book, since=t(20, 0, day=9))


def V(voter, target, at, post_id):
    return Vote(voter=voter, target=target, at=at, post_id=post_id)


def counts(rd):
    return {c.target: list(c.voters) for c in rd.tally.counts}


@pytest.mark.parametrize("votes, expected, rejected", [
    # R10.1: the slot's vote cast before the replacement stands until the newcomer votes
    ([V("Ира", "Коля", t(10), 1)], {"Коля": ["Котя"]}, set()),
    ([V("Ира", "Коля", t(10), 1), V("Котя", "Вася", t(13), 2)], {"Вася": ["Котя"]}, set()),
    # R10.2: the old user's post after the instant is reported, never counted
    ([V("Ира", "Коля", t(10), 1), V("Ира", "Вася", t(14), 2)], {"Коля": ["Котя"]},
     {(2, "replaced_player")}),
    # the newcomer's post before the instant is no player's
    ([V("Котя", "Вася", t(11), 1)], {}, {(1, "not_in_game")}),
    # R10.2: a vote naming the old nick counts for the slot, named by its current nick
    ([V("Коля", "Ира", t(9), 1), V("Маша", "Ира", t(15), 2)], {"Котя": ["Коля", "Маша"]}, set()),
])
def test_R10_votes_by_and_for_a_replaced_slot(votes, expected, rejected):
    rd = _day(votes)
    assert counts(rd) == expected
    assert {(r.post_id, r.reason) for r in rd.tally.rejected} == rejected
    assert [(r.old, r.new) for r in rd.result.replacements] == [("Ира", "Котя")]
    assert rd.result.to_json()["replacements"] == [
        {"old": "Ира", "new": "Котя", "at": "2024-04-10T12:00:00+03:00"}]


@pytest.mark.parametrize("decisions, expected, decided", [
    # R11.1: no vote: the voter's previous vote stands
    ([VoteDecision(2, None, "шутка", k=1)], {"Вася": ["Коля"]}, []),
    # R11.1: read as a vote for another player (any nick of the slot)
    ([VoteDecision(2, "Ира", "опечатка", k=1)], {"Котя": ["Коля"]}, [2]),
    # a decision on a post the voter later changed: the later vote counts
    ([VoteDecision(1, "Маша", "", k=1)], {"Игорь": ["Коля"]}, []),
])
def test_R11_1_a_decided_post_reads_as_the_host_said(decisions, expected, decided):
    book = build_book(PLAYERS, BOOK.replacements, decisions)
    rd = _day([V("Коля", "Вася", t(10), 1), V("Коля", "Игорь", t(11), 2)], book=book)
    assert counts(rd) == expected
    assert [v.post_id for v in rd.tally.votes if v.decided] == decided
    if decisions[0].target is None:
        assert {(r.post_id, r.reason) for r in rd.tally.rejected} == {(2, "decided_no_vote")}


def test_R11_2_a_removed_player_dies_at_the_instant():
    """The duty mafioso Игорь is removed at 15:00: his vote stops counting, votes for him are
    for the dead, his kill does nothing (the Boss's does), the newspaper gets his role."""
    book = build_book(PLAYERS, BOOK.replacements, (),
                      [HostKill("Игорь", t(15), "неактивность", k=2)])
    votes = [V("Игорь", "Маша", t(10), 1), V("Маша", "Игорь", t(11), 2),
             V("Коля", "Маша", t(12), 3), V("Петя", "Коля", t(13), 4)]
    orders = NightOrders(mafia_kill="Коля", mafia_by="Игорь")
    rd = _day(votes, orders, book=book)
    assert counts(rd) == {"Маша": ["Коля"], "Коля": ["Петя"]}
    assert {(r.post_id, r.reason) for r in rd.tally.rejected} == {(1, "dead_voter"),
                                                                 (2, "dead_target")}
    assert "Игорь" not in rd.result.alive and rd.result.killed == ()
    assert [(k.player, k.role, k.why) for k in rd.result.host_kills] == [
        ("Игорь", Role.MAFIA, "неактивность")]
    assert rd.after.died_at["Игорь"] == (2, "host")
    assert rd.result.to_json()["host_kills"] == [
        {"player": "Игорь", "role": "mafia", "at": "2024-04-10T15:00:00+03:00",
         "why": "неактивность"}]
    # before the instant (a live count at 14:00) he is still in the game
    st, killed = day_view(state_after_day_1(), book, cutoff=t(14), day=2)
    assert "Игорь" in st.alive and killed == ()


def test_R11_2_a_removal_ends_the_game_when_the_rules_say_so():
    """Removing the last mafiosi leaves the town winning (R7.1) at that day's resolution."""
    st = state_after_day_1().evolve(alive=frozenset({"Вася", "Маша", "Коля", "Эль"}),
                                    frozen_next_day=None)
    book = build_book(PLAYERS, (), (), [HostKill("Вася", t(9), "нарушение правил", k=1)])
    rd = _day([V("Маша", "Коля", t(10), 1)], book=book, state=st)
    assert rd.result.winner == "town" and rd.lynch.player == "Коля"


def test_R11_no_book_changes_nothing():
    votes = [V("Ира", "Коля", t(10), 1), V("Маша", "Коля", t(11), 2)]
    st = state_after_day_1().evolve(frozen_next_day=None)
    a = play_day(st, DayInput(2, tuple(votes)), RuleOptions(), deadline=DEADLINE)
    b = play_day(st, DayInput(2, tuple(votes)), RuleOptions(), deadline=DEADLINE, book=EMPTY)
    assert a == b and a.result.to_json()["host_kills"] == []


# -- moves ---------------------------------------------------------------------------------

def R(mid, at, sender, kind=None, target=None):
    return MoveRequest(message_id=mid, received_at=at, sender=sender, kind=kind, target=target)


USERS = PLAYERS + (Player("Котя", contact="kotya@example.org"),)


@pytest.mark.parametrize("requests, expected", [
    # the old user's move before the instant is the slot's (by its nick at the deadline)
    ([R(1, t(10), "ira@example.org", MoveKind.HEAL, "Коля")],
     [("Котя", "counted", "", "Коля")]),
    # after it: not the slot's (R10.2), and the slot's earlier move stands
    ([R(1, t(10), "ira@example.org", MoveKind.HEAL, "Коля"),
      R(2, t(13), "ira@example.org", MoveKind.HEAL, "Маша")],
     [("Котя", "counted", "", "Коля"), ("Ира", "invalid", "sender_replaced", "Маша")]),
    # the newcomer before and after the instant
    ([R(1, t(11), "kotya@example.org", MoveKind.HEAL, "Маша"),
      R(2, t(13), "kotya@example.org", MoveKind.HEAL, "Вася")],
     [("Котя", "unknown_sender", "sender_not_yet", "Маша"), ("Котя", "counted", "", "Вася")]),
    # R10.2: a move naming the old nick aims at the slot
    ([R(1, t(14), "masha@example.org", MoveKind.CHECK, "Ира")],
     [("Маша", "counted", "", "Котя")]),
])
def test_R10_2_night_moves_by_slot(requests, expected):
    st, _ = day_view(state_after_day_1().evolve(frozen_next_day=None), BOOK, cutoff=DEADLINE,
                     day=2)
    moves = judge_moves(requests, state=st, deadline=DEADLINE, options=RuleOptions(),
                        players=USERS, book=BOOK)
    assert [(m.player, m.status, m.reason, m.target) for m in moves] == expected


def test_R11_2_moves_by_and_at_a_removed_player_do_nothing():
    book = build_book(PLAYERS, BOOK.replacements, (), [HostKill("Коля", t(15), "ушёл", k=2)])
    st, killed = day_view(state_after_day_1().evolve(frozen_next_day=None), book,
                          cutoff=DEADLINE, day=2)
    assert [k.player for k in killed] == ["Коля"]
    moves = judge_moves([R(1, t(10), "igor@example.org", MoveKind.KILL, "Коля"),
                         R(2, t(11), "masha@example.org", MoveKind.CHECK, "Коля"),
                         R(3, t(12), "kolya@example.org", MoveKind.KILL, "Маша")],
                        state=st, deadline=DEADLINE, options=RuleOptions(), players=USERS,
                        book=book)
    assert [(m.status, m.reason) for m in moves] == [("invalid", "target_dead"),
                                                     ("invalid", "target_dead"),
                                                     ("invalid", "sender_dead")]
    assert orders_from_moves(moves, st, RuleOptions()) == NightOrders()


# -- the vote extraction on phpBB markup (R2.3 at each instant) ------------------------------

IDS = {"Вася": 58, "Игорь": 59, "Маша": 60, "Ира": 61, "Петя": 62, "Коля": 63, "Эль": 64,
       "Таня": 65, "Котя": 66}


@pytest.fixture(scope="module")
def topic_versions():
    """Day 2's topic as phpBB renders it, read once at 19:00."""
    with LocalBoard(language="ru", clock=lambda: t(19)) as board:
        tid = board.add_topic("День 2")
        posts = [("Коля", "Голосую за [color=red]Кот[/color]", t(9)),       # 1: Котик = Эль
                 ("Ира", "[color=red]Вася[/color]", t(10)),                 # 2: the slot's
                 ("Маша", "А теперь [color=red]Кот[/color]", t(13)),        # 3: Котик or Котя?
                 ("Ира", "[color=red]Маша[/color]!", t(14)),                # 4: old user, after
                 ("Петя", "[color=#00AA00]Ира[/color]", t(15)),             # 5: old nick
                 ("Эль", "[color=blue]Котя[/color]", t(16)),                # 6: the newcomer
                 ("Таня", "Просто болтаю", t(17))]                          # 7: decided below
        ids = [board.add_post(a, IDS[a], body, at, topic=tid) for a, body, at in posts]
        page = parse_topic_page(board.render_topic(tid).encode("utf-8"),
                                url=board.topic_url(tid), fetched_at=t(19), board_tz=MSK)
        return [(p, t(19)) for p in page.posts], ids


def test_R2_3_R10_R11_extraction_by_slot_on_a_phpbb_topic(topic_versions):
    versions, ids = topic_versions
    book = build_book(PLAYERS, BOOK.replacements, [VoteDecision(ids[6], "Коля", "", k=3)])
    st, _ = day_view(state_after_day_1().evolve(frozen_next_day=None), book, cutoff=DEADLINE,
                     day=2)
    votes, rejected, notes = extract_votes(
        versions, players=PLAYERS, alive=st.alive, host="admin", deadline=DEADLINE,
        book=book, index=NameIndex(book.names_at(DEADLINE)),
        index_at=lambda at: NameIndex(book.names_at(at)))
    by = {v.post_id: (v.voter, v.target, v.decided) for v in votes}
    assert by == {ids[0]: ("Коля", "Эль", False),      # before the newcomer: only Котик fits
                  ids[1]: ("Котя", "Вася", False),     # the slot's vote, by its nick now
                  ids[4]: ("Петя", "Котя", False),     # the old nick names the slot
                  ids[5]: ("Эль", "Котя", False),
                  ids[6]: ("Таня", "Коля", True)}      # the host's reading (R11.1)
    why = {(r.post_id, r.reason) for r in rejected}
    assert (ids[2], "ambiguous_name") in why             # after 12:00 «Кот» is two players
    assert (ids[3], "replaced_player") in why
    assert notes.posts_per_player["Котя"] == 1           # the old user's post before 12:00
    assert not [n for n in notes.notes if "Ира" in n]     # the old user is no impostor
    tally = count_votes(votes, alive=st.alive)
    assert {c.target: c.votes for c in tally.counts} == {"Котя": 2, "Вася": 1, "Эль": 1,
                                                         "Коля": 1}
