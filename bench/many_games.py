"""Many games, one daemon: ``run FOLDER`` on 100 games of 20 players on 5 LocalBoards.

Usage::

    python bench/many_games.py            # 100 games on 5 boards, a whole day each
    python bench/many_games.py --quick    # 10 games on 2 boards; timing/memory not enforced
    python bench/many_games.py --games 20 --boards 2   # a shorter run, every target enforced
    python bench/many_games.py --games 40 --boards 4

Each game is a folder under one games folder (``game.toml``, a Maildir), all hosted by one
``daemon.many.Host`` with the default politeness (``[forum] min_delay`` 1 s,
``full_scan_delay`` 0.5 s) and the default schedule (a poll every 5 minutes, every minute in
the last 30, the re-scan 60 s after the deadline). Every day-1 deadline is 20:00. Over the
day each topic receives 300 posts of synthetic chatter with colored votes (quotes, bold
names, vote changes) and each Maildir 40 night-move letters, as the simulated clock reaches
their times; the daemon polls them as they come, snapshots every topic at 20:00, re-scans and
resolves.

What is simulated and what is real: each board's lane runs on a simulated clock of its own
(``ScriptedClock``: the politeness waits and the time between polls take no real time), in its
own thread, as ``run FOLDER`` runs each board on the real clock in a thread of its own. The
boards are real HTTP servers (LocalBoards) on 127.0.0.1, each in a process of its own, as a
real board is another program (``_boardproc.py``: in the bench's process their threads would
take Python's GIL from the daemon's and charge it their contention); each board's clock
follows its lane's simulated clock. Where the machine has two processors or more, the daemon
runs on the first half and the boards on the rest, as boards on other machines would not take
the daemon's cores (``--shared-cores`` lets them share; on a 2-core machine that costs the
daemon about 45 % more CPU seconds, ``_boardproc.py``). The client, parser, store, vote
count, move intake and resolver are the real ones. CPU seconds are as measured: the lane
threads' own CPU time (``time.thread_time``: the daemon's work), less the CPU of the lanes'
simulated waits: the world's events that the simulated clocks run on those threads while they
wait (a post sent to a board, a letter written into a Maildir) and the clocks' timetables,
where a wait on the real clock costs no CPU (``SharedClock.sleep_cpu``); the rest of the
process and the boards' processes are printed beside it. Peak RSS is the daemon's process's.
The times after the deadline are simulated waits plus the real CPU time the lane spent
in between (its jobs run one after the other on one thread).

Figures with their targets: peak RSS <= 300 MB; <= 3 CPU s per game-day; at most one
request per board in flight and none sooner after the previous one than the pace in force
(``min_delay`` 1 s; ``full_scan_delay`` 0.5 s during the deadline's re-scans, as the game
file allows); every deadline snapshot within 60 s of the deadline; the last newspaper within
10 minutes of it; requests per board per minute (the busiest minute and the mean).
"""

from __future__ import annotations

import os
import random
import resource
import shutil
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _boardproc import BoardProcess, SharedClock, cores_text, split_cores  # noqa: E402
from _harness import (  # noqa: E402
    CannotRun,
    Report,
    arg_parser,
    main_wrapper,
    need,
)
from _synth import TopicWriter, final_votes, game_players, game_toml, move_mail, script_game  # noqa: E402

POSTS, MOVES, PLAYERS = 300, 40, 20
TARGET_RSS_MB, TARGET_CPU, TARGET_SNAPSHOT, TARGET_LAST = 300.0, 3.0, 60.0, 600.0


def deliver(folder: Path, raw: bytes, at: datetime, n: int) -> None:
    """A letter into the Maildir as a delivery agent writes it at ``at``."""
    ts = at.timestamp()
    name = f"{int(ts)}.M{n:06d}P1Q{n}.bench"
    tmp = folder / "tmp" / name
    tmp.write_bytes(raw)
    os.utime(tmp, (ts, ts))
    os.rename(tmp, folder / "new" / name)


ACCOUNT = ("admin", "bench-host-pw")     # the posting account on every board


