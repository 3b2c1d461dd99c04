"""Shared plumbing of the bench scripts: timing, figures, targets, exit codes.

Every bench prints one line per figure, each a ratio against a baseline measured in the same
run (absolute times on a shared machine are noise; ratios travel). A figure may carry a target;
the script exits 1 when a target is missed, 2 when it cannot run at all (a component it
measures is missing or fails), 0 otherwise.

``--quick`` runs a small, fast sanity pass: every figure is still computed and printed, and
targets that are counts (requests per poll) are still enforced, but timing and memory targets
are only reported ("not enforced in --quick"), so that a test may call the script without
becoming a timed test.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as `python bench/x.py` from anywhere, package or not
    sys.path.insert(0, str(ROOT))

EXIT_OK, EXIT_MISSED, EXIT_CANNOT_RUN = 0, 1, 2


class CannotRun(Exception):
    """The bench cannot measure: a component is missing or failed; the message says which."""


@dataclass(frozen=True)
class Figure:
    """One printed line: ``value`` compared with ``baseline`` as ``ratio``, maybe a target.

    ``kind`` is "timing" or "memory" for targets that only hold on a quiet machine (reported but
    not enforced in --quick), "count" for deterministic ones (always enforced).
    """

    bench: str
    name: str
    text: str                       # the human line, without the target verdict
    ratio: float | None = None
    target: str | None = None       # e.g. ">= 15", "<= 2", "< 30 s"
    ok: bool | None = None          # None: no target
    kind: str = "timing"
    value: float | None = None
    unit: str = ""
    baseline: float | None = None

    def line(self, quick: bool) -> str:
        verdict = ""
        if self.target is not None:
            state = "ok" if self.ok else "MISSED"
            if quick and not self.enforced(quick):
                state += ", not enforced in --quick"
            verdict = f"  [target {self.target}: {state}]"
        return f"{self.bench}.{self.name}: {self.text}{verdict}"

    def enforced(self, quick: bool) -> bool:
        return self.target is not None and (not quick or self.kind == "count")


class Report:
    """Collects a bench's figures; prints each as it comes; decides the exit status."""

    def __init__(self, bench: str, *, quick: bool, json_path: str | None = None) -> None:
        self.bench = bench
        self.quick = quick
        self.json_path = json_path
        self.figures: list[Figure] = []

    def add(self, name: str, text: str, **kw) -> Figure:
        f = Figure(self.bench, name, text, **kw)
        self.figures.append(f)
        print(f.line(self.quick), flush=True)
        return f

    def info(self, text: str) -> None:
        """A context line (machine, sizes), prefixed with '#', not a figure."""
        print(f"# {self.bench}: {text}", flush=True)

    def finish(self) -> int:
        missed = [f for f in self.figures if f.enforced(self.quick) and not f.ok]
        if self.json_path:
            Path(self.json_path).write_text(json.dumps(
                {"bench": self.bench, "quick": self.quick,
                 "figures": [asdict(f) for f in self.figures]}, ensure_ascii=False, indent=1),
                encoding="utf-8")
        if missed:
            print(f"# {self.bench}: {len(missed)} target(s) missed: "
                  + ", ".join(f.name for f in missed), flush=True)
            return EXIT_MISSED
        return EXIT_OK


def arg_parser(doc: str | None) -> argparse.ArgumentParser:
    """The options every bench takes; the script's docstring is its --help."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="small, fast sanity run; timing/memory targets reported, not enforced")
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON to FILE")
    return p


def main_wrapper(bench: str, run: Callable[[argparse.Namespace, Report], None],
                 parser: argparse.ArgumentParser) -> None:
    """Parse args, run, print figures, exit with the status; CannotRun -> one line, exit 2."""
    args = parser.parse_args()
    report = Report(bench, quick=args.quick, json_path=args.json)
    try:
        run(args, report)
    except CannotRun as e:
        print(f"error: {bench}: {e}", file=sys.stderr, flush=True)
        sys.exit(EXIT_CANNOT_RUN)
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(report.finish())


def best_time(fn: Callable[[], object], *, repeat: int, number: int = 1) -> float:
    """Seconds per call: the best of ``repeat`` rounds of ``number`` calls (timeit's rule).

    The minimum is the figure least disturbed by other processes; garbage collection stays on,
    because the code measured pays for its garbage in real use too.
    """
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def interleaved(fns: dict[str, Callable[[], object]], *, repeat: int,
                number: int = 1) -> dict[str, float]:
    """Best seconds per call of each function, rounds interleaved so drift hits all alike."""
    best = {k: float("inf") for k in fns}
    for k, fn in fns.items():  # warm-up: imports, caches, first-call costs
        fn()
    gc.collect()
    for _ in range(repeat):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            best[k] = min(best[k], (time.perf_counter() - t0) / number)
    return best


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def fmt_n(x: float) -> str:
    """12345.6 -> '12,346'; small numbers keep 3 significant digits."""
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:.3g}"


def fmt_s(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def need(module: str, what: str):
    """Import a project module or raise CannotRun naming who owns it."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise CannotRun(f"{module} is not available ({e}); {what}") from None
