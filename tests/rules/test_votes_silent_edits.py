"""RULES R2.11 in the pure vote extraction: versions as a board gives them (forum/memory.py's
``MemoryBoard``: phpBB 3.3's silent edit of the topic's last post, its notice otherwise), the
versions read at the deadline given as plain data."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from scraper_mod.forum.memory import MemoryBoard
from scraper_mod.rules.votes import extract_votes

MSK = ZoneInfo("Europe/Moscow")
DEADLINE = datetime(2024, 4, 9, 20, 0, tzinfo=MSK)
PLAYERS = [("Вася", ()), ("Кот", ()), ("Лиса", ()), ("Pilot", ())]


def _board():
    b = MemoryBoard(account="admin")
    t = b.add_topic("День 1", text="День 1.", at=DEADLINE - timedelta(hours=3))
    b.player_post("Вася", t, "[color=red]Лиса[/color]", at=DEADLINE - timedelta(minutes=9))
    last = b.player_post("Кот", t, "[color=red]Лиса[/color]",
                         at=DEADLINE - timedelta(seconds=15))
    return b, t, last


def _seen(b, t, at):
    """The topic's posts as read at ``at`` (the board's clock), with that first sighting."""
    return [(p, at) for p in b.read_topic_page(t).posts]


def _count(versions, **kw):
    votes, rejected, notes = extract_votes(versions, players=PLAYERS,
                                           alive=[n for n, _ in PLAYERS], host="admin",
                                           deadline=DEADLINE, lang="ru", **kw)
    return {v.voter: v.target for v in votes}, rejected, notes


def test_a_silent_edit_after_the_deadline_counts_as_it_stood():
    b, t, last = _board()
    before = _seen(b, t, DEADLINE - timedelta(seconds=10))
    at_deadline = {p.post_id: p for p, _ in _seen(b, t, DEADLINE + timedelta(seconds=1))}
    assert b.player_edit("Кот", last, "[color=red]Pilot[/color]",
                         at=DEADLINE + timedelta(seconds=20)) is False   # the last post: no notice
    rescan = _seen(b, t, DEADLINE + timedelta(minutes=1))
    assert next(p for p, _ in rescan if p.post_id == last).edit_count == 0

    # without the read at the deadline the re-scan's text counts, and the change is named
    got, _, notes = _count(before + rescan)
    assert got == {"Вася": "Лиса", "Кот": "Pilot"}
    assert any("изменён без отметки о правке" in n for n in notes.notes)

    got, rejected, notes = _count(before + rescan, deadline_posts=at_deadline)
    assert got == {"Вася": "Лиса", "Кот": "Лиса"}
    assert [(r.post_id, r.text, r.reason) for r in rejected] == [
        (last, "Pilot", "silent_edit_after_deadline")]
    assert notes.notes == (f"пост {last} (Кот): правка без отметки после срока (на момент "
                           "срока: Лиса; при пересчёте: Pilot); засчитан в виде на момент срока",)
    assert [(e.before, e.after, e.counted) for e in notes.edits] == [(("Лиса",), ("Pilot",),
                                                                     False)]


def test_an_edit_with_a_notice_after_the_deadline_is_r2_7s_and_unchanged_posts_say_nothing():
    b, t, last = _board()
    before = _seen(b, t, DEADLINE - timedelta(seconds=10))
    at_deadline = {p.post_id: p for p, _ in _seen(b, t, DEADLINE + timedelta(seconds=1))}
    b.player_post("Pilot", t, "флуд", at=DEADLINE + timedelta(seconds=5))
    # no longer the last post: phpBB writes the notice, R2.7 places the edit by its time
    assert b.player_edit("Кот", last, "[color=red]Pilot[/color]",
                         at=DEADLINE + timedelta(seconds=20)) is True
    rescan = _seen(b, t, DEADLINE + timedelta(minutes=1))
    got, rejected, notes = _count(before + rescan, deadline_posts=at_deadline)
    assert got == {"Вася": "Лиса", "Кот": "Лиса"}
    assert {r.reason for r in rejected} == {"edited_after_deadline"}
    assert not any("без отметки" in n for n in notes.notes)


def test_a_failed_read_at_the_deadline_is_said():
    b, t, _ = _board()
    versions = _seen(b, t, DEADLINE - timedelta(seconds=10))
    _, _, notes = _count(versions, deadline_read_failed="HTTP 503 after 3 attempts")
    assert notes.notes == ("на момент срока тему прочитать не удалось (HTTP 503 after 3 "
                           "attempts): правку последнего поста без отметки после срока "
                           "отличить нельзя",)
    # a live count before the deadline says nothing of it
    _, _, live = _count(versions, deadline_read_failed="HTTP 503",
                        as_of=DEADLINE - timedelta(minutes=1))
    assert live.notes == ()
