"""End to end (issue 5): real mail delivered into a real IMAP server (pymap on 127.0.0.1,
STARTTLS with a test certificate, and implicit TLS through a TLS proxy), read by the intake,
judged by R5, answered through a real SMTP server (aiosmtpd on 127.0.0.1)."""

from __future__ import annotations

import pytest
from servers.imap import PASSWORD, USER, Proxy, PymapServer, client_context
from servers.movegame import MAIL, mail, make_game, msk
from servers.smtp import SmtpServer

from scraper_mod.clock import FakeClock
from scraper_mod.game.context import open_game
from scraper_mod.game.night.intake import day_moves, day_orders, poll_moves
from scraper_mod.moves.sources import ImapSource


@pytest.fixture(scope="module")
def imap():
    pytest.importorskip("pymap", reason="pymap, the test IMAP server, is not installed "
                                         "(pip install -e '.[test]')")
    with PymapServer(tls=True) as srv:
        yield srv


@pytest.fixture
def smtp():
    with SmtpServer() as s:
        yield s


@pytest.fixture(autouse=True)
def password(monkeypatch):
    monkeypatch.setenv("SCRAPER_MOD_IMAP_PASSWORD", PASSWORD)


def fixture(name):
    return (MAIL / name).read_bytes()


def game(tmp_path, imap, smtp, folder, **extra):
    moves = {"source": "imap", "host": "127.0.0.1", "port": imap.port, "username": USER,
             "folder": folder, "security": "starttls", "smtp_host": "127.0.0.1",
             "smtp_port": smtp.port, "smtp_from": "host@example.org", **extra}
    return make_game(tmp_path / "g", moves=moves)


def source(ctx):
    m = ctx.game.moves
    return ImapSource(m.host, port=m.port, username=m.username, folder=m.folder,
                      security=m.security, ssl_context=client_context())


def test_a_night_of_real_mail_over_starttls(tmp_path, imap, smtp):
    imap.create("night1")
    imap.append_many("night1", [
        (fixture("01-multipart-alternative-utf8-qp.eml"), msk("2024-04-09 12:03:15")),
        (fixture("04-reply-gmail-en-attribution.eml"), msk("2024-04-09 13:47:02")),
        (fixture("02-html-only-cp1251-base64.eml"), msk("2024-04-09 15:20:45")),
        (fixture("03-plain-koi8r-qp.eml"), msk("2024-04-09 16:05:09")),
        (fixture("07-forged-sender.eml"), msk("2024-04-09 19:10:00")),
        (fixture("12-two-moves-mislabelled-charset.eml"), msk("2024-04-09 19:59:58")),
        (fixture("13-duplicate-delivery-a.eml"), msk("2024-04-09 19:40:02")),
        (fixture("13-duplicate-delivery-b.eml"), msk("2024-04-09 19:40:03")),  # via an alias
        (mail("player7@example.org", "убить Машу"), msk("2024-04-09 20:00:30")),
    ])
    folder = game(tmp_path, imap, smtp, "night1")
    ctx = open_game(folder, clock=FakeClock(msk("2024-04-09 20:05:00")))
    try:
        rep = poll_moves(ctx, source=source(ctx))
        assert len(rep.fetch.new) == 9 and rep.fetch.ok
        assert len(rep.duplicates) == 1                      # the delivery through the alias
        assert len(rep.answers) == 8 and not rep.errors
        # every player gets his answer by mail; the stranger only in the outbox (no backscatter)
        assert [a.to for a in rep.answers if not a.sent] == ["vasya@evil.example"]

        moves = day_moves(ctx, 1)
        got = [(m.player, m.kind.value if m.kind else None, m.target, m.status, m.reason)
               for m in moves]
        assert got == [
            ("Вася", "kill", "Алексей", "counted", ""),
            ("Big Joe", "kill", "NightOwl", "replaced", "overridden_by_boss"),   # R5.2
            ("doc_Holiday", "heal", "Маша_2", "replaced", "replaced"),             # R5.1
            ("Алексей", "check", "Big Joe", "counted", ""),
            ("vasya@evil.example", "kill", "Маша_2", "unknown_sender", "unknown_sender"),
            ("doc_Holiday", "heal", "Алексей", "counted", ""),
            ("Ёжик в тумане", "kill", "Big Joe", "invalid", "role_cannot"),
            ("Ёжик в тумане", "check", "Алексей", "invalid", "role_cannot"),
            ("Игрок-7", "kill", "Маша_2", "late", "late"),                       # R5.1
        ]
        o = day_orders(ctx, 1)
        assert (o.mafia_kill, o.mafia_by, o.heal, o.check, o.maniac_kill) == \
            ("Алексей", "Вася", "Алексей", "Big Joe", None)
        assert o.mafia_story == "нашли в парке на скамейке,\nс газетой в руках."

        # every answer went out by SMTP to the sender, and into the outbox
        to = sorted(r.rcpt_tos[0] for r in smtp.inbox)
        assert to == sorted(["vasya@example.org", "bigjoe@example.org", "doc@example.org",
                             "alexey@example.org", "doc@example.org", "ezhik@example.org",
                             "player7@example.org"])
        by_to = {r.rcpt_tos[0]: r.message for r in smtp.inbox}
        assert "Принято: убийство — Алексей." in by_to["vasya@example.org"].get_content()
        assert "ход прислал и Босс" in by_to["bigjoe@example.org"].get_content()
        assert "после срока" in by_to["player7@example.org"].get_content()
        stranger = [a for a in rep.answers if a.to == "vasya@evil.example"][0]
        assert "не записан ни за одним игроком" in stranger.path.read_text()
        doc = [r.message for r in smtp.inbox if r.rcpt_tos == ["doc@example.org"]]
        assert [m["Subject"] for m in doc] == ["Re: лечение", "Re: ход"]
        assert "Заменяет ваш прежний ход (Маша_2)" in doc[1].get_content()
        outbox = sorted(p.name for p in (folder / "outbox" / "day-1").iterdir())
        assert len(outbox) == 8

        # the next poll: nothing new, nothing answered or sent twice
        rep2 = poll_moves(ctx, source=source(ctx))
        assert rep2.fetch.new == () and rep2.answers == () and len(smtp.inbox) == 7
    finally:
        ctx.close()


