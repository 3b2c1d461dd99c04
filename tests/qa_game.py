"""Helpers for the tests of a host's mistakes (the QA pass, now in the feature files: cli/,
game/, ...): a copy of fixtures/games/day1 to break, and running the CLI as a host without
root's power over file permissions."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "games" / "day1"


def copy_game(tmp_path: Path) -> Path:
    """fixtures/games/day1 (day 1: 8-9 April 2024) without any state, in a folder whose path
    has a space and Cyrillic letters, as hosts' folders do."""
    folder = tmp_path / "Игры мафии" / "игра 2"
    shutil.copytree(FIXTURE, folder, ignore=shutil.ignore_patterns("state.sqlite3*"))
    return folder


def read_topic(folder: Path) -> None:
    """Store day 1's topic (the real phpBB 3.3.15 capture of t=4, 40 posts) the way a poll
    stores it, through ``responses`` (no network): a day is resolved offline only from a
    topic that was read (issue 18 item 6)."""
    from datetime import datetime, timezone

    import responses

    from scraper_mod.forum.client import ForumClient
    from scraper_mod.forum.poller import poll_topic
    from scraper_mod.store import Store
    pages = FIXTURE.parent.parent / "phpbb" / "phpbb-3.3.15" / "prosilver-ru"
    topic = "http://127.0.0.1/viewtopic.php?t=4"
    with responses.RequestsMock() as rs:
        for url, name in ((topic, "guest_viewtopic_t4_start0.html"),
                          (topic + "&start=25", "guest_viewtopic_t4_start25.html")):
            rs.add(responses.GET, url, body=(pages / name).read_bytes(),
                   headers={"Date": "Wed, 02 Dec 2026 13:13:42 GMT"},
                   content_type="text/html; charset=UTF-8")
        client = ForumClient(None, base_url="http://127.0.0.1/", min_delay=0,
                             sleep=lambda s: None)
        with Store(folder / "state.sqlite3") as store:
            report = poll_topic(client, store, topic, now=datetime.now(timezone.utc), full=True)
    assert len(report.new_posts) == 40


def edit(folder: Path, old: str, new: str) -> None:
    """Replace the first ``old`` in the folder's game.toml (which must hold it)."""
    path = folder / "game.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def without_root_powers(argv: list[str]) -> list[str]:
    """``argv`` run so that a chmod means what it means for a host: as root, through capsh
    without the capabilities that ignore file permissions; a normal user needs nothing."""
    if os.geteuid() != 0:
        return argv
    if not shutil.which("capsh"):
        pytest.skip("running as root without capsh: file permissions cannot be tested")
    return ["capsh", "--drop=cap_dac_override,cap_dac_read_search,cap_fowner", "--", "-c",
            shlex.join(argv)]
