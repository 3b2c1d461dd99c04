"""Every command has help text (STYLE.md), and usage errors exit 2 without a traceback."""

from __future__ import annotations

import pytest

from scraper_mod.cli import COMMANDS, build_parser, main


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
    assert err.startswith("error: ") and err.count("\n") == 1
    assert "nope" in err and "Traceback" not in err
