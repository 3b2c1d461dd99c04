"""Issue 40, item 12: every numeric key of game.toml refuses TOML's ``nan`` and ``inf``
(``tally_cooldown_minutes = nan`` made every poll fail and stopped the alerts), in one clear
line that names the key; never a traceback."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from scraper_mod.errors import ConfigError
from scraper_mod.game.setup.config import parse_game

BASE = """[game]
title = "Проверка"
start = 2024-04-08
host = "Ведущий"
random_list = ["Вася", "Маша"]

[forum]
url = "http://board.test/"

[[players]]
nick = "Вася"
role = "boss"

[[players]]
nick = "Маша"
role = "civilian"
"""


def game_with(table: str, line: str) -> str:
    if f"[{table}]" in BASE:
        return BASE.replace(f"[{table}]\n", f"[{table}]\n{line}\n", 1)
    return BASE + f"\n[{table}]\n{line}\n"


@pytest.mark.parametrize("table, key", [
    ("publish", "tally_cooldown_minutes"), ("schedule", "poll_minutes"),
    ("schedule", "grace_seconds"), ("forum", "min_delay"), ("forum", "timeout"),
    ("forum", "page_time_limit")])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "+nan"])
def test_every_number_refuses_nan_and_inf_naming_the_key(table, key, value):
    text = game_with(table, f"{key} = {value}")
    with pytest.raises(ConfigError) as e:
        parse_game(tomllib.loads(text), path=Path("game.toml"))
    line = str(e.value)
    assert f"{table}.{key}" in line and "finite" in line and "\n" not in line.strip()


def test_finite_numbers_still_pass():
    game = parse_game(tomllib.loads(game_with("publish", "tally_cooldown_minutes = 0.5")),
                      path=Path("game.toml"))
    assert game.publish.tally_cooldown_minutes == 0.5
