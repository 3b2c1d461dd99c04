"""Deadline bench: from the deadline to ``out/day-N/`` written, with the final full re-scan.

Usage::

    python bench/deadline.py               # 1,000-post topic, the default full_scan_delay
    python bench/deadline.py --quick       # 200 posts, no delay; timing targets not enforced
    python bench/deadline.py --posts 2000 --min-delay 0.5 --json out.json
    python bench/deadline.py --min-delay 0 --profile   # where the non-waiting time goes

A 20-player game (``game.toml`` in a temporary folder, night moves in a Maildir) whose day-1
topic is a ``LocalBoard`` on 127.0.0.1 (phpBB 3.3.15 prosilver, 25 posts a page) holding a
day of synthetic Russian/English chatter with colored votes, quotes, bold names and vote
changes, decided by votes. During the day the topic was polled (untimed, on a simulated
clock). The clock then stands at the deadline — grace 0 — and the bench times
``resolve_day_files(ctx, 1)`` on the real clock: the final full re-scan of every page
through ``ForumClient`` with the game's ``[forum] full_scan_delay`` between requests (the
default, 0.5 s, unless ``--min-delay``; the day's polls keep ``min_delay``, 1 s), the last read of the Maildir, the tally, the night, the posts
rendered and ``out/day-1/`` written atomically. It checks that the day's lynch is the one
the synthetic votes decided.

Figures, each against the bare fetch of the same pages (``requests.get`` one after the other,
no delay, no parsing), measured in the same run:

* ``total``: deadline to files written (target under 30 s);
* ``parse_resolve``: the part that is neither waiting for HTTP answers nor the politeness delay
  — parsing, storing, tallying, judging moves, resolving, rendering, writing (target under 2 s);
* ``politeness``: the time spent in the re-scan's politeness waits.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import CannotRun, Report, arg_parser, fmt_s, main_wrapper, need  # noqa: E402
from _synth import TopicWriter, final_votes, game_players, game_toml, move_mail, script_game  # noqa: E402

TARGET_TOTAL = 30.0
TARGET_PARSE_RESOLVE = 2.0
PER_PAGE = 25


class RealClock:
    """The game's clock for the timed part: starts at a simulated instant (the deadline) and
    runs at real speed; ``sleep`` really sleeps and adds up what it slept."""

    def __init__(self, start: datetime) -> None:
        self.start = start
        self.t0 = time.perf_counter()
        self.slept = 0.0

    def now(self) -> datetime:
        return self.start + timedelta(seconds=time.perf_counter() - self.t0)

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            t = time.perf_counter()
            time.sleep(seconds)
            self.slept += time.perf_counter() - t


class HttpTimer:
    """Times every ``requests.Session.send`` in this process (the bench's instrument only)."""

    def __init__(self) -> None:
        import requests
        self._cls = requests.Session
        self._orig = requests.Session.send
        self.seconds = 0.0
        self.count = 0
        self._local = threading.local()

    def __enter__(self) -> "HttpTimer":
        timer, orig = self, self._orig

        def send(session, request, **kw):
            t = time.perf_counter()
            try:
                return orig(session, request, **kw)
            finally:
                timer.seconds += time.perf_counter() - t
                timer.count += 1
        self._cls.send = send
        return self

    def __exit__(self, *exc) -> None:
        self._cls.send = self._orig


def write_maildir(folder: Path, mails: list[tuple[bytes, datetime]]) -> None:
    """Deliver messages into a Maildir, each file's mtime its receive time."""
    for sub in ("cur", "new", "tmp"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    for i, (raw, at) in enumerate(mails):
        path = folder / "new" / f"{int(at.timestamp())}.M{i}P1.bench"
        path.write_bytes(raw)
        os.utime(path, (at.timestamp(), at.timestamp()))


def run(args, report: Report) -> None:
    lb = need("scraper_mod.demo.localboard", "CLIENT owns LocalBoard")
    resolving = need("scraper_mod.game.results.resolve", "RESOLVE owns resolve_day_files")
    poller = need("scraper_mod.game.day.poll", "the game's poll_day")
    intake = need("scraper_mod.game.night.intake", "MOVES owns poll_moves")
    from scraper_mod.clock import FakeClock
    from scraper_mod.game.context import open_game
    from scraper_mod.game.setup.config import ForumConfig

    n_posts = args.posts or (200 if args.quick else 1000)
    min_delay = args.min_delay if args.min_delay is not None else (
        0.0 if args.quick else ForumConfig().full_scan_delay)
    rng = random.Random(20240408)
    players = game_players(20)
    nicks = [p.nick for p in players]
    script = script_game(rng, players, 16)[0]
    order = nicks[:]
    rng.shuffle(order)

    tmp = Path(tempfile.mkdtemp(prefix="scraper-mod-bench-deadline-"))
    board_clock: list = [None]
    try:
        with lb.LocalBoard(language="ru", clock=lambda: board_clock[0].now(),
                           per_page=PER_PAGE) as board:
            board.add_topic("День 1 — голосование")
            (tmp / "game.toml").write_text(game_toml(
                title="Бенч: дедлайн", start="2024-04-08", players=players, random_list=order,
                forum_url=board.url, topics={1: board.topic_url()}, min_delay=min_delay,
                full_scan_delay=min_delay),
                encoding="utf-8")
            history = FakeClock(datetime.fromisoformat("2024-04-09T19:50:00+03:00"))
            board_clock[0] = history
            ctx = open_game(tmp, clock=history)
            cal = ctx.calendar()
            opens, deadline = cal.day_start(1), cal.deadline(1)
            writer = TopicWriter(rng, nicks, next_id=3000,
                                 user_ids={p.nick: p.forum_id for p in players})
            posts = writer.day(1, opens=opens, closes=deadline, alive=nicks, posts=n_posts,
                               final=final_votes(rng, nicks, script.lynch))
            for p in posts:
                board.add_post(p.author, p.author_id, p.bbcode, p.posted_at, post_id=p.post_id)
            mails = [(move_mail(sender, text, deadline - timedelta(hours=3, minutes=i), n=i),
                      deadline - timedelta(hours=3, minutes=i))
                     for i, (sender, text) in enumerate(script.moves)]
            write_maildir(tmp / "moves", mails)
            pages = -(-len(posts) // PER_PAGE)
            report.info(f"{len(posts)} posts on {pages} pages, 20 players, "
                        f"{len(mails)} night moves by mail, full_scan_delay {min_delay:g} s, grace 0")

            # the day's polling, untimed, on the simulated clock
            rep = poller.poll_day(ctx, 1)
            if rep is None or rep.errors or len(rep.new_posts) != len(posts):
                raise CannotRun(f"the day's poll did not store the topic: {rep and rep.summary()}")
            intake.poll_moves(ctx, send=False)
            ctx.close()

            # the deadline: real time from here
            clock = RealClock(deadline)
            board_clock[0] = clock
            ctx = open_game(tmp, clock=clock)
            prof = None
            if args.profile:
                import cProfile
                prof = cProfile.Profile()
            with HttpTimer() as http:
                t0 = time.perf_counter()
                if prof:
                    prof.enable()
                outcome = resolving.resolve_day_files(ctx, 1)
                if prof:
                    prof.disable()
                total = time.perf_counter() - t0
            ctx.close()
            lynched = outcome.result.lynched.player if outcome.result.lynched else None
            if lynched != script.lynch:
                raise CannotRun(f"day 1 jailed {lynched!r}; the votes were for "
                                f"{script.lynch!r}")
            if not (tmp / "out" / "day-1" / "newspaper.bbcode").exists():
                raise CannotRun("out/day-1/newspaper.bbcode was not written")

            # the baseline: the same pages fetched bare
            import requests
            urls = [board.topic_url(start=k * PER_PAGE) for k in range(pages)]
            bare = float("inf")
            with requests.Session() as s:
                for _ in range(1 if args.quick else 3):
                    t0 = time.perf_counter()
                    for u in urls:
                        r = s.get(u, timeout=30)
                        r.raise_for_status()
                    bare = min(bare, time.perf_counter() - t0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    if prof:
        import pstats
        st = pstats.Stats(prof, stream=sys.stdout).strip_dirs()
        st.sort_stats("cumulative").print_stats(45)
        st.sort_stats("tottime").print_stats(25)
    waits = clock.slept
    rest = total - http.seconds - waits
    report.add("total",
               f"deadline to out/day-1/ written in {fmt_s(total)} = {total / bare:.1f}x the "
               f"bare fetch of the same {pages} pages ({fmt_s(bare)}); {http.count} requests",
               ratio=total / bare, target=f"< {TARGET_TOTAL:g} s", ok=total < TARGET_TOTAL,
               value=total, unit="s", baseline=bare)
    report.add("parse_resolve",
               f"parse, store, tally, moves, resolve, render and write: {fmt_s(rest)} = "
               f"{rest / bare:.2f}x the bare fetch ({fmt_s(bare)})",
               ratio=rest / bare, target=f"< {TARGET_PARSE_RESOLVE:g} s",
               ok=rest < TARGET_PARSE_RESOLVE, value=rest, unit="s", baseline=bare)
    report.add("http",
               f"waiting for {http.count} HTTP answers (LocalBoard renders in this process): "
               f"{fmt_s(http.seconds)} = {http.seconds / bare:.2f}x the bare fetch",
               ratio=http.seconds / bare, value=http.seconds, unit="s", baseline=bare)
    report.add("politeness",
               f"full_scan_delay waits: {fmt_s(waits)} = {waits / bare:.1f}x the bare fetch "
               f"({min_delay:g} s between requests)",
               ratio=waits / bare, value=waits, unit="s", baseline=bare)
    gaps = max(1, http.count - 1)
    allowed = (TARGET_TOTAL - (total - waits)) / gaps
    report.info(f"the {TARGET_TOTAL:g} s target leaves room for full_scan_delay <= {allowed:.2f} s "
                f"between the {http.count} requests of this re-scan")


def main() -> None:
    p = arg_parser(__doc__)
    p.add_argument("--posts", type=int, default=None,
                   help="posts in the day's topic (default 1000; 200 with --quick)")
    p.add_argument("--min-delay", type=float, default=None,
                   help="seconds between the final re-scan's requests (default: the game "
                        "file's full_scan_delay, 0.5; 0 with --quick)")
    p.add_argument("--profile", action="store_true",
                   help="print a cProfile of resolve_day_files (the timed part)")
    main_wrapper("deadline", run, p)


if __name__ == "__main__":
    main()
