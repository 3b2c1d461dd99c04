"""`scraper-mod demo`: the built-in game, played end to end by the real daemon, poller, parser,
vote count, move intake and resolver against LocalBoard and a Maildir on a simulated clock,
must come to the game its script was written for (scraper_mod/demo.py's docstring): who died
when, how, and the winner, by RULES R2-R7. The expected game below is worked out from the
rules by hand, day by day, not recorded from a run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scraper_mod.clock import FakeClock
from scraper_mod.demo.world import EXPECTED, PLAYERS, RANDOM_LIST, DemoResult, at, run_demo
from scraper_mod.errors import ScraperModError
from scraper_mod.game.context import open_game

# (day, nick, role, how) in order: each day's jailed player first, then the night's dead.
DEATHS = [
    (1, "Светлана", "civilian", "votes"),    # 7 votes to 4: colors, «Светлану», quote, black
    (1, "Таня", "civilian", "maniac"),       # the mafia aimed at the ВСБ: a miss (R5.2)
    (2, "Дима", "maniac", "random"),         # 4:4 -> the random list: Таня, Светлана dead (R3.2)
    (2, "Маша", "commissar", "mafia"),       # Дима's kill of Петя void: jailed first (R6.1)
    (3, "Лена", "mafia", "votes"),           # weekend day (R1.3); Гоша's frozen vote void
    (4, "Игорь", "mafia", "votes"),          # the duty mafioso jailed: the Boss's kill counts
    (4, "Ирина", "doctor", "mafia"),
    (5, "Вася", "boss", "votes"),            # no mafioso left: the town wins (R7.1)
]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo") / "game"
    lines: list[str] = []
    result = run_demo(keep=folder, out=lines.append)
    return result, lines, folder


def test_the_demo_plays_the_expected_game(played):
    result, lines, folder = played
    assert result.errors == []
    assert result.deaths() == DEATHS
    assert result.winner == "town"
    assert sorted(result.days) == [1, 2, 3, 4, 5]
    for day, want in EXPECTED.items():
        got = result.days[day]
        lyn = got["lynched"]
        assert (lyn["player"], lyn["role"], lyn["by"]) == want["lynched"], day
        assert [(k["player"], k["role"], k["by"]) for k in got["killed"]] == want["killed"], day
        assert got["saved"] is want["saved"], day
        assert got["frozen"] == want["frozen"], day
        assert got["winner"] == want["winner"], day
    assert sorted(result.days[5]["alive"]) == sorted(["Петя", "Коля", "NightOwl", "Гоша"])


def test_checks_and_the_sergeants_promotion_R5_5(played):
    result, _, _ = played
    assert result.days[1]["checks"] == [{"by": "Маша", "target": "Вася", "result": "boss"}]
    # Маша dies that night; her check still goes out (R6.4) and Петя is promoted (R6.5)
    assert result.days[2]["checks"] == [{"by": "Маша", "target": "Лена", "result": "mafia"}]
    assert result.days[2]["promoted"] == "Петя"
    assert result.days[3]["checks"] == [{"by": "Петя", "target": "Игорь", "result": "mafia"}]
    assert result.days[4]["checks"] == [{"by": "Петя", "target": "Гоша", "result": "civilian"}]


def test_day_2_cutoff_edit_and_tie_R2_6_R2_7_R3(played):
    """19:59:59 counts, 20:00:00 does not; Гоша's post edited at 20:00:30 keeps its earlier
    vote; 4:4 goes to the random list."""
    _, _, folder = played
    from scraper_mod.game.day.tally import tally_day
    ctx = open_game(folder, clock=FakeClock(at(20, 12)))
    try:
        t = tally_day(ctx, 2).to_json()
    finally:
        ctx.close()
    counts = {c["target"]: (c["votes"], sorted(c["voters"])) for c in t["counts"]}
    assert counts == {"Вася": (4, sorted(["Маша", "Петя", "Дима", "Гоша"])),
                      "Дима": (4, sorted(["Вася", "Игорь", "Лена", "Коля"]))}
    by_voter = {v["voter"]: v for v in t["votes"]}
    assert by_voter["Коля"]["at"] == "2024-03-15T19:59:59+03:00"
    assert "Ирина" not in by_voter                       # 20:00:00 is late
    assert by_voter["Гоша"]["target"] == "Вася"           # the edit after the deadline is void
    assert by_voter["Лена"]["target"] == "Дима"           # her latest vote (R2.5)
    assert (t["lynch"]["player"], t["lynch"]["by"]) == ("Дима", "random")
    assert sorted(t["lynch"]["tied"]) == ["Вася", "Дима"]


def test_frozen_votes_do_not_count_R5_4(played):
    _, _, folder = played
    from scraper_mod.game.day.tally import tally_day
    ctx = open_game(folder, clock=FakeClock(at(20, 12)))
    try:
        d3 = tally_day(ctx, 3).to_json()
        d4 = tally_day(ctx, 4).to_json()
    finally:
        ctx.close()
    assert "Гоша" not in {v["voter"] for v in d3["votes"]}
    assert [(c["target"], c["votes"]) for c in d3["counts"]] == [("Лена", 4), ("Петя", 3)]
    assert "NightOwl" not in {v["voter"] for v in d4["votes"]}
    assert [(c["target"], c["votes"]) for c in d4["counts"]] == [("Игорь", 4), ("Петя", 2)]


def test_invalid_forged_and_late_moves_R5_1_R5_2(played):
    _, _, folder = played
    from scraper_mod.game.night.intake import day_moves
    ctx = open_game(folder, clock=FakeClock(at(20, 12)))
    try:
        night1 = day_moves(ctx, 1)
        night2 = day_moves(ctx, 2)
    finally:
        ctx.close()
    kill = next(m for m in night1 if m.player == "Игорь")
    assert (kill.target, kill.status) == ("Коля", "invalid")
    forged = [m for m in night1 if m.status == "unknown_sender"]
    assert len(forged) == 1 and forged[0].target == "Таня"
    late = [m for m in night2 if m.status == "late"]
    assert [(m.player, m.target) for m in late] == [("Ирина", "Маша")]


def test_the_demo_prints_each_newspaper_and_a_summary(played):
    result, lines, folder = played
    text = "\n".join(lines)
    for day in range(1, 6):
        assert f"━━━━ day {day} resolved at" in text
        assert result.newspapers[day].strip() and result.newspapers[day].strip() in text
    summary = text[text.index("════ summary ════"):].splitlines()
    assert len(summary) <= 24                              # one screen
    assert summary[1].startswith("day 1 (Thu 14.03): Светлана (civilian) jailed by votes")
    assert "Дима (maniac) jailed by the random list" in summary[2]
    assert summary[3].startswith("day 3 (Sun 17.03)")       # the weekend
    assert "winner: town (after 5 days)" in text
    assert "0 errors" in text
    assert "random list commitment (SHA-256)" in text      # the deal
    # everything is in the kept folder
    for day in range(1, 6):
        assert (folder / "out" / f"day-{day}" / "newspaper.bbcode").exists()
    log = (folder / "run.log").read_text(encoding="utf-8")
    assert "day 2 opened: " in log                         # found in the forum by its title
    assert "day 5 resolved" in log and "the game is over (town wins)" in log
    assert result.seconds < 60


def test_the_demo_game_is_a_valid_game_file(played):
    _, _, folder = played
    ctx = open_game(folder)
    try:
        g = ctx.game
        assert [p.nick for p in g.players] == [p.nick for p in PLAYERS]
        assert g.random_list == RANDOM_LIST and g.duty == "Игорь"
        assert ctx.store.get("deal")["commitment"]
        json.loads((folder / "out" / "day-5" / "result.json").read_text(encoding="utf-8"))
    finally:
        ctx.close()


def test_keep_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "something.txt").write_text("x")
    with pytest.raises(ScraperModError) as e:
        run_demo(keep=tmp_path, out=lambda s: None)
    assert "not empty" in str(e.value)


def test_status_and_day_list_after_the_game(played, capsys):
    _, _, folder = played
    from scraper_mod.cli import main
    assert main(["status", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "игра окончена, победа: мирные (подведены дни: 1, 2, 3, 4, 5)" in out
    assert main(["day", "list", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [x.split(":")[0] for x in lines] == [f"day {n}" for n in range(1, 6)]
    assert "deadline Sun 2024-03-17 20:00:00 MSK" in lines[2]     # the weekend day (R1.3)
    assert all(" resolved " in x for x in lines)


def test_the_kept_demo_folder_opens_in_serve_and_the_summary_says_so(played):
    """Issue 27 item 4: the demo's folder is there to look at: the summary prints the `serve`
    command, and the host's page opens it."""
    _, lines, folder = played
    assert f"next: scraper-mod serve {folder}" in "\n".join(lines)
    from scraper_mod.web import create_app
    app = create_app(folder, token="t0k3n")
    with app.test_client() as c:
        assert c.get("/?token=t0k3n").status_code == 303
        page = c.get(f"/games/{folder.name}")
        assert page.status_code == 200
        assert "Мафия-демо" in page.get_data(as_text=True)


def test_the_demo_command_keeps_its_folder_by_default(tmp_path, monkeypatch):
    from scraper_mod.cli.demo import default_folder
    assert default_folder(tmp_path) == tmp_path / "scraper-mod-demo"
    (tmp_path / "scraper-mod-demo").mkdir()
    assert default_folder(tmp_path) == tmp_path / "scraper-mod-demo"      # empty: used
    (tmp_path / "scraper-mod-demo" / "game.toml").write_text("x")
    assert default_folder(tmp_path) == tmp_path / "scraper-mod-demo-2"
    seen = {}

    def fake_demo(*, keep, **kw):
        seen["keep"] = keep
        return DemoResult(folder=Path(keep), winner="town")
    monkeypatch.setattr("scraper_mod.cli.demo.run_demo", fake_demo)
    monkeypatch.chdir(tmp_path)
    from scraper_mod.cli import main
    assert main(["demo"]) == 0
    assert seen["keep"] == tmp_path / "scraper-mod-demo-2"
