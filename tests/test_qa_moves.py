"""QA: the night-move source misconfigured by the host: one line naming the source and what is
wrong; nothing in the folder is touched."""

from __future__ import annotations

import pytest
from qa_game import copy_game, edit

from scraper_mod.cli import main


@pytest.mark.parametrize("source, kind", [("maildir", "Maildir"), ("queue", "queue")])
def test_moves_path_is_a_file(tmp_path, capsys, source, kind):
    game = copy_game(tmp_path)
    edit(game, 'source = "maildir"', f'source = "{source}"')
    (game / "moves").write_text("убить Машу\n", encoding="utf-8")
    code = main(["moves", str(game), "--day", "1"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: ") and err.count("\n") == 1
    assert f"{source}:{game / 'moves'}: not a folder but a file" in err
    assert "[moves] path" in err
    assert (game / "moves").read_text(encoding="utf-8") == "убить Машу\n"


@pytest.mark.parametrize("source, kind", [("maildir", "Maildir"), ("queue", "queue")])
def test_moves_path_missing(tmp_path, capsys, source, kind):
    game = copy_game(tmp_path)
    edit(game, 'source = "maildir"', f'source = "{source}"')
    code = main(["moves", str(game), "--day", "1"])
    err = capsys.readouterr().err
    assert code == 1 and f"no such {kind} folder" in err and "[moves] path" in err
