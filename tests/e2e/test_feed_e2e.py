"""End to end, RULES R2.6: the real phpBB 3.3.15 pages and topic feed served over 127.0.0.1.

The subSilver2 capture with relative dates was fetched at 20:35:06 MSK, 35 minutes after the
20:00 deadline: Маша_2's vote of 19:59:30 shows «35 минут назад» (19:59:06..20:00:06), so on
the pages alone it cannot be placed before the deadline and the count is Алексей 7 :
NightOwl 1. The poller reads the topic's Atom feed once, which gives 19:59:30 to the second,
and the count becomes the ground truth's 6 : 2. A small http.server serves the saved bytes
with the capture's own ``Date`` header (fetch_log.tsv).
"""

from __future__ import annotations

import re
import threading
from datetime import datetime, timezone
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import pytest
import requests

from scraper_mod.clock import FakeClock
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.poller import canonical_topic_url, poll_topic, stored_posts
from scraper_mod.game.day.tally import tally_day
from scraper_mod.store import Store

ROOT = Path(__file__).resolve().parents[2]
V33 = ROOT / "fixtures" / "phpbb" / "phpbb-3.3.15"
GAME = ROOT / "fixtures" / "games" / "day1"
MSK = ZoneInfo("Europe/Moscow")
FETCHED = datetime(2024, 4, 9, 20, 35, 6, tzinfo=MSK)  # the capture's Date header


class FixtureBoard:
    """Serves one capture's two topic pages and (optionally) the topic feed, as saved."""

    def __init__(self, folder: str, *, feed: str | None = "ru"):
        self.folder = V33 / folder
        self.feed = feed
        self.requests: list[str] = []
        # each page is served with the Date header it was captured with (fetch_log.tsv)
        self.dates = {row.split("\t")[0]: row.split("\t")[3] for row in
                      (self.folder / "fetch_log.tsv").read_text(encoding="utf-8").splitlines()[1:]}
        self.date = format_datetime(FETCHED.astimezone(timezone.utc), usegmt=True)

    def answer(self, target: str) -> tuple[int, str, bytes, str]:
        self.requests.append(target)
        parts = urlsplit(target)
        q = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/viewtopic.php" and q.get("t") == "4":
            start = q.get("start", "0")
            f = self.folder / f"guest_viewtopic_t4_start{start}.html"
            if f.exists():
                return 200, "text/html; charset=UTF-8", f.read_bytes(), self.dates[f.name]
        if parts.path == "/app.php/feed/topic/4" and self.feed:
            return (200, "application/atom+xml; charset=UTF-8",
                    (V33 / f"feed_topic_4.{self.feed}.atom.xml").read_bytes(), self.date)
        # phpBB 3.3 with feeds off: its 404 information page
        return 404, "text/html; charset=UTF-8", (V33 / "prosilver-ru" /
                                                  "guest_viewtopic_t9999_not_found.html"
                                                  ).read_bytes(), self.date

    def __enter__(self) -> "FixtureBoard":
        board = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                status, ctype, body, date = board.answer(self.path)
                self.send_response_only(status)
                self.send_header("Date", date)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def feed_requests(self) -> int:
        return sum(1 for r in self.requests if "feed" in r)


@pytest.fixture
def ctx():
    clock = FakeClock(datetime(2024, 4, 9, 20, 35, 10, tzinfo=MSK))
    from scraper_mod.game.context import GameContext
    from scraper_mod.game.setup.config import load_game
    # the fixture game's folder is never written: no state file is opened there
    c = GameContext(game=load_game(GAME), store=Store(":memory:"), clock=clock)
    yield c
    c.close()


def client(ctx, board) -> ForumClient:
    return ForumClient(requests.Session(), base_url=board.url, min_delay=0, retries=1,
                       sleep=ctx.clock.sleep, monotonic=lambda: ctx.clock.now().timestamp(),
                       now=ctx.clock.now)


def counts(result) -> dict[str, tuple[int, set[str]]]:
    return {c["target"]: (c["votes"], set(c["voters"])) for c in result.to_json()["counts"]}