def test_implicit_tls_through_a_tls_proxy(tmp_path, imap, smtp):
    imap.create("tls")
    imap.append("tls", mail("doc@example.org", "лечу Машу"), msk("2024-04-09 15:00:00"))
    with Proxy(imap.port, tls=True) as proxy:
        src = ImapSource("127.0.0.1", port=proxy.port, username=USER, folder="tls",
                         security="ssl", ssl_context=client_context())
        ctx = open_game(game(tmp_path, imap, smtp, "tls"),
                        clock=FakeClock(msk("2024-04-09 15:01:00")))
        try:
            rep = poll_moves(ctx, source=src, send=False)
        finally:
            ctx.close()
    assert len(rep.fetch.new) == 1 and rep.answers[0].to == "doc@example.org"
    assert not rep.answers[0].sent and smtp.inbox == []


def test_tls_with_an_untrusted_certificate_is_refused(tmp_path, imap, smtp):
    from scraper_mod.errors import MailboxError
    from scraper_mod.store import Store
    src = ImapSource("127.0.0.1", port=imap.port, username=USER, folder="INBOX",
                     security="starttls")   # the system's trust store: the test CA is not in it
    with pytest.raises(MailboxError, match="TLS failed"):
        src.fetch_new(Store(":memory:"), now=msk("2024-04-09 15:00:00"))


