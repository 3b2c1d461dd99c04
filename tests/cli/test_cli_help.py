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
