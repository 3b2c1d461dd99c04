"""A day with a voting topic of its own (RULES R2.17), a voting window (R2.18), pass votes and a
tie that jails no one (R2.19), an edit that is a change (R2.20) and words with a vote (R2.21),
through the command line on a LocalBoard (the phpBB look-alike): the topics read, counted and
resolved as the rules give.

The seven players of tests/game/test_resolve.py; day 1 runs from Mon 8 April 2024 21:00 to Tue
9 20:00 (Moscow time); the house votes in «Голосование, день 1» between 19:00 and 20:00.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_resolve import ORDER, PLAYERS, msk, write_game  # noqa: E402  (tests/ is on the path)

from scraper_mod.cli import main
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.errors import ConfigError
from scraper_mod.game.setup.config import load_game
from scraper_mod.rules.model import NO_ONE

IDS = {n: u for n, _, u, _ in PLAYERS} | {"Ведущий": 2}

RULES = """[rules]
voting_opens = "19:00"
pass_words = ["пас", "воздерживаюсь"]
tie_jails_no_one = true
edit_is_change = true
vote_changes = 0
vote_min_words = 3
"""


def run(capsys, *args: str) -> str:
    capsys.readouterr()
    got = main(list(args))
    out = capsys.readouterr()
    assert got == 0, out.err
    return out.out


def build(tmp_path: Path, board: LocalBoard, votes, *, rules: str = RULES,
          edits=()) -> tuple[Path, dict]:
    """Day 1's discussion topic (a colored nick there is no vote) and its voting topic."""
    for nick, uid in IDS.items():
        board.add_user(nick, uid)
    day = board.add_topic("Мафия #7. День 1")
    board.add_post("Ведущий", 2, "[b]День 1.[/b]", msk(8, 21), topic=day)
    board.add_post("Вася", IDS["Вася"], "Я бы посадил [color=red]Петя[/color], он молчит",
                   msk(9, 19, 30), topic=day)
    vote = board.add_topic("Мафия #7. Голосование, день 1")
    board.add_post("Ведущий", 2, "[b]Голосование, день 1.[/b]", msk(8, 21), topic=vote)
    posts = {}
    for voter, body, hh, mm in votes:
        posts[(voter, hh, mm)] = board.add_post(voter, IDS[voter], body, msk(9, hh, mm),
                                                topic=vote)
    for key, body, hh, mm in edits:
        board.edit_post(posts[key], body, edited_at=msk(9, hh, mm))
    folder = tmp_path / "game"
    write_game(folder, board, {1: day}, players=PLAYERS, order=ORDER, duty="Игорь")
    toml = folder / "game.toml"
    text = toml.read_text(encoding="utf-8").replace(
        f'topic = "{board.topic_url(day)}"\n',
        f'topic = "{board.topic_url(day)}"\nvote_topic = "{board.topic_url(vote)}"\n', 1)
    toml.write_text(f"{text}\n{rules}", encoding="utf-8")
    return folder, posts


VOTES = [
    ("Маша", "[color=red]Коля[/color] — он мафия", 12, 0),          # before the window
    ("Маша", "[color=red]Игорь[/color] молчит весь день", 19, 5),
    ("Петя", "Голосую: [color=red]Игорь[/color]", 19, 10),
    ("Ирина", "[color=red]Коля[/color]", 19, 15),                     # a bare nick
    ("Коля", "Подумаю ещё", 19, 25),                                   # a vote by an edit
    ("Таня", "Сегодня пас.", 19, 30),                                  # a vote for no one
]
EDITS = [(("Коля", 19, 25), "Подумал: [color=red]Вася[/color] подозрителен", 19, 40)]


def test_R2_17_to_R2_21_a_day_in_a_voting_topic(tmp_path, capsys):
    with LocalBoard(language="ru", clock=lambda: msk(11, 9)) as board:
        folder, posts = build(tmp_path, board, VOTES, edits=EDITS)
        result = json.loads(run(capsys, "resolve", str(folder), "--day", "1",
                                "--format", "json"))
        tally = json.loads(run(capsys, "tally", str(folder), "--day", "1", "--offline",
                               "--format", "json"))
    # R2.17: Вася's colored nick in the discussion topic is no vote
    assert all(v["voter"] != "Вася" for v in tally["votes"])
    assert [(v["voter"], v["target"]) for v in tally["votes"]] == [
        ("Маша", "Игорь"), ("Петя", "Игорь"), ("Таня", NO_ONE)]
    assert [(c["target"], c["votes"]) for c in tally["counts"]] == [("Игорь", 2), (NO_ONE, 1)]
    reasons = {(r["author"], r["reason"]) for r in tally["rejected"]}
    assert reasons == {("Маша", "before_window"),          # R2.18
                       ("Ирина", "too_few_words"),         # R2.21
                       ("Коля", "change_limit")}           # R2.20 with vote_changes = 0
    assert "Таня" not in tally["not_voting"]               # R2.19: a pass is voting
    assert result["lynched"]["player"] == "Игорь" and result["lynched"]["by"] == "votes"