def test_smtp_down_keeps_the_answer_and_sends_it_next_poll(tmp_path, imap):
    imap.create("smtpdown")
    imap.append("smtpdown", mail("doc@example.org", "лечу Машу"), msk("2024-04-09 15:00:00"))
    with SmtpServer() as smtp:
        port = smtp.port
    folder = make_game(tmp_path / "g", moves={
        "source": "imap", "host": "127.0.0.1", "port": imap.port, "username": USER,
        "folder": "smtpdown", "security": "starttls", "smtp_host": "127.0.0.1",
        "smtp_port": port})
    ctx = open_game(folder, clock=FakeClock(msk("2024-04-09 15:01:00")))
    try:
        rep = poll_moves(ctx, source=source(ctx))
        assert rep.answers[0].path.exists() and not rep.answers[0].sent
        assert "not sent" in rep.errors[0]
        with SmtpServer(port) as smtp:
            rep2 = poll_moves(ctx, source=source(ctx))
        assert [a.sent for a in rep2.answers] == [True] and len(smtp.inbox) == 1
    finally:
        ctx.close()


def test_dropped_link_answers_what_was_stored_and_the_next_poll_goes_on(tmp_path, imap, smtp):
    from scraper_mod.errors import MailboxError
    imap.create("dropnight")
    uids = imap.append_many("dropnight", [
        (mail("doc@example.org", "лечу Машу"), msk("2024-04-09 15:00:00")),
        (mail("alexey@example.org", "проверить Big Joe"), msk("2024-04-09 16:00:00")),
        (mail("bigjoe@example.org", "убить Алексея"), msk("2024-04-09 17:00:00")),
    ])
    folder = game(tmp_path, imap, smtp, "dropnight")
    ctx = open_game(folder, clock=FakeClock(msk("2024-04-09 18:00:00")))
    try:
        with Proxy(imap.port) as proxy:
            m = ctx.game.moves
            src = ImapSource("127.0.0.1", port=proxy.port, username=m.username,
                             folder=m.folder, security="none", password=PASSWORD)
            proxy.drop_when(f"FETCH {uids[2]} ".encode())
            with pytest.raises(MailboxError, match=f"resumes after UID {uids[1]}"):
                poll_moves(ctx, source=src)
            assert len(list((folder / "outbox" / "day-1").iterdir())) == 2
            assert sorted(r.rcpt_tos[0] for r in smtp.inbox) == ["alexey@example.org",
                                                                 "doc@example.org"]
            proxy.drop_when(None)
            rep = poll_moves(ctx, source=src)
        assert len(rep.fetch.new) == 1 and [a.to for a in rep.answers] == ["bigjoe@example.org"]
        assert [(x.player, x.status) for x in day_moves(ctx, 1)] == [
            ("doc_Holiday", "counted"), ("Алексей", "counted"), ("Big Joe", "counted")]
    finally:
        ctx.close()


def test_answers_over_starttls_with_a_login(tmp_path, monkeypatch):
    """SMTP with STARTTLS and AUTH (a provider's submission port), password from the
    environment, against aiosmtpd with the test certificate."""
    import ssl
    from types import SimpleNamespace

    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult
    from servers.imap import CERT, KEY, free_port
    from servers.smtp import _Handler

    from scraper_mod.game.night.intake import Answer, send_answer

    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(str(CERT), str(KEY))
    logins = []

    def authenticator(server, session, envelope, mechanism, data):
        logins.append((data.login, data.password))
        return AuthResult(success=data.login == b"host" and data.password == b"smtp-pw")

    handler = _Handler()
    port = free_port()
    ctl = Controller(handler, hostname="127.0.0.1", port=port, tls_context=tls,
                     require_starttls=True, authenticator=authenticator, auth_required=True)
    ctl.start()
    try:
        cfg = SimpleNamespace(smtp_host="127.0.0.1", smtp_port=port, smtp_from="host@example.org",
                              smtp_security="starttls", smtp_username="host")
        ans = Answer(1, 1, "doc@example.org", "doc_Holiday", "Re: ход", "Принято: лечение.",
                     tmp_path / "a.txt")
        monkeypatch.setenv("SCRAPER_MOD_SMTP_PASSWORD", "smtp-pw")
        send_answer(cfg, ans, ssl_context=client_context())
    finally:
        ctl.stop()
    assert logins == [(b"host", b"smtp-pw")]
    (got,) = handler.inbox
    assert got.rcpt_tos == ["doc@example.org"] and got.message["Subject"] == "Re: ход"
    assert got.message.get_content().strip() == "Принято: лечение."
