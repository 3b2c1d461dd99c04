"""Every command has help text (STYLE.md), and usage errors exit 2 without a traceback."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from qa_game import copy_game, read_topic

from scraper_mod.cli import COMMANDS, build_parser, main
from scraper_mod.store import Store


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return action


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help(name):
    action = _subparsers()
    helps = {c.dest: c.help for c in action._choices_actions}
    assert helps.get(name), f"`scraper-mod {name}` has no help text"
    assert "not built" not in helps[name]
    sub = action.choices[name]
    assert sub.format_help().strip()


@pytest.mark.parametrize("name", COMMANDS)
def test_help_flag_exits_zero(name, capsys):
    with pytest.raises(SystemExit) as e:
        main([name, "--help"])
    assert e.value.code == 0
    assert f"scraper-mod {name}" in capsys.readouterr().out


def test_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["frobnicate"])
    assert e.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_missing_game_file_is_one_clear_line(tmp_path, capsys):
    code = main(["tally", str(tmp_path / "nope"), "--offline"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("ошибка: ") and err.count("\n") == 1   # issue 39: Russian only
    assert "nope" in err and "Traceback" not in err


def _walk(parser, path=()):
    """Every (command path, parser) below ``parser``, sub-commands included."""
    yield path, parser
    for a in parser._actions:
        if a.dest != "help" and getattr(a, "choices", None) and isinstance(a.choices, dict):
            for name, sub in a.choices.items():
                if hasattr(sub, "_actions"):
                    yield from _walk(sub, (*path, name))


def test_every_command_has_a_description_and_every_option_a_help_line():
    """Issue 27 item 5: `scraper-mod X --help` says what X does, and what each option is."""
    missing = []
    for path, parser in _walk(build_parser()):
        if path and not parser.description:
            missing.append(f"`scraper-mod {' '.join(path)}`: no description")
        for a in parser._actions:
            if a.dest != "help" and not a.help:
                missing.append(f"`scraper-mod {' '.join(path)}`: {a.option_strings or a.dest} "
                               "has no help")
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("name", ("run", "status", "serve"))
def test_folder_commands_say_they_take_a_folder_of_games(name):
    sub = _subparsers().choices[name]
    game = next(a for a in sub._actions if a.dest == "game")
    assert "folder of game folders" in game.help


def test_dictionary_loading_lines_only_with_verbose(tmp_path, capsys):
    """pymorphy3's `Loading dictionaries` INFO lines are noise for a host: only with -v."""
    import logging

    from scraper_mod.cli.common import setup_logging
    setup_logging(verbose=False)
    assert not logging.getLogger("pymorphy3").isEnabledFor(logging.INFO)
    setup_logging(verbose=True)
    assert logging.getLogger("pymorphy3").isEnabledFor(logging.INFO)
    setup_logging(verbose=False)


# -- the QA pass: cli -----------------------------------------------------------------------------
# QA: a host's wrong arguments and broken disks give one `error: ...` line, never a traceback
# (docs/commands.md: exit 1, or 2 for usage errors), and nothing stored is lost.


@pytest.fixture
def game(tmp_path) -> Path:
    return copy_game(tmp_path)


def run(capsys, *argv) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:  # argparse
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    assert "Traceback" not in err
    # issue 39: the fixture game is Russian: a line with a Russian text is Russian only
    assert err.startswith(("error: ", "ошибка: ")) and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("argv, names", [
    (["tally", "{game}", "--day", "abc"], ["--day", "'abc'", "scraper-mod tally --help"]),
    (["tally", "{game}", "--format", "xml"], ["--format", "'xml'"]),
    (["day", "move", "{game}", "x", "2024-04-09T19:00"], ["N", "'x'"]),
    ([], ["COMMAND"]),
])
def test_usage_errors_are_one_line_exit_2(game, capsys, argv, names):
    code, out, err = run(capsys, *[a.replace("{game}", str(game)) for a in argv])
    assert code == 2 and out == ""
    one_error_line(err)
    for name in names:
        assert name in err
    assert "usage:" not in err


def test_at_out_of_range_is_an_error_not_an_overflow(game, capsys):
    """Year 1 in Moscow time is before the first UTC instant Python has."""
    code, out, err = run(capsys, "tally", game, "--offline", "--at", "0001-01-01T00:00")
    assert code == 1 and out == ""
    assert "--at" in one_error_line(err) and "0001-01-01T00:00" in err


def test_at_before_the_game_starts(game, capsys):
    code, out, err = run(capsys, "tally", game, "--offline", "--at", "2020-01-01T12:00")
    assert code == 1 and out == ""
    one_error_line(err)
    assert "до начала игры" in err and "[game] start" in err     # issue 39: Russian only


def test_at_within_day_1_still_counts(game, capsys):
    code, out, err = run(capsys, "tally", game, "--offline", "--day", "1",
                         "--at", "2024-04-09T12:00", "--format", "json")
    assert code == 0 and '"day": 1' in out


