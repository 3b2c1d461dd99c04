"""`scraper-mod moves GAME [--day N] [--format text|json] [--offline]` (docs/commands.md) over a
Maildir of real-looking mail: statuses, duplicates, codes, the day of a message, errors."""

from __future__ import annotations

import json

import pytest
from qa_game import copy_game, edit
from servers.movegame import MAIL, deliver, mail, maildir, make_game, msk

from scraper_mod.cli import main


def run(capsys, *args):
    code = main(["moves", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def game(tmp_path):
    folder = make_game(tmp_path / "g")
    md = maildir(folder / "moves")
    for name, when in [("01-multipart-alternative-utf8-qp.eml", "2024-04-09 12:03:15"),
                       ("04-reply-gmail-en-attribution.eml", "2024-04-09 13:47:02"),
                       ("02-html-only-cp1251-base64.eml", "2024-04-09 15:20:45"),
                       ("02-html-only-cp1251-base64.eml", "2024-04-09 15:20:46"),
                       ("06-forwarded.eml", "2024-04-09 17:45:10"),
                       ("05-reply-ru-thunderbird.eml", "2024-04-09 18:30:00"),
                       ("10-malformed.eml", "2024-04-09 19:00:00"),
                       ("07-forged-sender.eml", "2024-04-09 19:10:00")]:
        deliver(md, (MAIL / name).read_bytes(), msk(when))
    return folder


def test_moves_json_as_in_the_contract(game, capsys):
    code, out, err = run(capsys, game, "--day", 1, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["day"] == 1 and data["deadline"] == "2024-04-09T20:00:00+03:00"
    rows = [(m["player"], m["role"], m["kind"], m["target"], m["status"], m["reason"])
            for m in data["moves"]]
    assert rows == [
        ("Вася", "boss", "kill", "Алексей", "counted", ""),
        ("Big Joe", "mafia", "kill", "NightOwl", "replaced", "overridden_by_boss"),
        ("doc_Holiday", "doctor", "heal", "Маша_2", "counted", ""),
        ("Игрок-7", "maniac", "kill", "Маша_2", "counted", ""),
        ("Вася", "boss", "freeze", "Маша_2", "counted", ""),
        ("nightowl@example.org", None, None, None, "invalid", "unreadable"),
        ("vasya@evil.example", None, "kill", "Маша_2", "unknown_sender", "unknown_sender"),
    ]
    first = data["moves"][0]
    assert set(first) >= {"player", "role", "kind", "target", "received_at", "status", "reason"}
    assert first["received_at"] == "2024-04-09T12:03:15+03:00"
    # each message (not the duplicate) got one answer in the outbox
    assert len(list((game / "outbox" / "day-1").iterdir())) == 7


def test_moves_text_table(game, capsys):
    code, out, _ = run(capsys, game, "--day", 1)
    assert code == 0
    assert out.splitlines()[0] == "Day 1: night moves (deadline 2024-04-09 20:00 MSK)"
    assert any("Вася" in ln and "freeze" in ln and "counted" in ln for ln in out.splitlines())
    assert "the Boss sent a kill too" in out
    assert "story from Big Joe (replaced):\n    нашли в парке на скамейке,\n    с газетой" in out


def test_offline_does_not_read_the_source(game, capsys):
    code, out, _ = run(capsys, game, "--day", 1, "--offline", "--format", "json")
    assert code == 0 and json.loads(out)["moves"] == []
    assert len(list((game / "moves" / "new").iterdir())) == 8


def test_R5_1_day_of_a_message_and_lateness(tmp_path, capsys):
    folder = make_game(tmp_path / "g")
    md = maildir(folder / "moves")
    deliver(md, mail("doc@example.org", "лечу Машу"), msk("2024-04-09 19:59:59"))
    deliver(md, mail("doc@example.org", "лечу Алексея"), msk("2024-04-09 20:30:00"))
    deliver(md, mail("doc@example.org", "лечу Big Joe"), msk("2024-04-09 21:00:00"))
    _, out, _ = run(capsys, folder, "--day", 1, "--format", "json")
    assert [(m["target"], m["status"]) for m in json.loads(out)["moves"]] == \
        [("Маша_2", "counted"), ("Алексей", "late")]
    _, out, _ = run(capsys, folder, "--day", 2, "--format", "json", "--offline")
    assert [(m["target"], m["status"]) for m in json.loads(out)["moves"]] == \
        [("Big Joe", "counted")]


def test_secret_codes_required(tmp_path, capsys):
    folder = make_game(tmp_path / "g", moves={"source": "maildir", "path": "moves",
                                               "require_code": True})
    md = maildir(folder / "moves")
    deliver(md, (MAIL / "08-missing-code.eml").read_bytes(), msk("2024-04-09 19:20:00"))
    deliver(md, (MAIL / "09-with-code.eml").read_bytes(), msk("2024-04-09 19:25:00"))
    _, out, _ = run(capsys, folder, "--day", 1, "--format", "json")
    assert [(m["player"], m["status"], m["reason"]) for m in json.loads(out)["moves"]] == [
        ("doc_Holiday", "unknown_sender", "code_missing"), ("doc_Holiday", "counted", "")]
    answers = sorted((folder / "outbox" / "day-1").iterdir())
    assert "нет секретного кода из вашей карточки роли" in answers[0].read_text()
    assert "Принято: лечение — Алексей." in answers[1].read_text()


def test_english_answers(tmp_path, capsys):
    folder = make_game(tmp_path / "g", language="en")
    deliver(maildir(folder / "moves"), mail("bigjoe@example.org", "kill Ёжик"),
            msk("2024-04-09 12:00:00"))
    run(capsys, folder, "--day", 1)
    (answer,) = (folder / "outbox" / "day-1").iterdir()
    text = answer.read_text()
    assert text.startswith("To: bigjoe@example.org\nSubject: Re: ход\n\n")
    assert "the VSB, the Boss's son. The mafia cannot kill the VSB" in text
    assert "Correct it before the deadline (09.04, 20:00 Moscow time)" in text


def test_unreadable_mailbox_is_one_error_line(tmp_path, capsys):
    folder = make_game(tmp_path / "g")          # no moves/ folder at all
    code, out, err = run(capsys, folder, "--day", 1)
    assert code == 1
    # a Russian game: Russian only (issue 39 item 4)
    assert err.startswith("ошибка: maildir:") and "нет такой папки Maildir" in err
    assert "Traceback" not in err
    assert out.startswith("Day 1: night moves")   # what is stored still shows


def test_help(capsys):
    with pytest.raises(SystemExit) as e:
        main(["moves", "--help"])
    assert e.value.code == 0
    assert "--offline" in capsys.readouterr().out


def test_day_2_is_judged_from_the_stored_state_after_day_1(tmp_path, capsys):
    """R5.5: the Commissar died on day 1, so on day 2 the promoted Sergeant checks and the
    dead Commissar's move is invalid; the state comes from day 1's stored resolution."""
    from scraper_mod.game.context import open_game
    from scraper_mod.game.night.intake import state_before_day
    folder = make_game(tmp_path / "g")
    md = maildir(folder / "moves")
    deliver(md, mail("alexey@example.org", "проверить Big Joe"), msk("2024-04-10 12:00:00"))
    deliver(md, mail("nightowl@example.org", "проверить Big Joe"), msk("2024-04-10 13:00:00"))
    ctx = open_game(folder)
    try:
        s1 = state_before_day(ctx, 1)
        after = s1.evolve(alive=s1.alive - {"Алексей"}, commissar="NightOwl", sergeant=None,
                          day=1)
        ctx.store.save_resolution(1, {"state": after.to_json()},
                                  resolved_at=msk("2024-04-09 20:01:00"))
    finally:
        ctx.close()
    _, out, _ = run(capsys, folder, "--day", 2, "--format", "json")
    assert [(m["player"], m["status"], m["reason"]) for m in json.loads(out)["moves"]] == [
        ("Алексей", "invalid", "sender_dead"), ("NightOwl", "counted", "")]


def test_old_mail_in_the_mailbox_is_not_part_of_the_game(tmp_path, capsys):
    """A host's everyday mailbox: mail from before the game is stored but never judged or
    answered; a move sent after early role cards (up to a day before day 1) counts for day 1."""
    folder = make_game(tmp_path / "g")
    md = maildir(folder / "moves")
    deliver(md, mail("news@shop.example", "Скидки недели!"), msk("2024-03-01 10:00:00"))
    deliver(md, mail("doc@example.org", "лечу Машу"), msk("2024-04-08 20:30:00"))
    _, out, _ = run(capsys, folder, "--day", 1, "--format", "json")
    assert [(m["player"], m["status"]) for m in json.loads(out)["moves"]] == [
        ("doc_Holiday", "counted")]
    assert len(list((folder / "outbox" / "day-1").iterdir())) == 1
    assert not (folder / "outbox" / "day-0").exists()


def test_an_idle_poll_reads_nothing_again(tmp_path, monkeypatch):
    """Once every stored message is answered, a poll with nothing new decodes nothing."""
    from scraper_mod.clock import FakeClock
    from scraper_mod.game.context import open_game
    from scraper_mod.game.night import intake
    folder = make_game(tmp_path / "g")
    md = maildir(folder / "moves")
    deliver(md, mail("doc@example.org", "лечу Машу"), msk("2024-04-09 12:00:00"))
    deliver(md, mail("news@shop.example", "Скидки!"), msk("2024-04-09 12:30:00"))
    ctx = open_game(folder, clock=FakeClock(msk("2024-04-09 13:00:00")))
    try:
        assert len(intake.poll_moves(ctx).answers) == 2
        reads = []
        real = intake.read_letter
        monkeypatch.setattr(intake, "read_letter",
                            lambda m, **kw: reads.append(m.id) or real(m, **kw))
        assert intake.poll_moves(ctx).answers == () and reads == []
        deliver(md, mail("alexey@example.org", "проверить Big Joe"), msk("2024-04-09 13:10:00"))
        assert [a.to for a in intake.poll_moves(ctx).answers] == ["alexey@example.org"]
    finally:
        ctx.close()


def test_an_unreadable_message_names_where_it_came_from(game, capsys):
    """The host can find a damaged message: its Maildir file is named in the table and the
    JSON (``origin``)."""
    code, out, err = run(capsys, game, "--day", 1, "--format", "json")
    assert code == 0, err
    bad = [m for m in json.loads(out)["moves"] if m["reason"] == "unreadable"]
    assert len(bad) == 1 and bad[0]["origin"].startswith("maildir:")
    stored_name = bad[0]["origin"].split(" ", 1)[1]
    assert any(stored_name.split(":")[0] in p.name
               for p in (game / "moves" / "cur").iterdir())
    code, out, _ = run(capsys, game, "--day", 1, "--offline")
    line = next(ln for ln in out.splitlines() if "could not be read" in ln)
    assert f"({bad[0]['origin']})" in line


# -- the QA pass: moves ---------------------------------------------------------------------------
# QA: the night-move source misconfigured by the host: one line naming the source and what is
# wrong; nothing in the folder is touched.


@pytest.mark.parametrize("source, kind", [("maildir", "Maildir"), ("queue", "queue")])
def test_moves_path_is_a_file(tmp_path, capsys, source, kind):
    game = copy_game(tmp_path)
    edit(game, 'source = "maildir"', f'source = "{source}"')
    (game / "moves").write_text("убить Машу\n", encoding="utf-8")
    code = main(["moves", str(game), "--day", "1"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("ошибка: ") and err.count("\n") == 1   # issue 39
    assert f"{source}:{game / 'moves'}: это файл, а не папка" in err
    assert "[moves] path" in err
    assert (game / "moves").read_text(encoding="utf-8") == "убить Машу\n"


@pytest.mark.parametrize("source, kind", [("maildir", "Maildir"), ("queue", "queue")])
def test_moves_path_missing(tmp_path, capsys, source, kind):
    game = copy_game(tmp_path)
    edit(game, 'source = "maildir"', f'source = "{source}"')
    code = main(["moves", str(game), "--day", "1"])
    err = capsys.readouterr().err
    what = {"Maildir": "папки Maildir", "queue": "папки очереди"}[kind]     # issue 39
    assert code == 1 and f"нет такой {what}" in err and "[moves] path" in err


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
