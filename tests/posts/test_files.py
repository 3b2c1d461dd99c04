"""Atomic file writing: a crash mid-write leaves the old file, never half a new one."""

from __future__ import annotations

import os

import pytest

from scraper_mod.posts.dayfolder import write_atomic


def test_write_atomic_replaces_whole_file(tmp_path):
    target = tmp_path / "sub" / "день-1.txt"
    write_atomic(target, "старый\n")
    write_atomic(target, "новый\n")
    assert target.read_text(encoding="utf-8") == "новый\n"
    assert [p.name for p in target.parent.iterdir()] == ["день-1.txt"]


def test_a_crash_before_the_rename_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "card.txt"
    write_atomic(target, "old")

    def boom(src, dst):
        raise KeyboardInterrupt  # the process is stopped between the write and the rename

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["card.txt"]  # no temporary file left
