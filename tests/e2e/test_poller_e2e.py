"""End to end: a real LocalBoard on 127.0.0.1 serving a topic that grows between polls.

The board and the client share one simulated clock: the client's waits (pacing, back-off)
advance it instead of sleeping, and the board's Date header follows it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

import pytest
import requests
from stored_topic import current_posts

from scraper_mod.clock import FakeClock
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.errors import FetchError, ParseError, TopicNotFoundError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.poller import canonical_topic_url, poll_topic, stored_posts
from scraper_mod.store import Store

MSK = timezone(timedelta(hours=3))
START = datetime(2024, 4, 9, 9, 0, tzinfo=MSK)


@pytest.fixture
def clock():
    return FakeClock(START)


@pytest.fixture
def board(clock):
    b = LocalBoard(language="ru", clock=clock, per_page=5, first_post_id=63)
    b.add_user("Вася", 58)
    b.add_user("Маша_2", 59)
    b.add_user("Big Joe", 60)
    b.add_user("Алексей", 61)
    b.add_topic("День 1 — голосование", topic_id=4)
    with b:
        yield b


def client_for(board, clock, **kw) -> ForumClient:
    return ForumClient(requests.Session(), base_url=board.url, min_delay=1.0, retries=2,
                       sleep=clock.sleep, monotonic=lambda: clock.now().timestamp(),
                       now=clock.now, **kw)


def post(board, clock, author, uid, body, minutes=7):
    clock.advance(minutes=minutes)
    return board.add_post(author, uid, body, clock.now())


def poll(client, store, board, clock, **kw):
    clock.advance(minutes=1)
    return poll_topic(client, store, board.topic_url(), now=clock.now, **kw)


def latest(store, url):
    return {p.post_id: p for p in current_posts(store, url)}


def test_growing_topic(board, clock, tmp_path):
    path = tmp_path / "state.sqlite3"
    store = Store(path)
    client = client_for(board, clock)
    url = board.topic_url()
    key = canonical_topic_url(url)
    assert key == f"{board.url}viewtopic.php?t=4"

    # poll 1: three posts, one page
    a = post(board, clock, "admin", 2, "[b]День 1.[/b] Голосуем цветом.")
    b = post(board, clock, "Вася", 58, "[color=red]Маша_2[/color] — для затравки")
    c = post(board, clock, "Маша_2", 59, "Я пока посмотрю.")
    r = poll(client, store, board, clock)
    assert (r.requests, r.new_posts, r.pages, r.page_count, r.errors) == (1, (a, b, c), (1,), 1, ())
    assert store.fetch_count() == 1
    assert [p.post_id for p in current_posts(store, url)] == [a, b, c]
    vasya = latest(store, url)[b]
    assert [(x.color, x.text) for x in vasya.colored] == [("red", "Маша_2")]
    assert vasya.posted_at == START + timedelta(minutes=14)

    # poll 2: idle -> exactly one request, nothing stored but the raw page
    n_versions = len(store.post_versions(key))
    r = poll(client, store, board, clock)
    assert (r.requests, r.new_posts, r.new_versions, r.deleted) == (1, (), (), ())
    assert len(store.post_versions(key)) == n_versions and store.fetch_count() == 2

    # poll 3: four more posts -> page 2 appears; page 1 (last known) then page 2
    d, e, f, g = (post(board, clock, "Big Joe", 60, "[color=#0000FF]Вася[/color]"),
                  post(board, clock, "Алексей", 61, "Хм. [color=#FF0000]Вася[/color]"),
                  post(board, clock, "Вася", 58, "Голос прежний."),
                  post(board, clock, "Маша_2", 59, "[b]Алексей[/b] подозрителен"))
    r = poll(client, store, board, clock)
    assert r.requests == 2 and r.pages == (1, 2) and r.page_count == 2
    assert r.new_posts == (d, e, f, g)
    state = store.topic_state(key)
    assert state["last_page_url"].endswith("start=5") and state["pages"]["2"]["post_ids"] == [f, g]

    # poll 4: an edit on the last page -> a new version, the old one kept
    clock.advance(minutes=3)
    board.edit_post(g, "[color=#FF0000]Алексей[/color]", reason="перепутал", edited_at=clock.now())
    r = poll(client, store, board, clock)
    assert (r.requests, r.new_posts, r.new_versions) == (1, (), (g,))
    versions = [(p, seen) for p, seen in stored_posts(store, url) if p.post_id == g]
    assert [p.text for p, _ in versions] == ["Алексей подозрителен", "Алексей"]
    assert versions[1][0].edit_reason == "перепутал" and versions[1][0].edit_count == 1
    assert versions[0][1] < versions[1][1]            # first-seen times, board clock
    assert versions[1][1] == clock.now().replace(microsecond=0)

    # poll 5: the board fails every attempt -> reported, state untouched
    before = store.topic_state(key)
    board.fail_next(3, status=503, retry_after=2)
    r = poll(client, store, board, clock)
    assert r.requests == 3 and len(r.errors) == 1 and "HTTP 503 after 3 attempts" in r.errors[0]
    assert not r.complete and store.topic_state(key) == before
    assert client.slept[-2:] == [2.0, 2.0]            # Retry-After honoured

    # poll 6: a truncated page -> its raw body is stored, nothing else changes
    n_fetches, n_versions = store.fetch_count(), len(store.post_versions(key))
    board.truncate_next()
    r = poll(client, store, board, clock)
    assert r.requests == 1 and "truncated" in r.errors[0]
    assert store.fetch_count() == n_fetches + 1
    body = list(store.fetches())[-1][4]
    assert b"</html>" not in body and len(body) > 100
    assert len(store.post_versions(key)) == n_versions and store.topic_state(key) == before

    # poll 7: a connection drop is retried; a post deleted in the middle of the last page
    # between a post still there and a new one -> the page itself proves the deletion
    h = post(board, clock, "Алексей", 61, "Оправдания.")
    board.delete_post(g)
    board.drop_next()
    r = poll(client, store, board, clock)
    assert r.errors == () and r.requests == 2 and r.new_posts == (h,)
    assert r.deleted == (g,) and g in store.deleted_posts(key)
    assert g not in latest(store, url)

    # poll 8: a post deleted on page 1 and an edit on page 1: only a full scan sees them
    board.delete_post(c)
    board.edit_post(b, "[color=red]Big Joe[/color] — передумал", edited_at=clock.now())
    r = poll(client, store, board, clock)
    assert r.deleted == () and r.new_versions == ()
    r = poll(client, store, board, clock, full=True)
    assert r.complete and r.pages == (1, 2)
    assert r.requests == 3            # two pages, and p=<id> to confirm the deletion
    assert board.requests[-1][1] == f"/viewtopic.php?p={c}"
    assert r.deleted == (c,) and r.new_versions == (b,)
    assert set(store.deleted_posts(key)) == {c, g}
    assert [x.text for x in latest(store, url)[b].colored] == ["Big Joe"]
    store.close()

    # restart: a new client, the same store file -> nothing lost, nothing re-fetched
    store = Store(path)
    client = client_for(board, clock)
    everything = stored_posts(store, url)
    assert {p.post_id for p, _ in everything} == {a, b, c, d, e, f, g, h}
    assert [p.post_id for p in current_posts(store, url)] == [a, b, d, e, f, h]
    r = poll(client, store, board, clock)
    assert (r.requests, r.new_posts, r.new_versions, r.deleted, r.errors) == (1, (), (), (), ())
    assert board.requests[-1][1].endswith("start=5")
    i = post(board, clock, "Вася", 58, "[color=red]Алексей[/color]")
    r = poll(client, store, board, clock)
    assert r.new_posts == (i,) and r.requests == 1
    store.close()


def test_full_scan_with_a_failure_raises_and_marks_nothing(board, clock):
    store = Store(":memory:")
    client = client_for(board, clock)
    key = canonical_topic_url(board.topic_url())
    ids = [post(board, clock, "Вася", 58, f"сообщение {n}") for n in range(8)]
    poll(client, store, board, clock)
    board.delete_post(ids[1])
    board.delete_post(ids[6])
    board.fail_next(3, status=500)             # every attempt at page 1 fails
    with pytest.raises(FetchError) as ei:
        poll(client, store, board, clock, full=True)
    assert ei.value.report.errors and not ei.value.report.complete
    assert store.deleted_posts(key) == {}
    board.truncate_next(match="start=5")       # page 1 reads, page 2 is cut
    with pytest.raises(ParseError) as ei:
        poll(client, store, board, clock, full=True)
    assert ei.value.report.pages == (1,)
    assert store.deleted_posts(key) == {}      # never from a partial scan
    r = poll(client, store, board, clock, full=True)
    assert r.complete and set(r.deleted) == {ids[1], ids[6]}


def test_post_moving_back_a_page_during_a_full_scan_is_not_deleted(board, clock):
    """A deletion on page 1 after the scan read it pulls page 2's first post onto page 1,
    where the scan never sees it; the scan asks the board before calling it deleted."""
    store = Store(":memory:")
    key = canonical_topic_url(board.topic_url())
    ids = [post(board, clock, "Вася", 58, f"сообщение {n}") for n in range(8)]
    poll(client_for(board, clock), store, board, clock)

    class DeleteAfterPageOne(requests.Session):
        def send(self, request, **kw):
            resp = super().send(request, **kw)
            if request.url.endswith("t=4") and ids[1] in {p.post_id for t in board.topics.values()
                                                  for p in t.posts}:
                board.delete_post(ids[1])
            return resp
    client = ForumClient(DeleteAfterPageOne(), base_url=board.url, min_delay=0,
                         sleep=clock.sleep, monotonic=lambda: clock.now().timestamp())
    r = poll_topic(client, store, board.topic_url(), now=clock.now, full=True)
    assert r.complete and r.deleted == ()
    assert r.requests == 3 and board.requests[-1][1] == f"/viewtopic.php?p={ids[5]}"
    assert set(store.known_post_ids(key)) == set(ids)
    r = poll_topic(client, store, board.topic_url(), now=clock.now, full=True)
    assert r.deleted == (ids[1],)


def test_missing_topic_reported(board, clock):
    store = Store(":memory:")
    client = client_for(board, clock)
    r = poll_topic(client, store, f"{board.url}viewtopic.php?t=99", now=clock.now)
    assert r.requests == 1 and "does not exist" in r.errors[0]
    assert store.fetch_count() == 1  # the 404 page itself is kept
    with pytest.raises(TopicNotFoundError):
        poll_topic(client, store, f"{board.url}viewtopic.php?t=99", now=clock.now, full=True)


def test_login_board_and_expired_session(clock, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)   # urllib3 and requests log at DEBUG too
    monkeypatch.delenv("SCRAPER_MOD_FORUM_PASSWORD", raising=False)
    with LocalBoard(language="en", clock=clock, username="host", password="pa55") as board:
        board.add_topic("Day 1", topic_id=7)
        p1 = post(board, clock, "Вася", 58, "[color=red]Big Joe[/color]")
        store = Store(":memory:")
        client = client_for(board, clock, username="host", password="pa55")
        r = poll(client, store, board, clock)
        # topic -> login form; GET the login page; POST it; the topic again
        assert r.requests == 4 and r.new_posts == (p1,) and client.logins == 1
        assert [m for m, _ in board.requests] == ["GET", "GET", "POST", "GET"]
        assert poll(client, store, board, clock).requests == 1
        board.expire_sessions()
        r = poll(client, store, board, clock)
        assert r.requests == 4 and r.errors == () and client.logins == 2
        assert b"pa55" not in b"".join(body for *_, body in store.fetches())

        bad = client_for(board, clock, username="host", password="wrong")
        r = poll(bad, Store(":memory:"), board, clock)
        assert "refused the login as 'host'" in r.errors[0] and "incorrect password" in r.errors[0]
        assert "wrong" not in r.errors[0]
    assert "pa55" not in caplog.text and "wrong" not in caplog.text
    assert "POST /ucp.php?mode=login" in caplog.text   # the requests were logged, not the form


def test_topic_url_must_name_a_topic(board, clock):
    with pytest.raises(Exception) as ei:
        poll_topic(client_for(board, clock), Store(":memory:"), board.url + "viewforum.php?f=3",
                   now=clock.now)
    assert "not a topic URL" in str(ei.value)
    assert canonical_topic_url("https://f.org/forum/viewtopic.php?f=3&t=4&start=25&sid=ab") \
        == "https://f.org/forum/viewtopic.php?t=4"


def test_relative_dates_sharpen_into_a_new_version(tmp_path):
    """R2.6: a board without <time datetime> shows «4 минуты назад» first and «Сегодня, 19:59»
    later; the sharper sighting is stored too, so the post's minute is known."""
    clock = FakeClock(datetime(2024, 4, 9, 19, 50, tzinfo=MSK))
    with LocalBoard(language="ru", clock=clock, relative_dates=True, time_tags=False) as board:
        board.add_topic("День 1 — голосование", topic_id=4)
        pid = board.add_post("Маша_2", 59, "[color=#FF0000]NightOwl[/color]",
                             datetime(2024, 4, 9, 19, 59, 30, tzinfo=MSK))
        store = Store(tmp_path / "s.sqlite3")
        client = client_for(board, clock)
        clock.set(datetime(2024, 4, 9, 20, 4, 10, tzinfo=MSK))
        r = poll_topic(client, store, board.topic_url(), now=clock.now)
        assert r.new_posts == (pid,)
        assert "4 минуты назад".encode() in list(store.fetches())[-1][4]
        clock.set(datetime(2024, 4, 9, 20, 20, tzinfo=MSK))      # «20 минут назад»: no news
        assert poll_topic(client, store, board.topic_url(), now=clock.now).refined == ()
        clock.set(datetime(2024, 4, 9, 21, 30, tzinfo=MSK))      # «Сегодня, 19:59»
        r = poll_topic(client, store, board.topic_url(), now=clock.now)
        assert r.refined == (pid,) and r.new_versions == () and "sharper time" in r.summary()
        clock.set(datetime(2024, 4, 9, 22, 0, tzinfo=MSK))
        assert poll_topic(client, store, board.topic_url(), now=clock.now).refined == ()
        versions = stored_posts(store, board.topic_url())
        assert [p.precision for p, _ in versions] == ["relative", "minute"]
        real = datetime(2024, 4, 9, 19, 59, 30, tzinfo=MSK)
        first, second = versions[0][0], versions[1][0]
        assert first.earliest <= real <= first.latest
        assert (second.earliest, second.latest) == (datetime(2024, 4, 9, 19, 59, tzinfo=MSK),
                                                    datetime(2024, 4, 9, 19, 59, 59, tzinfo=MSK))
        assert versions[0][1] == datetime(2024, 4, 9, 20, 4, 10, tzinfo=MSK)  # first seen
        store.close()


