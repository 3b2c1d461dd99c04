"""Issue 26, item 2: one PM row the parser cannot read never stops the night moves.

The real phpBB 3.3.15 inbox (fixtures/phpbb/phpbb-3.3.15/pm/prosilver-ru) with one subject
made of U+3000 (a saved real inbox), one row without its date and one row
without any id: the other messages are read and judged as before, the two unreadable rows are
reported once (stored as events with their text), a row whose id is known has its message
fetched and stored all the same, and the final re-scan still resolves.
"""

from __future__ import annotations

import responses
from servers.movegame import make_game, msk
from test_moves_pm import BASE, DATE, client, page

from scraper_mod.clock import FakeClock
from scraper_mod.forum.phpbb.board import PhpbbBoard
from scraper_mod.forum.phpbb.pm import read_pm_inbox
from scraper_mod.game.context import open_game
from scraper_mod.game.night.intake import day_moves, poll_moves
from scraper_mod.moves.sources import ForumPmSource


def hostile_inbox() -> bytes:
    body = page("inbox.html").decode("utf-8")
    # p=9: a subject that is blank once spaces are read (U+3000, as in a saved real inbox)
    body = body.replace('p=9" class="topictitle">ход</a>', 'p=9" class="topictitle">\u3000</a>')
    # p=8: the row lost its date
    body = body.replace("Ёжик в тумане</a> &raquo; 09 апр 2024, 19:59",
                        "Ёжик в тумане</a> &raquo; ")
    # p=7: a row with no id anywhere (another style, another version)
    body = body.replace('<a href="./ucp.php?i=pm&amp;mode=view&amp;f=0&amp;p=7" class="row-item-link">'
                        '</a>', "")
    body = body.replace('<a href="./ucp.php?i=pm&amp;mode=view&amp;f=0&amp;p=7" class="topictitle">',
                        '<a class="topictitle">')
    body = body.replace('name="marked_msg_id[]" value="7"', 'name="marked_msg_id[]" value=""')
    return body.encode("utf-8")


def test_the_parser_keeps_every_readable_row_and_names_the_others():
    rows, bad = read_pm_inbox(hostile_inbox(), url=BASE + "ucp.php?i=pm&folder=inbox",
                              fetched_at=msk("2024-04-09 20:05:00"))
    assert [r.msg_id for r in rows] == [9, 6, 4, 3, 2, 1]
    assert next(r for r in rows if r.msg_id == 9).subject == ""
    assert [(b.msg_id, b.author) for b in bad] == [(8, "Ёжик в тумане"), (None, "NightOwl")]
    assert "night move" in bad[1].text


def test_an_unreadable_row_is_reported_and_skipped_and_the_others_are_read(tmp_path):
    folder = make_game(tmp_path / "g", moves={"source": "phpbb_pm"})
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.add(responses.GET, BASE + "ucp.php?i=pm&folder=inbox", body=hostile_inbox(),
                 headers=DATE)
        for n in (1, 2, 3, 4, 6, 7, 8, 9):
            rsps.add(responses.GET, BASE + f"ucp.php?i=pm&mode=view&f=0&p={n}",
                     body=page(f"view_p{n}.html"), headers=DATE)
        ctx = open_game(folder, clock=FakeClock(msk("2024-04-09 20:05:00")))
        try:
            src = ForumPmSource(PhpbbBoard(client()), BASE)
            rep = poll_moves(ctx, source=src)
            assert rep.fetch.ok                 # nothing for the final re-scan to refuse
            keys = [m.key for m in ctx.store.messages()]
            assert keys == [f"pm/{n}" for n in (1, 2, 3, 4, 6, 8, 9)]   # 7 has no id
            got = {(m.player, m.kind.value if m.kind else None, m.target, m.status)
                   for m in day_moves(ctx, 1)}
            assert ("Ёжик в тумане", "kill", "Big Joe", "invalid") in got      # p=8, read
            assert ("Игрок-7", "freeze", "Вася", "late") in got                # p=9, read
            events = [data for _, _, data in ctx.store.events("pm_row_unreadable")]
            assert len(events) == 2
            assert any("night move" in e["row"] for e in events)
            poll_moves(ctx, source=src)        # reported once, not on every poll
            assert len(ctx.store.events("pm_row_unreadable")) == 2
        finally:
            ctx.close()
