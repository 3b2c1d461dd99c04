"""Stats bench: `scraper-mod stats FOLDER` over 1,000 game records (the forum's memory).

Usage::

    python bench/stats.py            # 1,000 records
    python bench/stats.py --quick    # 200 records: targets reported, not enforced

Writes the records first (a seeded random forum of 300 nicks: games of 7 to 15 players, 3 to 8
days of counted votes, a replacement in one game of four, 50 of them older games' record.toml),
then runs the command as a host would, in a fresh process (`python -m scraper_mod stats FOLDER
--format json`: the start-up and the imports included), and takes its CPU time (user and
system: what its wall time is on a quiet machine; the wall time and the load average are
printed beside it) and the peak RSS of that process. Targets: <= 2 s and <= 200 MB for 1,000
records.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import CannotRun, Report, arg_parser, fmt_s, main_wrapper, need  # noqa: E402

TARGET_S, TARGET_MB = 2.0, 200.0
ROLES = ["boss", "mafia", "mafia", "commissar", "sergeant", "doctor", "maniac", "vsb"]
SIDE = {"boss": "mafia", "mafia": "mafia", "maniac": "maniac"}


def _record(rng: random.Random, n: int, nicks: list[str]) -> dict:
    size = rng.randint(7, 15)
    roles = (ROLES[:size] + ["civilian"] * size)[:size]
    rng.shuffle(roles)
    names = rng.sample(nicks, size + 1)
    last = rng.randint(3, 8)
    winner = rng.choice(["town", "mafia"] + (["maniac"] if "maniac" in roles else []))
    players = []
    for i, role in enumerate(roles):
        users = [{"nick": names[i], "from_day": 1}]
        if i == 0 and n % 4 == 0:
            users.append({"nick": names[-1], "from_day": 2})
        side = SIDE.get(role, "town")
        dies = side != winner and rng.random() < 0.8
        day = rng.randint(1, last)
        players.append({"slot": i + 1, "users": users, "role": role, "side": side,
                        "died": {"day": day, "how": "jailed", "by": "votes"} if dies else None})
    days = []
    for d in range(1, last + 1):
        live = [p["users"][-1]["nick"] for p in players
                if p["died"] is None or p["died"]["day"] >= d]
        days.append({"day": d, "jailed": None, "deaths": [],
                     "votes": [{"voter": v, "target": rng.choice(live)} for v in live]})
    setup: dict[str, int] = {}
    for r in roles:
        setup[r] = setup.get(r, 0) + 1
    start = f"{2015 + n // 300}-{1 + n % 12:02d}-{1 + n % 28:02d}"
    return {"record": 1, "source": "game", "title": f"Мафия #{n}", "start": start,
            "end": start, "language": "ru", "winner": winner, "decided_day": last,
            "setup": setup, "players": players, "days": days}


def _old(n: int, nicks: list[str]) -> str:
    rows = "".join(f'[[players]]\nnick = "{nick}"\nrole = "{role}"\n{died}'
                   for nick, role, died in [
                       (nicks[n % 300], "boss", 'died = { day = 3, how = "jailed" }\n'),
                       (nicks[(n + 1) % 300], "commissar", ""),
                       (nicks[(n + 2) % 300], "civilian", ""),
                       (nicks[(n + 3) % 300], "civilian", 'died = { day = 1, how = "mafia" }\n')])
    return (f'[game]\ntitle = "Старая #{n}"\nstart = 2014-01-{1 + n % 28:02d}\n'
            f'end = 2014-01-{1 + n % 28:02d}\nwinner = "town"\n{rows}')


def write_forum(root: Path, count: int) -> None:
    record_bytes = need("scraper_mod.game.history.record",
                        "the game's record (game/history/record.py)").record_bytes
    rng = random.Random(1000)
    nicks = [f"Игрок{i}" for i in range(300)]
    old = min(50, count // 20)
    for n in range(count):
        folder = root / f"season-{n % 10}" / f"game-{n:04d}"
        folder.mkdir(parents=True)
        if n < old:
            (folder / "record.toml").write_text(_old(n, nicks), encoding="utf-8")
        else:
            (folder / "record.json").write_bytes(record_bytes(_record(rng, n, nicks)))


def run(args, report: Report) -> None:
    count = 200 if args.quick else 1000
    with tempfile.TemporaryDirectory(prefix="scraper-mod-stats-") as tmp:
        root = Path(tmp)
        write_forum(root, count)
        size = sum(p.stat().st_size for p in root.rglob("record.*"))
        report.info(f"{count} records, {size / 1e6:.1f} MB on disk")
        cmd = [sys.executable, "-m", "scraper_mod", "stats", str(root), "--format", "json"]
        t0 = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        peak_mb = usage.ru_maxrss / 1024
        cpu = usage.ru_utime + usage.ru_stime
        if done.returncode != 0:
            raise CannotRun(f"`scraper-mod stats` failed: {done.stderr.strip()}")
        data = json.loads(done.stdout)
        if data["games"] != count:
            raise CannotRun(f"stats counted {data['games']} games of {count}")
        report.info(f"{len(data['players'])} players rated; the best: "
                    f"{data['players'][0]['nick']} ({data['players'][0]['rating']})")
        load = os.getloadavg()[0]
        report.info(f"wall time {fmt_s(wall)} with a load average of {load:.1f} on "
                    f"{os.cpu_count()} CPUs (on a quiet machine the wall time is the CPU time)")
        report.add("cpu", f"stats over {count} records: {fmt_s(cpu)} of CPU (a fresh process, "
                   f"start-up included)", target=f"<= {TARGET_S:.0f} s", ok=cpu <= TARGET_S,
                   value=cpu, unit="s")
        report.add("peak_rss", f"peak RSS {peak_mb:.0f} MB", target=f"<= {TARGET_MB:.0f} MB",
                   ok=peak_mb <= TARGET_MB, kind="memory", value=peak_mb, unit="MB")


if __name__ == "__main__":
    main_wrapper("stats", run, arg_parser(__doc__))