def test_feed_sharpens_minute_and_relative_times_to_the_second(tmp_path):
    """R2.6 on a board without <time datetime> and with relative dates: a poll that sees new
    posts reads the topic's Atom feed once and stores each post's second; idle polls stay at
    one request; posts older than the feed's newest keep their ranges and are not asked about
    again; a failed feed request is retried later; a restart re-asks nothing."""
    clock = FakeClock(datetime(2024, 4, 9, 19, 30, tzinfo=MSK))
    with LocalBoard(language="ru", clock=clock, relative_dates=True, time_tags=False,
                    feed=True, feed_limit=3, per_page=5) as board:
        board.add_topic("День 1 — голосование", topic_id=4)
        at = lambda h, m, s: datetime(2024, 4, 9, h, m, s, tzinfo=MSK)  # noqa: E731
        a = board.add_post("Вася", 58, "[color=red]Маша_2[/color]", at(19, 10, 5))
        b = board.add_post("Маша_2", 59, "[color=red]Вася[/color]", at(19, 20, 17))
        path = tmp_path / "s.sqlite3"
        store = Store(path)
        client = client_for(board, clock)
        url = board.topic_url()
        key = canonical_topic_url(url)

        def times(pid):
            return [(p.precision, p.earliest, p.latest) for p, _ in stored_posts(store, url)
                    if p.post_id == pid]

        r = poll_topic(client, store, url, now=clock.now)
        assert (r.requests, r.new_posts, r.refined, r.feed) == (2, (a, b), (a, b), "read")
        assert board.requests[-1][1] == "/app.php/feed/topic/4"
        assert list(store.fetches())[-1][1].endswith("/app.php/feed/topic/4")  # raw feed kept
        assert times(b)[0][0] == "relative" and times(b)[1] == ("second", at(19, 20, 17),
                                                                 at(19, 20, 17))
        # idle: one request, nothing new
        clock.set(at(19, 45, 0))
        r = poll_topic(client, store, url, now=clock.now)
        assert (r.requests, r.new_posts, r.refined, r.feed) == (1, (), (), "")

        # a vote 30 s before the deadline, first seen 4 minutes after it
        c = board.add_post("Маша_2", 59, "[color=#FF0000]NightOwl[/color]", at(19, 59, 30))
        clock.set(at(20, 4, 10))
        r = poll_topic(client, store, url, now=clock.now)
        assert (r.requests, r.new_posts, r.refined) == (2, (c,), (c,))
        (shown, e0, l0), sharp = times(c)
        assert shown == "relative" and e0 <= at(19, 59, 30) < at(20, 0, 0) <= l0  # either side
        assert sharp == ("second", at(19, 59, 30), at(19, 59, 30))
        # later the page shows «Сегодня, 19:59»: the second is already known, no new version
        clock.set(at(21, 30, 0))
        r = poll_topic(client, store, url, now=clock.now)
        assert (r.requests, r.refined, r.new_versions) == (1, (), ())
        assert len(times(c)) == 2

        # four posts at once, the feed lists 3: the oldest keeps its minute, is not re-asked
        new = [board.add_post("Big Joe", 60, f"пост {n}", at(21, 31 + n, 11 * n + 1))
               for n in range(4)]
        clock.set(at(21, 40, 0))
        r = poll_topic(client, store, url, now=clock.now)
        assert r.new_posts == tuple(new) and r.refined == tuple(new[1:]) and r.requests == 3
        assert [t[0] for t in times(new[0])] == ["relative"]
        assert sorted(store.topic_state(key)["feed_done"]) == sorted([a, b, c, *new])
        clock.set(at(21, 45, 0))
        assert poll_topic(client, store, url, now=clock.now).requests == 1

        # the feed fails (503 after every retry): reported, asked again 5 minutes later
        d = board.add_post("Вася", 58, "ещё", at(21, 46, 40))
        board.fail_next(3, status=503, match="feed")
        clock.set(at(21, 50, 0))
        r = poll_topic(client, store, url, now=clock.now)
        assert r.new_posts == (d,) and r.refined == () and r.feed == "failed" and r.ok
        clock.set(at(21, 53, 0))
        r = poll_topic(client, store, url, now=clock.now)
        assert (r.requests, r.feed) == (1, "")
        clock.set(at(21, 56, 0))
        r = poll_topic(client, store, url, now=clock.now)
        assert (r.requests, r.refined, r.feed) == (2, (d,), "read")
        assert times(d)[-1] == ("second", at(21, 46, 40), at(21, 46, 40))
        store.close()

        # restart: nothing re-asked
        store = Store(path)
        clock.set(at(22, 20, 0))
        r = poll_topic(client_for(board, clock), store, url, now=clock.now)
        assert (r.requests, r.new_posts, r.refined, r.new_versions) == (1, (), (), ())
        # feed requests: the first poll, c, the four posts, 3 failed attempts, the retry
        assert board.request_count("/app.php/feed") == 1 + 1 + 1 + 3 + 1
        store.close()