def run(args, report: Report) -> None:
    need("scraper_mod.demo.localboard", "LocalBoard")
    many = need("scraper_mod.daemon.many", "the many-games host")
    from scraper_mod.daemon.boards import board_key
    from scraper_mod.demo.world import ScriptedClock
    from scraper_mod.game.context import open_game
    from scraper_mod.game.publishing.publish import game_id
    from scraper_mod.game.setup.config import ForumConfig

    n_games = args.games or (10 if args.quick else 100)
    n_boards = args.boards or (2 if args.quick else 5)
    rng = random.Random(20240408)
    players = game_players(PLAYERS)
    nicks = [p.nick for p in players]
    start = datetime.fromisoformat("2024-04-08T20:58:00+03:00")
    opens = datetime.fromisoformat("2024-04-08T21:00:00+03:00")
    deadline = datetime.fromisoformat("2024-04-09T20:00:00+03:00")
    until = deadline + timedelta(minutes=30)
    fc = ForumConfig()

    # the world's events (a post reaching a board, a letter a Maildir) run on the lane's
    # thread when its simulated clock passes them, inside its waits: their CPU is the
    # bench's, not the daemon's (SharedClock.sleep_cpu counts the waits whole)
    world_cpu = [0.0]
    world_lock = threading.Lock()

    def world(action):
        def run() -> None:
            t0 = time.thread_time()
            try:
                action()
            finally:
                with world_lock:
                    world_cpu[0] += time.thread_time() - t0
        return run

    tmp = Path(tempfile.mkdtemp(prefix="scraper-mod-bench-many-"))
    root = tmp / "games"
    # each board in a process of its own, as a real board is another program (_boardproc.py),
    # on processors of its own where there are two or more
    clocks = [SharedClock(start) for _ in range(n_boards)]
    boards: list = []
    split = None if args.shared_cores else split_cores()
    own_cpus = os.sched_getaffinity(0) if split else None
    try:
        os.environ["SCRAPER_MOD_FORUM_PASSWORD"] = ACCOUNT[1]     # the autopilot posts
        boards += [BoardProcess(language="ru", clock=c, cpus=split[1] if split else None,
                                account=ACCOUNT)
                   for c in clocks]
    except (OSError, RuntimeError, EOFError) as e:
        for b in boards:
            b.stop()
        raise CannotRun(f"a LocalBoard process did not start: {e}") from None
    try:
        lynch = {}
        for g in range(n_games):
            b = g % n_boards
            board, clock = boards[b], clocks[b]
            folder = root / f"game{g:03d}"
            script = script_game(rng, players, 16)[0]
            order = nicks[:]
            rng.shuffle(order)
            tid = board.add_topic(f"Игра {g}. День 1")
            results = board.add_topic(f"Игра {g}. Итоги")
            folder.mkdir(parents=True)
            # the whole evening on autopilot: counts at 13:00 and 19:00, reminders at 18:00,
            # the newspaper, the next day's start, the PMs and the lock after the deadline
            publish = (f'mode = "auto"\nresults_topic = "{board.topic_url(results)}"\n'
                       'day_topic = "reply"\ntally_times = ["13:00", "19:00"]\n'
                       'remind_moves_at = "18:00"')
            (folder / "game.toml").write_text(game_toml(
                title=f"Бенч {g}", start="2024-04-08", players=players, random_list=order,
                forum_url=board.url, topics={1: board.topic_url(tid)},
                min_delay=fc.min_delay, full_scan_delay=fc.full_scan_delay,
                publish=publish, username=ACCOUNT[0]), encoding="utf-8")
            for sub in ("cur", "new", "tmp"):
                (folder / "moves" / sub).mkdir(parents=True)
            writer = TopicWriter(rng, nicks, next_id=10_000 + g * 1000,
                                 user_ids={p.nick: p.forum_id for p in players})
            for p in writer.day(1, opens=opens, closes=deadline, alive=nicks, posts=POSTS,
                                final=final_votes(rng, nicks, script.lynch)):
                clock.schedule(p.posted_at, world(lambda p=p, board=board, tid=tid:
                                                  board.add_post(p.author, p.author_id,
                                                                 p.bbcode, p.posted_at,
                                                                 topic=tid, post_id=p.post_id)))
            lynch[folder.name] = script.lynch
            # 40 letters: the night's moves, resent and changed over the day
            for i in range(MOVES):
                sender, text = script.moves[i % len(script.moves)]
                at = opens + timedelta(minutes=30 + i * 30)
                clock.schedule(at, world(lambda f=folder / "moves", s=sender, t=text, at=at,
                                         i=i: deliver(f, move_mail(s, t, at, n=i), at, i)))
        by_key = {board_key(b.url): c for b, c in zip(boards, clocks)}
        report.info(f"{n_games} games of {PLAYERS} players on {n_boards} LocalBoards, "
                    f"{POSTS} posts and {MOVES} move letters each, every deadline "
                    f"{deadline:%H:%M}; min_delay {fc.min_delay:g} s, full_scan_delay "
                    f"{fc.full_scan_delay:g} s, the default schedule; " + (
                        f"the daemon on {cores_text(split[0])}, the boards on "
                        f"{cores_text(split[1])}" if split else
                        "the daemon and the boards sharing the processors"))
        if split:
            os.sched_setaffinity(0, split[0])

        cpu0 = time.process_time()
        wall0 = time.perf_counter()
        if args.profile:   # one board, inline on its clock, under cProfile
            import cProfile
            import pstats
            host = many.Host(root, clock=clocks[0], record=True)
            prof = cProfile.Profile()
            prof.runcall(host.run, until=until)
            pstats.Stats(prof).sort_stats("cumulative").print_stats(40)
            for lane in host.lanes.values():
                lane.cpu_seconds = sum(j[4] for j in lane.jobs_run)
        else:
            host = many.Host(root, clock=ScriptedClock(start), lane_clock=by_key.__getitem__,
                             record=True)
            host.run(until=until)
        wall = time.perf_counter() - wall0
        cpu_all = time.process_time() - cpu0
        if host.problems:
            raise CannotRun(f"games did not run: {host.problems}")

        # every game resolved, as its votes decided
        resolved = {}
        evening: dict[str, int] = {}
        for folder in sorted(root.iterdir()):
            if not folder.is_dir():
                continue
            ctx = open_game(folder)
            try:
                ev = ctx.store.events("resolved")
                res = ctx.store.resolution(1)
                done = {(r["kind"], r["recipient"]) for r in
                        ctx.store.publications(game_id(ctx), 1) if r["status"] == "done"}
            finally:
                ctx.close()
            # the whole evening on the board: both counts, the newspaper, the next day's start
            # (the reminders go to nobody: every role has sent its move by 18:00)
            kinds = {k for k, _ in done}
            missing = {"tally", "newspaper", "day-start"} - kinds
            if missing or len([1 for k, _ in done if k == "tally"]) < 2:
                raise CannotRun(f"{folder.name}: not on the board: {sorted(missing) or 'a count'}"
                                f" (posted: {sorted(done)[:8]})")
            evening[folder.name] = len(done)
            if not ev or res is None:
                raise CannotRun(f"{folder.name}: day 1 was not resolved")
            got = (res.get("result") or res).get("lynched") or {}
            if got.get("player") != lynch[folder.name]:
                raise CannotRun(f"{folder.name}: jailed {got.get('player')}, the votes say "
                                f"{lynch[folder.name]}")
            resolved[folder.name] = ev[0][0]

        report.info(f"every game's evening on its board: {sum(evening.values())} "
                    f"publications in all ({min(evening.values())}-{max(evening.values())} "
                    "a game: two counts, the newspaper, the next day's start, the PMs)")
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        report.add("peak_rss", f"peak RSS {peak_mb:.0f} MB (the daemon's whole process; the "
                   "boards run in their own)", target=f"<= {TARGET_RSS_MB:.0f} MB",
                   ok=peak_mb <= TARGET_RSS_MB, kind="memory", value=peak_mb, unit="MB")
        board_cpu = sum(b.stop() or 0.0 for b in boards)
        waits = sum(c.sleep_cpu for c in clocks)
        lane_cpu = sum(lane.cpu_seconds for lane in host.lanes.values()) - waits
        per = lane_cpu / n_games
        report.add("cpu_per_game_day", f"{per:.2f} CPU s per game-day as measured (the "
                   f"daemon's threads, less {waits / n_games:.2f} s of the bench's simulated waits run on them: "
                   f"the world's events that fall in them, {world_cpu[0] / n_games:.2f} s "
                   "(posts reaching the boards, letters the Maildirs), and the simulated "
                   "clock's own work, where a wait on the real clock costs nothing; "
                   f"{(cpu_all - lane_cpu) / n_games:.2f} s more in the rest of the process: "
                   f"the world, the main thread; {board_cpu / n_games:.2f} s in the boards' "
                   f"own processes rendering pages; wall {wall:.0f} s in all)",
                   target=f"<= {TARGET_CPU:g} s",
                   ok=per <= TARGET_CPU, kind="timing", value=per, unit="s")

        worst_flight, worst_gap, per_min, mean_min = 0, None, 0, 0.0
        for key, gate in host.registry.gates.items():
            f = gate.figures
            worst_flight = max(worst_flight, f.max_in_flight)
            spans = f.spans
            for (s1, e1, d1), (s2, e2, d2) in zip(spans, spans[1:]):
                short = (s2 - e1) - d2       # below zero: sooner than the pace asked for
                worst_gap = short if worst_gap is None else min(worst_gap, short)
            starts = [s for s, _, _ in spans]
            j = 0
            for i, s in enumerate(starts):
                while starts[j] < s - 60:
                    j += 1
                per_min = max(per_min, i - j + 1)
            minutes = max(1.0, (starts[-1] - starts[0]) / 60) if starts else 1.0
            mean_min = max(mean_min, len(starts) / minutes)
        report.add("in_flight", f"at most {worst_flight} request(s) in flight per board",
                   target="<= 1", ok=worst_flight <= 1, kind="count", value=worst_flight)
        report.add("pace", f"the closest two requests on one board came "
                   f"{(worst_gap or 0):+.3f} s after the pace in force (min_delay, or "
                   "full_scan_delay in a re-scan)", target=">= 0 s",
                   ok=worst_gap is None or worst_gap >= -1e-6, kind="count",
                   value=worst_gap or 0, unit="s")
        report.add("requests_per_minute", f"{per_min} requests in the busiest minute of a "
                   f"board; {mean_min:.1f} a minute on average over the day (the busiest "
                   "board)", kind="count", value=per_min)

        snap, last, snap_cpu, last_cpu = 0.0, 0.0, 0.0, 0.0
        for lane in host.lanes.values():
            cpu_after = 0.0
            for s, game, job, end, cpu in lane.jobs_run:
                if s < deadline:
                    continue
                cpu_after += cpu
                if job == "deadline snapshot":
                    t = (end - deadline).total_seconds() + cpu_after
                    if t > snap:
                        snap, snap_cpu = t, cpu_after
                if job == "deadline" and game in resolved:
                    t = (end - deadline).total_seconds() + cpu_after
                    if t > last:
                        last, last_cpu = t, cpu_after
        report.add("snapshot", f"the last deadline snapshot {snap:.0f} s after the deadline "
                   f"({snap - snap_cpu:.0f} s simulated waits + {snap_cpu:.1f} s CPU)",
                   target=f"<= {TARGET_SNAPSHOT:.0f} s", ok=snap <= TARGET_SNAPSHOT,
                   kind="timing", value=snap, unit="s")
        report.add("last_newspaper", f"the last newspaper {last:.0f} s after the deadline "
                   f"({last - last_cpu:.0f} s simulated waits, the 60 s grace included, + "
                   f"{last_cpu:.1f} s CPU)", target=f"<= {TARGET_LAST:.0f} s",
                   ok=last <= TARGET_LAST, kind="timing", value=last, unit="s")
    finally:
        if own_cpus:
            os.sched_setaffinity(0, own_cpus)
        for b in boards:
            b.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    parser = arg_parser(__doc__)
    parser.add_argument("--games", type=int, help="games (default 100; 10 with --quick)")
    parser.add_argument("--boards", type=int, help="boards (default 5; 2 with --quick)")
    parser.add_argument("--profile", action="store_true",
                        help="one board, on one thread, under cProfile (where the CPU goes)")
    parser.add_argument("--shared-cores", action="store_true",
                        help="the boards' processes on the daemon's processors too (by default "
                             "each has its own half, where there are two or more)")
    main_wrapper("many_games", run, parser)
