"""Poll bench: what one poll of a long day topic costs the board, against re-reading it all.

Usage::

    python bench/poll.py              # a 40-page topic (990 posts)
    python bench/poll.py --quick      # a 6-page topic; request-count targets still enforced
    python bench/poll.py --topic-pages 80 --json out.json

A ``LocalBoard`` (a real HTTP server on 127.0.0.1 rendering phpBB 3.3.15 prosilver pages,
25 posts a page) serves one day topic of synthetic Russian/English chatter with colored
votes, quotes and bold names. ``poll_topic`` polls it into an in-memory ``Store`` through a
``ForumClient`` whose session counts the bytes of every response body (by its
``Content-Length``). The client's
politeness delay is set to 0 here (it spaces requests; it does not change their number).

After a first poll that reads the whole topic, the bench measures:

* ``idle``: a poll when nothing changed (target: 1 request);
* ``new_posts``: a poll after a few posts that stay on the last page;
* ``page_fills``: a poll after posts that fill the last page and open a new one
  (target: at most 2 requests);
* ``full_rescan``: ``poll_topic(full=True)``, the baseline every other line is a fraction of:
  the same topic re-fetched whole, every page, as a naive poller would on each poll.

Each line gives requests and bytes as a fraction of the full re-fetch, and the wall time of
the poll (client, server, parser and store together) as a fraction of the full re-fetch's.
"""

from __future__ import annotations

import random
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import CannotRun, Report, arg_parser, fmt_bytes, fmt_s, main_wrapper, need  # noqa: E402
from _synth import NICKS, TopicWriter  # noqa: E402

MSK = ZoneInfo("Europe/Moscow")
PER_PAGE = 25


class CountingSession:
    """A requests.Session whose response hook adds up requests and the body bytes each
    response announces (its ``Content-Length``: the client streams the body, so the hook
    must not read it)."""

    def __init__(self):
        import requests
        self.session = requests.Session()
        self.requests = 0
        self.bytes = 0
        self.session.hooks["response"].append(self._count)

    def _count(self, resp, *args, **kwargs):
        self.requests += 1
        length = resp.headers.get("Content-Length")
        if length is None or not length.isdigit():
            raise CannotRun(f"{resp.url}: no Content-Length to count the bytes by")
        self.bytes += int(length)
        return resp

    def snapshot(self) -> tuple[int, int]:
        return self.requests, self.bytes


def build_board(board, writer: TopicWriter, *, posts: int, opens: datetime,
                closes: datetime, alive: list[str]) -> int:
    tid = board.add_topic("День 3 — голосование")
    for p in writer.day(3, opens=opens, closes=closes, alive=alive, posts=posts):
        board.add_post(p.author, p.author_id, p.bbcode, p.posted_at, post_id=p.post_id)
    return tid


