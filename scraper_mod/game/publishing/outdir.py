"""``write_day_files(out_dir, day, files)``: ``out/day-N/`` written atomically (the new folder
is built beside the old one and swapped in; a crash leaves the old folder or the new one),
and ``recover_out_dir`` finishes an interrupted swap.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import shutil
from pathlib import Path
from typing import Mapping

from scraper_mod.errors import StorageError
from scraper_mod.posts.limits import part_number


def _crash_point(step: str) -> None:
    """A no-op hook between the steps of a write; tests replace it to simulate a crash."""


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux ``renameat2(RENAME_EXCHANGE)``); False if unsupported."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    rc = fn(_AT_FDCWD, os.fsencode(str(a)), _AT_FDCWD, os.fsencode(str(b)), _RENAME_EXCHANGE)
    return rc == 0


def _day_paths(out_dir: Path, day: int) -> tuple[Path, Path, Path]:
    return (out_dir / f"day-{day}", out_dir / f".day-{day}.new", out_dir / f".day-{day}.old")


def recover_out_dir(out_dir: Path) -> list[str]:
    """Finish or undo any interrupted day-folder swap under ``out_dir``; returns what it did.

    A ``.day-N.old`` exists only once ``.day-N.new`` is complete: with ``day-N`` missing the
    swap is rolled forward; with ``day-N`` present the old copy is removed. A lone
    ``.day-N.new`` is an unfinished build and is removed.
    """
    done: list[str] = []
    if not out_dir.is_dir():
        return done
    for p in sorted(out_dir.iterdir()):
        name = p.name
        if name.startswith(".day-") and name.endswith(".gone"):
            shutil.rmtree(p, ignore_errors=True)
            done.append(f"removed the withdrawn {name}")
            continue
        if not (name.startswith(".day-") and name.endswith((".new", ".old"))):
            continue
        day = name[len(".day-"):-4]
        if not day.isdigit():
            continue
        final, new, old = _day_paths(out_dir, int(day))
        if name.endswith(".old"):
            if not final.exists() and new.is_dir():
                os.rename(new, final)
                done.append(f"finished writing {final.name}")
            elif not final.exists():
                os.rename(old, final)
                done.append(f"restored {final.name}")
                continue
            shutil.rmtree(old, ignore_errors=True)
        elif name.endswith(".new") and not old.exists():
            shutil.rmtree(new, ignore_errors=True)
            done.append(f"removed an unfinished {name}")
    return done


_OURS = {"newspaper.bbcode", "day-start.bbcode", "host-report.txt", "result.json"}


def _ours(rel: str) -> bool:
    """A path in ``out/day-N/`` that resolving writes (``render_day``, ``preview_files``)."""
    return (rel in _OURS or rel.split("/")[0] in ("pm", "preview") or bool(part_number(rel))
            or bool(re.fullmatch(r"day-\d+-start\.bbcode", rel)))


def write_day_files(out_dir: Path, day: int, files: Mapping[str, str]) -> Path:
    """Write ``out_dir/day-N/`` with ``files`` (relative path -> text), atomically. Of the old
    folder only the files the host put there himself are carried over: any path resolving
    never writes (``_ours``); what resolving wrote before and does not write now goes.

    The new folder is built completely as ``.day-N.new`` (each file fsynced), then swapped
    with the old one in one step where the system allows (``renameat2``), else by two renames
    that ``recover_out_dir`` completes after a crash. Readers see the old folder or the new.
    """
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        recover_out_dir(out_dir)
        final, new, old = _day_paths(out_dir, day)
        if final.exists() and not final.is_dir():
            raise StorageError(f"{final.name} is a file, not the day's folder", path=str(final),
                               hint="move that file away; resolving writes the folder there")
        if new.exists():
            shutil.rmtree(new)
        new.mkdir(mode=0o700)   # the PMs and the host report hold roles: owner only
        for rel, text in files.items():
            target = Path(os.path.normpath(new / rel))
            if new not in target.parents or Path(rel).is_absolute():
                raise StorageError(f"refusing to write outside the day folder: {rel}",
                                   path=str(new))
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with open(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
                      "wb") as fh:
                fh.write(text.encode("utf-8"))
                fh.flush()
                os.fsync(fh.fileno())
            _crash_point(f"file:{rel}")
        if final.is_dir():  # the host's own files in the folder stay (never ours to delete)
            for src in sorted(final.rglob("*")):
                rel = src.relative_to(final).as_posix()
                if src.is_dir() and not src.is_symlink() or rel in files or _ours(rel):
                    continue
                (new / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, new / rel, follow_symlinks=False)
        for d in sorted({(new / rel).parent for rel in files}, reverse=True):
            _fsync_dir(d)
        _crash_point("built")
        if final.exists() and _exchange(new, final):
            _crash_point("exchanged")
            _fsync_dir(out_dir)
            shutil.rmtree(new)
            return final
        if final.exists():
            os.rename(final, old)
            _crash_point("old-moved")
        os.rename(new, final)
        _fsync_dir(out_dir)
        _crash_point("swapped")
        if old.exists():
            shutil.rmtree(old)
        return final
    except OSError as e:
        raise StorageError(f"cannot write the day's posts: {e}", path=str(out_dir),
                           hint="check that the game folder's out/ is writable") from None
