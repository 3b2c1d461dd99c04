"""`scraper-mod deal` and the deal rules (docs/rules.md R3.1, R4, R4.1, R9.3)."""

from __future__ import annotations

import hashlib
import random
import re
import shutil
from pathlib import Path

import pytest

from scraper_mod.cli import main
from scraper_mod.errors import RulesError
from scraper_mod.game.setup.config import load_game
from scraper_mod.rules.deal import (
    deal_roles,
    default_counts,
    effective_duty,
    effective_players,
    effective_random_list,
    role_card,
    safe_filename,
    setup_counts,
)
from scraper_mod.rules.model import Player, Role
from scraper_mod.rules.randomlist import commitment
from scraper_mod.store import Store

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "day1" / "game.toml"
NICKS = ["Вася", "Маша_2", "Big Joe", "Алексей", "NightOwl", "Игрок-7", "Ёжик в тумане",
         "doc_Holiday", "Лиса", "Волк", "Кот"]


def write_game(folder: Path, *, roles: dict | None = None, extra: str = "",
               lang: str = "ru", duty: str | None = None) -> Path:
    """An 11-player game; roles only for the nicks given in ``roles``."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["[game]", 'title = "Мафия #7"', "start = 2024-04-08", 'host = "admin"',
             f'language = "{lang}"', ""]
    if duty:
        lines += ["[mafia]", f'duty = "{duty}"', ""]
    for nick in NICKS:
        lines += ["[[players]]", f'nick = "{nick}"']
        if roles and nick in roles:
            lines.append(f'role = "{roles[nick]}"')
        if nick == "Кот":
            lines.append('code = "kot-4711"')
        lines.append("")
    (folder / "game.toml").write_text("\n".join(lines) + extra, encoding="utf-8")
    return folder


def cards(folder: Path) -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8")
            for p in (folder / "out" / "role-cards").glob("*.txt")}


def stored_deal(folder: Path) -> dict:
    with Store(folder / "state.sqlite3") as s:
        return s.get("deal")


def test_R3_1_R4_deal_draws_roles_list_and_prints_commitment(tmp_path, capsys):
    """R4 default setup for 11 players; R3.1 the commitment printed matches the stored list."""
    game = write_game(tmp_path / "g")
    assert main(["deal", str(game)]) == 0
    out = capsys.readouterr().out
    deal = stored_deal(game)
    assert sorted(deal["roles"]) == sorted(NICKS) and sorted(deal["drawn"]) == sorted(NICKS)
    counted = {r: list(deal["roles"].values()).count(r.value) for r in Role}
    counted = {r: k for r, k in counted.items() if k}   # R14's roles are not dealt here
    assert counted == {Role.BOSS: 1, Role.MAFIA: 2, Role.COMMISSAR: 1, Role.SERGEANT: 1,
                       Role.DOCTOR: 1, Role.MANIAC: 1, Role.VSB: 1, Role.CIVILIAN: 3}
    assert sorted(deal["random_list"]) == sorted(NICKS)
    assert deal["commitment"] == commitment(deal["random_list"], deal["salt"])
    assert re.search(r"commitment \(SHA-256\): ([0-9a-f]{64})", out).group(1) == \
        deal["commitment"]
    assert Role(deal["roles"][deal["duty"]]).is_mafia  # R4.1
    assert sorted(cards(game)) == sorted(NICKS)
    # the secret list file lets players verify the commitment at the end
    secret = (game / "out" / "random-list.secret.txt").read_text(encoding="utf-8")
    body = secret.split("-----\n")[1]
    assert hashlib.sha256(body.encode("utf-8")).hexdigest() == deal["commitment"]


def test_deal_refuses_twice_unless_forced(tmp_path, capsys):
    game = write_game(tmp_path / "g")
    assert main(["deal", str(game)]) == 0
    first = stored_deal(game)
    capsys.readouterr()
    assert main(["deal", str(game)]) == 1
    err = capsys.readouterr().err
    # a Russian game: the refusal in Russian only (issue 39 item 4)
    assert err.startswith("ошибка: ") and "роли уже розданы" in err and "--force" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert stored_deal(game) == first
    assert main(["deal", str(game), "--force"]) == 0
    assert stored_deal(game)["commitment"] != first["commitment"]


def test_deal_refused_after_a_resolved_day_even_forced(tmp_path, capsys):
    game = write_game(tmp_path / "g")
    assert main(["deal", str(game)]) == 0
    from datetime import datetime, timezone
    with Store(game / "state.sqlite3") as s:
        s.save_resolution(1, {"day": 1}, resolved_at=datetime.now(timezone.utc))
    assert main(["deal", str(game), "--force"]) == 1
    assert "итоги дня 1 уже подведены" in capsys.readouterr().err


def test_R4_file_roles_kept_and_only_missing_drawn(tmp_path):
    given = {"Вася": "boss", "Алексей": "commissar", "Лиса": "civilian"}
    game = write_game(tmp_path / "g", roles=given)
    assert main(["deal", str(game)]) == 0
    deal = stored_deal(game)
    for nick, role in given.items():
        assert deal["roles"][nick] == role
    assert sorted(deal["drawn"]) == sorted(set(NICKS) - set(given))
    assert list(deal["roles"].values()).count("boss") == 1


def test_R4_1_duty_without_role_is_dealt_a_mafia_role(tmp_path):
    game = write_game(tmp_path / "g", duty="Маша_2")
    assert main(["deal", str(game)]) == 0
    deal = stored_deal(game)
    assert deal["duty"] == "Маша_2" and Role(deal["roles"]["Маша_2"]).is_mafia


def test_R9_3_role_cards_content(tmp_path):
    """R9.3: mafiosi learn partners, the duty mafioso and the VSB; Commissar and Sergeant
    learn each other; the VSB's card is a civilian's ("чиж"); the secret code is on it."""
    roles = {"Вася": "boss", "Big Joe": "mafia", "Кот": "mafia", "Алексей": "commissar",
             "NightOwl": "sergeant", "doc_Holiday": "doctor", "Игрок-7": "maniac",
             "Ёжик в тумане": "vsb", "Маша_2": "civilian", "Лиса": "civilian",
             "Волк": "civilian"}
    game = write_game(tmp_path / "g", roles=roles, duty="Big Joe")
    assert main(["deal", str(game)]) == 0
    c = cards(game)
    assert "Босс" in c["Вася"] and "Big Joe — мафиози" in c["Вася"] and "Кот — мафиози" in c["Вася"]
    assert "Дежурный маф" in c["Вася"] and ": Big Joe." in c["Вася"]
    assert "Ёжик в тумане" in c["Вася"] and "ВСБ" in c["Вася"]
    assert "Дежурный маф (шлёт ведущему жертву и историю убийства): вы." in c["Big Joe"]
    assert "Вася — Босс" in c["Кот"] and "kot-4711" in c["Кот"]
    assert "Сержант: NightOwl" in c["Алексей"] and "Комиссар: Алексей" in c["NightOwl"]
    assert "Ёжик" not in c["Алексей"] and "Big Joe" not in c["Алексей"]
    # the VSB's card is word for word a civilian's card
    assert c["Ёжик в тумане"].replace("Ёжик в тумане", "X") == c["Лиса"].replace("Лиса", "X")
    assert "чиж" in c["Ёжик в тумане"] and "ВСБ" not in c["Ёжик в тумане"]
    for nick in ("Маша_2", "Лиса", "doc_Holiday", "Игрок-7", "Ёжик в тумане"):
        assert "Вася" not in c[nick] and "Big Joe" not in c[nick]


def test_R9_3_role_cards_in_english(tmp_path):
    game = write_game(tmp_path / "g", roles={"Ёжик в тумане": "vsb", "Вася": "boss"},
                      lang="en")
    assert main(["deal", str(game)]) == 0
    c = cards(game)
    assert "you are a civilian" in c["Ёжик в тумане"]
    assert "you are the Boss" in c["Вася"] and "Ёжик в тумане" in c["Вася"]


def test_effective_players_random_list_and_duty(tmp_path):
    game_dir = write_game(tmp_path / "g", roles={"Вася": "boss"})
    assert main(["deal", str(game_dir)]) == 0
    game, deal = load_game(game_dir), stored_deal(game_dir)
    players = effective_players(game, deal)
    assert [p.nick for p in players] == NICKS and all(p.role is not None for p in players)
    assert players[0].role is Role.BOSS
    assert effective_random_list(game, deal) == tuple(deal["random_list"])
    assert effective_duty(game, deal) == deal["duty"]
    assert effective_players(game, None)[1].role is None
    assert effective_random_list(game, None) is None


def test_fixture_game_keeps_its_random_list(tmp_path, capsys):
    """A game file with random_list: the deal keeps it and commits to it (R3.1)."""
    shutil.copy(FIXTURE, tmp_path / "game.toml")
    assert main(["deal", str(tmp_path)]) == 0
    game, deal = load_game(tmp_path), stored_deal(tmp_path)
    assert deal["random_list"] == list(game.random_list) and deal["drawn"] == []
    assert deal["duty"] == "Big Joe"
    assert "dealt 8 roles (0 drawn)" in capsys.readouterr().out


def test_bad_game_folder_is_one_error_line(tmp_path, capsys):
    assert main(["deal", str(tmp_path / "nowhere")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ошибка: ") and "нет такого файла игры" in err   # issue 39


@pytest.mark.parametrize("n,expected", [
    (5, {"boss": 1, "commissar": 1, "doctor": 1, "civilian": 2}),
    (7, {"boss": 1, "mafia": 1, "commissar": 1, "doctor": 1, "civilian": 3}),
    (8, {"boss": 1, "mafia": 1, "commissar": 1, "sergeant": 1, "doctor": 1, "civilian": 3}),
    (10, {"boss": 1, "mafia": 1, "commissar": 1, "sergeant": 1, "doctor": 1, "maniac": 1,
          "vsb": 1, "civilian": 3}),
    (15, {"boss": 1, "mafia": 2, "commissar": 1, "sergeant": 1, "doctor": 1, "maniac": 1,
          "vsb": 1, "civilian": 7}),
])
def test_R4_1_default_setup_scaled_to_table(n, expected):
    """R4.1: three mafiosi by default; small tables scale down (see rules/deal.py)."""
    counts = {r.value: c for r, c in default_counts(n).items() if c}
    assert counts == expected and sum(counts.values()) == n


def test_R4_1_deal_counts_override_and_errors():
    """R4.1 "other counts are configurable": [deal] overrides one role at a time."""
    c = setup_counts(12, {"mafia": 3, "maniac": 0})
    assert c[Role.MAFIA] == 3 and c[Role.MANIAC] == 0 and c[Role.CIVILIAN] == 4
    with pytest.raises(RulesError, match="allow one"):
        setup_counts(12, {"commissar": 2})
    with pytest.raises(RulesError, match="only 6 players"):
        setup_counts(6, {"mafia": 4, "maniac": 1, "vsb": 1})
    with pytest.raises(RulesError, match="too few"):
        default_counts(4)
    with pytest.raises(RulesError, match="no mafioso"):
        setup_counts(8, {"boss": 0, "mafia": 0})


def test_deal_roles_with_injected_rng_is_reproducible():
    players = [Player(n) for n in NICKS]
    a = deal_roles(players, rng=random.Random(3))
    b = deal_roles(players, rng=random.Random(3))
    assert a == b and list(a) == NICKS
    with pytest.raises(RulesError, match="role boss to A, B"):
        deal_roles([Player("A", Role.BOSS), Player("B", Role.BOSS)] +
                   [Player(x) for x in "CDEFGH"])
    # a Maniac the 7-player setup lacks takes a civilian's place
    seven = [Player("A", Role.MANIAC)] + [Player(x) for x in "BCDEFG"]
    dealt = deal_roles(seven, rng=random.Random(1))
    assert sorted(r.value for r in dealt.values()) == sorted(
        ["maniac", "boss", "mafia", "commissar", "doctor", "civilian", "civilian"])
    with pytest.raises(RulesError, match="more special roles"):
        deal_roles([Player(x, Role.MAFIA) for x in "ABCDEF"] + [Player("G")])


def test_role_card_context_for_vsb_equals_civilian():
    roles = {"A": Role.BOSS, "B": Role.VSB, "C": Role.CIVILIAN}
    vsb, civ = role_card("B", roles, duty="A"), role_card("C", roles, duty="A")
    assert {**vsb, "nick": ""} == {**civ, "nick": ""} and vsb["role"] == "civilian"


def test_safe_filename():
    assert safe_filename("Ёжик в тумане") == "Ёжик в тумане"
    # a changed name ends with a piece of the nick's hash: «a/b» and «a_b» never meet
    assert re.fullmatch(r"a_b_c_d-[0-9a-f]{6}", safe_filename("a/b\\c:d"))
    assert re.fullmatch(r"_\.\.-[0-9a-f]{6}", safe_filename(".."))
