"""`scraper-mod stats FOLDER` (RULES R15.3): every figure checked against numbers this test
computes on its own from the records it wrote (40 games of a seeded random forum, with
replacements, an older game's record.toml and an alias), and the rating: a win over strong
opponents moves a player's rating more than a win over weak ones."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from datetime import date
from pathlib import Path

import pytest
from russian_text import check_en, check_ru  # noqa: E402  (tests/ is on the path)

from scraper_mod.cli import main
from scraper_mod.game.history.record import record_bytes
from scraper_mod.game.history.stats import forum_stats, load_aliases, load_records
from scraper_mod.game.history.statstext import stats_bbcode

POOL = ["Вася", "Петя", "Маша", "Лена", "Коля", "Гоша", "Ирина", "Таня", "Дима", "Света",
        "Олег", "Нина", "Vasya", "Рома", "Юля"]
SETUPS = [["boss", "mafia", "commissar", "doctor", "civilian", "civilian", "civilian"],
          ["boss", "mafia", "mafia", "commissar", "sergeant", "doctor", "maniac", "civilian",
           "civilian", "civilian"]]
SIDE = {"boss": "mafia", "mafia": "mafia", "maniac": "maniac"}


def _game(rng: random.Random, n: int) -> dict:
    """A random finished game consistent with its winner."""
    roles = list(rng.choice(SETUPS))
    nicks = rng.sample(POOL, len(roles) + 2)
    rng.shuffle(roles)
    last = rng.randint(2, 6)
    winner = rng.choice(["town", "mafia", "maniac"] if "maniac" in roles else ["town", "mafia"])
    players = []
    for i, role in enumerate(roles):
        side = SIDE.get(role, "town")
        users = [{"nick": nicks[i], "from_day": 1}]
        if i == 0 and n % 3 == 0:               # a replacement now and then
            users.append({"nick": nicks[-1], "from_day": 2})
        dies = rng.random() < 0.5
        if winner == "town" and side == "mafia":
            dies = True
        if side == winner:
            dies = dies and any(SIDE.get(r, "town") == side for r in roles[:i]) and \
                side == "town"
        died = None
        if dies:
            d = rng.randint(1, last)
            how = rng.choice(["jailed", "mafia", "removed"])
            died = {"day": d, "how": how, "by": {"jailed": "votes", "removed": "host"}.get(
                how, how)}
        players.append({"slot": i + 1, "users": users, "role": role, "side": side,
                        "died": died})
    days = []
    for d in range(1, last + 1):
        live = [p for p in players if p["died"] is None or p["died"]["day"] >= d]
        votes = []
        for p in live:
            if rng.random() < 0.8:
                holder = [u["nick"] for u in p["users"] if u["from_day"] <= d][-1]
                target = rng.choice(live)["users"][0]["nick"]
                votes.append({"voter": holder, "target": target})
        days.append({"day": d, "votes": votes, "jailed": None, "deaths": []})
    setup: dict[str, int] = {}
    for r in roles:
        setup[r] = setup.get(r, 0) + 1
    return {"record": 1, "source": "game", "title": f"Партия {n}",
            "start": f"2024-{1 + n // 28:02d}-{1 + n % 28:02d}",
            "end": f"2024-{1 + n // 28:02d}-{1 + n % 28:02d}", "language": "ru",
            "winner": winner, "decided_day": last, "setup": dict(sorted(setup.items())),
            "players": players, "days": days}


OLD = """\
[game]
title = "Старая партия"
start = 2023-01-10
end = 2023-01-12
winner = "mafia"
[[players]]
nick = "Vasya"
role = "boss"
[[players]]
nick = "Олег"
role = "commissar"
died = { day = 1, how = "jailed" }
[[players]]
nick = "Нина"
role = "civilian"
died = { day = 2, how = "mafia" }
[[votes]]
day = 1
voter = "Vasya"
target = "Олег"
[[votes]]
day = 1
voter = "Нина"
target = "Vasya"
"""


@pytest.fixture(scope="module")
def forum(tmp_path_factory) -> tuple[Path, list[dict]]:
    root = tmp_path_factory.mktemp("forum")
    rng = random.Random(15)
    records = [_game(rng, n) for n in range(40)]
    for i, rec in enumerate(records):
        folder = root / f"season-{i % 2}" / f"game-{i:02d}"
        folder.mkdir(parents=True)
        (folder / "record.json").write_bytes(record_bytes(rec))
        (folder / "out").mkdir()                       # a game folder's own files: not searched
        (folder / "out" / "record.json").write_text("{broken", encoding="utf-8")
    old = root / "old" / "mafia-1"
    old.mkdir(parents=True)
    (old / "record.toml").write_text(OLD, encoding="utf-8")
    (root / "stats.toml").write_text('[aliases]\n"Вася" = ["Vasya"]\n', encoding="utf-8")
    running = root / "season-0" / "running"
    running.mkdir()
    (running / "game.toml").write_text("[game]\n", encoding="utf-8")   # no record yet
    old_rec = {"start": "2023-01-10", "winner": "mafia", "decided_day": 2,
               "players": [{"users": [{"nick": "Vasya", "from_day": 1}], "role": "boss",
                            "side": "mafia", "died": None},
                           {"users": [{"nick": "Олег", "from_day": 1}], "role": "commissar",
                            "side": "town", "died": {"day": 1}},
                           {"users": [{"nick": "Нина", "from_day": 1}], "role": "civilian",
                            "side": "town", "died": {"day": 2}}],
               "days": [{"votes": [{"voter": "Vasya", "target": "Олег"},
                                   {"voter": "Нина", "target": "Vasya"}]}]}
    return root, records + [old_rec]


def _expected(records: list[dict], alias: dict[str, str]) -> dict[str, dict]:
    """Each player's figures, counted here slot by slot and day by day."""
    out: dict[str, dict] = defaultdict(lambda: {"games": 0, "wins": 0, "days": 0, "hits": 0,
                                                "votes": 0, "side": defaultdict(lambda: [0, 0]),
                                                "role": defaultdict(lambda: [0, 0])})
    for rec in records:
        sides = {}
        for p in rec["players"]:
            won = p["side"] == rec["winner"]
            for k, u in enumerate(p["users"]):
                sides[u["nick"]] = p["side"]
                me = out[alias.get(u["nick"], u["nick"])]
                me["games"] += 1
                me["wins"] += won
                me["side"][p["side"]][0] += 1
                me["side"][p["side"]][1] += won
                me["role"][p["role"]][0] += 1
                me["role"][p["role"]][1] += won
                held = range(u["from_day"], p["users"][k + 1]["from_day"]
                             if k + 1 < len(p["users"]) else rec["decided_day"] + 1)
                me["days"] += sum(1 for d in held
                                  if p["died"] is None or d < p["died"]["day"])
        for day in rec["days"]:
            for v in day["votes"]:
                me = out[alias.get(v["voter"], v["voter"])]
                me["votes"] += 1
                me["hits"] += sides[v["target"]] == "mafia"
    return out


