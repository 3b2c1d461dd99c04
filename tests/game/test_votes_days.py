"""A later day's count: who may vote comes from the day before (RULES R2.8, R5.4, R8.1, R3).

The real topic «День 1 — голосование» is used as day 2 of a game that started a day earlier.
Day 1's stored resolution (as RESOLVE stores it: the state after the day) says Вася was
jailed on day 1 and NightOwl was frozen that night; the random list's cursor stands at 3.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from test_votes_fixture import versions_of

from scraper_mod.clock import FakeClock
from scraper_mod.game.context import open_game
from scraper_mod.game.day.tally import day_state, tally_day, vote_report
from scraper_mod.rules.state import initial_state

ROOT = Path(__file__).resolve().parents[2]
MSK = ZoneInfo("Europe/Moscow")
ORDER = ["NightOwl", "Маша_2", "doc_Holiday", "Вася", "Ёжик в тумане", "Big Joe", "Игрок-7",
         "Алексей"]


@pytest.fixture
def ctx(tmp_path):
    toml = (ROOT / "fixtures" / "games" / "day1" / "game.toml").read_text(encoding="utf-8")
    toml = toml.replace("start = 2024-04-08", "start = 2024-04-07")
    toml = toml.replace("[[days]]\nnumber = 1", "[[days]]\nnumber = 2")
    (tmp_path / "game.toml").write_text(toml, encoding="utf-8")
    c = open_game(tmp_path, clock=FakeClock(datetime(2024, 4, 9, 21, 0, tzinfo=MSK)))
    assert c.calendar().deadline(2) == datetime(2024, 4, 9, 20, 0, tzinfo=MSK)
    yield c
    c.close()


def resolve_day_1(ctx, *, with_state: bool = True) -> None:
    st = initial_state(ctx.game.players, ctx.game.duty, ORDER)
    after = st.evolve(alive=st.alive - {"Вася"}, frozen_next_day="NightOwl", cursor=3,
                      died_at={"Вася": (1, "votes")}, day=1)
    data = {"day": 1, "lynched": {"player": "Вася", "role": "boss", "by": "votes"},
            "killed": [], "saved": False, "frozen": "NightOwl",
            "alive": sorted(after.alive), "winner": None, "cursor": 3}
    if with_state:
        data["state"] = after.to_json()
    ctx.store.save_resolution(1, data, resolved_at=datetime(2024, 4, 8, 20, 30, tzinfo=MSK))


@pytest.mark.parametrize("with_state", [True, False], ids=["state", "bare result"])
def test_day_state_2(ctx, with_state):
    """R5.4, R8.1, R3.2: day 2 starts with day 1's dead, freeze and cursor; Вася's last word
    window is the 12 hours after day 2's newspaper (21:00)."""
    resolve_day_1(ctx, with_state=with_state)
    st = day_state(ctx, 2)
    assert st.alive == frozenset(ORDER) - {"Вася"}
    assert st.frozen == {"NightOwl"}
    assert (st.order, st.cursor) == (tuple(ORDER), 3)
    assert st.last_word_until == {"Вася": datetime(2024, 4, 9, 9, 0, tzinfo=MSK)}
    assert st.source == "day 1 resolution"
    # day 1 itself starts from the game file
    assert day_state(ctx, 1).alive == frozenset(ORDER)


def test_day_2_count_with_the_dead_and_the_frozen(ctx):
    """R2.8: the dead and the frozen do not vote, votes for the dead do not count (the voter's
    later vote does); R8.1: Вася's posts after his last word are reported."""
    resolve_day_1(ctx)
    result = tally_day(ctx, 2, versions=versions_of("prosilver-ru"))
    data = result.to_json()
    assert {(c["target"], c["votes"]) for c in data["counts"]} == {("Алексей", 4),
                                                                  ("NightOwl", 2)}
    assert {v["voter"]: v["target"] for v in data["votes"]} == {
        "Big Joe": "Алексей", "Ёжик в тумане": "Алексей", "doc_Holiday": "Алексей",
        "Игрок-7": "Алексей", "Алексей": "NightOwl", "Маша_2": "NightOwl"}
    assert data["frozen"] == ["NightOwl"] and data["not_voting"] == []
    reasons = {(r["post_id"], r["reason"]) for r in data["rejected"]}
    assert {(65, "frozen_voter"), (74, "frozen_voter"), (83, "frozen_voter"),
            (68, "dead_target"), (70, "dead_target"),
            (72, "dead_after_last_word"), (91, "dead_after_last_word")} <= reasons
    assert data["lynch"] == {"player": "Алексей", "by": "votes"}
    report = vote_report(ctx, 2, lang="ru", tally=result)
    assert report["frozen"] == ["NightOwl"]
    assert any(r["reason"] == "frozen_voter" and "заморозка" in r["why"]
               for r in report["rejected"])


