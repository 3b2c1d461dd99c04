"""A game with R14's roles from the board and the mailbox to ``out/day-N/`` (issue 37).

A real LocalBoard on 127.0.0.1 serves the day topic; a Maildir holds the night moves written
as players write them; the clock is simulated. Day 1: the Mayor's vote (×2) jails the
Kamikaze, who takes the Doctor along; the Putana blocks the Sheriff; the Bodyguard dies in
the Commissar's place; the Lawyer's defence shows the mafioso as a civilian while the
Journalist sees the true side. Day 2: the Judge pardons. Plus ``[roles]`` in game.toml: a
preset dealt, bad setups refused in one Russian line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_resolve import MSK, ctx_at, mail, msk  # noqa: F401  (shared game helpers)

from scraper_mod.cli import main
from scraper_mod.clock import FakeClock
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.game.results.resolve import resolve_day_files
from scraper_mod.store import Store

PLAYERS = [("Вася", "boss", 301, "vasya@example.org"), ("Игорь", "mafia", 302, "igor@example.org"),
           ("Лев", "lawyer", 303, "lev@example.org"), ("Маша", "commissar", 304, "masha@example.org"),
           ("Ирина", "doctor", 305, "irina@example.org"), ("Люба", "putana", 306, "luba@example.org"),
           ("Гена", "bodyguard", 307, "gena@example.org"), ("Олег", "mayor", 308, "oleg@example.org"),
           ("Петя", "judge", 309, "petya@example.org"), ("Коля", "kamikaze", 310, "kolya@example.org"),
           ("Таня", "journalist", 311, "tanya@example.org"), ("Зоя", "sheriff", 312, "zoya@example.org")]
ORDER = [p[0] for p in PLAYERS]
SETUP = ("{ boss = 1, mafia = 1, lawyer = 1, commissar = 1, doctor = 1, putana = 1, "
         "bodyguard = 1, mayor = 1, judge = 1, kamikaze = 1, journalist = 1, sheriff = 1 }")


@pytest.fixture
def clock():
    return FakeClock(msk(8, 21, 0))


@pytest.fixture
def board(clock):
    with LocalBoard(language="ru", clock=clock) as b:
        for nick, _, uid, _ in PLAYERS:
            b.add_user(nick, uid)
        yield b


def game_toml(board: LocalBoard | None, topics: dict[int, int], *, roles: str = "",
              players=PLAYERS, with_roles: bool = True, duty: str = "") -> str:
    ps = "".join(f'[[players]]\nnick = "{n}"\n' + (f'role = "{r}"\n' if with_roles else "")
                 + f'forum_id = {u}\ncontact = "{c}"\n\n' for n, r, u, c in players)
    days = "".join(f'[[days]]\nnumber = {d}\ntopic = "{board.topic_url(t)}"\n\n'
                   for d, t in topics.items()) if board else ""
    order = ", ".join(f'"{p[0]}"' for p in players)
    url = board.url if board else "https://forum.example.org/"
    return f"""[game]
title = "Мафия #9"
start = 2024-04-08
host = "Ведущий"
random_list = [{order}]
{f'[mafia]{chr(10)}duty = "{duty}"{chr(10)}' if duty else ""}
[forum]
url = "{url}"
min_delay = 0
retries = 1
timeout = 5

[moves]
source = "maildir"
path = "moves"