@pytest.mark.parametrize("day", ["0", "-2"])
def test_poll_day_below_1(game, capsys, day):
    """Not "the game has not started yet": the game started in 2024."""
    code, out, err = run(capsys, "poll", game, "--day", day)
    assert code == 1 and out == ""
    assert f"--day: нужен номер дня от 1, а не {day}" in one_error_line(err)   # issue 39


def test_day_move_before_the_day_starts_says_it_once(game, capsys):
    code, out, err = run(capsys, "day", "move", game, "1", "2024-04-08T20:00")
    assert code == 1
    one_error_line(err)
    assert err.count("день 1:") == 1 and "[[days]]" not in err
    assert "после начала дня 1" in err           # issue 39: the Russian game's line
    # nothing moved
    code, out, _ = run(capsys, "day", "list", game)
    assert "deadline Tue 2024-04-09 20:00:00 MSK" in out


def test_a_failing_state_file_midway_is_one_line(game, capsys):
    """A state file that opens but fails on a later write (here: a table made unwritable by
    a trigger, as a read-only or full disk would) is one line naming the game and what to
    check; the stored posts stay."""
    read_topic(game)
    db = sqlite3.connect(game / "state.sqlite3")
    versions = db.execute("SELECT COUNT(*) FROM post_versions").fetchone()[0]
    db.execute("CREATE TRIGGER no_resolutions BEFORE INSERT ON resolutions "
               "BEGIN SELECT RAISE(FAIL, 'disk I/O error'); END")
    db.commit()
    db.close()
    code, out, err = run(capsys, "resolve", game, "--offline", "--day", "1")
    assert code == 1
    one_error_line(err)
    # issue 39: Russian only; SQLite's own text («disk I/O error») goes to the log
    assert str(game) in err and "state.sqlite3" in err and "disk I/O error" not in err
    assert "можно писать" in err
    db = sqlite3.connect(game / "state.sqlite3")
    assert db.execute("SELECT COUNT(*) FROM post_versions").fetchone()[0] == versions


def test_an_unwritable_out_path_is_one_line(game, capsys):
    """`deal` writes the role cards under out/; out being a file is a clear error."""
    text = (game / "game.toml").read_text(encoding="utf-8")
    (game / "game.toml").write_text(text.replace("start = 2024-04-08", "start = 2030-04-08"),
                                    encoding="utf-8")
    (game / "out").write_text("not a folder", encoding="utf-8")
    code, out, err = run(capsys, "deal", game)
    assert code == 1
    one_error_line(err)
    assert str(game / "out") in err
    assert (game / "out").read_text(encoding="utf-8") == "not a folder"


def test_after_the_game_ended_bare_commands_mean_its_last_day(game, capsys):
    """The game ended on day 1 (in April 2024): `tally`, `moves` and `poll` without --day
    spoke of «day 830 has no topic yet» (today's calendar day) and asked to open it."""
    from datetime import datetime, timezone

    from qa_game import edit
    edit(game, 'url = "http://127.0.0.1/"', 'url = "http://127.0.0.1/"\nretries = 0')
    with Store(game / "state.sqlite3") as s:
        s.save_resolution(1, {"day": 1, "winner": "town", "alive": []},
                          resolved_at=datetime(2024, 4, 9, 17, 1, tzinfo=timezone.utc))
    code, out, err = run(capsys, "tally", game, "--offline", "--format", "json")
    assert code == 0 and '"day": 1,' in out and "has no topic" not in err
    code, out, err = run(capsys, "moves", game, "--offline")
    assert code == 0 and out.startswith("Day 1: night moves")
    code, out, err = run(capsys, "poll", game)
    assert out.startswith("форум: день 1") and "нет темы" not in out + err


def test_a_setup_deal_cannot_make_names_the_game_file(game, capsys):
    import re

    from qa_game import edit
    path = game / "game.toml"
    text = re.sub(r'\nrole = "[a-z]+"', "", path.read_text(encoding="utf-8"))
    path.write_text(text + "\n[deal]\nmafia = 9\n", encoding="utf-8")
    edit(game, 'duty = "Big Joe"', "")
    code, out, err = run(capsys, "deal", game)
    assert code == 1 and out == ""
    assert one_error_line(err).startswith(f"error: {path}: [deal] asks for ")
    assert not (game / "out").exists()


def test_a_day_without_a_topic_names_the_game_in_the_day_open_hint(game, capsys):
    """Issue 18 item 12: the hint said `scraper-mod day open 2 URL`, a command that fails
    (GAME missing); it is now one that can be pasted."""
    code, out, err = run(capsys, "tally", game, "--day", "2", "--offline")
    assert code == 1 and "у дня 2 ещё нет темы" in err          # issue 39: Russian only
    assert f"scraper-mod day open {game} 2 URL" in err
    one_error_line(err)
