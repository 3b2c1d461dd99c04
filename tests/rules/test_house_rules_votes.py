"""House rules R2.18-R2.21 (RULES, docs/rules-house.md) in the pure rules core: the voting
window, pass votes, a tie that jails no one, an edit that is a change, words with a vote; each
with the other rules as docs/rules-house.md's table shows (frozen, dead, host decision,
majority, non-voters), and read from real phpBB markup (LocalBoard, the real parser).
R2.17 (the voting topic) is a matter of which topic is read: tests/game/test_vote_topic.py.

The game: 8 players, day 2 of 9-10 April 2024 (Moscow time), deadline Wed 10 April 20:00
unless a test says otherwise.
"""

from __future__ import annotations

import dataclasses
import tomllib
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.errors import ConfigError
from scraper_mod.forum.phpbb.parse import parse_topic_page
from scraper_mod.game.setup.config import parse_game
from scraper_mod.rules.house import house_day, next_streaks, own_chars, pass_word_in
from scraper_mod.rules.model import NO_ONE, Player, Role, RuleOptions, Vote
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


def v(voter: str, target: str, hh: int, mm: int = 0, *, edited: bool = False,
      final: bool = False) -> Vote:
    return Vote(voter=voter, target=target, at=t(hh, mm), post_id=hh * 100 + mm,
                edited=edited, final=final)


def opts(**kw) -> RuleOptions:
    return dataclasses.replace(RuleOptions(), **kw)


def count(votes, *, frozen=(), alive=NICKS, final=True, **kw):
    return count_votes(votes, alive=alive, frozen=frozen, players=NICKS,
                       house=house_day(opts(**kw), DEADLINE, MSK, final=final))


def counts(tally) -> list[tuple[str, int]]:
    return [(c.target, c.votes) for c in tally.counts]


def rejected(tally) -> list[tuple[int, str]]:
    return [(r.post_id, r.reason) for r in tally.rejected]


def lynch(tally, **kw):
    return decide_lynch(tally, alive=NICKS, order=ORDER, cursor=0, options=opts(**kw))


# -- R2.18 a voting window ------------------------------------------------------------------

def test_R2_18_only_votes_inside_the_window_count():
    votes = [v("Вася", "Коля", 12), v("Игорь", "Коля", 18, 59), v("Петя", "Маша", 19),
             v("Эль", "Маша", 19, 30), v("Коля", "Вася", 19, 59)]
    tally = count(votes, voting_opens="19:00")
    assert counts(tally) == [("Маша", 2), ("Вася", 1)]
    assert rejected(tally) == [(1200, "before_window"), (1859, "before_window")]
    assert "до начала голосования" in reason_text("before_window", "ru")
    # off by default: every vote counts
    assert counts(count(votes)) == [("Коля", 2), ("Маша", 2), ("Вася", 1)]


def test_R2_18_a_vote_before_the_window_is_no_vote_a_later_one_is_the_first():
    """R2.18 with R2.13: the vote before the window is not the standing vote, so the first
    vote in the window is no change (one change a day is still left)."""
    votes = [v("Вася", "Коля", 12), v("Вася", "Маша", 19, 10), v("Вася", "Петя", 19, 20),
             v("Вася", "Игорь", 19, 30)]
    tally = count(votes, voting_opens="19:00", vote_changes=1)
    assert [(x.voter, x.target) for x in tally.votes] == [("Вася", "Петя")]
    assert rejected(tally) == [(1200, "before_window"), (1930, "change_limit")]


def test_R2_18_window_across_midnight_and_the_deadline_hour():
    """dota2.ru: the vote between 20:00 and 21:00; the window opens the last 20:00 before the
    deadline (a deadline at 21:00)."""
    dl = datetime(2024, 4, 10, 21, 0, tzinfo=MSK)
    h = house_day(opts(voting_opens="20:00"), dl, MSK, final=True)
    assert h.opens == t(20)
    h = house_day(opts(voting_opens="22:00"), dl, MSK, final=True)
    assert h.opens == t(22, day=9)


