"""A whole game through the command line with a replacement on day 2 and a removal on day 3
(RULES R10, R11), in Russian and in English, with golden newspapers and day starts.

The board is a LocalBoard (the phpBB 3.3.15 prosilver look-alike on 127.0.0.1) holding the
three day topics; night moves come by mail (a Maildir). April 2024, Moscow time:

- day 1: Коля is jailed 4:3; the mafia (Игорь, the duty) kills Петя; Маша checks Вася.
- day 2: Лиса takes Маша's slot (the Commissar) at 12:00 (`replace --at`). Маша's vote cast
  at 10:00 stands for the slot; her post at 14:00 and her mail at 13:00 are not the slot's;
  Таня votes for «Маша» (the old nick counts for Лиса). The host reads Вася's 11:00 post as
  no vote (`decide vote ... none`). Игорь is jailed 2:1; the Boss kills Ирина; Лиса checks
  Вася.
- day 3: the host removes Таня at 12:00 (`decide kill`): her 11:00 vote for Лиса stops
  counting, the 1:1 tie goes to the random list, which jails Вася: the town wins. Taking the
  removal back (`decide undo`) resolves day 3 again: Лиса is jailed 2:1 and the mafia wins.

Errors (an unknown player, a post in no day's topic, a time outside the game, an unknown K)
are one line, and change nothing. Golden files: tests/golden/host-decisions/ (regenerate on
purpose with SCRAPER_MOD_REGEN_GOLDEN=1, then read the diff).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from russian_text import check_en, check_ru  # noqa: E402  (tests/ is on the path)
from test_resolve import ORDER, PLAYERS, mail, msk, write_game  # noqa: E402  (the same 7 players)

from scraper_mod.cli import main
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.store import Store

MSK = ZoneInfo("Europe/Moscow")
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "host-decisions"
REGEN = os.environ.get("SCRAPER_MOD_REGEN_GOLDEN") == "1"
IDS = {n: u for n, _, u, _ in PLAYERS} | {"Лиса": 208, "Ведущий": 2}


def build(tmp_path: Path, board: LocalBoard, lang: str) -> tuple[Path, dict]:
    posts: dict[str, int] = {}
    topics = {}
    script = {
        1: [("Вася", "Коля", msk(9, 10)), ("Маша", "Игорь", msk(9, 11)),
            ("Игорь", "Коля", msk(9, 12)), ("Петя", "Игорь", msk(9, 13)),
            ("Ирина", "Коля", msk(9, 14)), ("Коля", "Игорь", msk(9, 15)),
            ("Таня", "Коля", msk(9, 16))],
        2: [("Маша", "Игорь", msk(10, 10)), ("Вася", "Ирина", msk(10, 11)),
            ("Маша", "Вася", msk(10, 14)), ("Таня", "Маша", msk(10, 15)),
            ("Игорь", "Таня", msk(10, 16)), ("Ирина", "Игорь", msk(10, 17))],
        3: [("Лиса", "Вася", msk(11, 10)), ("Таня", "Лиса", msk(11, 11)),
            ("Вася", "Лиса", msk(11, 13))],
    }
    for day, votes in script.items():
        topics[day] = board.add_topic(f"День {day}")
        board.add_post("Ведущий", 2, f"[b]День {day}.[/b]", msk(7 + day, 21),   # the day's start
                       topic=topics[day])
        for voter, target, at in votes:
            posts[f"{day}:{voter}:{at:%H}"] = board.add_post(
                voter, IDS[voter], f"Голосую: [color=red]{target}[/color]", at,
                topic=topics[day])
    folder = tmp_path / f"game-{lang}"
    write_game(folder, board, topics, players=PLAYERS, order=ORDER, duty="Игорь")
    toml = folder / "game.toml"     # the same game, in the language of the posts
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        'host = "Ведущий"\n', f'host = "Ведущий"\nlanguage = "{lang}"\n', 1), encoding="utf-8")
    mail(folder, "d1-kill", "igor@example.org", "убить Петя", msk(9, 9))
    mail(folder, "d1-check", "masha@example.org", "проверить Вася", msk(9, 9, 30))
    mail(folder, "d2-old", "masha@example.org", "проверить Таня", msk(10, 13))
    mail(folder, "d2-kill", "vasya@example.org", "убить Ирина", msk(10, 18))
    mail(folder, "d2-check", "lisa@example.org", "проверить Вася", msk(10, 18, 30))
    return folder, posts


@pytest.fixture(params=["ru", "en"])
def game(request, tmp_path):
    with LocalBoard(language="ru", clock=lambda: msk(12, 9)) as board:
        for nick, uid in IDS.items():
            board.add_user(nick, uid)
        folder, posts = build(tmp_path, board, request.param)
        yield folder, posts, request.param


def run(capsys, *args: str, code: int = 0) -> str:
    capsys.readouterr()
    got = main(list(args))
    out = capsys.readouterr()
    assert got == code, out.err
    return out.out if code == 0 else out.err


def resolve(capsys, folder: Path, day: int) -> dict:
    return json.loads(run(capsys, "resolve", str(folder), "--day", str(day), "--format", "json"))


def check_golden(folder: Path, lang: str) -> None:
    check = check_ru if lang == "ru" else check_en
    for day in (2, 3):
        for name in ("newspaper.bbcode", "day-start.bbcode"):
            text = (folder / "out" / f"day-{day}" / name).read_text(encoding="utf-8")
            text = re.sub(r"http://127\.0\.0\.1:\d+/", "http://board.test/", text)
            assert check(text, [*IDS]) == [], (day, name)
            stem, ext = name.rsplit(".", 1)
            golden = GOLDEN / f"day-{day}" / f"{stem}.{lang}.{ext}"
            if REGEN:
                golden.parent.mkdir(parents=True, exist_ok=True)
                golden.write_text(text, encoding="utf-8")
            assert golden.is_file(), f"no golden {golden}: run with SCRAPER_MOD_REGEN_GOLDEN=1"
            assert text == golden.read_text(encoding="utf-8"), golden


def test_R10_R11_a_whole_game_with_a_replacement_and_a_removal(game, capsys):
    folder, posts, lang = game
    g = str(folder)
    day1 = resolve(capsys, folder, 1)
    assert day1["lynched"]["player"] == "Коля" and [k["player"] for k in day1["killed"]] == [
        "Петя"]

    # day 2: the replacement and a post read as no vote
    out = run(capsys, "replace", g, "Маша", "Лиса", "--at", "2024-04-10T12:00",
              "--contact", "lisa@example.org", "--why", "Маша ушла из игры")
    assert out.startswith("1: Лиса takes Маша's slot from 2024-04-10T12:00:00+03:00")
    card = (folder / "out" / "role-cards" / "Лиса.txt").read_text(encoding="utf-8")
    assert "Лиса" in card and ("Комиссар" in card or "Commissar" in card)
    run(capsys, "tally", g, "--day", "2", "--format", "json")        # reads day 2's topic
    vasya = posts["2:Вася:11"]
    run(capsys, "decide", g, "vote", str(vasya), "none", "--why", "шутка")
    tally2 = json.loads(run(capsys, "tally", g, "--day", "2", "--format", "json", "--offline"))
    assert {c["target"]: c["voters"] for c in tally2["counts"]} == {
        "Игорь": ["Лиса", "Ирина"], "Лиса": ["Таня"], "Таня": ["Игорь"]}
    rejected = {(r["post_id"], r["reason"]) for r in tally2["rejected"]}
    assert (posts["2:Маша:14"], "replaced_player") in rejected
    assert (vasya, "decided_no_vote") in rejected
    day2 = resolve(capsys, folder, 2)
    assert day2["lynched"] == {"player": "Игорь", "role": "mafia", "by": "votes"}
    assert day2["replacements"] == [{"old": "Маша", "new": "Лиса",
                                     "at": "2024-04-10T12:00:00+03:00"}]
    assert day2["checks"] == [{"by": "Лиса", "target": "Вася", "result": "boss"}]
    assert [k["player"] for k in day2["killed"]] == ["Ирина"] and day2["host_kills"] == []
    moves = json.loads(run(capsys, "moves", g, "--day", "2", "--format", "json", "--offline"))
    assert {(m["player"], m["status"]) for m in moves["moves"]} >= {
        ("Маша", "invalid"), ("Лиса", "counted")}

    # day 3: the removal decides the day
    run(capsys, "tally", g, "--day", "3", "--format", "json")
    run(capsys, "decide", g, "kill", "Таня", "--at", "2024-04-11T12:00", "--why",
        "неактивность")
    text = run(capsys, "resolve", g, "--day", "3", "--offline")
    assert "  removed by the host: Таня (vsb) at 2024-04-11T12:00:00+03:00" in text
    day3 = resolve(capsys, folder, 3)
    assert day3["host_kills"] == [{"player": "Таня", "role": "vsb",
                                   "at": "2024-04-11T12:00:00+03:00", "why": "неактивность"}]
    assert day3["lynched"] == {"player": "Вася", "role": "boss", "by": "random"}
    assert day3["winner"] == "town" and day3["replacements"] == []
    check_golden(folder, lang)
    report = (folder / "out" / "day-3" / "host-report.txt").read_text(encoding="utf-8")
    assert "неактивность" in report and "Маша → Лиса" in report and "шутка" in report

    # errors: one line each, nothing changed
    state = folder / "state.sqlite3"
    before = Store(state).host_decisions()
    for args, words in [
        (("replace", g, "Незнакомец", "Зоя", "--at", "2024-04-11T12:00"), "unknown player"),
        (("decide", g, "kill", "Петрович", "--at", "2024-04-11T12:00", "--why", "x"),
         "unknown player"),
        (("decide", g, "vote", "999999", "none", "--why", "x"), "post 999999 is in no day"),
        (("decide", g, "kill", "Лиса", "--at", "2024-03-01T12:00", "--why", "x"),
         "before the game starts"),
        (("decide", g, "kill", "Лиса", "--at", "2024-04-20T12:00", "--why", "x"),
         "after the game ended"),
        (("replace", g, "Маша", "Зоя", "--at", "2024-04-11T12:00"), "does not play"),
        (("decide", g, "undo", "42"), "there is no decision 42"),
    ]:
        err = run(capsys, *args, code=1)
        # issue 39: a line with a Russian text is Russian only (game-ru)
        assert err.startswith(("error: ", "ошибка: ")) and err.count("\n") == 1, err
        assert words in err or err.startswith("ошибка: "), err
    assert Store(state).host_decisions() == before

    # R11.3: taking the removal back resolves day 3 again: Лиса is jailed, the mafia wins
    out = run(capsys, "decide", g, "undo", "3")
    assert "resolved again: day 3" in out
    again = json.loads((folder / "out" / "day-3" / "result.json").read_text(encoding="utf-8"))
    assert again["host_kills"] == [] and again["lynched"]["player"] == "Лиса"
    assert again["winner"] == "mafia"
    listing = run(capsys, "decide", g, "list")
    assert "undone" in listing.splitlines()[2] and listing.count("in force") == 2

    # R11.1: a post read as a vote for a player is marked "decided" in the count
    own = posts["3:Вася:13"]
    run(capsys, "decide", g, "vote", str(own), "Вася", "--why", "голос за себя, по словам автора")
    tally3 = json.loads(run(capsys, "tally", g, "--day", "3", "--format", "json", "--offline"))
    decided = [v for v in tally3["votes"] if v.get("decided")]
    # each vote carries its post's link on the game's board (the board's own address)
    assert re.fullmatch(rf"http://127\.0\.0\.1:\d+/viewtopic\.php\?p={own}#p{own}",
                        decided[0].pop("url"))
    assert decided == [
        {"voter": "Вася", "target": "Вася", "post_id": own, "at": "2024-04-11T13:00:00+03:00",
         "decided": True}]
    assert tally3["lynch"] == {"player": "Вася", "by": "votes"}


# -- on autopilot: a decision on a posted day edits the posted newspaper ---------------------

PASSWORD = "host-pw-15"


def test_R11_3_R12_2_a_decision_on_a_published_day_edits_the_posted_newspaper(tmp_path,
                                                                              monkeypatch):
    """R10.3: the edited newspaper names the slot by its new nick and says whom he replaced; the role card goes to the newcomer by PM.
    Day 1 is resolved and posted by the autopilot; the host then replaces Маша by Лиса from
    12:00 and removes Таня at 19:00 of day 1. Day 1 is resolved again (Таня's 16:00 vote no
    longer counts: 3:3, the random list jails Петя), the posted newspaper is edited in place,
    and Лиса's role card goes out as the board's PM."""
    from scraper_mod.clock import FakeClock
    from scraper_mod.game.context import open_game
    from scraper_mod.game.publishing.publish import auto_publish
    from scraper_mod.game.results.resolve import resolve_day_files
    from scraper_mod.game.roster.host import decide_kill, replace_player

    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", PASSWORD)
    clock = FakeClock(msk(9, 20, 30))
    with LocalBoard(language="ru", clock=clock, username="Ведущий", password=PASSWORD) as board:
        for nick, uid in IDS.items():
            board.add_user(nick, uid)
        board.forums[4] = "Итоги"
        folder, _ = build(tmp_path, board, "ru")
        results = board.add_topic("Итоги", forum_id=4)
        board.add_post("Ведущий", 2, "Газеты — здесь.", msk(8, 21), topic=results)
        toml = folder / "game.toml"
        toml.write_text(toml.read_text(encoding="utf-8").replace(
            "[forum]\n", '[forum]\nusername = "Ведущий"\n', 1) + f"""