def test_R15_3_every_figure_against_an_independent_count(forum):
    root, records = forum
    found = load_records(root)
    assert len(found) == 41                     # the 40 games and the older one
    stats = forum_stats(found, load_aliases(root))
    want = _expected(records, {"Vasya": "Вася"})
    got = {p["nick"]: p for p in stats.players}
    assert "Vasya" not in got and set(got) == set(want)
    for nick, w in want.items():
        p = got[nick]
        assert (p["games"], p["wins"], p["days_survived"], p["votes_on_mafia"]) == (
            w["games"], w["wins"], w["days"], [w["hits"], w["votes"]]), nick
        assert p["by_side"] == {s: v for s, v in w["side"].items()}, nick
        assert p["by_role"] == {r: v for r, v in w["role"].items()}, nick
    # per role, per side, per setup
    roles: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    sides: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for rec in records:
        for p in rec["players"]:
            roles[p["role"]][0] += 1
            roles[p["role"]][1] += p["side"] == rec["winner"]
        for s in {p["side"] for p in rec["players"]}:
            sides[s][0] += 1
            sides[s][1] += s == rec["winner"]
    assert {r["role"]: [r["games"], r["wins"]] for r in stats.roles} == dict(roles)
    assert stats.sides == dict(sides)
    assert stats.games == 41 and sum(s["games"] for s in stats.setups) == 41
    assert sum(sum(s["wins"].values()) for s in stats.setups) == 41
    # the players are listed best rated first
    ratings = [p["rating"] for p in stats.players]
    assert ratings == sorted(ratings, reverse=True)


def test_R15_3_since_keeps_the_later_games(forum):
    root, records = forum
    stats = forum_stats(load_records(root), since=date(2024, 2, 1))
    assert stats.games == sum(1 for r in records if r["start"] >= "2024-02-01") < 41