TRUTH = {"Алексей": (6, {"NightOwl", "Big Joe", "Ёжик в тумане", "Вася", "doc_Holiday",
                         "Игрок-7"}),
         "NightOwl": (2, {"Алексей", "Маша_2"})}


def test_feed_places_the_1959_vote_before_the_deadline(ctx):
    """R2.6: pages + feed over HTTP, then tally_day: the ground truth 6 : 2, Маша_2 ->
    NightOwl counted; posts 97 and 98 (20:00:10, 20:00:45) late; an idle poll is 1 request."""
    with FixtureBoard("subsilver2-port-gorski-ru-relative-dates") as board:
        url = board.url + "viewtopic.php?t=4&style=2"
        ctx.set_topic_for_day(1, url)
        c = client(ctx, board)
        r = poll_topic(c, ctx.store, url, now=ctx.now)
        assert r.errors == () and r.pages == (1, 2) and len(r.new_posts) == 40
        assert r.requests == 3 and r.feed == "read"
        assert board.requests[-1] == "/app.php/feed/topic/4?style=2"   # the advertised URL
        # the 15 posts the feed lists now have their second; the others keep their minute
        assert sorted(r.refined) == list(range(88, 103))
        key = canonical_topic_url(url)
        fetches = list(ctx.store.fetches())
        assert fetches[-1][1].endswith("/app.php/feed/topic/4?style=2")
        assert fetches[-1][4] == (V33 / "feed_topic_4.ru.atom.xml").read_bytes()
        versions = [(p, seen) for p, seen in stored_posts(ctx.store, key) if p.post_id == 96]
        assert [p.precision for p, _ in versions] == ["relative", "second"]
        sharp = versions[1][0]
        assert sharp.posted_at == sharp.earliest == sharp.latest == \
            datetime(2024, 4, 9, 19, 59, 30, tzinfo=MSK)
        assert versions[0][0].earliest <= sharp.posted_at <= versions[0][0].latest
        assert sharp.content_key() == versions[0][0].content_key()   # same text, sharper time
        (p70,) = [p for p, _ in stored_posts(ctx.store, key) if p.post_id == 70]
        assert p70.precision == "minute"                              # not in the feed

        result = tally_day(ctx, 1)
        data = result.to_json()
        assert data["final"] is True
        assert counts(result) == TRUTH
        votes = {v["voter"]: (v["target"], v["post_id"]) for v in data["votes"]}
        assert votes["Маша_2"] == ("NightOwl", 96)
        late = {(x["post_id"], x["reason"]) for x in data["rejected"]
                if x["reason"].startswith("late")}
        assert late == {(97, "late"), (98, "late")}
        assert data["lynch"] == {"player": "Алексей", "by": "votes"}

        # idle polls: the last page only; the feed is not asked again
        n_versions = len(ctx.store.post_versions(key))
        for _ in range(3):
            ctx.clock.advance(minutes=5)
            r = poll_topic(c, ctx.store, url, now=ctx.now)
            assert (r.requests, r.new_posts, r.refined, r.feed) == (1, (), (), "")
        assert board.feed_requests() == 1
        assert len(ctx.store.post_versions(key)) == n_versions
        # a full re-scan at the deadline changes nothing either
        r = poll_topic(c, ctx.store, url, now=ctx.now, full=True)
        assert (r.requests, r.new_versions, r.refined, r.deleted) == (2, (), (), ())
        assert counts(tally_day(ctx, 1)) == TRUTH


def test_english_feed_works_the_same(ctx):
    """The feed's language does not matter: times are ISO 8601 with the board's offset."""
    with FixtureBoard("subsilver2-port-gorski-ru-relative-dates", feed="en") as board:
        url = board.url + "viewtopic.php?t=4&style=2"
        ctx.set_topic_for_day(1, url)
        poll_topic(client(ctx, board), ctx.store, url, now=ctx.now)
        assert counts(tally_day(ctx, 1)) == TRUTH