[publish]
mode = "auto"
results_topic = "{board.url}viewtopic.php?t={results}"
day_topic = "reply"
""", encoding="utf-8")
        ctx = open_game(folder, clock=clock)
        try:
            first = resolve_day_files(ctx, 1)
            assert first.result.lynched.player == "Коля"
            assert {o.status for o in auto_publish(ctx)} == {"posted"}
            paper = board.topics[results].posts[-1]
            assert "садится [b]Коля[/b]" in paper.body

            swap = replace_player(ctx, "Маша", "Лиса", at=msk(9, 12), why="ушла")
            assert swap.rewritten == (1,) and "role-card Лиса posted" in swap.published
            assert board.sent_pms_log[-1][2] == IDS["Лиса"]
            assert "Комиссар" in board.sent_pms_log[-1][4]

            kill = decide_kill(ctx, "Таня", at=msk(9, 19), why="неактивность")
            assert kill.rewritten == (1,) and "newspaper" in " ".join(kill.published)
        finally:
            ctx.close()
        edited = board.topics[results].posts[-1]
        assert edited.post_id == paper.post_id and len(board.topics[results].posts) == 2
        assert "Удаление из игры по решению ведущего: [b]Таня[/b] ([i]ВСБ[/i])" in edited.body
        assert "Замена: [b]Лиса[/b] вместо игрока [b]Маша[/b]" in edited.body
        assert "садится [b]Петя[/b]" in edited.body


def test_R10_1_the_newcomer_gets_the_slots_role_card_and_secret_code(tmp_path):
    """In a game with secret move codes the newcomer inherits the slot's code: it is on the
    role card, and a move with it counts for the slot; one without it does not."""
    from scraper_mod.clock import FakeClock
    from scraper_mod.game.context import open_game
    from scraper_mod.game.night.intake import day_moves, poll_moves
    from scraper_mod.game.roster.host import replace_player

    with LocalBoard(language="ru", clock=lambda: msk(12, 9)) as board:
        folder, _ = build(tmp_path, board, "ru")
    toml = folder / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8")
                    .replace('contact = "masha@example.org"\n',
                             'contact = "masha@example.org"\ncode = "M-417"\n')
                    .replace('path = "moves"\n', 'path = "moves"\nrequire_code = true\n'),
                    encoding="utf-8")
    mail(folder, "d2-coded", "lisa@example.org", "проверить Вася\nкод: M-417", msk(10, 18, 40))
    ctx = open_game(folder, clock=FakeClock(msk(10, 12, 30)))
    try:
        done = replace_player(ctx, "Маша", "Лиса", at=msk(10, 12), contact="lisa@example.org")
        assert "M-417" in done.card.read_text(encoding="utf-8")
        poll_moves(ctx, send=False)
        lisa = [(m.status, m.reason) for m in day_moves(ctx, 2) if m.player == "Лиса"]
    finally:
        ctx.close()
    assert lisa == [("unknown_sender", "code_missing"), ("counted", "")]


def test_R2_3_R10_a_move_target_is_matched_against_the_names_live_when_it_came(tmp_path):
    """Ирина's alias «Лисичка» resembles the newcomer Лиса: «Лис» names Ирина before the
    replacement at 12:00 and is ambiguous after it."""
    from scraper_mod.clock import FakeClock
    from scraper_mod.game.context import open_game
    from scraper_mod.game.night.intake import day_moves, poll_moves
    from scraper_mod.game.roster.host import replace_player

    with LocalBoard(language="ru", clock=lambda: msk(12, 9)) as board:
        folder, _ = build(tmp_path, board, "ru")
    toml = folder / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        'contact = "irina@example.org"\n',
        'contact = "irina@example.org"\naliases = ["Лисичка"]\n'), encoding="utf-8")
    mail(folder, "d2-heal-1", "irina@example.org", "лечу Лис", msk(10, 11))
    mail(folder, "d2-heal-2", "irina@example.org", "лечу Лис", msk(10, 13))
    ctx = open_game(folder, clock=FakeClock(msk(10, 12, 30)))
    try:
        replace_player(ctx, "Маша", "Лиса", at=msk(10, 12), contact="lisa@example.org")
        poll_moves(ctx, send=False)
        heals = [(m.target, m.status, m.reason) for m in day_moves(ctx, 2)
                 if m.player == "Ирина"]
    finally:
        ctx.close()
    assert heals == [("Ирина", "counted", ""), (None, "invalid", "ambiguous_target")]
