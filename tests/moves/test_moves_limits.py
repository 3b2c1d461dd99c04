"""Issue 18 (items 1, 3, 12): no night-move message can stop the game or eat the machine.

A mail of 1,000 nested MIME parts, a message over the size limit and a message of 40,000
moves, delivered into a real Maildir, a queue folder and a real IMAP server (pymap on
127.0.0.1) ahead of a good move: each is judged invalid (or cut) and answered, and the good
move behind it is read. A queue file with NUL bytes keeps its From: line."""

from __future__ import annotations

import json
import os
import time

import pytest
from servers.imap import PASSWORD, USER
from servers.movegame import deliver, mail, maildir, make_game, msk
from test_moves_sources import imap  # noqa: F401 - the pymap server fixture (plain IMAP)

from scraper_mod.cli import main
from scraper_mod.clock import FakeClock
from scraper_mod.game.context import open_game
from scraper_mod.game.night.intake import day_moves, poll_moves

MAX_MIME_DEPTH = 20   # scraper_mod.moves.mail.MAX_MIME_DEPTH


def nested_mail(depth: int, *, sender: str = "vasya@example.org") -> bytes:
    """A real MIME mail whose text part sits ``depth`` multipart levels deep (each level a
    multipart/mixed with its own boundary, closed properly), as a mail bomb is written."""
    head = (f"From: Вася <{sender}>\r\nTo: host@example.org\r\nSubject: ход\r\n"
            f"Message-ID: <nested-{depth}@example.org>\r\nDate: Tue, 9 Apr 2024 12:00:00 +0300\r\n"
            "MIME-Version: 1.0\r\n")
    opening = "".join(f'Content-Type: multipart/mixed; boundary="=_b{i}"\r\n\r\n--=_b{i}\r\n'
                      for i in range(depth))
    text = ("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
            "убить Машу\r\n")
    closing = "".join(f"\r\n--=_b{i}--\r\n" for i in reversed(range(depth)))
    return (head + opening + text + closing).encode("utf-8")


