"""A whole game day per house rule (RULES R2.12-R2.16, docs/rules-house.md), through the
command line on a LocalBoard (the phpBB 3.3.15 prosilver look-alike on 127.0.0.1), in Russian
and in English, with golden newspapers.

The seven players of tests/game/test_resolve.py, April 2024, Moscow time: day 1 runs from Mon 8
21:00 to Tue 9 20:00, day 2 to Wed 10 20:00. Each scenario is one ``[rules]`` block a host
would write and the day's votes; no night move is sent (the mafia kills no one), so the
newspaper shows the rule's work alone. Golden files: tests/golden/house-rules/<scenario>/
(regenerate on purpose with SCRAPER_MOD_REGEN_GOLDEN=1, then read the diff).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from russian_text import check_en, check_ru  # noqa: E402  (tests/ is on the path)
from test_resolve import ORDER, PLAYERS, msk, write_game  # noqa: E402

from scraper_mod.cli import main
from scraper_mod.clock import FakeClock
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.game.context import open_game
from scraper_mod.game.day.tally import tally_day
from scraper_mod.game.history.daychart import vote_history

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "house-rules"
REGEN = os.environ.get("SCRAPER_MOD_REGEN_GOLDEN") == "1"
IDS = {n: u for n, _, u, _ in PLAYERS} | {"Ведущий": 2}
NICKS = [*IDS]

# scenario -> ([rules] block, {day: [(voter, body, hh, mm)]}, expected per resolved day)
SCENARIOS: dict[str, tuple[str, dict, dict]] = {
    # R2.12: 2:2, Коля's second vote at 12:00, Игорь's at 13:00 (the list would jail Таня)
    "tie-earliest": ('tie_break = "earliest"', {1: [
        ("Вася", "[color=red]Коля[/color]", 10, 0), ("Маша", "[color=red]Игорь[/color]", 11, 0),
        ("Игорь", "[color=red]Коля[/color]", 12, 0), ("Петя", "[color=red]Игорь[/color]", 13, 0),
    ]}, {1: ("Коля", "votes")}),
    # R2.13: one change a day; Маша's second change does not count
    "vote-changes": ("vote_changes = 1", {1: [
        ("Маша", "[color=red]Коля[/color]", 10, 0), ("Маша", "Нет, [color=red]Игорь[/color]", 11, 0),
        ("Маша", "Передумала: [color=red]Вася[/color]", 12, 0),
        ("Вася", "[color=red]Игорь[/color]", 13, 0), ("Коля", "[color=red]Вася[/color]", 14, 0),
    ]}, {1: ("Игорь", "votes")}),
    # R2.13: unlimited until 19:00, one change from 19:00, none from 19:50
    "vote-change-limits": ('vote_change_limits = [{ from = "19:00", changes = 1 }, '
                           '{ from = "19:50", changes = 0 }]', {1: [
        ("Маша", "[color=red]Коля[/color]", 10, 0), ("Петя", "[color=red]Коля[/color]", 12, 0),
        ("Коля", "[color=red]Игорь[/color]", 13, 0),
        ("Маша", "[color=red]Игорь[/color]", 19, 10), ("Маша", "[color=red]Вася[/color]", 19, 20),
        ("Петя", "[color=red]Вася[/color]", 19, 55),
    ]}, {1: ("Игорь", "votes")}),
    # R2.14: Маша's vote is final; her later vote does not count
    "final-vote": ('final_vote_words = ["окончательно"]', {1: [
        ("Маша", "[color=red]Коля[/color], окончательно.", 10, 0),
        ("Петя", "[color=red]Игорь[/color]", 11, 0),
        ("Маша", "[color=red]Игорь[/color]", 12, 0), ("Вася", "[color=red]Коля[/color]", 13, 0),
    ]}, {1: ("Коля", "votes")}),
    # R2.15: 7 may vote, 4 is a majority: Ирина's vote at 13:00; later posts change nothing
    "majority": ("majority_ends_day = true", {1: [
        ("Вася", "[color=red]Коля[/color]", 10, 0), ("Игорь", "[color=red]Коля[/color]", 11, 0),
        ("Петя", "[color=red]Коля[/color]", 12, 0), ("Ирина", "[color=red]Коля[/color]", 13, 0),
        ("Таня", "[color=red]Игорь[/color]", 14, 0), ("Коля", "[color=red]Игорь[/color]", 15, 0),
    ]}, {1: ("Коля", "votes")}),
    # R2.16: Таня does not vote: +2, and with Ирина's vote she is jailed 3:2
    "non-voter-votes": ("non_voter_votes = 2", {1: [
        ("Вася", "[color=red]Коля[/color]", 10, 0), ("Игорь", "[color=red]Коля[/color]", 11, 0),
        ("Маша", "[color=red]Игорь[/color]", 12, 0), ("Петя", "[color=red]Игорь[/color]", 13, 0),
        ("Ирина", "[color=red]Таня[/color]", 14, 0), ("Коля", "[color=red]Вася[/color]", 15, 0),
    ]}, {1: ("Таня", "votes")}),
    # R2.16: Коля votes on neither day: removed with day 2's newspaper
    "non-voter-removal": ("non_voter_removal_after = 2", {1: [
        ("Вася", "[color=red]Таня[/color]", 10, 0), ("Игорь", "[color=red]Таня[/color]", 11, 0),
        ("Маша", "[color=red]Таня[/color]", 12, 0), ("Петя", "[color=red]Игорь[/color]", 13, 0),
        ("Ирина", "[color=red]Игорь[/color]", 14, 0), ("Таня", "[color=red]Вася[/color]", 15, 0),
    ], 2: [
        ("Вася", "[color=red]Маша[/color]", 10, 0), ("Игорь", "[color=red]Маша[/color]", 11, 0),
        ("Маша", "[color=red]Игорь[/color]", 12, 0), ("Петя", "[color=red]Игорь[/color]", 13, 0),
        ("Ирина", "[color=red]Игорь[/color]", 14, 0),
    ]}, {1: ("Таня", "votes"), 2: ("Игорь", "votes")}),
}


def build(tmp_path: Path, board: LocalBoard, name: str, lang: str) -> tuple[Path, dict]:
    rules, script, _ = SCENARIOS[name]
    topics, posts = {}, {}
    for day, votes in script.items():
        topics[day] = board.add_topic(f"День {day}")
        board.add_post("Ведущий", 2, f"[b]День {day}.[/b]", msk(7 + day, 21), topic=topics[day])
        for voter, body, hh, mm in votes:
            posts[(day, voter, hh, mm)] = board.add_post(voter, IDS[voter], body,
                                                         msk(8 + day, hh, mm), topic=topics[day])
    folder = tmp_path / f"{name}-{lang}"
    write_game(folder, board, topics, players=PLAYERS, order=ORDER, duty="Игорь")
    toml = folder / "game.toml"
    text = toml.read_text(encoding="utf-8").replace(
        'host = "Ведущий"\n', f'host = "Ведущий"\nlanguage = "{lang}"\n', 1)
    toml.write_text(f"{text}\n[rules]\n{rules}\n", encoding="utf-8")
    return folder, posts


def run(capsys, *args: str) -> str:
    capsys.readouterr()
    got = main(list(args))
    out = capsys.readouterr()
    assert got == 0, out.err
    return out.out


@pytest.fixture(params=["ru", "en"])
def lang(request):
    return request.param


def play(tmp_path, capsys, name: str, lang: str) -> tuple[Path, dict, dict]:
    with LocalBoard(language="ru", clock=lambda: msk(11, 9)) as board:
        for nick, uid in IDS.items():
            board.add_user(nick, uid)
        folder, posts = build(tmp_path, board, name, lang)
        results = {}
        for day in SCENARIOS[name][1]:
            results[day] = json.loads(run(capsys, "resolve", str(folder), "--day", str(day),
                                          "--format", "json"))
    return folder, posts, results


def check_golden(folder: Path, name: str, lang: str, days) -> None:
    check = check_ru if lang == "ru" else check_en
    for day in days:
        text = (folder / "out" / f"day-{day}" / "newspaper.bbcode").read_text(encoding="utf-8")
        text = re.sub(r"http://127\.0\.0\.1:\d+/", "http://board.test/", text)
        assert check(text, NICKS) == [], (name, day)
        golden = GOLDEN / name / f"day-{day}" / f"newspaper.{lang}.bbcode"
        if REGEN:
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(text, encoding="utf-8")
        assert golden.is_file(), f"no golden {golden}: run with SCRAPER_MOD_REGEN_GOLDEN=1"
        assert text == golden.read_text(encoding="utf-8"), golden


def report(folder: Path, day: int) -> str:
    return (folder / "out" / f"day-{day}" / "host-report.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_whole_day_per_house_rule(tmp_path, capsys, lang, name):
    folder, posts, results = play(tmp_path, capsys, name, lang)
    expected = SCENARIOS[name][2]
    for day, (player, by) in expected.items():
        assert results[day]["lynched"]["player"] == player, (name, day)
        assert results[day]["lynched"]["by"] == by
    check_golden(folder, name, lang, expected)


def test_R2_12_the_newspaper_and_the_count_name_the_tie_rule(tmp_path, capsys, lang):
    folder, _posts, _ = play(tmp_path, capsys, "tie-earliest", lang)
    paper = (folder / "out" / "day-1" / "newspaper.bbcode").read_text(encoding="utf-8")
    assert ("раньше набрал итоговое число голосов: [b]Коля[/b] (в 12:00)" in paper
            if lang == "ru" else "reached the final count first is jailed: [b]Коля[/b] (at 12:00)"
            in paper)
    tally = json.loads(run(capsys, "tally", str(folder), "--day", "1", "--format", "json",
                           "--offline"))
    assert tally["lynch"] == {"player": "Коля", "by": "votes", "tied": ["Коля", "Игорь"],
                              "earliest": "2024-04-09T12:00:00+03:00"}
    assert ("ничья (Коля, Игорь)" in report(folder, 1) if lang == "ru"
            else "a tie (Коля, Игорь)" in report(folder, 1))


def test_R2_13_the_count_and_the_report_name_the_refused_change(tmp_path, capsys, lang):
    folder, posts, _ = play(tmp_path, capsys, "vote-changes", lang)
    text = run(capsys, "tally", str(folder), "--day", "1", "--offline")
    pid = posts[(1, "Маша", 12, 0)]
    line = ("голос не засчитан: смена голоса сверх лимита" if lang == "ru"
            else "vote not counted: a vote change over the limit")
    assert line in text and str(pid) in text
    post = run(capsys, "tally", str(folder), "--day", "1", "--offline", "--format", "bbcode")
    assert ("Голос не засчитан: смена голоса сверх лимита — [url=" if lang == "ru"
            else "Vote not counted: a vote change over the limit — [url=") in post
    assert f"p={pid}#p{pid}]" in post
    host = report(folder, 1)
    assert line in host and f"p={pid}" in host or str(pid) in host


def test_R2_14_the_newspaper_marks_the_final_vote(tmp_path, capsys, lang):
    folder, posts, _ = play(tmp_path, capsys, "final-vote", lang)
    paper = (folder / "out" / "day-1" / "newspaper.bbcode").read_text(encoding="utf-8")
    assert ("(10:00, окончательный голос)" if lang == "ru" else "(10:00, final vote)") in paper
    host = report(folder, 1)
    assert f"пост {posts[(1, 'Маша', 10, 0)]}" in host if lang == "ru" else \
        f"post {posts[(1, 'Маша', 10, 0)]}" in host


def test_R2_15_tally_at_and_the_chart_stop_at_the_majority(tmp_path, capsys, lang):
    folder, posts, _ = play(tmp_path, capsys, "majority", lang)
    paper = (folder / "out" / "day-1" / "newspaper.bbcode").read_text(encoding="utf-8")
    assert ("Большинство набрано в 13:00[/url] — голосование окончено." if lang == "ru"
            else "Majority reached at 13:00[/url]: the vote is over.") in paper
    at_14 = json.loads(run(capsys, "tally", str(folder), "--day", "1", "--at",
                           "2024-04-09T14:30", "--format", "json", "--offline"))
    assert at_14["counts"] == [{"target": "Коля", "votes": 4,
                                "voters": ["Вася", "Игорь", "Петя", "Ирина"]}]
    assert at_14["majority"] == {"target": "Коля", "post_id": posts[(1, "Ирина", 13, 0)],
                                 "at": "2024-04-09T13:00:00+03:00"}
    assert [r["reason"] for r in at_14["rejected"]] == ["after_majority"]
    at_12 = json.loads(run(capsys, "tally", str(folder), "--day", "1", "--at",
                           "2024-04-09T12:30", "--format", "json", "--offline"))
    assert "majority" not in at_12 and at_12["counts"][0]["votes"] == 3
    ctx = open_game(folder, clock=FakeClock(msk(11, 9)))
    try:
        steps = vote_history(tally_day(ctx, 1))
    finally:
        ctx.close()
    assert [s.counts for s in steps] == [{"Коля": 1}, {"Коля": 2}, {"Коля": 3}, {"Коля": 4}]
    assert steps[-1].at == msk(9, 13)


def test_R2_16_penalties_in_the_count_and_the_chart(tmp_path, capsys, lang):
    folder, _posts, _ = play(tmp_path, capsys, "non-voter-votes", lang)
    text = run(capsys, "tally", str(folder), "--day", "1", "--offline", "--format", "bbcode")
    assert ("[b]Таня[/b] — 3 голоса: " if lang == "ru" else "[b]Таня[/b] — 3 votes: ") in text
    assert ("+2 за неголосование" if lang == "ru" else "+2 for not voting") in text
    live = json.loads(run(capsys, "tally", str(folder), "--day", "1", "--at",
                          "2024-04-09T19:00", "--format", "json", "--offline"))
    assert all("penalty" not in c for c in live["counts"])      # at the deadline only
    ctx = open_game(folder, clock=FakeClock(msk(11, 9)))
    try:
        steps = vote_history(tally_day(ctx, 1))
    finally:
        ctx.close()
    assert steps[-1].at == msk(9, 20) and steps[-1].counts["Таня"] == 3


def test_R2_16_R11_2_the_removal_is_in_the_newspaper_and_the_state(tmp_path, capsys, lang):
    folder, _posts, results = play(tmp_path, capsys, "non-voter-removal", lang)
    assert results[1]["host_kills"] == []
    assert [k["player"] for k in results[2]["host_kills"]] == ["Коля"]
    assert "Коля" not in results[2]["alive"]
    paper = (folder / "out" / "day-2" / "newspaper.bbcode").read_text(encoding="utf-8")
    assert ("[b]Коля[/b] ([i]мирный житель[/i]) — 2 игровых дня подряд без голоса."
            if lang == "ru" else
            "[b]Коля[/b] ([i]civilian[/i]): 2 game days in a row without a vote.") in paper


def test_R2_15_the_notice_for_the_day_topic(tmp_path, capsys, lang):
    """The notice's text as the day topic gets it (game/day/majority.py), and nothing is owed
    before the majority, once the day is resolved, or outside [publish] mode auto."""
    from scraper_mod.game.day.majority import majority_items, post_majority_notice
    with LocalBoard(language="ru", clock=lambda: msk(9, 14)) as board:
        for nick, uid in IDS.items():
            board.add_user(nick, uid)
        folder, posts = build(tmp_path, board, "majority", lang)
        run(capsys, "tally", str(folder), "--day", "1")      # reads (stores) the day topic
        ctx = open_game(folder, clock=FakeClock(msk(9, 14)))
        try:
            items = majority_items(ctx, 1)
            assert [i.kind for i in items] == ["majority"]          # no lock_day_topic
            text = re.sub(r"http://127\.0\.0\.1:\d+/", "http://board.test/", items[0].text)
            pid = posts[(1, "Ирина", 13, 0)]
            if lang == "ru":
                assert text.startswith("Набрано большинство: [b]Коля[/b] — 4 голоса из 7 "
                                       f"([url=http://board.test/viewtopic.php?p={pid}#p{pid}]"
                                       "пост в 13:00[/url]). Голосование окончено.\n"), text
                assert "до 09.04 в 20:00 МСК" in text and check_ru(text, NICKS) == []
            else:
                assert text.startswith("Majority reached: [b]Коля[/b] — 4 votes of 7 "), text
                assert check_en(text, NICKS) == []
            assert post_majority_notice(ctx, 1) == []                # [publish] is not auto
        finally:
            ctx.close()
        early = open_game(folder, clock=FakeClock(msk(9, 12, 30)))
        try:
            assert majority_items(early, 1) == []
        finally:
            early.close()