def test_R2_19_no_one_leads_no_one_is_jailed_and_the_newspaper_says_so(tmp_path, capsys):
    votes = [("Маша", "пас, нет уверенности", 19, 5), ("Петя", "Воздерживаюсь.", 19, 10),
             ("Ирина", "Голосую: [color=red]Коля[/color]", 19, 15)]
    with LocalBoard(language="ru", clock=lambda: msk(11, 9)) as board:
        folder, _ = build(tmp_path, board, votes)
        result = json.loads(run(capsys, "resolve", str(folder), "--day", "1",
                                "--format", "json"))
    assert result["lynched"] is None
    paper = (folder / "out" / "day-1" / "newspaper.bbcode").read_text(encoding="utf-8")
    assert "Сегодня посадки нет." in paper
    # the newspaper links both of the day's topics (R2.17)
    assert re.search(r"Темы дня 1: \[url=http://127\.0\.0\.1:\d+/viewtopic\.php\?t=\d+\]"
                     r"обсуждение\[/url\], \[url=[^\]]+\]голосование\[/url\]\.", paper), paper


def test_R2_19_a_tie_jails_no_one(tmp_path, capsys):
    votes = [("Маша", "Голосую: [color=red]Игорь[/color]", 19, 5),
             ("Петя", "Голосую: [color=red]Коля[/color]", 19, 10)]
    with LocalBoard(language="ru", clock=lambda: msk(11, 9)) as board:
        folder, _ = build(tmp_path, board, votes)
        result = json.loads(run(capsys, "resolve", str(folder), "--day", "1",
                                "--format", "json"))
    assert result["lynched"] is None


def test_R2_17_without_a_voting_topic_the_day_topic_is_read_as_ever(tmp_path, capsys):
    with LocalBoard(language="ru", clock=lambda: msk(11, 9)) as board:
        folder, _ = build(tmp_path, board, VOTES, rules="")
        toml = folder / "game.toml"
        toml.write_text("\n".join(ln for ln in toml.read_text(encoding="utf-8").splitlines()
                                  if not ln.startswith("vote_topic")) + "\n", encoding="utf-8")
        tally = json.loads(run(capsys, "tally", str(folder), "--day", "1", "--format", "json"))
    assert [(v["voter"], v["target"]) for v in tally["votes"]] == [("Вася", "Петя")]


def test_R2_17_the_voting_topic_must_be_a_topic_of_its_own(tmp_path):
    with LocalBoard(language="ru", clock=lambda: msk(11, 9)) as board:
        folder, _ = build(tmp_path, board, [])
    toml = folder / "game.toml"
    text = toml.read_text(encoding="utf-8")
    day_url = text.split('topic = "', 1)[1].split('"', 1)[0]
    toml.write_text(text.replace(text.split('vote_topic = "', 1)[1].split('"', 1)[0], day_url),
                    encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_game(folder)
    assert "days[1].vote_topic" in str(e.value)


def test_what_a_count_shows_the_host_and_the_players(tmp_path, capsys):
    """Issue 39 item 3 with R2.15 on: the votes each leader still needs, the posts of each
    living player that day (both topics; who has none is named), the votes that did not
    count with their reason and link; a count before the window says the vote is not open
    (R2.18); ``--at-post`` counts as of a post."""
    with LocalBoard(language="ru", clock=lambda: msk(11, 9)) as board:
        folder, posts = build(tmp_path, board, VOTES, edits=EDITS,
                              rules=RULES + "majority_ends_day = true\n")
        run(capsys, "poll", str(folder), "--day", "1")
        at = json.loads(run(capsys, "tally", str(folder), "--offline", "--format", "json",
                            "--at-post", str(posts[("Петя", 19, 10)])))
        text = run(capsys, "tally", str(folder), "--offline", "--at-post",
                   str(posts[("Петя", 19, 10)]))
        early = run(capsys, "tally", str(folder), "--offline", "--at", "2024-04-09T18:00")
        post = run(capsys, "tally", str(folder), "--offline", "--format", "bbcode",
                   "--at", "2024-04-09T19:50")
        final = run(capsys, "tally", str(folder), "--offline", "--day", "1")
    # as of Петя's post: Маша's and his votes, the 12:00 one before the window refused
    assert at["as_of"] == "2024-04-09T19:10:01+03:00" and at["final"] is False
    assert [(v["voter"], v["target"]) for v in at["votes"]] == [("Маша", "Игорь"),
                                                               ("Петя", "Игорь")]
    assert at["majority_needs"] == {"Игорь": 2}          # 7 may vote: 4 is a majority
    assert "До большинства (4 голоса): Игорь — ещё 2 голоса" in text
    assert "Голосование ещё не открыто: голоса принимаются с 19:00 до 20:00 МСК." in early
    # the board's post: each vote that did not count, linked, with its reason
    for key, why in [(("Маша", 12, 0), "голос не засчитан: подан до начала голосования"),
                     (("Ирина", 19, 15), "голос не засчитан: один ник без слов")]:
        pid = posts[key]
        assert f"p={pid}#p{pid}]пост игрока {key[0]}[/url] — {why}" in post, post
    assert "Постов за день: Вася — 1, Маша — 2, Ирина — 1, Петя — 1, Коля — 1, Таня — 1." \
        in post
    assert "Без постов с начала дня: [b]Игорь[/b]." in post
    assert "Постов за день: Вася — 1, Игорь — 0, Маша — 2" in final
    assert "Без постов с начала дня: Игорь" in final