def run_moves(capsys, game, *extra):
    code = main(["moves", str(game), "--day", "1", "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in err and "unexpected" not in err
    return [(m["player"], m["kind"], m["target"], m["status"], m["reason"])
            for m in json.loads(out)["moves"]], err


def queue_file(folder, name, raw, when):
    path = folder / name
    path.write_bytes(raw)
    os.utime(path, (when.timestamp(), when.timestamp()))
    return path


def answers(game):
    return sorted((p.read_text(encoding="utf-8") for p in (game / "outbox" / "day-1").iterdir()))


EXPECTED_NESTED = [
    ("vasya@example.org", None, None, "invalid", "unreadable"),
    ("doc_Holiday", "heal", "Маша_2", "counted", ""),
]


def test_the_nested_mail_is_64_kb_and_1000_deep():
    from scraper_mod.moves import mail as mail_module
    from scraper_mod.moves.mail import mime_depth
    assert mail_module.MAX_MIME_DEPTH == MAX_MIME_DEPTH
    raw = nested_mail(1000)
    assert 60_000 < len(raw) < 80_000
    assert mime_depth(raw) == MAX_MIME_DEPTH + 1          # counting stops past the limit
    assert mime_depth(nested_mail(3)) == 3


def test_item1_nested_mail_in_a_maildir_is_answered_and_the_next_is_read(tmp_path, capsys):
    """Was: «unexpected RecursionError» from `moves` (the Maildir reader parsed each mail),
    and the good mail behind it never read."""
    game = make_game(tmp_path / "g")
    md = maildir(game / "moves")
    deliver(md, nested_mail(1000), msk("2024-04-09 12:00:00"))
    deliver(md, mail("doc@example.org", "лечу Машу"), msk("2024-04-09 12:05:00"))
    rows, _ = run_moves(capsys, game)
    assert rows == EXPECTED_NESTED
    bad, good = answers(game)[1], answers(game)[0]
    assert bad.startswith("To: vasya@example.org\n")
    assert "Не засчитано: в письме слишком много вложенных частей, оно не прочитано." in bad
    assert "Принято: лечение — Маша_2." in good
    # resolve's reading of the stored messages (--offline) judges the same
    rows, _ = run_moves(capsys, game, "--offline")
    assert rows == EXPECTED_NESTED


def test_item1_nested_mail_in_a_queue_folder(tmp_path, capsys):
    game = make_game(tmp_path / "g", moves={"source": "queue", "path": "moves"})
    (game / "moves").mkdir()
    queue_file(game / "moves", "a.eml", nested_mail(1000), msk("2024-04-09 12:00:00"))
    queue_file(game / "moves", "b.eml", mail("doc@example.org", "лечу Машу"),
               msk("2024-04-09 12:05:00"))
    rows, _ = run_moves(capsys, game)
    assert rows == EXPECTED_NESTED
    assert sorted(os.listdir(game / "moves" / "done")) == ["a.eml", "b.eml"]


def test_real_nesting_is_read(tmp_path, capsys):
    """Mail nested as clients nest it (and deeper) is read as before."""
    game = make_game(tmp_path / "g")
    md = maildir(game / "moves")
    deliver(md, nested_mail(MAX_MIME_DEPTH, sender="doc@example.org").replace(
        "убить Машу".encode(), "лечу Машу".encode()), msk("2024-04-09 12:05:00"))
    rows, _ = run_moves(capsys, game)
    assert rows == [("doc_Holiday", "heal", "Маша_2", "counted", "")]


def imap_game(tmp_path, imap, folder, **extra):
    return make_game(tmp_path / "g", moves={
        "source": "imap", "host": "127.0.0.1", "port": imap.port, "username": USER,
        "folder": folder, "security": "none", **extra})


def test_item3_through_imap(tmp_path, imap, monkeypatch, capsys):
    """A 6 MiB mail through a real IMAP server: only the first max_message_size bytes of it
    are fetched (a partial FETCH), and the mail behind it is read. (The nested mail cannot be
    tried here: pymap itself fails on its APPEND with «Unhandled server error».)"""
    monkeypatch.setenv("SCRAPER_MOD_IMAP_PASSWORD", PASSWORD)
    big = mail("bigjoe@example.org", "убить Машу\n" + "х" * (3 << 20))   # 6 MiB of UTF-8
    imap.create("limits")
    imap.append_many("limits", [
        (big, msk("2024-04-09 12:01:00")),
        (mail("doc@example.org", "лечу Машу"), msk("2024-04-09 12:05:00")),
    ])
    game = imap_game(tmp_path, imap, "limits")
    rows, err = run_moves(capsys, game)
    assert rows == [("bigjoe@example.org", None, None, "invalid", "unreadable"),
                    EXPECTED_NESTED[1]]
    assert ": 6.0 MiB, over the message size limit of 1 MiB ([moves] max_message_size)" in err
    assert f"imap:{USER}@127.0.0.1:{imap.port}/limits: UID " in err
    ctx = open_game(game)
    try:
        assert [len(m.raw) for m in ctx.store.messages()] == [1 << 20, len(mail(
            "doc@example.org", "лечу Машу"))]
    finally:
        ctx.close()
    assert any("слишком большое (больше 1 МБ)" in a for a in answers(game))


# -- item 3: sizes and counts -------------------------------------------------------------------

def test_item3_a_huge_queue_file_is_read_up_to_the_limit_and_answered(tmp_path, capsys):
    """Was: a 21 MB queue file ran past 120 s at 1.5 GB. Now its first 1 MiB is stored,
    the file itself kept in done/, the sender answered that it is too large."""
    game = make_game(tmp_path / "g", moves={"source": "queue", "path": "moves"})
    (game / "moves").mkdir()
    huge = mail("bigjoe@example.org", "убить Машу\n" + "лечу E\n" * 1_835_000)
    assert 21 << 20 < len(huge) < 22 << 20
    queue_file(game / "moves", "huge.eml", huge, msk("2024-04-09 12:00:00"))
    queue_file(game / "moves", "ok.eml", mail("doc@example.org", "лечу Машу"),
               msk("2024-04-09 12:05:00"))
    started = time.monotonic()
    rows, err = run_moves(capsys, game)
    assert time.monotonic() - started < 30    # was past 120 s
    assert rows == [("bigjoe@example.org", None, None, "invalid", "unreadable"),
                    ("doc_Holiday", "heal", "Маша_2", "counted", "")]
    assert (f"queue:{game / 'moves'}: huge.eml: 21.") in err
    assert (" MiB, over the message size limit of 1 MiB ([moves] max_message_size): only its "
            "first 1 MiB stored") in err
    assert (game / "moves" / "done" / "huge.eml").stat().st_size == len(huge)  # nothing lost
    big = next(a for a in answers(game) if a.startswith("To: bigjoe@example.org"))
    assert "Не засчитано: сообщение слишком большое (больше 1 МБ) и не прочитано." in big


def test_item3_the_limits_come_from_game_toml(tmp_path, capsys):
    game = make_game(tmp_path / "g", moves={"source": "queue", "path": "moves",
                                            "max_message_size": 2048,
                                            "max_moves_per_message": 2})
    (game / "moves").mkdir()
    queue_file(game / "moves", "a.eml", mail("doc@example.org", "лечу Машу\n" + "x" * 3000),
               msk("2024-04-09 12:00:00"))
    queue_file(game / "moves", "b.eml", mail("vasya@example.org",
                                             "убить Машу\nзаморозить Алексея\nубить NightOwl"),
               msk("2024-04-09 12:05:00"))
    rows, err = run_moves(capsys, game)
    assert rows == [("doc@example.org", None, None, "invalid", "unreadable"),
                    ("Вася", "kill", "Маша_2", "counted", ""),
                    ("Вася", "freeze", "Алексей", "counted", "")]
    assert "a.eml: 3.2 KiB, over the message size limit of 2 KiB" in err


def test_item3_40000_moves_in_one_message_are_20(tmp_path, capsys):
    """Was: 40,000 «heal E» lines became 40,000 moves and a 1.88 MB answer."""
    game = make_game(tmp_path / "g", moves={"source": "queue", "path": "moves"})
    (game / "moves").mkdir()
    raw = mail("doc@example.org", "heal E\n" * 40_000)
    assert 270_000 < len(raw) < 330_000
    queue_file(game / "moves", "many.eml", raw, msk("2024-04-09 12:00:00"))
    started = time.monotonic()
    rows, _ = run_moves(capsys, game)
    assert time.monotonic() - started < 20
    assert len(rows) == 20
    assert {r[3:] for r in rows} == {("invalid", "unknown_target")}
    (answer,) = answers(game)
    assert len(answer) < 4000
    assert "Из одного сообщения читается не больше 20 ходов: остальное в этом сообщении не " \
           "прочитано." in answer


# -- item 12: a queue file with NUL bytes -------------------------------------------------------

def test_item12_a_queue_file_with_nul_bytes_keeps_its_sender(tmp_path, capsys):
    """Was: sender «?» (the whole file refused as binary); now the From: line is read and
    the player is answered that the message could not be read."""
    game = make_game(tmp_path / "g", moves={"source": "queue", "path": "moves"})
    (game / "moves").mkdir()
    raw = mail("doc@example.org", "лечу Машу\x00\x00\x00\x01")
    queue_file(game / "moves", "nul.eml", raw, msk("2024-04-09 12:00:00"))
    rows, _ = run_moves(capsys, game)
    assert rows == [("doc@example.org", None, None, "invalid", "unreadable")]
    (answer,) = answers(game)
    assert answer.startswith("To: doc@example.org\n")
    assert "Не засчитано: сообщение не удалось прочитать." in answer


def test_a_pm_over_the_size_limit_is_too_large(tmp_path):
    """A PM's text over max_message_size is judged too large (the page itself is capped by
    [forum] max_page_size when fetched)."""
    from pathlib import Path

    from scraper_mod.game.night.intake import read_letter
    from scraper_mod.store import StoredMessage
    view = (Path(__file__).resolve().parents[2] / "fixtures" / "phpbb" / "phpbb-3.3.15" /
            "pm" / "subsilver2-port-gorski-ru" / "view_p6.html")
    msg = StoredMessage(1, "phpbb_pm:http://127.0.0.1:9", "pm/3", msk("2024-04-09 12:00:00"),
                        view.read_bytes())
    assert read_letter(msg).problem == ""
    letter = read_letter(msg, max_size=10)
    assert letter.limit == "size" and letter.problem.startswith("unreadable")
    assert letter.sender                              # the PM's author, to answer


def test_poll_goes_on_after_the_bad_ones(tmp_path):
    """The daemon's poll (poll_moves) with the nested and the huge mail in the Maildir: no
    exception, every message answered."""
    game = make_game(tmp_path / "g")
    md = maildir(game / "moves")
    deliver(md, nested_mail(1000), msk("2024-04-09 12:00:00"))
    deliver(md, mail("bigjoe@example.org", "x" * (2 << 20)), msk("2024-04-09 12:01:00"))
    deliver(md, mail("doc@example.org", "лечу Машу"), msk("2024-04-09 12:05:00"))
    ctx = open_game(game, clock=FakeClock(msk("2024-04-09 13:00:00")))
    try:
        rep = poll_moves(ctx)
        assert len(rep.fetch.new) == 3 and len(rep.answers) == 3 and not rep.errors
        assert [m.status for m in day_moves(ctx, 1)] == ["invalid", "invalid", "counted"]
    finally:
        ctx.close()


@pytest.mark.parametrize("table, line, says", [
    ("forum", "max_page_size = 100", "forum.max_page_size: must be a number of bytes of at least "
                                     "1024, not 100"),
    ("forum", "request_time_limit = 0", "forum.request_time_limit: must be a finite number of "
                                        "seconds > 0"),
    ("forum", 'page_time_limit = "1 min"', "forum.page_time_limit: must be a number"),
    ("moves", "max_message_size = -1", "moves.max_message_size: must be a number of bytes"),
    ("moves", "max_moves_per_message = 0", "moves.max_moves_per_message: must be at least 1"),
])
def test_a_bad_limit_in_game_toml_is_one_error_line(tmp_path, capsys, table, line, says):
    game = make_game(tmp_path / "g")
    path = game / "game.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(f"[{table}]\n", f"[{table}]\n{line}\n"), encoding="utf-8")
    assert main(["moves", str(game), "--offline"]) == 1
    err = capsys.readouterr().err
    # issue 39: a Russian game's line is Russian where the message has a Russian text
    assert err.startswith(("error: ", "ошибка: ")) and err.count("\n") == 1, err
    assert says in err or says.split(": ")[0] in err and err.startswith("ошибка: "), err
