"""Helpers for the QA tests (tests/test_qa_*.py): a copy of fixtures/games/day1 to break, and
running the CLI as a host without root's power over file permissions."""

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
