"""The host report's night notes in words (R9.4).

``rules.night`` explains each move that did nothing with a language-neutral ``rules.notes.Note``
(a code and its values). Its wording, in Russian and English, is the table
``templates/night-notes.toml``; a game may carry ``GAME/templates/night-notes.toml`` with just
the tables it changes. ``note_line(note, lang)`` makes the line, in the game's language.

Notes stored by older versions are plain English strings: they are shown as they are.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from ..errors import ConfigError
from ..rules.notes import Note, note_from_json
from .render import templates_dir

__all__ = ["FILE_NAME", "note_line", "note_lines", "stored_notes", "wordings"]

FILE_NAME = "night-notes.toml"

def _read(path: Path) -> dict:
    """One wording file, as ``{"why": {...}, "notes": {...}}`` (read each time it is asked
    for: a game's own file may change while the game runs; nothing is kept here)."""
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read the note wordings: {e.strerror}", path=str(path)) from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"not a readable TOML file of note wordings: {e}", path=str(path),
                          hint="fix it, or remove it from the game's templates/ folder to use "
                               "the default wordings") from None
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"not a readable TOML file of note wordings: {e}", path=str(path),
                          hint="fix it, or remove it from the game's templates/ folder to use "
                               "the default wordings") from None
    out: dict[str, dict[str, dict[str, str]]] = {"why": {}, "notes": {}}
    for section in out:
        tables = data.get(section, {})
        if not isinstance(tables, dict):
            raise ConfigError(f"[{section}] must hold one table per code", path=str(path))
        for code, texts in tables.items():
            if not isinstance(texts, dict) or not all(isinstance(v, str)
                                                      for v in texts.values()):
                raise ConfigError("each wording must be a text, as en = \"...\"",
                                  path=str(path), key=f"{section}.{code}")
            out[section][code] = dict(texts)
    return out


def wordings(folder: str | os.PathLike | None = None) -> dict[str, dict[str, dict[str, str]]]:
    """The wording table: the built-in one, with a game's ``templates/night-notes.toml``
    (``folder``: the game's templates folder) laid over it code by code, language by
    language."""
    base = _read(templates_dir() / FILE_NAME)
    own = Path(folder) / FILE_NAME if folder else None
    if own is None or not own.is_file():
        return base
    extra = _read(own)
    return {section: {code: {**base[section].get(code, {}), **extra[section].get(code, {})}
                      for code in {**base[section], **extra[section]}}
            for section in base}


def _value(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def note_line(note: Note | str, lang: str, *, folder: str | os.PathLike | None = None,
              table: dict | None = None) -> str:
    """The host's line for a note, in ``lang`` (English when that language has no wording).

    A plain string (a note stored by an older version) is returned as it is; an unknown code
    shows the code and its values, so nothing is ever hidden from the host."""
    if isinstance(note, str):
        return note
    table = table if table is not None else wordings(folder)
    texts = table["notes"].get(note.code)
    fields = note.fields
    if not texts or not (texts.get(lang) or texts.get("en")):
        shown = ", ".join(f"{k}={_value(v)}" for k, v in note.args)
        return f"{note.code}: {shown}" if shown else note.code
    many = isinstance(fields.get("who"), (list, tuple)) and len(fields["who"]) > 1
    values = {k: _value(v) for k, v in fields.items()}
    if "why" in fields:
        whys: dict[str, str] = table["why"].get(str(fields["why"]), {})
        forms = ([f"{lang}_many", "en_many"] if many else []) + [lang, "en"]
        values["why"] = next((whys[f] for f in forms if whys.get(f)), str(fields["why"]))
    template = texts.get(lang) or texts["en"]
    try:
        return template.format_map(values)
    except (KeyError, IndexError, ValueError, AttributeError) as e:
        raise ConfigError(f"the wording cannot be filled in ({type(e).__name__}: {e}); it may "
                          f"use only {', '.join('{' + k + '}' for k in values) or 'no fields'}",
                          path=str(Path(folder) / FILE_NAME) if folder else FILE_NAME,
                          key=f"notes.{note.code}.{lang}",
                          hint="fix the wording in the game's templates/night-notes.toml"
                          ) from None


def note_lines(notes: Iterable[Note | str], lang: str, *,
               folder: str | os.PathLike | None = None) -> tuple[str, ...]:
    """``note_line`` for each note (the wording file read once)."""
    notes = tuple(notes)
    if all(isinstance(n, str) for n in notes):
        return cast(tuple[str, ...], notes)
    table = wordings(folder)
    return tuple(note_line(n, lang, table=table) for n in notes)


def stored_notes(resolution: dict | None) -> tuple[Note | str, ...]:
    """The notes of a resolution stored by ``resolving.resolve_day_files``: ``Note`` values,
    or an older version's plain strings, as they were stored."""
    raw = (resolution or {}).get("notes") or ()
    return tuple(note_from_json(n) for n in raw) if isinstance(raw, list) else ()
