"""Shared helpers of the parser tests (fixtures/phpbb/, fetch logs, derived truth).

Also checks that fixtures/phpbb/truth.json is what fixtures/phpbb/derive_truth.py makes of the
ground-truth READMEs, so the tests never drift from them.
"""

from __future__ import annotations

import csv
import importlib.util
import json
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PHPBB = ROOT / "fixtures" / "phpbb"
V33 = PHPBB / "phpbb-3.3.15"
OTHER = PHPBB / "other-versions"
BOARD = "http://127.0.0.1:8033"


def truth() -> dict:
    return json.loads((PHPBB / "truth.json").read_text(encoding="utf-8"))


def fetch_log(folder: Path) -> dict[str, dict]:
    """file name -> its fetch_log.tsv row, with ``fetched_at`` from the Date header."""
    rows = {}
    with (folder / "fetch_log.tsv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            row["fetched_at"] = parsedate_to_datetime(row["server_Date_header"]).astimezone(
                timezone.utc)
            rows[row["file"]] = row
    return rows


def page(folder: str, name: str) -> tuple[bytes, str, datetime]:
    """(body, URL, board clock at fetch) of a saved phpBB 3.3.15 page."""
    d = V33 / folder
    if folder.startswith("pm/"):
        log = fetch_log(V33 / "pm")[f"{folder[3:]}/{name}"]
    else:
        log = fetch_log(d)[name]
    return (d / name).read_bytes(), BOARD + log["url"], log["fetched_at"]


def moscow(s: str) -> datetime:
    from zoneinfo import ZoneInfo
    return datetime.fromisoformat(s).replace(tzinfo=ZoneInfo("Europe/Moscow"))


def test_truth_json_is_derived_from_the_readmes():
    spec = importlib.util.spec_from_file_location("derive_truth", PHPBB / "derive_truth.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.derive() == truth()


def test_truth_covers_all_posts_and_messages():
    t = truth()
    assert [p["n"] for p in t["topic"]["posts"]] == list(range(1, 41))
    assert [p["post_id"] for p in t["topic"]["posts"]] == list(range(63, 103))
    assert sorted(m["msg_id"] for m in t["pm"]["messages"]) == [1, 2, 3, 4, 5, 6, 7, 8, 9]