def _rated(tmp_path: Path, opponents_won: int) -> float:
    """X's rating after one town win over a mafia of two whose players first won
    ``opponents_won`` games each (against a town of strangers) and lost the others of 6."""
    games = []
    for k in range(6):
        won = k < opponents_won
        town = [f"t{k}-{i}" for i in range(5)]
        games.append({"start": f"2024-01-{k + 1:02d}", "title": f"g{k}",
                      "winner": "mafia" if won else "town", "decided_day": 3,
                      "players": [{"users": [{"nick": n, "from_day": 1}], "role": "civilian",
                                   "side": "town", "died": None} for n in town] +
                                 [{"users": [{"nick": n, "from_day": 1}], "role": r,
                                   "side": "mafia", "died": None}
                                  for n, r in (("M1", "boss"), ("M2", "mafia"))],
                      "days": []})
    games.append({"start": "2024-02-01", "title": "final", "winner": "town",
                  "decided_day": 3,
                  "players": [{"users": [{"nick": n, "from_day": 1}], "role": "civilian",
                               "side": "town", "died": None}
                              for n in ("X", "Y1", "Y2", "Y3", "Y4")] +
                             [{"users": [{"nick": n, "from_day": 1}], "role": r,
                               "side": "mafia", "died": {"day": 3}}
                              for n, r in (("M1", "boss"), ("M2", "mafia"))],
                  "days": []})
    stats = forum_stats(games)
    x = next(p for p in stats.players if p["nick"] == "X")
    assert x["games"] == 1 and x["wins"] == 1
    return x["rating"]


def test_R15_3_a_win_over_strong_opponents_moves_the_rating_more(tmp_path):
    fresh = forum_stats([]).players          # nobody: the start is openskill's 25
    assert fresh == []
    strong = _rated(tmp_path, opponents_won=6)
    weak = _rated(tmp_path, opponents_won=0)
    assert strong > weak > 25.0
    # and a loss takes a rating down
    lost = forum_stats([{"start": "2024-01-01", "title": "g", "winner": "mafia",
                         "decided_day": 1, "days": [],
                         "players": [{"users": [{"nick": "A", "from_day": 1}],
                                      "role": "civilian", "side": "town", "died": None},
                                     {"users": [{"nick": "B", "from_day": 1}], "role": "boss",
                                      "side": "mafia", "died": None}]}])
    assert {p["nick"]: p["rating"] < 25 for p in lost.players} == {"A": True, "B": False}


def test_R15_3_the_command_in_json_text_and_bbcode(forum, capsys):
    root, _ = forum
    assert main(["stats", str(root), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 41
    assert set(data["players"][0]) == {"nick", "games", "wins", "by_side", "by_role",
                                       "days_survived", "votes_on_mafia", "rating",
                                       "rating_sigma"}
    assert data == json.loads(json.dumps(forum_stats(load_records(root),
                                                     load_aliases(root)).to_json()))
    best = data["players"][0]["nick"]
    assert main(["stats", str(root), "--format", "bbcode"]) == 0
    post = capsys.readouterr().out
    assert "[b]Статистика форума[/b]" in post and post.count("[code]") == 3
    assert f"1. {best}" in post and "Стороны" in post and "мирный житель" in post
    assert check_ru(post, POOL) == []            # what players read (R9.6)
    assert main(["stats", str(root), "--format", "bbcode", "--lang", "en"]) == 0
    post = capsys.readouterr().out
    assert "The top players" in post and "civilian" in post
    assert check_en(post, POOL) == []
    assert main(["stats", str(root)]) == 0
    text = capsys.readouterr().out
    assert "партий 41" in text and "Расклады" in text


def test_R15_3_a_broken_record_is_one_clear_line(tmp_path, capsys):
    bad = tmp_path / "g1"
    bad.mkdir()
    (bad / "record.json").write_text('{"players": [], "winner": "nobody"}', encoding="utf-8")
    assert main(["stats", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert str(bad / "record.json") in err and "not a game's record" in err
    (bad / "record.json").write_text(
        '{"players": [{"users": []}], "winner": "town"}', encoding="utf-8")
    assert main(["stats", str(tmp_path)]) == 1
    assert "players[1]" in capsys.readouterr().err
    (tmp_path / "stats.toml").write_text('[aliases]\n"A" = ["B"]\n"C" = ["B"]\n',
                                         encoding="utf-8")
    (bad / "record.json").unlink()
    assert main(["stats", str(tmp_path)]) == 1
    assert "'B' is an alias of two players" in capsys.readouterr().err
    assert main(["stats", str(tmp_path / "nope")]) == 1
    assert "not a folder" in capsys.readouterr().err


def test_R15_3_a_nick_cannot_close_the_posts_code_block():
    rec = {"start": "2024-01-01", "title": "g", "winner": "town", "decided_day": 1,
           "days": [], "players": [
               {"users": [{"nick": "[/code][url=http://x.test]x[/url]", "from_day": 1}],
                "role": "civilian", "side": "town", "died": None},
               {"users": [{"nick": "B", "from_day": 1}], "role": "boss", "side": "mafia",
                "died": {"day": 1}}]}
    post = stats_bbcode(forum_stats([rec]), "ru")
    assert post.count("[/code]") == post.count("[code]") == 3
    assert "[url=" not in post