def test_board_without_feed_still_works_and_is_asked_once_a_day(ctx):
    """No feed (phpBB's 404 page): the poll still stores every post, the day is counted on
    the pages (R2.6: 19:59:30 first seen at 20:35 is late, Алексей 7 : NightOwl 1), and the
    feed is asked for once, then not again for a day."""
    with FixtureBoard("subsilver2-port-gorski-ru-relative-dates", feed=None) as board:
        url = board.url + "viewtopic.php?t=4&style=2"
        ctx.set_topic_for_day(1, url)
        c = client(ctx, board)
        r = poll_topic(c, ctx.store, url, now=ctx.now)
        assert r.errors == () and len(r.new_posts) == 40 and r.refined == ()
        assert r.requests == 3 and r.feed == "missing" and "feed missing" in r.summary()
        state = ctx.store.topic_state(canonical_topic_url(url))
        assert state["feed"]["status"] == "missing" and state["pages"]["2"]
        for minutes in (5, 60, 600):
            ctx.clock.advance(minutes=minutes)
            r = poll_topic(c, ctx.store, url, now=ctx.now)
            assert (r.requests, r.feed) == (1, "")
        assert board.feed_requests() == 1
        result = tally_day(ctx, 1)
        assert counts(result)["NightOwl"] == (1, {"Алексей"})
        assert counts(result)["Алексей"][0] == 7
        # a day later it is asked again (once): the board may have switched it on
        board.feed = "ru"
        ctx.clock.advance(days=1)
        r = poll_topic(c, ctx.store, url, now=ctx.now)
        assert (r.requests, r.feed) == (2, "read") and 96 in r.refined
        assert counts(tally_day(ctx, 1)) == TRUTH


def test_prosilver_pages_never_ask_for_the_feed(ctx):
    """<time datetime> gives every post its second: no feed request, ever (the page links
    the feed, and it is there)."""
    with FixtureBoard("prosilver-ru-relative-dates") as board:
        url = board.url + "viewtopic.php?t=4"
        ctx.set_topic_for_day(1, url)
        c = client(ctx, board)
        r = poll_topic(c, ctx.store, url, now=ctx.now)
        assert (r.requests, len(r.new_posts), r.feed, r.refined) == (2, 40, "", ())
        r = poll_topic(c, ctx.store, url, now=ctx.now, full=True)
        assert r.requests == 2 and r.feed == ""
        assert board.feed_requests() == 0
        assert ctx.store.topic_state(canonical_topic_url(url)).get("feed") is None
        assert counts(tally_day(ctx, 1)) == TRUTH


class UnlinkedBoard(FixtureBoard):
    """The same capture from a style that links no feed in its <head>; ``old`` also drops
    every app.php link, as a phpBB 3.0 page has none (3.0 serves feed.php?t=N)."""

    def __init__(self, *, old: bool):
        super().__init__("subsilver2-port-gorski-ru-relative-dates")
        self.old = old

    def answer(self, target):
        status, ctype, body, date = super().answer(target)
        if target.startswith("/viewtopic.php"):
            body = re.sub(rb'<link rel="alternate" type="application/atom\+xml"[^>]*>', b"", body)
            if self.old:
                body = body.replace(b"app.php", b"faq.php")
        path = urlsplit(target).path
        if (path == "/feed.php") == self.old and path in ("/feed.php", "/app.php/feed/topic/4"):
            return (200, "application/atom+xml; charset=UTF-8",
                    (V33 / "feed_topic_4.ru.atom.xml").read_bytes(), date)
        if path.endswith("feed.php") or "/feed" in path:
            return 404, ctype, b"<html><body>Not Found</body></html>", date
        return status, ctype, body, date


@pytest.mark.parametrize("old, asked", [(False, "/app.php/feed/topic/4"),
                                        (True, "/feed.php?t=4")])
def test_style_without_feed_link_guesses_the_versions_feed_url(ctx, old, asked):
    """A style that leaves the feed link out: the poller guesses the URL of the board's
    phpBB version (3.1+ pages link app.php, 3.0 pages do not), once."""
    with UnlinkedBoard(old=old) as board:
        url = board.url + "viewtopic.php?t=4&style=2"
        ctx.set_topic_for_day(1, url)
        r = poll_topic(client(ctx, board), ctx.store, url, now=ctx.now)
        assert r.feed == "read" and 96 in r.refined and r.requests == 3
        assert [q for q in board.requests if "feed" in q] == [asked]
        assert counts(tally_day(ctx, 1)) == TRUTH