{roles}
{ps}{days}"""


def write(folder: Path, text: str) -> Path:
    for sub in ("new", "cur", "tmp"):
        (folder / "moves" / sub).mkdir(parents=True, exist_ok=True)
    (folder / "game.toml").write_text(text, encoding="utf-8")
    return folder


def uid(nick: str) -> int:
    return next(u for n, _, u, _ in PLAYERS if n == nick)


@pytest.fixture
def game(tmp_path, board):
    t1 = board.add_topic("День 1")
    board.add_post("Ведущий", 2, "[b]День 1.[/b]", msk(8, 21, 0))
    # Игорь: 2 votes; Коля: the Mayor's (×2) and Вася's = 3 (without ×2 a 2-2 tie)
    for voter, target, at in [("Маша", "Игорь", msk(9, 10)), ("Таня", "Игорь", msk(9, 11)),
                              ("Олег", "Коля", msk(9, 12)), ("Вася", "Коля", msk(9, 13))]:
        board.add_post(voter, uid(voter), f"Голосую: [color=red]{target}[/color]", at)
    t2 = board.add_topic("День 2")
    board.add_post("Ведущий", 2, "[b]День 2.[/b]", msk(9, 21, 0))
    for voter, target, at in [("Маша", "Вася", msk(10, 10)), ("Таня", "Вася", msk(10, 11))]:
        board.add_post(voter, uid(voter), f"Голосую: [color=red]{target}[/color]", at)
    folder = write(tmp_path / "m9", game_toml(board, {1: t1, 2: t2},
                                              roles=f"[roles]\nsetup = {SETUP}\n", duty="Игорь"))
    moves = [("igor@example.org", "убить Машу\nистория: Ночь была тёмной."),
             ("kolya@example.org", "забрать Ирину"),
             ("luba@example.org", "блокирую Зою"),
             ("zoya@example.org", "застрелить Васю"),
             ("gena@example.org", "охраняю Машу"),
             ("lev@example.org", "защитить Игоря"),
             ("masha@example.org", "проверить Игоря"),
             ("tanya@example.org", "сравнить Игоря и Васю"),
             ("irina@example.org", "лечу Машу")]
    for i, (sender, body) in enumerate(moves):
        mail(folder, f"d1-{i}", sender, body, msk(9, 9, i))
    mail(folder, "d2-0", "petya@example.org", "Помиловать!", msk(10, 9, 0))
    mail(folder, "d2-1", "luba@example.org", "блокирую Зою", msk(10, 9, 1))   # R14: twice
    return folder


def test_R14_1_day_with_every_interaction_resolves_as_R14_says(game, clock, capsys):
    """R14.1 (1)-(6) through the whole tool: the count with the Mayor, the Kamikaze's taking,
    the block, the guard, the Lawyer against the check and the comparison; the JSON of
    CONTRACT round 4."""
    ctx = ctx_at(game, clock, msk(9, 20, 5))
    out = resolve_day_files(ctx, 1)
    r = json.loads((game / "out" / "day-1" / "result.json").read_text(encoding="utf-8"))
    assert r["lynched"] == {"player": "Коля", "role": "kamikaze", "by": "votes"}
    assert r["killed"] == [{"player": "Ирина", "role": "doctor", "by": "kamikaze"},
                           {"player": "Гена", "role": "bodyguard", "by": "mafia"}]
    assert r["blocked"] == ["Зоя"] and r["pardoned"] is False and r["survived"] is False
    assert r["checks"] == [{"by": "Маша", "target": "Игорь", "result": "civilian"},
                           {"by": "Таня", "target": ["Игорь", "Вася"], "result": "same"}]
    assert r["winner"] is None and "Вася" in r["alive"] and "Маша" in r["alive"]
    assert out.result.to_json() == r
    paper = (game / "out" / "day-1" / "newspaper.bbcode").read_text(encoding="utf-8")
    assert "Олег[/url] ×2" in paper and "Коля — 3:" in paper
    assert "Камикадзе забрал с собой игрока [b]Ирина[/b] ([i]Доктор[/i])." in paper
    assert "Телохранитель погиб, закрыв собой другого игрока" in paper
    pm = (game / "out" / "day-1" / "pm")
    assert "Игорь и Вася — одна сторона." in (pm / "Таня.txt").read_text(encoding="utf-8")
    assert "Игорь — мирный житель." in (pm / "Маша.txt").read_text(encoding="utf-8")
    # the count as the host sees it, with the Mayor's vote twice
    assert main(["tally", str(game), "--day", "1", "--offline", "--format", "json"]) == 0
    tally = json.loads(capsys.readouterr().out)
    assert tally["counts"][0] == {"target": "Коля", "votes": 3, "voters": ["Олег", "Вася"],
                                  "doubled": ["Олег"]}


def test_R14_judge_pardons_day_2_and_the_putana_twice_is_refused(game, clock):
    """R14 Judge: day 2's jailing of Вася does not happen, the random list untouched; R14
    Putana: the same X two nights running is refused (R14.2) and blocks no one."""
    resolve_day_files(ctx_at(game, clock, msk(9, 20, 5)), 1)
    ctx = ctx_at(game, clock, msk(10, 20, 5))
    out = resolve_day_files(ctx, 2)
    r = out.result.to_json()
    assert r["lynched"] is None and r["pardoned"] is True and r["blocked"] == []
    assert "Вася" in r["alive"]
    paper = (game / "out" / "day-2" / "newspaper.bbcode").read_text(encoding="utf-8")
    assert "Судья помиловал игрока [b]Вася[/b]: посадки сегодня нет." in paper
    luba = [m for m in out.report.moves if m.player == "Люба"]
    assert [(m.status, m.reason) for m in luba] == [("invalid", "same_target")]
    assert ctx.store.resolution(2)["state"]["used_once"] == ["Петя"]


def test_R14_3_deal_draws_a_preset(tmp_path):
    """R14.3: ``[roles] preset`` is dealt: every role of the preset, civilians fill the rest."""
    players = [(f"Игрок{i}", "", 400 + i, f"p{i}@example.org") for i in range(11)]
    folder = write(tmp_path / "g", game_toml(None, {}, roles='[roles]\npreset = "putana"\n',
                                             players=players, with_roles=False))
    assert main(["deal", str(folder)]) == 0
    with Store(folder / "state.sqlite3") as s:
        dealt = s.get("deal")["roles"]
    assert sorted(dealt.values()) == sorted(["boss", "mafia", "lawyer", "commissar", "doctor",
                                             "putana"] + ["civilian"] * 5)
    putana = next(n for n, r in dealt.items() if r == "putana")
    card = (folder / "out" / "role-cards" / f"{putana}.txt").read_text(encoding="utf-8")
    assert "ваша роль — Путана" in card and "«блокирую Васю»" in card
    assert "до 20:00 МСК каждого игрового дня" in card


@pytest.mark.parametrize("roles, says", [
    ('[roles]\nsetup = { boss = 1, wizard = 1 }\n', "roles.setup.wizard: неизвестная роль"),
    ('[roles]\nsetup = { boss = 1, putana = 0 }\n', "roles.setup.putana: число должно быть"),
    ('[roles]\nsetup = { lawyer = 1, doctor = 1 }\n', "roles.setup.lawyer: Адвокат защищает"),
    ('[roles]\nsetup = { boss = 1, mafia = 12 }\n', "roles.setup: ролей 13, а игроков 12"),
    ('[roles]\nsetup = { boss = 1, putana = 1 }\n[roles.words]\nblock = ["проверяю"]\n',
     "roles.words.block: слово"),
])
def test_R14_3_bad_setup_one_russian_line_nothing_written(tmp_path, capsys, roles, says):
    """Issue 37 item 5: a bad ``[roles]`` is one line naming the key and the fix, in Russian
    for a Russian game; nothing is written."""
    folder = write(tmp_path / "g", game_toml(None, {}, roles=roles, with_roles=False))
    assert main(["deal", str(folder)]) == 1
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (folder / "state.sqlite3").exists() and not (folder / "out").exists()


def test_R14_3_setup_and_written_roles_must_agree(tmp_path, capsys):
    """R14.3: with every role written in [[players]], a setup that says otherwise is refused."""
    roles = '[roles]\nsetup = { boss = 1, mafia = 2, commissar = 1, doctor = 1, putana = 1 }\n'
    folder = write(tmp_path / "g", game_toml(None, {}, roles=roles))
    assert main(["deal", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "roles.setup: роли в [[players]] не совпадают с раскладом:" in err
    assert "bodyguard" in err and "civilian" in err
