"""A day with a voting topic, a voting window, pass words and an edited vote on the real phpBB
3.3.15 board (RULES R2.17-R2.21, docs/rules-house.md): the count and the jailing the rules give.

The host opens the day's discussion topic and its voting topic («Голосование»); the house's
rules: votes only in the voting topic (R2.17), from the minute ``voting_opens`` to the deadline
(R2.18), «пас» a vote for no one (R2.19), a vote edited into a post a change, with no change
allowed (R2.20, ``vote_changes = 0``), and a vote needs three letters of its own words (R2.21).
The players post through the board's forms; ``scraper-mod resolve`` after the deadline re-scans
both topics and jails Кот by 2 votes to 1 to 1.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

from conftest import GAME_FORUM_ID, RESULTS_FORUM_ID
from test_publish_real import MSK, scraper_mod, write_game

HOUSE = """
[rules]
voting_opens = "{opens}"
pass_words = ["пас", "воздерживаюсь"]
edit_is_change = true
vote_changes = 0
vote_min_words = 3
"""


def _sleep_until(t: datetime) -> None:
    while (left := (t - datetime.now(timezone.utc)).total_seconds()) > 0:
        time.sleep(min(left, 1.0))


def test_R2_17_to_R2_21_a_day_with_a_voting_topic_on_the_real_board(real_board, tmp_path):
    admin = real_board.player("admin")
    day1 = admin.new_topic(GAME_FORUM_ID, "Проверка. День 1", "День 1 начался.")
    vote = admin.new_topic(GAME_FORUM_ID, "Проверка. Голосование, день 1",
                           "Голоса — только здесь.")
    results = admin.new_topic(RESULTS_FORUM_ID, "Проверка. Итоги", "Здесь будут газеты.")
    now = datetime.now(timezone.utc).replace(microsecond=0)
    opens = (now + timedelta(seconds=100)).replace(second=0)   # a minute 40-100 s away
    deadline = opens + timedelta(seconds=80)
    game = write_game(tmp_path / "game", real_board, day1, results, deadline=deadline,
                      mode="off")
    toml = game / "game.toml"
    text = toml.read_text(encoding="utf-8").replace(
        f'topic = "{real_board.topic_url(day1)}"\n',
        f'topic = "{real_board.topic_url(day1)}"\nvote_topic = "{real_board.topic_url(vote)}"\n')
    toml.write_text(text + HOUSE.format(opens=f"{opens.astimezone(MSK):%H:%M}"),
                    encoding="utf-8")

    # R2.18: before the window
    masha = real_board.player("Маша_2")
    early = masha.reply(vote, "[color=red]Игрок-7[/color] точно мафия")
    _sleep_until(opens + timedelta(seconds=2))
    # R2.17: a colored nick in the discussion topic is no vote
    real_board.player("Вася").reply(day1, "Я бы посадил [color=red]Кот[/color], он молчит")
    masha.reply(vote, "Голосую: [color=red]Кот[/color]")
    real_board.player("Big Joe").reply(vote, "Голосую: [color=red]Кот[/color]")
    bare = real_board.player("Алексей").reply(vote, "[color=red]Кот[/color]")      # R2.21
    real_board.player("NightOwl").reply(vote, "Сегодня пас.")                       # R2.19
    igrok = real_board.player("Игрок-7")
    edited = igrok.reply(vote, "Подумаю ещё")
    real_board.player("Кот").reply(vote, "Голосую: [color=red]Игрок-7[/color]")
    got = scraper_mod("poll", str(game))       # the post before its edit is seen
    assert got.returncode == 0, got.stderr
    igrok.edit(edited, "Подумал: [color=red]Вася[/color] подозрителен")              # R2.20
    assert datetime.now(timezone.utc) < deadline - timedelta(seconds=3), "too slow a board"
    _sleep_until(deadline + timedelta(seconds=2))

    got = scraper_mod("resolve", str(game), "--day", "1", "--format", "json")
    assert got.returncode == 0, got.stderr
    result = json.loads(got.stdout)
    got = scraper_mod("tally", str(game), "--day", "1", "--offline", "--format", "json")
    assert got.returncode == 0, got.stderr
    tally = json.loads(got.stdout)

    assert [(v["voter"], v["target"]) for v in tally["votes"]] == [
        ("Маша_2", "Кот"), ("Big Joe", "Кот"), ("NightOwl", "(никто)"), ("Кот", "Игрок-7")]
    assert [(c["target"], c["votes"]) for c in tally["counts"]] == [
        ("Кот", 2), ("(никто)", 1), ("Игрок-7", 1)]
    reasons = {(r["post_id"], r["reason"]) for r in tally["rejected"]}
    assert reasons == {(early, "before_window"), (bare, "too_few_words"),
                       (edited, "change_limit")}, tally["rejected"]
    assert "NightOwl" not in tally["not_voting"] and "Вася" in tally["not_voting"]
    assert result["lynched"]["player"] == "Кот" and result["lynched"]["by"] == "votes"
    report = (game / "out" / "day-1" / "host-report.txt").read_text(encoding="utf-8")
    assert "голос не засчитан: подан до начала голосования" in report
    assert "голос не засчитан: один ник без слов" in report
