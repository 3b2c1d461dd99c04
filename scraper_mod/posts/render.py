"""The Jinja2 environment over ``templates/`` (shipped inside the wheel as
``scraper_mod/templates``; in a source checkout the top-level ``templates/`` is used).

Templates are named ``<kind>.<lang>.<ext>.j2``: ``newspaper.ru.bbcode.j2``,
``role-card.en.txt.j2``. ``render_text(kind, lang, ext, **context)`` picks one.
Everything a player controls must pass through the ``bb`` filter (BBCode-inert text).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import jinja2

_PACKAGE_TEMPLATES = Path(__file__).parent.parent / "templates"
_SOURCE_TEMPLATES = Path(__file__).parent.parent.parent / "templates"

ZWSP = "\u200b"
_URLISH = re.compile(r"(?i)(https?|ftp)(://)|(www)(\.)")


def templates_dir() -> Path:
    """Where the templates are: inside the installed package, or the source checkout's."""
    if _PACKAGE_TEMPLATES.is_dir():
        return _PACKAGE_TEMPLATES
    if _SOURCE_TEMPLATES.is_dir():
        return _SOURCE_TEMPLATES
    raise FileNotFoundError("scraper-mod's templates are missing: reinstall the package")


def bbcode_inert(value: object) -> str:
    """Make player-controlled text unable to open or close BBCode tags or links.

    phpBB's parser only sees a tag when ``[`` is directly followed by the tag name (or ``/``),
    and only auto-links text that reads ``http://``, ``www.`` or an e-mail; a zero-width space
    after each ``[`` and inside those prefixes keeps the text as it reads, but inert.
    """
    s = "" if value is None else str(value)
    s = s.replace("[", "[" + ZWSP)
    s = _URLISH.sub(lambda m: (m.group(1) or m.group(3)) + ZWSP + (m.group(2) or m.group(4)), s)
    s = s.replace("@", "@" + ZWSP)
    return s


@functools.lru_cache(maxsize=4)
def environment(root: str | None = None) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(root or str(templates_dir())),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["bb"] = bbcode_inert
    return env


def render_text(kind: str, lang: str, ext: str, /, **context: Any) -> str:
    """Render ``templates/<kind>.<lang>.<ext>.j2`` with ``context``."""
    return environment().get_template(f"{kind}.{lang}.{ext}.j2").render(**context)
