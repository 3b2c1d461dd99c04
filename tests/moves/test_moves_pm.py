"""Night moves sent as phpBB private messages (ЛС) to the host (issue 5): the real phpBB
3.3.15 inbox and message pages (fixtures/phpbb/phpbb-3.3.15/pm), fetched over the forum
client's logged-in session (login included), stored raw, dated by the PM's own minute, and
judged by R5."""

from __future__ import annotations

import json
import re

import pytest
import responses
from servers.movegame import ROOT, make_game, msk

from scraper_mod.clock import FakeClock
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.phpbb.board import PhpbbBoard
from scraper_mod.game.context import open_game
from scraper_mod.game.night.intake import day_moves, day_orders, poll_moves
from scraper_mod.moves.sources import ForumPmSource

PM = ROOT / "fixtures" / "phpbb" / "phpbb-3.3.15" / "pm" / "prosilver-ru"
BASE = "http://board.example/"
DATE = {"Date": "Wed, 02 Dec 2026 13:25:37 GMT"}


def page(name):
    return (PM / name).read_bytes()


@pytest.fixture
def board():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        inbox = BASE + "ucp.php?i=pm&folder=inbox"
        rsps.add(responses.GET, inbox, body=page("login_required_inbox.html"), headers=DATE)
        rsps.add(responses.GET, inbox, body=page("inbox.html"), headers=DATE)
        rsps.add(responses.GET, BASE + "ucp.php?mode=login",
                 body=page("login_page_ucp_mode_login.html"), headers=DATE)
        rsps.add(responses.POST, BASE + "ucp.php?mode=login", status=302,
                 headers={"Location": inbox + "&sid=0123456789abcdef0123456789abcdef", **DATE})
        for n in (1, 2, 3, 4, 6, 7, 8, 9):
            rsps.add(responses.GET, BASE + f"ucp.php?i=pm&mode=view&f=0&p={n}",
                     body=page(f"view_p{n}.html"), headers=DATE)
        yield rsps


def client():
    return ForumClient(base_url=BASE, username="admin", password="host-pass", min_delay=0,
                       sleep=lambda s: None)


def test_pm_inbox_through_the_logged_in_session(tmp_path, board):
    folder = make_game(tmp_path / "g", moves={"source": "phpbb_pm"})
    ctx = open_game(folder, clock=FakeClock(msk("2024-04-09 20:05:00")))
    try:
        src = ForumPmSource(PhpbbBoard(client()), BASE)
        rep = poll_moves(ctx, source=src)
        assert len(rep.fetch.new) == 8 and rep.fetch.ok
        stored = ctx.store.messages()
        assert [m.key for m in stored] == [f"pm/{n}" for n in (1, 2, 3, 4, 6, 7, 8, 9)]
        # the raw page, stored first, with the session id phpBB put into its links blanked
        raw = page("view_p1.html")
        assert re.search(rb"sid=[0-9a-f]{32}", raw)
        assert stored[0].raw == re.sub(rb"sid=[0-9a-f]{32}", b"sid=", raw)
        assert not any(re.search(rb"sid=[0-9a-f]{32}", m.raw) for m in stored)
        # the PM's own minute decides (R5.1, R2.6): 19:59:58 shows 19:59, 20:00:30 shows 20:00
        assert stored[-2].received_at == msk("2024-04-09 19:59:00")
        assert stored[-1].received_at == msk("2024-04-09 20:00:00")

        got = [(m.player, m.kind.value if m.kind else None, m.target, m.status, m.reason)
               for m in day_moves(ctx, 1)]
        assert got == [
            ("Вася", "kill", "Алексей", "counted", ""),
            ("Big Joe", "kill", "NightOwl", "replaced", "overridden_by_boss"),
            ("doc_Holiday", "heal", "Маша_2", "counted", ""),
            ("Алексей", "check", "Big Joe", "counted", ""),
            # a reply quoting the host's «проверить Вася»: only her own line is read
            ("Маша_2", "check", "NightOwl", "invalid", "role_cannot"),
            ("NightOwl", "kill", "Вася", "invalid", "role_cannot"),
            ("Ёжик в тумане", "kill", "Big Joe", "invalid", "role_cannot"),
            ("Ёжик в тумане", "check", "Алексей", "invalid", "role_cannot"),
            ("Игрок-7", "freeze", "Вася", "late", "late"),
        ]
        o = day_orders(ctx, 1)
        assert (o.mafia_kill, o.mafia_by, o.mafia_story, o.heal, o.check) == \
            ("Алексей", "Вася", "нашли в парке", "Маша_2", "Big Joe")
        # answers are written for the host to send as PMs (no e-mail for forum senders)
        answers = {a.to: a for a in rep.answers}
        assert set(answers) == {"Вася", "Big Joe", "doc_Holiday", "Алексей", "Маша_2",
                                "NightOwl", "Ёжик в тумане", "Игрок-7"}
        assert "Принято: убийство — Алексей." in answers["Вася"].text
        assert not any(a.sent for a in rep.answers)

        # the next poll reads only the inbox: every message is stored already
        before = len(board.calls)
        rep2 = poll_moves(ctx, source=src)
        assert rep2.fetch.new == () and rep2.answers == ()
        assert [c.request.url for c in board.calls[before:]] == [BASE + "ucp.php?i=pm&folder=inbox"]
    finally:
        ctx.close()


