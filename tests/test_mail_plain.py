"""The short way through a plain one-part letter (``moves/mail.py`` ``_plain_mail``, issue
16) reads every letter exactly as the email package's modern rules read it, and leaves every
other letter to them."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from scraper_mod.moves import mail
from scraper_mod.moves.mail import decode_message

MAIL = Path(__file__).resolve().parent.parent / "fixtures" / "mail"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def letter(headers: str, body: bytes = "убить Лиса\n".encode("utf-8"), *,
           ctype: str = 'text/plain; charset="utf-8"', cte: str = "8bit") -> bytes:
    head = headers.strip("\n").replace("\n", "\r\n")
    return (f"{head}\r\nContent-Type: {ctype}\r\nContent-Transfer-Encoding: {cte}\r\n"
            "MIME-Version: 1.0\r\n\r\n").encode("utf-8") + body   # 8-bit headers as sent


SUBJECT = f"Subject: =?utf-8?b?{_b64('Ход')}?="
BASE = (f"From: =?utf-8?b?{_b64('Вася')}?= <player1@example.org>\nTo: host@example.org\n"
        f"{SUBJECT}\nDate: Mon, 08 Apr 2024 22:00:00 +0300\nMessage-ID: <m1@example.org>")
ENC_FROM = f"From: =?utf-8?b?{_b64('Маша_2')}?= <player2@example.org>"
PLAIN = {
    "encoded sender and subject": letter(
        f"{ENC_FROM}\nSubject: =?utf-8?b?{_b64('Ход')}?=\nMessage-ID: <move-1-59@example.org>"
        "\nDate: Mon, 08 Apr 2024 22:00:00 +0300",
        base64.encodebytes("убить Лиса Алиса\nистория: тихо\n".encode()), cte="base64"),
    "two encoded words and plain text": letter(
        f"{ENC_FROM}\nSubject: Re: =?utf-8?q?=D0=A5=D0=BE=D0=B4?= =?utf-8?b?{_b64(' ночью')}?= ok"),
    "koi8-r quoted-printable": letter(
        "From: petya@example.org\nSubject: =?koi8-r?b?" + base64.b64encode(
            "Ход".encode("koi8-r")).decode() + "?=",
        "=D5=C2=C9=D4=D8 =EC=C9=D3=C1\n".encode("ascii"),
        ctype="text/plain; charset=koi8-r", cte="quoted-printable"),
    "a mislabelled charset": letter(
        "From: Petya <petya@example.org>", "убить Лиса".encode("koi8-r"),
        ctype="text/plain; charset=windows-1251"),
    "no Message-ID, no Date, a quote": letter(
        "From: <petya@example.org>\nSubject: hod",
        "проверить Вася\n\n> старое письмо\n> убить Маша\n".encode()),
    "a sender without a From": letter("Sender: J. Doe <jdoe@example.org>\nSubject: x"),
    "lower-case header names": letter("from: vasya@example.org\nsubject: hod\nmessage-id: <a@b>"),
    "an empty encoded word": letter(BASE.replace(SUBJECT, "Subject: =?utf-8?b?####?=")),
    "a signature": letter(BASE, "лечить Вася\n-- \nВася, с телефона\n".encode()),
    "spaces in the subject": letter(BASE.replace(SUBJECT, "Subject:   Hod    noch'yu  ")),
    "a plain display name": letter(BASE.replace("From: =?", "From: V. Pupkin =?")),
}
LONG_WAY = {
    "a display name with a comma": letter(
        f"From: =?utf-8?b?{_b64('Иванов, Вася')}?= <vasya@example.org>"),
    "a quoted display name": letter('From: "Doe, John" <jdoe@example.org>'),
    "a comment": letter("From: jdoe@example.org (John (the) Doe)"),
    "a folded subject": letter(BASE.replace(SUBJECT, SUBJECT + "\n night")),
    "a raw 8-bit subject": letter(BASE.replace(SUBJECT, "Subject: Ход")),
    "a raw 8-bit sender": letter("From: Вася <player1@example.org>"),
    "half a letter in a word": letter(BASE.replace(SUBJECT, "Subject: =?utf-8?q?=D0?=")),
    "an unknown charset in a word": letter(BASE.replace(SUBJECT, "Subject: =?x-unknown?q?abc?=")),
    "two From headers": letter(BASE + "\nFrom: other@example.org"),
    "two addresses": letter("From: a@example.org, b@example.org"),
    "bad base64": letter(BASE, b"0YPQsdC40YLRjCD!!Q\n", cte="base64"),
    "html": letter(BASE, "<p>убить Лиса</p>".encode(), ctype="text/html; charset=utf-8"),
    "an attachment": letter(BASE + "\nContent-Disposition: attachment; filename=a.txt"),
    "multipart": (f"{BASE}\nContent-Type: multipart/alternative; boundary=XX\n\n--XX\n"
                  "Content-Type: text/plain; charset=utf-8\n\nубить Лиса\n--XX--\n"
                  ).replace("\n", "\r\n").encode(),
}


def long_way(raw: bytes, monkeypatch) -> mail.MailText:
    with monkeypatch.context() as m:
        m.setattr(mail, "_plain_mail", lambda raw: None)
        return decode_message(raw)


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_a_plain_letter_is_read_the_short_way_as_the_long_way_reads_it(name, monkeypatch):
    raw = PLAIN[name]
    short = mail._plain_mail(raw)
    assert short is not None
    assert short == long_way(raw, monkeypatch) == decode_message(raw)


@pytest.mark.parametrize("name", sorted(LONG_WAY))
def test_any_other_letter_is_left_to_the_email_package(name, monkeypatch):
    raw = LONG_WAY[name]
    assert mail._plain_mail(raw) is None
    assert decode_message(raw) == long_way(raw, monkeypatch)


def test_the_fixture_mails_read_as_before(monkeypatch):
    """Every real mail of the fixtures: the same reading either way; the plain ones short."""
    short = 0
    paths = sorted(MAIL.glob("*.eml"))
    assert len(paths) >= 12
    for path in paths:
        raw = path.read_bytes()
        assert decode_message(raw) == long_way(raw, monkeypatch), path.name
        short += mail._plain_mail(raw) is not None
    assert 1 <= short < len(paths)       # the multipart and HTML ones go the long way


def test_what_the_short_way_reads_from_a_move_letter():
    got = decode_message(PLAIN["encoded sender and subject"])
    assert (got.sender, got.sender_name, got.message_id, got.subject) == (
        "player2@example.org", "Маша_2", "move-1-59@example.org", "Ход")
    assert got.text == "убить Лиса Алиса\nистория: тихо"
    assert got.date_header is not None and got.date_header.utcoffset().total_seconds() == 10800