def run(args, report: Report) -> None:
    lb = need("scraper_mod.demo.localboard", "CLIENT owns LocalBoard")
    client_mod = need("scraper_mod.forum.client", "CLIENT owns ForumClient")
    poller = need("scraper_mod.forum.poller", "CLIENT owns poll_topic")
    from scraper_mod.clock import FakeClock
    from scraper_mod.store import Store

    topic_pages = 6 if args.quick and args.topic_pages is None else (args.topic_pages or 40)
    n_posts = (topic_pages - 1) * PER_PAGE + 15          # the last page is 15/25 full
    opens = datetime(2024, 4, 8, 18, 0, tzinfo=timezone.utc)   # 21:00 MSK
    closes = opens + timedelta(hours=23)                       # 20:00 MSK next day
    clock = FakeClock(closes - timedelta(hours=1))
    rng = random.Random(20240409)
    alive = list(NICKS[:20])
    writer = TopicWriter(rng, alive, language="ru", next_id=5000)

    with lb.LocalBoard(language="ru", clock=clock, per_page=PER_PAGE) as board:
        build_board(board, writer, posts=n_posts, opens=opens, closes=closes - timedelta(hours=1),
                    alive=alive)
        counting = CountingSession()
        client = client_mod.ForumClient(counting.session, base_url=board.url, min_delay=0,
                                        retries=0)
        store = Store(":memory:")
        url = board.topic_url()

        def poll(full: bool = False):
            r0, b0 = counting.snapshot()
            t0 = time.perf_counter()
            rep = poller.poll_topic(client, store, url, now=clock.now, full=full, board_tz=MSK)
            dt = time.perf_counter() - t0
            r1, b1 = counting.snapshot()
            if rep.errors:
                raise CannotRun(f"poll failed: {'; '.join(rep.errors)}")
            return rep, r1 - r0, b1 - b0, dt

        first, _, _, _ = poll()
        if len(first.new_posts) != n_posts:
            raise CannotRun(f"the first poll stored {len(first.new_posts)} posts, "
                            f"the board has {n_posts}")
        report.info(f"topic of {n_posts} posts on {first.page_count} pages, "
                    f"{PER_PAGE} a page, LocalBoard on 127.0.0.1")
        full, full_req, full_bytes, full_dt = poll(full=True)
        if full_req < first.page_count:
            raise CannotRun(f"a full re-scan sent {full_req} requests for "
                            f"{first.page_count} pages")

        def line(name: str, rep, req: int, nbytes: int, dt: float, *, target: int | None,
                 expect_new: int) -> None:
            if len(rep.new_posts) != expect_new:
                raise CannotRun(f"{name}: the poll found {len(rep.new_posts)} new posts, "
                                f"{expect_new} were added")
            text = (f"{req} request(s), {fmt_bytes(nbytes)}, {fmt_s(dt)} = "
                    f"{req / full_req:.3f} of the requests, {nbytes / full_bytes:.3f} of the "
                    f"bytes, {dt / full_dt:.3f} of the time of re-fetching the topic "
                    f"({full_req} requests, {fmt_bytes(full_bytes)}, {fmt_s(full_dt)})")
            report.add(name, text, ratio=req / full_req,
                       target=None if target is None else
                       (f"{target} request" if target == 1 else f"<= {target} requests"),
                       ok=None if target is None else req <= target, kind="count",
                       value=req, unit="requests", baseline=full_req)

        clock.advance(minutes=5)
        rep, req, nbytes, dt = poll()
        line("idle", rep, req, nbytes, dt, target=1, expect_new=0)

        alive_now = alive
        for _ in range(5):  # a few posts that stay on the last page (15 -> 20 of 25)
            clock.advance(seconds=40)
            p = writer.post(rng.choice(alive_now), clock.now(), alive=alive_now, recent=[])
            board.add_post(p.author, p.author_id, p.bbcode, p.posted_at, post_id=p.post_id)
        clock.advance(minutes=1)
        rep, req, nbytes, dt = poll()
        line("new_posts", rep, req, nbytes, dt, target=None, expect_new=5)

        for _ in range(8):  # fill the last page (20 -> 25) and open a new one with 3
            clock.advance(seconds=30)
            p = writer.post(rng.choice(alive_now), clock.now(), alive=alive_now, recent=[])
            board.add_post(p.author, p.author_id, p.bbcode, p.posted_at, post_id=p.post_id)
        clock.advance(minutes=1)
        rep, req, nbytes, dt = poll()
        line("page_fills", rep, req, nbytes, dt, target=2, expect_new=8)
        if rep.page_count != topic_pages + 1:
            raise CannotRun(f"page_fills: the topic should now have {topic_pages + 1} pages, "
                            f"the poll saw {rep.page_count}")
        store.close()


def main() -> None:
    p = arg_parser(__doc__)
    p.add_argument("--topic-pages", type=int, default=None,
                   help="pages of the topic (default 40; 6 with --quick)")
    main_wrapper("poll", run, p)


if __name__ == "__main__":
    main()