def test_no_votes_goes_to_the_random_list(ctx):
    """R2.10, R3.2: no valid vote: the first alive player at or after the cursor (3: Вася,
    dead, so Ёжик в тумане) is jailed by random."""
    resolve_day_1(ctx)
    result = tally_day(ctx, 2, versions=[])
    data = result.to_json()
    assert data["counts"] == [] and data["lynch"] == {"player": "Ёжик в тумане",
                                                      "by": "random"}
    assert result.lynch.cursor == 5
    post = result.render("bbcode")
    assert "Засчитанных голосов пока нет." in post
    assert ("Засчитанных голосов нет: по случайному списку ведущего садится "
            "[b]Ёжик в тумане[/b].") in post
    assert "Заморозка (голос не считается): NightOwl." in post


def test_a_tie_goes_to_the_random_list(ctx):
    """R2.10, R3.2: a 1 : 1 tie; the random list from the cursor decides (all alive, R3.3)."""
    resolve_day_1(ctx)
    versions = [v for v in versions_of("prosilver-ru") if v[0].post_id in (66, 73)]
    result = tally_day(ctx, 2, versions=versions)
    assert [(c.target, c.votes) for c in result.tally.counts] == [("NightOwl", 1),
                                                                 ("Игрок-7", 1)]
    assert (result.lynch.player, result.lynch.by, result.lynch.tied) == (
        "Ёжик в тумане", "random", ("NightOwl", "Игрок-7"))
    assert result.to_json()["lynch"] == {"player": "Ёжик в тумане", "by": "random",
                                         "tied": ["NightOwl", "Игрок-7"]}
    assert "A tie (NightOwl, Игрок-7): the host's random list jails [b]Ёжик в тумане[/b]." \
        in result.render("bbcode", "en")


def test_unresolved_previous_day_is_said(ctx):
    """A count of day 3 while day 2 is unresolved uses day 1's state and says so."""
    resolve_day_1(ctx)
    st = day_state(ctx, 3)
    assert st.frozen == frozenset()       # the freeze was for day 2 only
    assert any("день 2 ещё не подведён" in n for n in st.notes)   # the game's language


def test_no_random_list_leaves_a_tie_undecided(tmp_path):
    """R2.10 needs the random list: without one the count says so instead of guessing."""
    toml = (ROOT / "fixtures" / "games" / "day1" / "game.toml").read_text(encoding="utf-8")
    start = toml.index("random_list = [")
    toml = toml[:start] + toml[toml.index("]", start) + 2:]
    toml = toml.replace('language = "ru"', 'language = "en"')
    (tmp_path / "game.toml").write_text(toml, encoding="utf-8")
    c = open_game(tmp_path, clock=FakeClock(datetime(2024, 4, 9, 21, 0, tzinfo=MSK)))
    try:
        result = tally_day(c, 1, versions=[])
    finally:
        c.close()
    assert result.lynch is None and result.to_json()["lynch"] is None
    assert "no random list" in result.lynch_note
    assert "No lynch decided yet." in result.render("bbcode")   # the public post: no advice
    assert "Lynch: not decided (a tie or no votes, and the game has no random list" in \
        result.render("text")


def test_day_before_the_topic_has_no_votes_and_a_clear_error(ctx):
    from scraper_mod.errors import ConfigError
    with pytest.raises(ConfigError, match="day 1 has no topic yet"):
        tally_day(ctx, 1)


def test_player_text_is_inert_in_the_bbcode_post(tmp_path):
    """Nicks are player-controlled: in the post they cannot open tags or links."""
    from scraper_mod.forum.model import Colored, Post
    evil = "[url=http://evil.example]Злой[/url]"
    toml = (ROOT / "fixtures" / "games" / "day1" / "game.toml").read_text(encoding="utf-8")
    toml = toml.replace('nick = "Вася"', f'nick = "{evil}"')
    toml = toml.replace('"Вася", "Ёжик', f'"{evil}", "Ёжик')
    toml = toml.replace('aliases = ["Василий"]\n', "")
    (tmp_path / "game.toml").write_text(toml, encoding="utf-8")
    c = open_game(tmp_path, clock=FakeClock(datetime(2024, 4, 9, 12, 0, tzinfo=MSK)))
    at = datetime(2024, 4, 9, 10, 0, tzinfo=MSK)
    votes = [Post(post_id=1, author=evil, author_id=58, posted_at=at, precision="second",
                  earliest=at, latest=at, colored=(Colored("#FF0000", "Алексей"),)),
             Post(post_id=2, author="Алексей", author_id=61, posted_at=at, precision="second",
                  earliest=at, latest=at, colored=(Colored("#FF0000", evil),))]
    try:
        result = tally_day(c, 1, versions=[(p, at) for p in votes])
    finally:
        c.close()
    assert {(v.voter, v.target) for v in result.tally.votes} == {(evil, "Алексей"),
                                                                 ("Алексей", evil)}
    post = result.render("bbcode")
    assert "[url=http://evil" not in post and "[/url][url" not in post.replace(
        "[/url], [url", "")
    assert post.count("[url=") == post.count("[/url]") == 2
