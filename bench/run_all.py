"""Run every bench, one after the other, each in its own Python process.

Usage::

    python bench/run_all.py             # all benches, full size (a few minutes)
    python bench/run_all.py --quick     # the fast sanity pass of each
    python bench/run_all.py parse poll  # only these
    python bench/run_all.py --json-dir DIR   # also DIR/<bench>.json with the figures

Each bench prints one line per figure (a ratio against a baseline measured in the same run,
with its target and verdict). Exit status: 0 when every bench met its targets, 1 when any
missed one, 2 when any could not run at all (a component missing or failing).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = ("parse", "poll", "deadline", "replay", "live_session", "names", "many_games",
           "web_page", "stats")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("names", nargs="*", metavar="BENCH",
                   help=f"which benches (default all: {', '.join(BENCHES)})")
    p.add_argument("--quick", action="store_true", help="pass --quick to each bench")
    p.add_argument("--json-dir", metavar="DIR", help="write DIR/<bench>.json")
    args = p.parse_args()
    unknown = [n for n in args.names if n not in BENCHES]
    if unknown:
        p.error(f"unknown bench {', '.join(unknown)} (one of {', '.join(BENCHES)})")
    worst = 0
    for name in args.names or BENCHES:
        cmd = [sys.executable, str(HERE / f"{name}.py")]
        if args.quick:
            cmd.append("--quick")
        if args.json_dir:
            Path(args.json_dir).mkdir(parents=True, exist_ok=True)
            cmd += ["--json", str(Path(args.json_dir) / f"{name}.json")]
        t0 = time.perf_counter()
        rc = subprocess.call(cmd)
        print(f"# {name}: exit {rc} after {time.perf_counter() - t0:.1f} s", flush=True)
        worst = max(worst, rc if rc in (0, 1, 2) else 2)
    return worst


if __name__ == "__main__":
    sys.exit(main())
