"""Russian all through (issue 39 item 4): ``status GAME`` and ``status FOLDER`` of a Russian
game (the fixture game of tests/cli/test_tally_cli.py, ``language = "ru"``) say everything in
Russian, no Latin word except addresses, file names, keys and commands; an English game's
text and every game's JSON stay as they were.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_russian_errors import edit, latin_words
from test_tally_cli import ROOT, store_topic

from scraper_mod.cli import main
from scraper_mod.daemon.status import game_status
from scraper_mod.game.context import open_game


@pytest.fixture
def game(tmp_path) -> Path:
    folder = tmp_path / "игры" / "игра"
    folder.mkdir(parents=True)
    (folder / "game.toml").write_text((ROOT / "fixtures" / "games" / "day1" / "game.toml")
                                      .read_text(encoding="utf-8"), encoding="utf-8")
    store_topic(folder)
    return folder


def status(capsys, *argv) -> str:
    capsys.readouterr()
    code = main(["status", *map(str, argv)])
    out, err = capsys.readouterr()
    assert code == 0 and err == "", (out, err)
    return out


def test_status_of_a_russian_game_is_russian_only(game, capsys):
    out = status(capsys, game)
    assert "день 1: срок — до " in out and "МСК" in out
    assert "демон: не запущен" in out
    for line in out.splitlines()[1:]:          # the first line is the game's own title
        assert latin_words(line) == [], line


def test_status_folder_of_a_russian_game_is_russian_only(game, capsys):
    out = status(capsys, game.parent)
    assert out.startswith("игра (") and "срок — до " in out and "демон не запущен" in out
    for line in out.splitlines():
        title = json.loads(status(capsys, game, "--format", "json"))["title"]
        assert latin_words(line.replace(title, "")) == [], line


def test_an_english_games_status_keeps_english(game, capsys):
    edit(game, 'language = "ru"', 'language = "en"')
    out = status(capsys, game)
    with open_game(game, readonly=True) as ctx:
        assert out.startswith(game_status(ctx).to_text())
    assert "daemon: not running (start it with 'scraper-mod run GAME')" in out
    assert "day 1: deadline " in out
    folder = status(capsys, game.parent)
    assert folder.startswith("игра (") and ", deadline " in folder and "; daemon not running" \
        in folder


def test_json_is_the_same_for_russian_and_english(game, capsys):
    ru = json.loads(status(capsys, game, "--format", "json"))
    ru_folder = json.loads(status(capsys, game.parent, "--format", "json"))
    edit(game, 'language = "ru"', 'language = "en"')
    en = json.loads(status(capsys, game, "--format", "json"))
    en_folder = json.loads(status(capsys, game.parent, "--format", "json"))
    for d in (ru, en):     # the set-up problems were in the game's language before
        d.pop("now"), d.pop("seconds_left"), d.pop("setup_problems")
    assert ru == en and "language" not in ru_folder["games"][0]
    assert set(ru_folder["games"][0]) == set(en_folder["games"][0])


def test_a_resolved_day_a_winner_and_problems_in_russian(game, capsys):
    """The resolved days, the last day's result, the winner, the daemon's errors and what
    the board does not have yet: Russian lines (the English reasons stay in run.log)."""
    from datetime import datetime, timezone

    with open_game(game) as ctx:
        now = ctx.now()
        ctx.store.save_resolution(1, {"day": 1, "lynched": {"player": "Алексей", "role": "boss",
                                                            "by": "votes"},
                                      "killed": [{"player": "Вася", "role": "doctor",
                                                  "by": "mafia"}], "winner": None},
                                  resolved_at=now)
        ctx.store.log_event("error", {"message": "day 2: the publication step failed: boom",
                                      "ru": "день 2: публикация не удалась"},
                            at=datetime.now(timezone.utc))
    out = status(capsys, game)
    assert "подведены дни: 1; день 1: посадка: Алексей (Босс, по голосам); жертва ночи: " \
           "Вася (Доктор, мафия)" in out, out
    assert "проблема: день 2: публикация не удалась" in out and "boom" not in out
    for line in out.splitlines()[1:]:
        assert latin_words(line) == [], line
    with open_game(game) as ctx:
        ctx.store.save_resolution(2, {"day": 2, "lynched": None, "killed": [],
                                      "winner": "town"}, resolved_at=ctx.now())
    out = status(capsys, game)
    assert "игра окончена, победа: мирные (подведены дни: 1, 2)" in out
    assert "последний день: посадки нет; ночью никто не погиб; игра окончена, победа: " \
           "мирные" in out
    for line in out.splitlines()[1:]:
        assert latin_words(line) == [], line