def test_R2_18_R2_16_a_vote_before_the_window_is_not_voting():
    votes = [v("Вася", "Коля", 12), v("Игорь", "Коля", 19, 30)]
    tally = count(votes, voting_opens="19:00", non_voter_votes=1)
    assert "Вася" in tally.not_voting
    assert ("Вася", 1) in counts(tally)


def test_R2_18_R2_15_a_majority_before_the_window_is_no_majority():
    early = [v(n, "Коля", 10 + i) for i, n in enumerate(["Вася", "Игорь", "Петя", "Эль", "Ира"])]
    tally = count(early + [v("Маша", "Вася", 19, 5)], voting_opens="19:00",
                  majority_ends_day=True)
    assert tally.majority is None and counts(tally) == [("Вася", 1)]


# -- R2.19 pass votes and a tie that jails no one --------------------------------------------

def test_R2_19_no_one_leads_jails_no_one():
    votes = [v("Вася", NO_ONE, 10), v("Игорь", NO_ONE, 11), v("Петя", "Коля", 12)]
    tally = count(votes)
    assert counts(tally) == [(NO_ONE, 2), ("Коля", 1)]
    assert lynch(tally) is None             # no random list
    assert "Вася" not in tally.not_voting   # a pass is voting (R2.16)


def test_R2_19_a_pass_replaces_the_earlier_vote():
    votes = [v("Вася", "Коля", 10), v("Вася", NO_ONE, 11), v("Петя", "Коля", 12),
             v("Игорь", "Маша", 13)]
    tally = count(votes)
    assert counts(tally) == [(NO_ONE, 1), ("Коля", 1), ("Маша", 1)]   # by time reached


def test_R2_19_a_tie_of_no_one_with_a_player_goes_to_the_random_list():
    votes = [v("Вася", NO_ONE, 10), v("Петя", "Коля", 12)]
    got = lynch(count(votes))
    assert got is not None and got.by == "random" and got.player == "Таня"


def test_R2_19_tie_jails_no_one_option():
    votes = [v("Вася", "Маша", 10), v("Петя", "Коля", 12)]
    assert lynch(count(votes), tie_jails_no_one=True) is None
    assert lynch(count(votes)).by == "random"
    # one leader is jailed as ever; no vote at all still goes to the random list (R2.10)
    assert lynch(count(votes[:1]), tie_jails_no_one=True).player == "Маша"
    assert lynch(count([]), tie_jails_no_one=True).by == "random"


def test_R2_19_R2_8_a_frozen_or_dead_players_pass_does_not_count():
    votes = [v("Ира", NO_ONE, 10), v("Вася", NO_ONE, 11), v("Петя", "Коля", 12)]
    tally = count(votes, frozen=["Ира"], alive=[n for n in NICKS if n != "Вася"])
    assert counts(tally) == [("Коля", 1)]
    assert rejected(tally) == [(1000, "frozen"), (1100, "dead_voter")]


def test_R2_19_R2_15_no_one_can_reach_the_majority():
    votes = [v(n, NO_ONE, 10 + i) for i, n in enumerate(["Вася", "Игорь", "Петя", "Эль", "Ира"])]
    tally = count(votes + [v("Маша", "Вася", 16)], majority_ends_day=True)
    assert tally.majority is not None and tally.majority.target == NO_ONE
    assert lynch(tally) is None


def test_R2_19_R2_16_a_pass_keeps_the_streak_at_zero():
    tally = count([v("Вася", NO_ONE, 10)])
    voted = {x.voter for x in tally.votes}
    assert next_streaks({"Вася": 1, "Петя": 1}, alive=NICKS, voted=voted) == {
        n: 1 for n in NICKS if n not in ("Вася", "Петя")} | {"Петя": 2}


# -- R2.20 an edit is a change -----------------------------------------------------------------

