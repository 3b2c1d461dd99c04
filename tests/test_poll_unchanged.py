"""An unchanged page is read once: the client's checks and the parser skip a page whose bytes
are the ones they read at the previous poll, and the store ends up exactly as when every page
is parsed afresh (forum/client.py ``get_page``, forum/pagecache.py ``read_page``)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
import requests

from scraper_mod.clock import FakeClock
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.forum import client as client_mod
from scraper_mod.forum import pagecache, poller
from scraper_mod.forum.client import ForumClient
from scraper_mod.store import Store

T0 = datetime(2024, 4, 9, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def clock():
    return FakeClock(T0)


def _board(clock) -> LocalBoard:
    b = LocalBoard(language="ru", clock=clock, per_page=5, first_post_id=63)
    for nick, uid in (("Вася", 58), ("Маша_2", 59), ("Big Joe", 60)):
        b.add_user(nick, uid)
    b.add_topic("День 1 — голосование", topic_id=4)
    return b


@pytest.fixture
def board(clock):
    with _board(clock) as b:
        yield b


def _client(board, clock) -> ForumClient:
    return ForumClient(requests.Session(), base_url=board.url, min_delay=0, retries=0,
                       sleep=clock.sleep, monotonic=lambda: clock.now().timestamp(),
                       now=clock.now)


class Counted:
    """How often the login check and the parser ran."""

    def __init__(self, monkeypatch) -> None:
        self.parses = self.checks = 0
        real_parse, real_check = poller.parse_topic_page, client_mod.find_login_form

        def parse(*a, **kw):
            self.parses += 1
            return real_parse(*a, **kw)

        def check(*a, **kw):
            self.checks += 1
            return real_check(*a, **kw)
        monkeypatch.setattr(poller, "parse_topic_page", parse)
        monkeypatch.setattr(pagecache, "parse_topic_page", parse)
        monkeypatch.setattr(client_mod, "find_login_form", check)


def _day(board, clock, client, store, steps):
    """Poll after each step (a post, an edit, nothing); the reports of every poll."""
    reports = []
    for step in steps:
        clock.advance(minutes=5)
        step()
        reports.append(poller.poll_topic(client, store, board.topic_url(4), now=clock.now))
    return reports


def _steps(board, clock):
    def say(author, uid, text):
        return lambda: board.add_post(author, uid, text, clock.now(), topic=4)

    def idle():
        pass

    def edit():
        board.edit_post(64, "Голосую за [color=red]Big Joe[/color]", reason="передумал")
    return [say("Вася", 58, "Голосую за [color=red]Маша_2[/color]"), idle, idle,
            say("Маша_2", 59, "А я за [color=red]Вася[/color]"), idle, edit, idle, idle,
            say("Big Joe", 60, "[b]Вася[/b]"), idle]


def test_an_idle_poll_of_an_unchanged_page_parses_nothing(board, clock, monkeypatch):
    counted = Counted(monkeypatch)
    store, client = Store(":memory:"), _client(board, clock)
    say = _steps(board, clock)[0]
    first = _day(board, clock, client, store, [say])
    assert first[0].new_posts and (counted.parses, counted.checks) == (1, 1)
    state = store.topic_state(poller.canonical_topic_url(board.topic_url(4)))
    writes: list[str] = []
    store.db.set_trace_callback(lambda sql: writes.append(sql) if "topic_state" in sql
                                and not sql.startswith("SELECT") else None)
    idle = _day(board, clock, client, store, [lambda: None] * 3)
    assert [r.requests for r in idle] == [1, 1, 1] and not any(r.errors for r in idle)
    assert (counted.parses, counted.checks) == (1, 1)        # the same bytes: read once
    assert writes == []                                      # nor its poll state written
    assert store.topic_state(poller.canonical_topic_url(board.topic_url(4))) == state
    board.add_post("Маша_2", 59, "ещё пост", clock.now(), topic=4)
    again = _day(board, clock, client, store, [lambda: None])
    assert len(again[0].new_posts) == 1 and (counted.parses, counted.checks) == (2, 2)


def test_an_edited_page_is_parsed_at_every_poll(board, clock, monkeypatch):
    """A page with an edit notice is read against the time of each fetch («Сегодня»): it is
    never taken from the previous poll."""
    counted = Counted(monkeypatch)
    store, client = Store(":memory:"), _client(board, clock)
    steps = _steps(board, clock)
    _day(board, clock, client, store, steps[:6])          # up to the edit
    parses = counted.parses
    _day(board, clock, client, store, steps[6:8])         # two idle polls after it
    assert counted.parses == parses + 2


def _whole_day(monkeypatch, *, reuse: bool):
    clock = FakeClock(T0)
    counted = Counted(monkeypatch)
    with _board(clock) as board:
        if not reuse:     # every page parsed afresh, every page checked
            monkeypatch.setattr(poller, "read_page", lambda store, key, res, tz:
                                poller.parse_topic_page(res.body, url=res.url,
                                                        fetched_at=res.fetched_at, board_tz=tz))
        client = _client(board, clock)
        if not reuse:
            checked = client.get_page

            def get_page(url, **kw):
                client._last_passed = None      # forget the last page: check every page
                return checked(url, **kw)
            client.get_page = get_page
        store = Store(":memory:")
        reports = _day(board, clock, client, store, _steps(board, clock))
        base = board.url
    monkeypatch.undo()
    return counted.parses, ([r.summary() for r in reports],
            [(v.post_id, v.fetched_at, {k: (x.replace(base, "") if isinstance(x, str) else x)
                                        for k, x in v.data.items()})
             for v in store.post_versions()])


def test_the_store_holds_what_parsing_every_page_gives(monkeypatch):
    parses, reused = _whole_day(monkeypatch, reuse=True)
    parses_fresh, fresh = _whole_day(monkeypatch, reuse=False)
    assert (parses, parses_fresh) == (7, 10)   # the three idle polls before the edit
    assert len(reused[1]) > 3
    assert reused == fresh
