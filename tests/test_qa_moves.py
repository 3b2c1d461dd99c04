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


def test_moves_after_deal_use_the_dealt_roles(tmp_path, capsys):
    """A game file without roles: `deal` draws them into the state. `moves` judged the night
    from the game file alone and failed with «player 'Вася' has no role yet»; `resolve` used
    the dealt roles. Now both do."""
    import json
    import os
    import re
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from scraper_mod.game.context import open_game
    from scraper_mod.rules.deal import effective_players
    from scraper_mod.rules.model import Role

    game = copy_game(tmp_path)
    path = game / "game.toml"
    text = re.sub(r'\nrole = "[a-z]+"', "", path.read_text(encoding="utf-8"))
    text = re.sub(r"random_list = \[.*?\]\n", "", text, flags=re.S)
    path.write_text(text.replace('[mafia]\nduty = "Big Joe"', ""), encoding="utf-8")
    assert main(["deal", str(game)]) == 0
    capsys.readouterr()
    ctx = open_game(game)
    try:
        players = effective_players(ctx.game, ctx.store.get("deal"))
    finally:
        ctx.close()
    doctor = next(p for p in players if p.role is Role.DOCTOR)
    patient = next(p for p in players if p.role is Role.CIVILIAN)
    for sub in ("cur", "new", "tmp"):
        (game / "moves" / sub).mkdir(parents=True)
    mail = game / "moves" / "new" / "1712653200.M1P1.host"
    mail.write_text(f"From: {doctor.contact}\nTo: host@example.org\nSubject: ход\n"
                    f"Content-Type: text/plain; charset=utf-8\n\nлечу {patient.nick}\n",
                    encoding="utf-8")
    received = datetime(2024, 4, 9, 12, 0, tzinfo=ZoneInfo("Europe/Moscow")).timestamp()
    os.utime(mail, (received, received))
    code = main(["moves", str(game), "--day", "1", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    moves = json.loads(out)["moves"]
    assert [(m["player"], m["role"], m["kind"], m["target"], m["status"]) for m in moves] == [
        (doctor.nick, "doctor", "heal", patient.nick, "counted")]