def test_R2_20_an_edited_vote_is_a_change_even_for_the_same_player():
    votes = [v("Вася", "Коля", 10), v("Вася", "Коля", 11, edited=True),
             v("Вася", "Маша", 12)]
    assert counts(count(votes, vote_changes=1, edit_is_change=True)) == [("Коля", 1)]
    assert rejected(count(votes, vote_changes=1, edit_is_change=True)) == [
        (1200, "change_limit")]
    # off: restating Коля by an edit is no change; the change to Маша is the one allowed
    assert counts(count(votes, vote_changes=1)) == [("Маша", 1)]


def test_R2_20_with_no_changes_an_edited_vote_post_does_not_count():
    votes = [v("Вася", "Коля", 10), v("Петя", "Маша", 11, edited=True)]
    tally = count(votes, vote_changes=0, edit_is_change=True)
    assert counts(tally) == [("Коля", 1)] and rejected(tally) == [(1100, "change_limit")]


def test_R2_20_R2_14_a_final_vote_binds_an_edit_too():
    votes = [v("Вася", "Коля", 10, final=True), v("Вася", "Маша", 11, edited=True)]
    tally = count(votes, edit_is_change=True, final_vote_words=("окончательно",))
    assert rejected(tally) == [(1100, "after_final")]


# -- R2.21 words with a vote -----------------------------------------------------------------

@pytest.mark.parametrize("text, nicks, n", [
    ("Коля", ["Коля"], 0), ("Коля!!!", ["Коля"], 0), ("Голосую: Коля", ["Коля"], 7),
    ("Коля — молчит весь день", ["Коля"], 14),
])
def test_R2_21_own_characters_besides_the_nick(text, nicks, n):
    assert own_chars(text, nicks) == n


@pytest.mark.parametrize("text, found", [
    ("пас", True), ("Я ПАС на сегодня", True), ("спасибо", False), ("воздерживаюсь.", True),
    ("не знаю", False)])
def test_R2_19_pass_words_are_whole_words(text, found):
    assert pass_word_in(text, ("пас", "воздерживаюсь")) is found


def _topic_posts(bodies, edits=()) -> list:
    """The posts as phpBB renders them, parsed by the real parser; ``edits``: (index of the
    post, new body, edit time) — the topic is read once before and once after them."""
    with LocalBoard(language="ru", clock=lambda: t(19, 50)) as board:
        uid = {n: 200 + i for i, n in enumerate(NICKS)}
        for n, u in uid.items():
            board.add_user(n, u)
        topic = board.add_topic("Голосование, день 2")
        ids = [board.add_post(a, uid[a], body, at, topic=topic) for a, body, at in bodies]

        def read(at):
            page = parse_topic_page(board.render_topic(topic).encode("utf-8"),
                                    url=board.topic_url(topic), fetched_at=at, board_tz=MSK)
            return [(p, at) for p in page.posts]
        out = read(t(19, 0))
        for i, body, at in edits:
            board.edit_post(ids[i], body, edited_at=at)
        return out + (read(t(19, 50)) if edits else [])


def test_R2_19_R2_21_read_from_phpbb_markup():
    """R2.19 «пас» in the post's own words (not in a quote) is a vote for no one; R2.21 a bare
    colored nick does not count, a nick with a reason does."""
    versions = _topic_posts([
        ("Маша", "[color=red]Коля[/color]", t(10)),
        ("Петя", "[color=red]Коля[/color] — молчит весь день", t(11)),
        ("Эль", "Сегодня пас.", t(12)),
        ("Коля", "[quote=Эль]пас[/quote] Не согласен.", t(13)),
        ("Ира", "[color=blue]Вася[/color] воздерживаюсь? нет, голосую за него", t(14)),
    ])
    o = opts(pass_words=("пас", "воздерживаюсь"), vote_min_words=5)
    votes, rej, notes = extract_votes(versions, players=PLAYERS, alive=NICKS, host=None,
                                      deadline=DEADLINE, options=o)
    assert [(x.voter, x.target) for x in votes] == [("Петя", "Коля"), ("Эль", NO_ONE),
                                                    ("Ира", "Вася")]
    assert [(r.author, r.reason) for r in rej] == [("Маша", "too_few_words")]
    assert "Эль" not in notes.not_voted and "Коля" in notes.not_voted
    off, rej_off, _ = extract_votes(versions, players=PLAYERS, alive=NICKS, host=None,
                                    deadline=DEADLINE)
    assert [(x.voter, x.target) for x in off] == [("Маша", "Коля"), ("Петя", "Коля"),
                                                  ("Ира", "Вася")]