def test_feed_off_prosilver_without_time_tags_never_asks(clock):
    """prosilver links the topic feed whenever it is on: a page without the link means no
    feed, so minute-precision prosilver (before 3.2.9) costs no extra request."""
    with LocalBoard(language="en", clock=clock, time_tags=False) as board:
        board.add_topic("Day 1", topic_id=4)
        board.add_post("Вася", 58, "[color=red]Big Joe[/color]", clock.now())
        store = Store(":memory:")
        client = client_for(board, clock)
        r = poll(client, store, board, clock)
        assert r.requests == 1 and r.new_posts and r.feed == ""
        assert stored_posts(store, board.topic_url())[0][0].precision == "minute"
        assert poll(client, store, board, clock).requests == 1
        assert board.request_count("/app.php") == 0


def test_full_rescan_is_paced_by_full_scan_delay(board, clock):
    """The once-a-day full re-scan at the deadline may be paced faster ([forum]
    full_scan_delay) than the day's polls (min_delay); the client's pace is restored after."""
    for i in range(12):  # three pages of five
        post(board, clock, "Вася", 58, f"пост {i}", minutes=1)
    store = Store(":memory:")
    client = client_for(board, clock, full_scan_delay=0.25)
    poll(client, store, board, clock)          # first poll reads every page at min_delay
    clock.slept.clear()
    report = poll(client, store, board, clock, full=True)
    assert report.pages == (1, 2, 3)
    waits = [s for s in clock.slept if s > 0]
    assert waits and all(abs(s - 0.25) < 1e-6 for s in waits)
    assert client.min_delay == 1.0
    clock.slept.clear()
    clock.advance(seconds=0.1)
    client.get(board.topic_url())
    client.get(board.topic_url())
    assert [round(s, 6) for s in clock.slept if s > 0] == [0.9, 1.0]  # min_delay again
