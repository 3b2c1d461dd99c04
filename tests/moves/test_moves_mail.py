"""Decoding real mail (issue 5): multipart, HTML only, quoted-printable and base64 Cyrillic in
koi8-r / cp1251 / UTF-8, encoded-word subjects, replies and forwards (quotes ignored), a
mislabelled charset, damaged and binary messages."""

from __future__ import annotations

import pytest
from servers.movegame import MAIL, PLAYERS

from scraper_mod.errors import MailboxError
from scraper_mod.moves.grammar import parse_moves
from scraper_mod.moves.mail import decode_message, html_to_text, sender_matches, strip_quotes
from scraper_mod.moves.targets import matcher_for
from scraper_mod.rules.model import MoveKind, Player


def load(name):
    return decode_message((MAIL / name).read_bytes(), label=name)


@pytest.fixture(scope="module")
def match():
    return matcher_for([Player(n, aliases=tuple(a)) for n, _r, _c, a, _code in PLAYERS])


def test_multipart_alternative_qp_utf8_prefers_plain_and_drops_signature():
    m = load("01-multipart-alternative-utf8-qp.eml")
    assert m.sender == "vasya@example.org"          # lower-cased address
    assert m.sender_name == "Вася"                    # encoded-word display name
    assert m.subject == "ход на ночь 1"               # base64 encoded-word subject
    assert m.text == "Добрый вечер!\nубить Алексея"   # no "-- " signature
    assert m.message_id == "6a1b2c3d-0001-4a5b-9c8d-vasya@example.org"


def test_html_only_cp1251_base64(match):
    m = load("02-html-only-cp1251-base64.eml")
    assert m.subject == "лечение"
    assert "Лечу Машу сегодня." in m.text and "<" not in m.text and "MsoNormal" not in m.text
    assert [(x.kind, x.target) for x in parse_moves(m.full_text, match).moves] == \
        [(MoveKind.HEAL, "Маша_2")]


def test_koi8r_quoted_printable_and_koi8r_subject(match):
    m = load("03-plain-koi8r-qp.eml")
    assert m.subject == "Проверка"
    assert m.text.startswith("Проверяю Big Joe.")
    assert [(x.kind, x.target) for x in parse_moves(m.full_text, match).moves] == \
        [(MoveKind.CHECK, "Big Joe")]


def test_gmail_reply_quote_ignored_story_kept(match):
    m = load("04-reply-gmail-en-attribution.eml")
    assert "убить Вася" not in m.text and "wrote:" not in m.text
    p = parse_moves(m.full_text, match)
    assert [(x.kind, x.target) for x in p.moves] == [(MoveKind.KILL, "NightOwl")]
    assert p.story == "нашли в парке на скамейке,\nс газетой в руках."


def test_russian_reply_quote_ignored(match):
    m = load("05-reply-ru-thunderbird.eml")
    assert m.text == "Заморозить Машу"
    assert [(x.kind, x.target) for x in parse_moves(m.full_text, match).moves] == \
        [(MoveKind.FREEZE, "Маша_2")]


def test_forwarded_message_is_not_the_senders_move(match):
    m = load("06-forwarded.eml")
    assert m.text == "убить Машу"
    assert [(x.kind, x.target) for x in parse_moves(m.full_text, match).moves] == \
        [(MoveKind.KILL, "Маша_2")]


def test_mislabelled_charset_is_recovered(match):
    m = load("12-two-moves-mislabelled-charset.eml")  # koi8-r bytes labelled windows-1251
    assert m.text == "Ход 1: убить Big Joe\nХод 2: проверить Алексея"
    assert [(x.kind, x.target) for x in parse_moves(m.full_text, match).moves] == \
        [(MoveKind.KILL, "Big Joe"), (MoveKind.CHECK, "Алексей")]


def test_damaged_mime_is_flagged():
    m = load("10-malformed.eml")
    assert m.sender == "nightowl@example.org"
    assert "InvalidBase64CharactersDefect" in m.defects


def test_binary_data_is_a_clear_error():
    with pytest.raises(MailboxError, match="11-not-mail.bin: binary data"):
        load("11-not-mail.bin")
    with pytest.raises(MailboxError, match="empty message"):
        decode_message(b"\r\n\r\n", label="x")


def test_bare_text_without_headers_has_no_sender():
    m = decode_message("убить Васю\n".encode(), label="q1")
    assert m.sender is None and m.text == "убить Васю"


def test_strip_quotes_forms():
    assert strip_quotes("лечу Машу\n> убить Васю\n>> старое") == "лечу Машу"
    assert strip_quotes("kill X\n\nOn Tue, 9 Apr 2024 at 17:00, Host <h@x.org> wrote:\n"
                        "kill Y") == "kill X"
    assert strip_quotes("лечу Машу\nВася написал(а):\nубить Алексея") == "лечу Машу"
    assert strip_quotes("лечу Машу\nвт, 9 апр. 2024 г. в 17:00, Ведущий <host@example.org>:\n"
                        "убить Алексея") == "лечу Машу"
    assert strip_quotes("лечу Машу\n-------- Пересылаемое сообщение --------\nубить") == \
        "лечу Машу"
    assert strip_quotes("a\nFrom: Host <h@x>\nSent: Tuesday\nкилл") == "a"


def test_html_blockquote_dropped():
    assert html_to_text("<p>лечу Машу</p><blockquote>убить <b>Васю</b></blockquote>") == \
        "лечу Машу"


def test_sender_matches_ignores_case_and_display_name():
    assert sender_matches("Vasya@Example.ORG", "vasya@example.org")
    assert sender_matches('"Вася" <vasya@example.org>', "VASYA@example.org")
    assert not sender_matches("vasya@evil.example", "vasya@example.org")
    assert not sender_matches(None, "vasya@example.org")


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_FIXTURES = sorted(p.read_bytes() for p in MAIL.glob("*.eml"))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_FIXTURES), st.integers(0, 4000), st.integers(1, 200),
       st.binary(max_size=40))
def test_damaged_mail_never_crashes(raw, at, length, junk):
    """Any damage to real mail gives a MailText or a MailboxError, never a traceback."""
    damaged = raw[:at] + junk + raw[at + length:]
    try:
        m = decode_message(damaged, label="fuzz")
    except MailboxError:
        return
    assert isinstance(m.text, str) and isinstance(m.subject, str)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600))
def test_random_bytes_never_crash(raw):
    try:
        decode_message(b"From: a@b.c\r\nSubject: x\r\n\r\n" + raw, label="fuzz")
        decode_message(raw, label="fuzz")
    except MailboxError:
        pass


def test_duplicate_delivery_has_one_message_id():
    a, b = load("13-duplicate-delivery-a.eml"), load("13-duplicate-delivery-b.eml")
    assert a.message_id == b.message_id == "CAF=doc+night1-0013@mail.gmail.com"
    assert (a.sender, a.text) == (b.sender, b.text) == ("doc@example.org", "Ход: лечу Алексея")