def test_R2_20_an_edit_read_from_phpbb_markup_is_marked():
    versions = _topic_posts([("Маша", "[color=red]Коля[/color] за него", t(10)),
                             ("Петя", "[color=red]Коля[/color] и всё", t(11))],
                            edits=[(0, "[color=red]Коля[/color] за него, точно", t(19, 10))])
    o = opts(edit_is_change=True, vote_changes=0)
    votes, _rej, _ = extract_votes(versions, players=PLAYERS, alive=NICKS, host=None,
                                   deadline=DEADLINE, options=o)
    assert sorted((x.voter, x.edited) for x in votes) == [("Маша", True), ("Петя", False)]
    tally = count_votes(votes, alive=NICKS, house=house_day(o, DEADLINE, MSK, final=True))
    assert counts(tally) == [("Коля", 1)] and [r.reason for r in tally.rejected] == [
        "change_limit"]


# -- the [rules] keys ----------------------------------------------------------------------

def _game(rules: str):
    text = f"""[game]
title = "T"
start = 2024-04-08
host = "admin"
language = "ru"

[rules]
{rules}

[[players]]
nick = "Вася"
"""
    return parse_game(tomllib.loads(text), path=Path("games/x/game.toml"))


def test_config_reads_the_round_4_options_and_keeps_them_off_by_default():
    r = _game('voting_opens = "20:00"\npass_words = ["Пас", "воздерживаюсь"]\n'
              'tie_jails_no_one = true\nedit_is_change = true\nvote_min_words = 10').rules
    assert (r.voting_opens, r.pass_words, r.tie_jails_no_one, r.edit_is_change,
            r.vote_min_words) == ("20:00", ("пас", "воздерживаюсь"), True, True, 10)
    d = _game("").rules
    assert (d.voting_opens, d.pass_words, d.tie_jails_no_one, d.edit_is_change,
            d.vote_min_words) == ("", (), False, False, 0)


@pytest.mark.parametrize("rules, key", [
    ('voting_opens = "8pm"', "rules.voting_opens"), ("voting_opens = 20", "rules.voting_opens"),
    ('pass_words = "пас"', "rules.pass_words"), ("vote_min_words = -1", "rules.vote_min_words"),
    ('tie_jails_no_one = "yes"', "rules.tie_jails_no_one"),
])
def test_config_refuses_bad_round_4_options_naming_the_key(rules, key):
    with pytest.raises(ConfigError) as e:
        _game(rules)
    assert key in str(e.value) and "game.toml" in str(e.value)


def test_R2_20_R2_11_an_edit_without_a_notice_is_an_edit_too():
    """phpBB shows no edit notice when the author edits the topic's last post (R2.11): a
    version seen before with other words makes the standing one an edit all the same."""
    versions = _topic_posts([("Маша", "[color=red]Коля[/color] за него", t(10)),
                             ("Петя", "думаю", t(11))],
                            edits=[(1, "[color=red]Коля[/color] и всё", t(19, 10))])
    assert [p.edit_count for p, _ in versions if p.author == "Петя"] == [0, 0]
    votes, _rej, _ = extract_votes(versions, players=PLAYERS, alive=NICKS, host=None,
                                   deadline=DEADLINE, options=opts(edit_is_change=True))
    assert sorted((x.voter, x.edited) for x in votes) == [("Маша", False), ("Петя", True)]


def test_R2_19_a_colored_pass_word_is_the_pass_not_a_name_of_no_one():
    versions = _topic_posts([("Эль", "[color=red]пас[/color]", t(12))])
    votes, rej, _ = extract_votes(versions, players=PLAYERS, alive=NICKS, host=None,
                                  deadline=DEADLINE, options=opts(pass_words=("пас",)))
    assert [(x.voter, x.target) for x in votes] == [("Эль", NO_ONE)] and rej == []