def test_pm_login_refused_is_a_clear_mailbox_error(tmp_path):
    from scraper_mod.errors import MailboxError
    with responses.RequestsMock() as rsps:
        rsps.add(responses.GET, BASE + "ucp.php?i=pm&folder=inbox",
                 body=page("login_required_inbox.html"), headers=DATE)
        src = ForumPmSource(PhpbbBoard(ForumClient(base_url=BASE, min_delay=0, sleep=lambda s: None)),
                            BASE)
        from scraper_mod.store import Store
        with pytest.raises(MailboxError, match="cannot read the PM inbox.*SCRAPER_MOD_FORUM"):
            src.fetch_new(Store(":memory:"), now=msk("2024-04-09 20:05:00"))


def test_pm_moves_command_json(tmp_path, board, capsys):
    from scraper_mod.cli import main
    folder = make_game(tmp_path / "g", moves={"source": "phpbb_pm"})
    ctx = open_game(folder, clock=FakeClock(msk("2024-04-09 20:05:00")))
    poll_moves(ctx, source=ForumPmSource(PhpbbBoard(client()), BASE))
    ctx.close()
    assert main(["moves", str(folder), "--day", "1", "--offline", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["moves"][0]["received_at"] == "2024-04-09T12:03:00+03:00"
    assert [m["status"] for m in data["moves"]].count("counted") == 3


def test_pm_on_a_live_board_with_relative_dates(tmp_path):
    """A real HTTP board (LocalBoard) whose PM dates are relative («5 минут назад»): the
    receive time is the latest instant the shown date allows, so a PM seen before the deadline
    is on time and one whose minute cannot be told from the deadline, seen after it, is late
    (as R2.6 decides for posts). A PM from an earlier game is not fetched."""
    from scraper_mod.demo.localboard import LocalBoard
    clock = FakeClock(msk("2024-04-09 19:50:00"))
    with LocalBoard(language="ru", clock=clock, username="admin", password="host-pass",
                    relative_dates=True) as board:
        board.send_pm("doc_Holiday", 65, "ход", "лечу Машу", msk("2024-04-09 19:45:10"))
        board.send_pm("Вася", 58, "Игра 1", "спасибо за игру", msk("2024-02-01 12:00:00"))
        c = ForumClient(base_url=board.url, username="admin", password="host-pass",
                        min_delay=0, sleep=clock.sleep, now=clock.now,
                        monotonic=lambda: clock.now().timestamp())
        src = ForumPmSource(PhpbbBoard(c), board.url, since=msk("2024-04-07 21:00:00"))
        ctx = open_game(make_game(tmp_path / "g", moves={"source": "phpbb_pm"}), clock=clock)
        try:
            assert len(poll_moves(ctx, source=src).fetch.new) == 1
            board.send_pm("Вася", 58, "ход", "убить Алексея", msk("2024-04-09 19:59:40"))
            clock.set(msk("2024-04-09 20:00:20"))
            assert len(poll_moves(ctx, source=src).fetch.new) == 1
            first, second = ctx.store.messages()
            ranges = {e["message"]: e for _, _, e in ctx.store.events("pm_time")}
            assert ranges[second.id]["precision"] == "relative"
            assert ranges[second.id]["earliest"] < "2024-04-09T20:00:00+03:00" \
                <= ranges[second.id]["latest"]
            assert msk("2024-04-09 19:45:10") <= first.received_at < msk("2024-04-09 19:51")
            assert second.received_at >= msk("2024-04-09 20:00:00")
            assert [(m.player, m.status) for m in day_moves(ctx, 1)] == [
                ("doc_Holiday", "counted"), ("Вася", "late")]
        finally:
            ctx.close()


def test_a_pm_is_parsed_once_by_the_board_then_read_from_the_store(tmp_path, board,
                                                                     monkeypatch):
    """Issue 35: the board's adapter reads a PM once, when it is fetched, in the board's zone;
    the intake reads that (it never parses the page again, nor assumes Moscow time). The moves
    are those of a fresh parse of each stored page."""
    import scraper_mod.game.night.intake as intake
    folder = make_game(tmp_path / "g", moves={"source": "phpbb_pm"})
    with open_game(folder, clock=FakeClock(msk("2024-04-09 20:05:00"))) as ctx:
        poll_moves(ctx, source=ForumPmSource(PhpbbBoard(client()), BASE))
        ctx.letters.clear()
        fresh = [intake.read_letter(m, board_tz=ctx.game.timezone)
                 for m in ctx.store.messages()]
        ctx.letters.clear()

        def never(*a, **k):
            raise AssertionError("a stored PM parsed again")
        monkeypatch.setattr(intake, "parse_stored_pm", never)
        letters, _ = intake._letters(ctx)
        assert letters == fresh and len(letters) == 8
        assert [(m.player, m.target) for m in day_moves(ctx, 1)][:2] == [
            ("Вася", "Алексей"), ("Big Joe", "NightOwl")]
