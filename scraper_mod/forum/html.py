"""Reading a page's bytes into an lxml tree (the charset rules), and the small text and
link helpers every part of the parser uses."""

from __future__ import annotations

import re
from typing import Any, cast
from zoneinfo import ZoneInfo

from lxml import etree

from scraper_mod.errors import ParseError

MOSCOW = ZoneInfo("Europe/Moscow")


# ---------------------------------------------------------------- HTML and encodings

# no id table (``collect_ids``): nothing here looks an element up by its id through it, and
# building it was a sixth of every page's parse
_UTF8_PARSER = etree.HTMLParser(encoding="utf-8", remove_comments=True, collect_ids=False)
_STR_PARSER = etree.HTMLParser(remove_comments=True, collect_ids=False)
_RE_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.I)


def parse_html(body: bytes | str, url: str = "") -> Any:
    """One lxml parse of a page (UTF-8, else the declared charset, else windows-1251).

    Many boards declare one charset and send another (a saved phpBB 2 page says iso-8859-1
    and is UTF-8), so valid UTF-8 wins over the declaration.
    """
    if isinstance(body, str):
        text = body
    else:
        if not isinstance(body, (bytes, bytearray, memoryview)):
            raise ParseError(f"expected bytes, got {type(body).__name__}", url=url or None)
        body = bytes(body)
        if not body or body.isspace():
            raise ParseError("empty response", url=url or None,
                             hint="the board sent no page; retry later")
        m = _RE_META_CHARSET.search(body, 0, 4096)
        declared = m.group(1).decode("ascii", "replace").lower() if m else None
        text = None
        if declared not in ("utf-8", "utf8"):
            # undeclared or declared otherwise: valid UTF-8 still wins (libxml2 itself puts
            # U+FFFD for stray bytes in a page that says UTF-8)
            try:
                body.decode("utf-8")
            except UnicodeDecodeError:
                codec = declared or "cp1251"
                try:
                    text = body.decode(codec, errors="replace")
                except LookupError:
                    text = body.decode("cp1251", errors="replace")
    if text is None:
        if b"\x00" in body:
            body = cast(bytes, body).replace(b"\x00", b"")
        try:
            doc = etree.fromstring(body, parser=_UTF8_PARSER)
        except (etree.ParserError, etree.XMLSyntaxError, ValueError) as e:
            raise ParseError(f"not readable as HTML: {e}", url=url or None) from None
    else:
        text = re.sub(r"^\s*<\?xml[^>]*>", "", text.replace("\x00", ""))
        if not text.strip():
            raise ParseError("empty response", url=url or None)
        try:
            doc = etree.fromstring(text, parser=_STR_PARSER)
        except (etree.ParserError, etree.XMLSyntaxError, ValueError) as e:
            raise ParseError(f"not readable as HTML: {e}", url=url or None) from None
    if doc is None:
        raise ParseError("not readable as HTML", url=url or None)
    return doc


def _complete(body: bytes | str) -> bool:
    """True when the page reached its end (a truncated page must never look like fewer posts)."""
    tail = body[-4096:] if len(body) > 4096 else body
    if isinstance(tail, str):
        tail = tail.encode("utf-8", "replace")
    low = tail.lower()
    return b"</html" in low or b"</body" in low


# ---------------------------------------------------------------- small helpers

_RE_POST_ID = re.compile(r"^p(\d{1,12})$")
_RE_NUM_ID = re.compile(r"^(\d{1,12})$")
_RE_P_PARAM = re.compile(r"[?&;]p=(\d{1,12})")
_RE_T_PARAM = re.compile(r"[?&;](?:amp;)?t=(\d{1,12})")
_RE_U_PARAM = re.compile(r"[?&;](?:amp;)?u=(\d{1,12})")


def _norm(s: str | None) -> str:
    """Whitespace runs to one space, ends stripped (str.split's whitespace is re's \\s)."""
    return " ".join(s.split()) if s else ""


def _tc(el) -> str:
    """Text content of an element (works for lxml.html and plain etree elements)."""
    return "".join(el.itertext())


def _int_param(regex: re.Pattern, href: str | None) -> int | None:
    if not href:
        return None
    m = regex.search(href)
    return int(m.group(1)) if m else None
