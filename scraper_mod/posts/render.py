"""The Jinja2 environment over ``templates/`` (shipped inside the wheel as
``scraper_mod/templates``; in a source checkout the top-level ``templates/`` is used).

Templates are named ``<kind>.<lang>.<ext>.j2``: ``newspaper.ru.bbcode.j2``,
``role-card.en.txt.j2``. ``render_text(kind, lang, ext, **context)`` picks one.
Everything a player controls must pass through the ``bb`` filter (BBCode-inert text).
Every value a template prints passes through ``neutralise`` (the environment's ``finalize``):
no control or direction character from a player reaches a post, a PM or a report.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path
from typing import Any

import jinja2

from .plural import ru_plural_word

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


#: the format characters kept: U+200B (the zero-width space ``bbcode_inert`` puts in), U+200C
#: and U+200D (joiners inside words and emoji); no direction control among them
_KEPT_FORMAT = frozenset("\u200b\u200c\u200d")


def neutralise(value: object) -> object:
    """Text quoted from players (stories, move text, nicks read in posts) without control
    and bidirectional characters: U+202A–U+202E (embeddings, overrides: U+202E turns the rest
    of a line around in browsers), U+2066–U+2069 (isolates), U+200E/U+200F and U+061C (marks),
    the rest of Unicode's Cc and Cf (NUL, escape, carriage return, U+FEFF ...) but for tab and
    newline, which text needs, and the joiners above. Not text: returned as it is."""
    if not isinstance(value, str):
        return value
    if value.replace("\n", "").replace("\t", "").isprintable():
        return value   # the common case, at C speed (isprintable is False for Cc and Cf)
    return "".join(ch for ch in value
                   if ch in "\n\t" or ch in _KEPT_FORMAT
                   or unicodedata.category(ch) not in ("Cc", "Cf"))


def bbcode_inert(value: object) -> str:
    """Make player-controlled text unable to open or close BBCode tags or links.

    The board's parser only sees a tag when ``[`` is directly followed by the tag name (or ``/``),
    and only auto-links text that reads ``http://``, ``www.`` or an e-mail; a zero-width space
    after each ``[`` and inside those prefixes keeps the text as it reads, but inert.
    """
    s = str(neutralise("" if value is None else str(value)))
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
        finalize=neutralise,
    )
    env.filters["bb"] = bbcode_inert
    env.globals["ru_plural"] = ru_plural_word
    return env


def render_text(kind: str, lang: str, ext: str, /, **context: Any) -> str:
    """Render ``templates/<kind>.<lang>.<ext>.j2`` with ``context``."""
    return environment().get_template(f"{kind}.{lang}.{ext}.j2").render(**context)
