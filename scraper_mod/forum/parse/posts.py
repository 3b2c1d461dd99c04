"""phpBB topic pages (viewtopic) and topic lists (viewforum) read into plain values.

Pure: bytes in, ``TopicPage`` out; one lxml parse per page and cheap tree walks (no
BeautifulSoup), because the poller parses every page it fetches.

Markup families (see ``fixtures/phpbb/``):

* **prosilver** (phpBB 3.0-3.3 and prosilver-based styles such as AllanStyle): posts are
  ``div#pNNN.post``; author and time in ``p.author`` (3.2.9+ has ``<time datetime>`` with the
  UTC instant to the second); body ``div.content``; ``div.notice`` edit notice;
  ``div.signature``; quotes ``<blockquote>`` (3.2+: ``cite="…?p=NN"`` / ``data-post-id``).
* **subsilver2** (phpBB 3.0 and the 3.2/3.3 community port): each post is a group of table
  rows starting at ``<a name="pNNN">``; ``b.postauthor``; ``<b>Posted:</b> DATE``; body
  ``div.postbody``, signature a second ``div/span.postbody`` after ``_________________``;
  quotes ``div.quotetitle`` + ``div.quotecontent``; edit notice in a ``td.row3`` table.
* **subSilver** (phpBB 2.0): rows starting at ``<a name="NNN">`` in ``span.name``; time in
  ``span.postdetails`` ("Posted: …"); body ``span.postbody`` cells, quotes ``td.quote``,
  signature after ``_________________`` in the same cell, edit notice in ``span.gensmall``.

What a post holds (``forum/model.py``):

* ``colored``: each ``[color]`` run of the author's own words (outside quotes, spoilers, code
  and signatures) in document order; hex colours as ``#RRGGBB`` upper case (``#f00`` and
  ``rgb()`` too), named colours lower case; nested colours split into their runs; a user
  name's group colour (``username-coloured``) and ``background-color`` are not colours.
* ``bold``: bold runs of the own words (``<strong>``, ``<b>``, ``font-weight:bold``).
* ``hidden``: coloured and bold runs that are *not* the author's own visible words, with
  where they stand: "quote" (with the quoted post id when the board gives it), "spoiler",
  "code" or "signature" (``color`` None for bold).
* ``quotes``: ids of quoted posts, outer before inner, each once.
* ``text``: the own words as plain text; ``<br>`` is a line break, a block (a removed quote
  included) one line break, empty lines collapse to one.
* times: ``posted_at`` == ``earliest``; see ``dates.py`` for the ranges.

What a page may lack, and what is returned then:

* no ``<time datetime>`` (everything but prosilver 3.2.9+): the shown date in ``board_tz``
  with precision "minute" (or "relative" for «N минут назад»);
* no user ids (guests, deleted users, static mirrors whose links were rewritten): ``author_id``
  None; no topic id in any link: ``topic_id`` None; quotes without a post id (phpBB 3.0, 2.0):
  not listed in ``quotes`` (their text still goes to ``hidden`` with ``quoted_post_id`` None).
* ``locked`` is read from the reply button (prosilver 3.3: «Тема закрыта» with a lock icon,
  3.0/3.1: ``div.locked-icon``, subsilver2 and phpBB 2: a ``…locked…`` button image); a
  viewer who may not reply gets no button, and the topic then reads as not locked.
* the time zone: phpBB shows dates in the viewer's zone; pass it as ``board_tz``.
  ``declared_timezone(body)`` reads the zone the page states in its footer («Часовой пояс»,
  "All times are UTC+03:00", "GMT + 1 Hour"), which ``parse_topic_file`` uses.
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass, fields
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from urllib.parse import urljoin
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from lxml import etree

from scraper_mod.errors import (
    BoardDisabledError,
    ForumError,
    LoginRequiredError,
    NotPhpbbError,
    ParseError,
    TopicNotFoundError,
)
from scraper_mod.forum.dates import DateParseError, TimeRange, parse_shown_date
from scraper_mod.forum.model import Colored, Hidden, Post, TopicPage

MOSCOW = ZoneInfo("Europe/Moscow")

__all__ = ["parse_topic_page", "parse_forum_page", "parse_topic_file", "TopicLink",
           "declared_timezone", "parse_html", "classify_error_page", "walk_body", "BodyParts",
           "normalize_color"]


@dataclass(frozen=True)
class TopicLink:
    """A topic listed on a viewforum page."""

    topic_id: int | None
    title: str
    url: str


# ---------------------------------------------------------------- HTML and encodings

_UTF8_PARSER = etree.HTMLParser(encoding="utf-8", remove_comments=True)
_STR_PARSER = etree.HTMLParser(remove_comments=True)
_RE_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.I)


def parse_html(body: bytes | str, url: str = ""):
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
            body = body.replace(b"\x00", b"")
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

_WS = re.compile(r"\s+")
_RE_COLOR_DECL = re.compile(r"(?:^|;)\s*color\s*:\s*([^;]+)", re.I)
_RE_BOLD_DECL = re.compile(r"font-weight\s*:\s*(bold|bolder|[6-9]00)", re.I)
_RE_HEX = re.compile(r"^#?([0-9a-f]{3}|[0-9a-f]{6})$", re.I)
_RE_RGB = re.compile(r"^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})", re.I)
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


def normalize_color(value: str) -> str | None:
    """``#ff0000`` -> ``#FF0000``, ``#f00`` -> ``#FF0000``, ``Red`` -> ``red``, rgb() -> hex."""
    v = value.strip().strip("'\"").strip()
    if v.lower().endswith("!important"):
        v = v[:-10].strip()
    if not v:
        return None
    m = _RE_HEX.match(v)
    if m and (v.startswith("#") or len(v) == 6):
        h = m.group(1)
        if len(h) == 3:
            h = "".join(ch * 2 for ch in h)
        return "#" + h.upper()
    m = _RE_RGB.match(v)
    if m:
        r, g, b = (min(int(x), 255) for x in m.groups())
        return f"#{r:02X}{g:02X}{b:02X}"
    if re.fullmatch(r"[A-Za-z]{1,30}", v):
        low = v.lower()
        if low in ("inherit", "initial", "unset", "currentcolor", "transparent", "revert"):
            return None
        return low
    return None


_STYLE_COLORS: dict[str, str | None] = {}


def _style_color(st: str) -> str | None:
    try:
        return _STYLE_COLORS[st]
    except KeyError:
        pass
    m = None
    for m in _RE_COLOR_DECL.finditer(st):
        pass
    c = normalize_color(m.group(1)) if m else None
    if len(_STYLE_COLORS) > 4096:
        _STYLE_COLORS.clear()
    _STYLE_COLORS[st] = c
    return c


def _element_color(el) -> str | None:
    if "username-coloured" in (el.get("class") or ""):
        return None     # a group colour on a user name, not BBCode [color]
    st = el.get("style")
    if st and "olor" in st:
        c = _style_color(st)
        if c is not None:
            return c
    if el.tag == "font":
        c = el.get("color")
        if c:
            return normalize_color(c)
    return None


def _int_param(regex: re.Pattern, href: str | None) -> int | None:
    if not href:
        return None
    if regex is _RE_U_PARAM:
        # the profile link "./memberlist.php?mode=viewprofile&u=58" (hot: once a post)
        i = href.rfind("u=")
        if i > 0 and href[i - 1] in "?&;":
            j = i + 2
            k = j
            while k < len(href) and href[k].isdigit():
                k += 1
            if j < k <= j + 12 and (k == len(href) or href[k] in "&#;"):
                return int(href[j:k])
    m = regex.search(href)
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------- body walking

_LB = "\ue000"       # a line break (<br>) while text is collected
_BLK = "\ue001"      # the edge of a block element: one line break, however many meet
_RE_BLOCK_EDGES = re.compile(f"\\s*{_LB}?\\s*(?:{_BLK}\\s*)+{_LB}?")
_BLOCK = frozenset("div p li ul ol blockquote tr table pre h1 h2 h3 h4 h5 h6 dl dd dt hr "
                   "tbody thead center".split())
# the class given to an edit notice found inside a post's body, so the walk skips it
_NOTICE_MARK = "scraper-mod-edit-notice"
_SKIP_TAGS = frozenset(("script", "style", "noscript", "cite", "button", "input", "select",
                        "textarea", "summary", "head", "title"))
# tags that need a closer look even without class/style attributes
_SPECIAL_TAGS = frozenset(("strong", "b", "blockquote", "pre", "code", "td", "font", "img",
                           "details", "br")) | _SKIP_TAGS
_SKIP_CLASSES = frozenset(("quotetitle", "codetitle", "spoiler-title", "attachbox",
                           "inline-attachment", "spoiler-head", "sp-head", _NOTICE_MARK))
_QUOTE_HEADER = re.compile(r"(wrote|писал\(а\)|писал|пишет|quote|цитата|code|код)\s*:?\s*$",
                           re.I)


@dataclass
class BodyParts:
    """What ``walk_body`` collects from a post body."""

    text_parts: list
    colored: list
    bold: list
    hidden: list
    quotes: list

    def text(self) -> str:
        raw = "".join(self.text_parts)
        if _BLK in raw:
            raw = _RE_BLOCK_EDGES.sub(_LB, raw)
        out: list[str] = []
        for line in raw.split(_LB):
            line = _norm(line)
            if not line and (not out or not out[-1]):
                continue
            out.append(line)
        while out and not out[-1]:
            out.pop()
        return "\n".join(out)


class _Walker:
    """Walks a body in document order, tracking where text stands (own / quote / spoiler /
    code / signature), its colour and boldness. Coloured and bold runs are collected in
    buffers that are flushed into fragments when the colour, boldness or region changes."""

    __slots__ = ("parts", "cbuf", "bbuf")

    def __init__(self) -> None:
        self.parts = BodyParts([], [], [], [], [])
        self.cbuf: list | None = None
        self.bbuf: list | None = None

    def _flush(self, color, bold, where, qid) -> None:
        """Close the open coloured/bold runs (the ones for ``color``/``bold``)."""
        if color is not None:
            buf = self.cbuf
            self.cbuf = None
            if buf:
                t = _norm("".join(buf))
                if t:
                    if where is None:
                        self.parts.colored.append(Colored(color, t))
                    else:
                        self.parts.hidden.append(Hidden(color, t, where, qid))
        if bold:
            buf = self.bbuf
            self.bbuf = None
            if buf:
                t = _norm("".join(buf))
                if t:
                    if where is None:
                        self.parts.bold.append(t)
                    else:
                        self.parts.hidden.append(Hidden(None, t, where, qid))

    def put(self, s, where, qid, color, bold, sig):
        """Text in the current state; returns the (maybe changed) region."""
        if sig and where is None and "_________________" in s:
            # phpBB 2 puts the signature in the body cell after a line of underscores
            before, _, s = s.partition("_________________")
            self.put(before, where, qid, color, bold, False)
            self._flush(color, bold, None, qid)
            if color is not None:
                self.cbuf = []
            if bold:
                self.bbuf = []
            where = "signature"
        if where is None:
            self.parts.text_parts.append(s)
        if color is not None:
            self.cbuf.append(s)
        if bold:
            self.bbuf.append(s)
        return where

    def run(self, el, where, qid, color, bold, sig):
        """Walk ``el``'s content (not its tail); returns the region at its end."""
        plain = where is None and color is None and not bold and not sig
        texts = self.parts.text_parts
        t = el.text
        if t:
            if plain:
                texts.append(t)
            else:
                where = self.put(t, where, qid, color, bold, sig)
        child = self.child
        for ch in el:
            where = child(ch, where, qid, color, bold, sig and where is None)
            t = ch.tail
            if t:
                if plain and where is None:
                    texts.append(t)
                else:
                    where = self.put(t, where, qid, color, bold, sig and where is None)
        return where

    def child(self, el, where, qid, color, bold, sig):
        """Walk one element (not its tail); returns the region after it."""
        tag = el.tag
        if tag.__class__ is not str:
            return where    # comments, processing instructions
        cls = el.get("class")
        style = el.get("style")
        if cls is None and style is None and tag not in _SPECIAL_TAGS:
            if tag in _BLOCK:
                if where is None:
                    self.parts.text_parts.append(_BLK)
                where = self.run(el, where, qid, color, bold, sig)
                if where is None:
                    self.parts.text_parts.append(_BLK)
                return where
            return self.run(el, where, qid, color, bold, sig)
        if tag == "br":
            if where is None:
                self.parts.text_parts.append(_LB)
            if color is not None:
                self.cbuf.append(" ")
            if bold:
                self.bbuf.append(" ")
            return where
        if cls is None and tag == "span":
            # the common case: [color] / [size] / subsilver2 [b] spans
            new_color = _style_color(style) if "olor" in style else None
            new_bold = not bold and "font-weight" in style and (
                _RE_BOLD_DECL.search(style) is not None)
            if new_color is None and not new_bold:
                return self.run(el, where, qid, color, bold, sig)
            return self._styled(el, where, qid, color, bold, sig, new_color, new_bold,
                                where, qid, False)
        if tag in _SKIP_TAGS:
            return where
        if tag == "img":
            if cls and ("smil" in cls or "emoji" in cls):
                alt = el.get("alt")
                if alt:
                    self.put(alt, where, qid, color, bold, False)
            return where
        clss = cls.split() if cls else ()
        if cls and _SKIP_CLASSES.intersection(clss):
            return where
        if tag == "p" and where == "code":
            par = el.getparent()
            if par is not None and "codebox" in (par.get("class") or ""):
                return where    # "Code: Select all"
        if tag == "span" and cls == "genmed" and _QUOTE_HEADER.search(_norm(_tc(el))):
            return where        # phpBB 2 quote/code header "X wrote:"

        inner_where, inner_qid = where, qid
        if tag == "blockquote" or "quotecontent" in clss or (tag == "td" and "quote" in clss):
            inner_where = "quote"
            inner_qid = self._quote_id(el, clss)
            if inner_qid is not None and inner_qid not in self.parts.quotes:
                self.parts.quotes.append(inner_qid)
        elif (tag in ("pre", "code") or "codebox" in clss or "codecontent" in clss
              or (tag == "td" and "code" in clss)):
            inner_where = "code"
        elif tag == "details" or "sp-body" in clss or (cls and "spoiler" in cls):
            inner_where = "spoiler"
        elif "signature" in clss:
            inner_where = "signature"

        new_color = None
        if style and "olor" in style or tag == "font":
            new_color = _element_color(el)
        new_bold = not bold and (tag in ("strong", "b") or bool(
            style and "font-weight" in style and _RE_BOLD_DECL.search(style)))
        return self._styled(el, where, qid, color, bold, sig, new_color, new_bold,
                            inner_where, inner_qid, tag in _BLOCK)

    def _styled(self, el, where, qid, color, bold, sig, new_color, new_bold, inner_where,
                inner_qid, block):
        """Walk an element that may change the colour, boldness or region."""
        region_change = inner_where is not where or inner_qid != qid
        c = color if new_color is None else new_color
        b = bold or new_bold

        if block and where is None:
            self.parts.text_parts.append(_BLK)
        if region_change:
            self._flush(color, bold, where, qid)
        elif new_color is not None:
            self._flush(color, False, where, qid)
        elif new_bold:
            pass
        if c is not None and (region_change or new_color is not None):
            self.cbuf = []
        if b and (region_change or new_bold):
            self.bbuf = []

        end = self.run(el, inner_where, inner_qid, c, b, sig and inner_where is None)

        changed = region_change or end is not inner_where
        if changed:
            self._flush(c, b, end, inner_qid)
        else:
            self._flush(c if new_color is not None else None, new_bold, end, inner_qid)
        if color is not None and (changed or new_color is not None):
            self.cbuf = []
        if bold and changed:
            self.bbuf = []
        # a signature that starts inside a child stays a signature to the end of the cell
        if end == "signature" and inner_where is None:
            where = "signature"
        if block and where is None:
            self.parts.text_parts.append(_BLK)
        return where

    @staticmethod
    def _quote_id(el, clss) -> int | None:
        qid = _int_param(_RE_P_PARAM, el.get("cite"))
        if qid is not None:
            return qid
        if "quotecontent" in clss:
            head = el.getprevious()
            if head is None:
                return None
            for a in head.iter("a"):
                v = a.get("data-post-id")
                if v and v.isdigit():
                    return int(v)
            return None
        for cite in el.iter("cite"):
            for a in cite.iter("a"):
                v = a.get("data-post-id")
                if v and v.isdigit():
                    return int(v)
            break
        return None


def walk_body(el, *, where=None, sig_split=False, extra=None) -> BodyParts:
    """Collect own text, coloured and bold fragments, hidden fragments and quote ids."""
    w = _Walker()
    w.run(el, where, None, None, False, sig_split)
    for e in extra or ():
        w.run(e, "signature", None, None, False, False)
    return w.parts


# ---------------------------------------------------------------- edit notices

_RE_EDIT_COUNT = re.compile(r"(?:edited|редактировалось|изменялось|изменено)\D{0,20}?(\d+)"
                            r"\s*(?:times?|раз)", re.I)
_RE_EDIT_COUNT2 = re.compile(r"(\d+)\s*(?:times?|раз[а]?)\b", re.I)
_EDIT_MARKERS = ("last edited by", "последний раз редактировалось", "последний раз редактировал",
                 "edited by", "отредактировано")
_RE_EDIT_DATE_ANY = re.compile(r"^\s*(?:on\s+)?(.+?)\s*[,;]\s*(?:edited|всего|изменялось)\b",
                               re.I)


@dataclass(frozen=True)
class _Edit:
    by: str | None
    at: datetime | None
    count: int
    reason: str | None


def _parse_edit(notice_el, reason: str | None, *, tz, fetched_at, url, post_id) -> _Edit | None:
    text = _norm(_tc(notice_el))
    low = text.lower()
    if not any(m in low for m in _EDIT_MARKERS):
        return None
    # the reason line in prosilver sits inside the notice: cut it off before reading the date
    for label in ("Reason:", "Причина:"):
        i = text.find(label)
        if i >= 0:
            if reason is None:
                reason = _norm(text[i + len(label):]) or None
            text = text[:i].strip()
    by = None
    after = None
    for a in notice_el.iter("a"):
        by = _norm(_tc(a)) or None
        after = _norm(a.tail or "")
        nxt = a.getnext()
        while nxt is not None and nxt.tag != "br":
            after += " " + _norm(_tc(nxt)) + " " + _norm(nxt.tail or "")
            nxt = nxt.getnext()
        break
    if after is None:
        m = re.search(r"(?:last edited by|редактировалось)\s+(\S+)\s+(.*)$", text, re.I)
        if m:
            by, after = m.group(1), m.group(2)
        else:
            after = ""
    m = _RE_EDIT_DATE_ANY.match(after)
    at = None
    if m:
        try:
            at = parse_shown_date(m.group(1), tz=tz, fetched_at=fetched_at).earliest
        except DateParseError as e:
            raise ParseError(f"post {post_id}: edit notice date: {e}", url=url or None) from None
    else:
        raise ParseError(f"post {post_id}: unreadable edit notice {text[:120]!r}", url=url or None)
    cm = _RE_EDIT_COUNT.search(text) or _RE_EDIT_COUNT2.search(text)
    count = int(cm.group(1)) if cm else 1
    return _Edit(by, at, count, reason)


# What an edit notice says at its start, in every wording the captures show: phpBB 3.x en/ru
# ("Last edited by X on DATE, edited N times in total." / «Последний раз редактировалось X
# DATE, всего редактировалось N раз.»), phpBB 2.0 ("Last edited by X on DATE; edited N times
# in total").
_RE_NOTICE_START = re.compile(r"^\s*(?:last edited by|последний раз редактировал(?:ось|а|и)?)\s",
                              re.I)
_NOTICE_TAGS = frozenset(("div", "span", "p", "td", "em", "i", "small", "font"))


def _find_moved_notice(scope):
    """An edit notice anywhere inside ``scope`` (a post's body or its cell), found by what it
    says rather than where the style puts it: the outermost element whose text starts with
    the notice's words, or a bare text run starting with them after a line break (wrapped in
    a new span up to the next ``<br>``). The notice is marked so that the body walk skips it:
    its words are never the author's, so never a vote. None when there is none."""
    low = _tc(scope).lower()
    if "edited" not in low and "редактировал" not in low:
        return None
    for el in scope.iter():
        if el is scope or el.tag.__class__ is not str:
            continue
        if el.tag in _NOTICE_TAGS and _RE_NOTICE_START.match(_tc(el)) and not _quoted(el, scope):
            el.set("class", ((el.get("class") or "") + " " + _NOTICE_MARK).strip())
            return el
        if el.tag == "br" and el.tail and _RE_NOTICE_START.match(el.tail) and not _quoted(
                el, scope):
            wrap = etree.SubElement(el.getparent(), "span")
            el.addnext(wrap)
            wrap.text, el.tail = el.tail, None
            nxt = wrap.getnext()
            while nxt is not None and nxt.tag != "br":
                wrap.append(nxt)            # moves it (with its tail) into the wrapper
                nxt = wrap.getnext()
            wrap.set("class", _NOTICE_MARK)
            return wrap
    return None


def _quoted(el, scope) -> bool:
    """Whether ``el`` stands in a quote, code or spoiler of ``scope`` (someone else's words)."""
    el = el.getparent()
    while el is not None and el is not scope:
        cls = el.get("class") or ""
        if el.tag in ("blockquote", "pre", "code", "details") or any(
                k in cls for k in ("quote", "code", "spoiler", "sp-body")):
            return True
        el = el.getparent()
    return False


def _moved_edit(scope, *, tz, fetched_at, url, post_id) -> _Edit | None:
    notice = _find_moved_notice(scope)
    if notice is None:
        return None
    try:
        return _parse_edit(notice, None, tz=tz, fetched_at=fetched_at, url=url, post_id=post_id)
    except ParseError:
        # words that only look like a notice (a player's own text): they stay his text
        notice.set("class", (notice.get("class") or "").replace(_NOTICE_MARK, "").strip())
        return None


# ---------------------------------------------------------------- page kinds

_NOT_FOUND = ("the requested topic does not exist", "запрошенной темы не существует",
              "the requested post does not exist", "запрошенного сообщения не существует",
              "the topic or post you requested does not exist",
              "темы или сообщения, которое вы запросили, не существует",
              "the forum you selected does not exist", "форум, который вы выбрали, не существует",
              "выбранного вами форума не существует", "тема не существует",
              "которую вы запросили, не существует", "сообщения, которое вы запросили")
_DISABLED = ("this board is currently unavailable", "конференция в настоящий момент недоступна",
             "board is currently disabled", "форум временно отключен",
             "форум в настоящий момент недоступен")
_LOGIN = ("requires you to be registered and logged in", "must be registered and logged in",
          "должны быть авторизованы", "должны быть зарегистрированы и авторизованы",
          "авторизуйтесь для входа", "you need to login in order to",
          "you are not authorised to read", "вы не можете читать", "нет доступа к этому форуму",
          "please login to access", "you must be logged in", "необходимо авторизоваться",
          "не авторизованы для чтения", "нет прав для чтения")
_CHALLENGE = ("just a moment...", "checking your browser", "cf-browser-verification",
              "challenge-platform", "cf_chl_", "ddos-guard", "attention required! | cloudflare",
              "enable javascript and cookies to continue", "captcha-delivery", "sucuri website firewall",
              "verify you are human", "/cdn-cgi/challenge")
_PHPBB_MARKERS = ("phpbb", "viewtopic.php", "viewforum.php", "ucp.php", "memberlist.php",
                  "posting.php")


def classify_error_page(doc, *, url: str = "", what: str = "topic") -> ForumError:
    """The error a page that holds no posts stands for (not found, login, disabled...)."""
    root = doc
    try:
        html_low = etree.tostring(root, encoding="unicode", method="html")[:400_000].lower()
    except (ValueError, etree.SerializationError):  # pragma: no cover - defensive
        html_low = ""
    text_low = _norm(_tc(root)).lower()
    title = _norm(root.findtext(".//title") or "")
    u = url or None
    for marker in _CHALLENGE:
        if marker in html_low:
            return NotPhpbbError(f"a bot challenge or firewall page, not the board "
                                 f"(title {title!r})", url=u)
    if not any(m in html_low for m in _PHPBB_MARKERS):
        return NotPhpbbError(f"not a phpBB page (title {title!r})", url=u)
    for marker in _DISABLED:
        if marker in text_low:
            return BoardDisabledError(f"the board is disabled: {marker!r}", url=u)
    for marker in _NOT_FOUND:
        if marker in text_low:
            if "forum" in marker or "форум" in marker:
                return TopicNotFoundError(f"the forum does not exist ({marker!r})", url=u,
                                          hint="check [forum] url / the forum id")
            return TopicNotFoundError(f"the {what} does not exist ({marker!r})", url=u)
    if what == "topic":
        if root.tag == "feed" or "<feed" in html_low[:2000] and "atom" in html_low[:2000]:
            return ParseError("an Atom feed, not a topic page", url=u,
                              hint="use the viewtopic.php?t=N address of the topic")
        if root.xpath("boolean(//a[contains(concat(' ',@class,' '),' topictitle ')])"):
            return ParseError("a forum's topic list (viewforum), not a topic page", url=u,
                              hint="use the viewtopic.php?t=N address of the topic")
    login_form = root.xpath("boolean(//input[@type='password'] | "
                            "//form[contains(@action,'mode=login')])")
    for marker in _LOGIN:
        if marker in text_low:
            return LoginRequiredError(f"the board wants a login: {marker!r}", url=u)
    if login_form:
        return LoginRequiredError("the board answered with its login form", url=u)
    msg = root.xpath("string(//div[@id='message']//p | //div[contains(@class,'panel')]//h2)")
    if _norm(msg):
        return ParseError(f"the board answered with a message instead of the {what}: "
                          f"{_norm(msg)[:200]!r}", url=u)
    return ParseError(f"no posts found on the page (title {title!r}); truncated or not a "
                      f"{what} page", url=u, hint="retry; check the URL")


# ---------------------------------------------------------------- page-level info

_NEXT_WORDS = {"next", "след.", "след", "далее", "»", "›", "next ›", "next »", "вперёд",
               "вперед", "следующая"}
_RE_PAGE_OF = re.compile(r"(?:page|страница)\s+(\d{1,6})\s+(?:of|из)\s+(\d{1,6})", re.I)
_RE_GOTO = re.compile(r"goto page|go to page|на страницу|перейти на страницу", re.I)


_RE_RAW_POST = re.compile(rb'<div id="p\d+" class="post[ "]')
_X_FOLLOWING_ANCHORS = etree.XPath("following::a[@name]")


class _Scan:
    """What the page-level fields need, found with as few tree walks as possible: a handful
    of full-tree XPath queries would cost more than the parse itself.

    prosilver pages need one walk over the divs (posts, pagination) and one over the few
    h2s; table styles (subsilver2, phpBB 2) also walk the links, spans and cells."""

    __slots__ = ("post_divs", "pagination", "nav_tds", "reply_links", "rel_next", "title_el",
                 "canonical", "anchors", "gensmall_b", "has_postbody", "doc", "expected")

    def __init__(self, doc, raw: bytes | str = b"") -> None:
        self.doc = doc
        self.expected = -1          # prosilver posts the bytes show (-1: not counted)
        self.post_divs: list = []
        self.pagination: list = []
        self.nav_tds: list = []
        self.reply_links: list = []
        self.rel_next = None
        self.title_el = None
        self.canonical = None
        self.anchors: list = []
        self.gensmall_b: list = []
        self.has_postbody = False
        if isinstance(raw, bytes) and _RE_RAW_POST.search(raw) is None:
            # no prosilver post in the bytes: a table style (or no topic at all)
            self._tables(doc)
            if self.anchors:
                return
            self.nav_tds, self.reply_links, self.gensmall_b = [], [], []
            self.title_el = self.rel_next = None
        h2s = []
        first = None
        # posts are siblings in every prosilver-family style: walk the divs up to the first
        # post, then its siblings (a third of the document), and check the count against a
        # byte search; any mismatch falls back to walking every div
        for el in doc.iter("div", "h2", "a"):
            tag = el.tag
            if tag == "a":
                # the reply button (locked or not, with t=) and rel=next stand before the posts
                href = el.get("href")
                if href:
                    if "mode=reply" in href:
                        self.reply_links.append(el)
                    elif self.rel_next is None and el.get("rel") == "next":
                        self.rel_next = el
                continue
            if tag == "h2":
                h2s.append(el)
                continue
            cls = el.get("class")
            if not cls:
                continue
            i = el.get("id")
            if i and i[0] == "p" and i[1:].isdigit() and " post " in f" {cls} ":
                first = el
                break
            if "pagination" in cls:
                self.pagination.append(el)
            elif not self.has_postbody and "postbody" in cls:
                self.has_postbody = True
        if first is not None:
            self.post_divs.append(first)
            if self.rel_next is None:
                for div in self.pagination:
                    for a in div.iter("a"):
                        if a.get("rel") == "next":
                            self.rel_next = a
                            break
            for el in first.itersiblings("div"):
                i = el.get("id")
                if i and i[0] == "p" and i[1:].isdigit() and " post " in f" {el.get('class')} ":
                    self.post_divs.append(el)
            expected = len(_RE_RAW_POST.findall(raw)) if isinstance(raw, bytes) else -1
            self.expected = expected
            if expected != len(self.post_divs):
                self.post_divs = [el for el in doc.iter("div")
                                  if _RE_POST_ID.match(el.get("id") or "")
                                  and " post " in f" {el.get('class')} "]
            self._prosilver(doc, raw, h2s)
        else:
            self._tables(doc)

    def _prosilver(self, doc, raw, h2s) -> None:
        title_prio = 9
        for el in h2s:
            a = el.find("a")
            if a is not None:
                if "topic-title" in (el.get("class") or ""):
                    self.title_el = a
                    break
                if title_prio > 4 and "viewtopic" in (a.get("href") or ""):
                    self.title_el, title_prio = a, 4

    def _tables(self, doc) -> None:
        # the title, the reply button and the page numbers stand above the first post: walk
        # links and cells up to it, then take the later post anchors with one XPath (C speed)
        title_prio = 9
        first = None
        for el in doc.iter("a", "td", "h2"):
            tag = el.tag
            if tag == "a":
                name = el.get("name")
                if name is not None:
                    self.anchors.append(el)
                    if name[:1] == "p" and name[1:].isdigit() or name.isdigit():
                        first = el
                        break
                href = el.get("href")
                if href is None or "php" not in href:
                    continue
                if "mode=reply" in href:
                    self.reply_links.append(el)
                elif title_prio > 2 and "viewtopic" in href:
                    cls = el.get("class")
                    if cls == "titles":
                        self.title_el, title_prio = el, 2
                    elif cls == "maintitle" and title_prio > 3:
                        self.title_el, title_prio = el, 3
                if self.rel_next is None and "start=" in href and el.get("rel") == "next":
                    self.rel_next = el
            elif tag == "td":
                if el.get("class") == "nav":
                    self.nav_tds.append(el)
            elif title_prio > 4:
                a = el.find("a")
                if a is not None and "viewtopic" in (a.get("href") or ""):
                    self.title_el, title_prio = a, 4
        if first is None:
            return
        self.anchors.extend(_X_FOLLOWING_ANCHORS(first))
        if first.get("name")[:1] == "p":
            return      # subsilver2: its page numbers stand in td.nav
        # phpBB 2: "Goto page" in span.gensmall > b, bodies in span.postbody
        for el in doc.iter("span"):
            cls = el.get("class")
            if cls == "gensmall":
                b = el.find("b")
                if b is not None:
                    self.gensmall_b.append(b)
            elif cls == "postbody" or cls == "postdetails":
                self.has_postbody = True

    def canonical_href(self) -> str | None:
        if self.canonical is None:
            for el in self.doc.iter("link"):
                if el.get("rel") == "canonical":
                    self.canonical = el.get("href")
                    break
        return self.canonical


def _title_and_topic(doc, scan: _Scan) -> tuple[str, int | None]:
    el = scan.title_el
    title = _norm(_tc(el)) if el is not None else ""
    tid = _int_param(_RE_T_PARAM, el.get("href")) if el is not None else None
    if tid is None:
        for a in scan.reply_links:
            tid = _int_param(_RE_T_PARAM, a.get("href"))
            if tid is not None:
                break
    if tid is None and scan.canonical_href():
        tid = _int_param(_RE_T_PARAM, scan.canonical_href())
    if not title:
        title = _norm(doc.findtext(".//title") or "")
    return title, tid


def _pagination(scan: _Scan, url: str) -> tuple[int, int, str | None]:
    page = count = None
    links: list = []
    for t in scan.pagination + scan.nav_tds:
        m = _RE_PAGE_OF.search(_norm(_tc(t)))
        if m:
            page, count = int(m.group(1)), int(m.group(2))
            break
    for div in scan.pagination:
        for e in div.iter("a", "span", "strong"):
            if e.tag == "a":
                if e.get("href"):
                    links.append(e)
            elif page is None and e.tag == "span":
                par = e.getparent()
                if par is not None and par.tag == "li" and "active" in (par.get("class") or ""):
                    v = _norm(e.text)
                    if v.isdigit():
                        page = int(v)
    if page is not None and count is None:
        nums = [int(v) for v in (_norm(_tc(a)) for a in links) if v.isdigit()]
        count = max(nums + [page])
    if page is None:
        # subsilver2 / phpBB 2: "Go to page … 1, <strong>2</strong>, 3 … Next"
        for b in scan.gensmall_b:
            if not _RE_GOTO.search(_tc(b)):
                continue
            cur = [int(_norm(x.text)) for x in b.iter("b", "strong")
                   if x is not b and _norm(x.text).isdigit()]
            blinks = [a for a in b.iter("a") if a.get("href")]
            nums = [int(v) for v in (_norm(_tc(a)) for a in blinks) if v.isdigit()]
            if cur:
                page = cur[0]
                count = max(nums + [page])
                links = blinks
                break
    if page is None:
        page, count = 1, 1
    count = max(count or 1, page)
    if not links:
        for td in scan.nav_tds:
            par = td.getparent()
            if par is not None:
                for sib in par:
                    links.extend(a for a in sib.iter("a") if a.get("href"))
        for b in scan.gensmall_b:
            links.extend(a for a in b.iter("a") if a.get("href"))
    next_url = None
    if page < count:
        href = scan.rel_next.get("href") if scan.rel_next is not None else None
        if href is None:
            for a in links:
                if _norm(_tc(a)).lower() in _NEXT_WORDS:
                    href = a.get("href")
                    break
        if href is None:
            want = str(page + 1)
            for a in links:
                if _norm(_tc(a)) == want:
                    href = a.get("href")
                    break
        if href:
            next_url = urljoin(url, href) if url else href
    return page, count, next_url


def _locked(scan: _Scan) -> bool:
    for a in scan.reply_links:
        par = a.getparent()
        if par is not None and "locked" in (par.get("class") or ""):
            return True
        for e in a.iter():
            if not isinstance(e.tag, str):
                continue
            c = (e.get("class") or "") + " " + (e.get("src") or "")
            if "fa-lock" in c or "locked" in c:
                return True
    return False


_TZ_NAME = re.compile(r"^[A-Za-z_]+(?:/[A-Za-z_+\-0-9]+)+$")
_RE_UTC_OFFSET = re.compile(r"(?:UTC|GMT)\s*([+\-−])\s*(\d{1,2})(?::?(\d{2}))?", re.I)
_RE_HOURS = re.compile(r"(?:UTC|GMT)\s*([+\-−])\s*(\d{1,2}(?:\.\d+)?)\s*(?:hours?|час)", re.I)


def declared_timezone(body: bytes | str | None = None, *, doc=None) -> tzinfo | None:
    """The zone a page says its times are in (footer), or None.

    An IANA name in the ``title`` of the 3.1+ footer wins (it knows DST); otherwise the shown
    offset ("UTC+03:00", "GMT + 1 Hour", phpBB 3.0's "UTC [ DST ]" = UTC+1) as a fixed zone.
    """
    if doc is None:
        try:
            doc = parse_html(body or b"")
        except ForumError:
            return None
    for span in doc.xpath("//li[contains(.,'UTC') or contains(.,'GMT')]/span[@title] | "
                          "//p[@class='datetime']/span[@title]"):
        name = (span.get("title") or "").strip()
        if _TZ_NAME.match(name):
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                pass
    texts = doc.xpath("//*[self::li or self::p or self::span or self::td]"
                      "[contains(., 'All times are') or contains(., 'Часовой пояс') or "
                      "contains(., 'Время:') or contains(., 'Все времена')][not(*[contains(., "
                      "'All times are') or contains(., 'Часовой пояс')])]")
    for el in texts:
        t = _norm(_tc(el))
        dst = "DST" in t or "летнее" in t.lower()
        m = _RE_HOURS.search(t)
        if m:
            hours = float(m.group(2)) * (-1 if m.group(1) in "-−" else 1)
            return timezone(timedelta(hours=hours + (1 if dst else 0)))
        m = _RE_UTC_OFFSET.search(t)
        if m:
            sign = -1 if m.group(1) in "-−" else 1
            off = timedelta(hours=int(m.group(2)), minutes=int(m.group(3) or 0)) * sign
            return timezone(off + (timedelta(hours=1) if dst else timedelta()))
        if re.search(r"(?:UTC|GMT)(?!\s*[+\-−])", t):
            return timezone(timedelta(hours=1) if dst else timedelta())
    return None


# ---------------------------------------------------------------- posts: prosilver

_POSTED_LABELS = ("posted:", "добавлено:", "отправлено:", "написано:", "sent:")


def _time_range(text: str, *, tz, fetched_at, url, post_id) -> TimeRange:
    try:
        return parse_shown_date(text, tz=tz, fetched_at=fetched_at)
    except DateParseError as e:
        raise ParseError(f"post {post_id}: {e}", url=url or None) from None


_POST_FIELDS = tuple(f.name for f in fields(Post))
# Post is a plain frozen dataclass (no __post_init__, no slots): filling its __dict__ is the
# same object at a fraction of the cost of the generated frozen __init__ (measured: the
# 25 posts of a page otherwise cost a fifth of the page's parse time)
_FAST_POST = (not hasattr(Post, "__slots__") and not hasattr(Post, "__post_init__")
              and _POST_FIELDS == ("post_id", "author", "author_id", "posted_at", "precision",
                                   "earliest", "latest", "page_url", "edited_at", "edited_by",
                                   "edit_count", "edit_reason", "colored", "bold", "hidden",
                                   "quotes", "text"))


def _make_post(post_id, author, author_id, tr: TimeRange, page_url, edit, parts: BodyParts):
    if _FAST_POST:
        p = object.__new__(Post)
        p.__dict__.update(
            post_id=post_id, author=author, author_id=author_id, posted_at=tr.earliest,
            precision=tr.precision, earliest=tr.earliest, latest=tr.latest,
            page_url=page_url, edited_at=edit.at if edit else None,
            edited_by=edit.by if edit else None, edit_count=edit.count if edit else 0,
            edit_reason=edit.reason if edit else None, colored=tuple(parts.colored),
            bold=tuple(parts.bold), hidden=tuple(parts.hidden), quotes=tuple(parts.quotes),
            text=parts.text())
        return p
    return Post(
        post_id=post_id, author=author, author_id=author_id,
        posted_at=tr.earliest, precision=tr.precision, earliest=tr.earliest, latest=tr.latest,
        page_url=page_url,
        edited_at=edit.at if edit else None, edited_by=edit.by if edit else None,
        edit_count=edit.count if edit else 0, edit_reason=edit.reason if edit else None,
        colored=tuple(parts.colored), bold=tuple(parts.bold), hidden=tuple(parts.hidden),
        quotes=tuple(parts.quotes), text=parts.text())


def _prosilver_post(div, post_id: int, *, tz, fetched_at, url) -> Post:
    author = None
    author_id = None
    p_author = None
    content = None
    profile = None
    notices = []
    sigs = []
    # walk the post's structural divs only (inner, postbody, post_contentNN...), not the
    # buttons, profile details or the body itself: a third of the elements of a full walk
    stack = [div]
    while stack:
        for el in stack.pop():
            tag = el.tag
            if tag == "div":
                cls = el.get("class")
                if cls:
                    if content is None and (cls == "content" or "content" in cls.split()):
                        content = el
                        continue
                    if "notice" in cls:
                        notices.append(el)
                        continue
                    if "signature" in cls:
                        sigs.append(el)
                        continue
                stack.append(el)
            elif tag == "p":
                if p_author is None:
                    cls = el.get("class")
                    if cls and (cls == "author" or "author" in cls.split()):
                        p_author = el
            elif tag == "dl":
                if profile is None and "postprofile" in (el.get("class") or ""):
                    profile = el
    if p_author is None:
        raise ParseError(f"post {post_id}: no author line (p.author)", url=url or None)
    if content is None:
        raise ParseError(f"post {post_id}: no body (div.content)", url=url or None)
    time_el = None
    for el in p_author.iter("a", "time", "strong", "span"):
        tag = el.tag
        if tag == "time":
            time_el = el
        elif author is None and tag == "a":
            href = el.get("href")
            if href and "mode=viewprofile" in href:
                author = _norm(_tc(el))
                author_id = _int_param(_RE_U_PARAM, href)
    if not author and profile is not None:
        for el in profile.iter("a", "span"):
            href = el.get("href")
            if (href and "mode=viewprofile" in href) or "username" in (el.get("class") or ""):
                author = _norm(_tc(el))
                if author:
                    author_id = _int_param(_RE_U_PARAM, href)
                    break
    if not author:
        # a guest or deleted user: the name stands in p.author's <strong> / span.username
        for el in p_author.iter("strong", "span"):
            if el.tag == "strong" or "username" in (el.get("class") or ""):
                author = _norm(_tc(el))
                if author:
                    break
    if not author:
        raise ParseError(f"post {post_id}: no author name", url=url or None)
    tr = None
    if time_el is not None:
        dt = time_el.get("datetime")
        if dt:
            try:
                inst = datetime.fromisoformat(dt)
            except ValueError:
                inst = None
            if inst is not None and inst.tzinfo is not None:
                try:
                    inst = inst.astimezone(tz)
                except (OverflowError, ValueError):
                    inst = None
                if inst is not None:
                    tr = TimeRange(inst, inst, "second")
        if tr is None:
            tr = _time_range(_norm(_tc(time_el)), tz=tz, fetched_at=fetched_at, url=url,
                             post_id=post_id)
    else:
        full = _norm(_tc(p_author))
        if "»" in full:
            shown = full.rsplit("»", 1)[-1]
        else:
            shown = re.sub(r"^\s*(?:#\d+\s*)?(?:by|автор|от)?\s*" + re.escape(author), "", full)
        tr = _time_range(shown, tz=tz, fetched_at=fetched_at, url=url, post_id=post_id)
    edit = None
    for n in notices:
        edit = _parse_edit(n, None, tz=tz, fetched_at=fetched_at, url=url, post_id=post_id)
        if edit:
            break
    if edit is None:
        edit = _moved_edit(content, tz=tz, fetched_at=fetched_at, url=url, post_id=post_id)
    parts = walk_body(content, extra=sigs)
    return _make_post(post_id, author, author_id, tr, url, edit, parts)


# ---------------------------------------------------------------- posts: subsilver2 / subSilver

def _row_of(el):
    while el is not None and el.tag != "tr":
        el = el.getparent()
    return el


def _subsilver_groups(named_anchors, phpbb2: bool):
    """(post_id, anchor, rows) per post: the anchor's row and its following rows."""
    anchors = []
    for a in named_anchors:
        name = a.get("name") or ""
        m = (_RE_NUM_ID if phpbb2 else _RE_POST_ID).match(name)
        if not m:
            continue
        if phpbb2 and "name" not in (a.getparent().get("class") or ""):
            continue
        row = _row_of(a)
        if row is None:
            continue
        anchors.append((int(m.group(1)), a, row))
    anchor_rows = {id(r) for _, _, r in anchors}
    groups = []
    for pid, a, row in anchors:
        rows = [row]
        nxt = row.getnext()
        while nxt is not None and id(nxt) not in anchor_rows:
            if nxt.tag == "tr":
                rows.append(nxt)
                stop = False
                for td in nxt:      # (a plain walk: tag-filtered iterchildren is slower)
                    c = td.get("class")
                    if c and ("spacer" in c or "spaceRow" in c):
                        stop = True
                        break
                if stop:
                    break
            nxt = nxt.getnext()
        groups.append((pid, a, rows))
    return groups


def _posted_text(rows, phpbb2: bool) -> str | None:
    for row in rows:
        if phpbb2:
            for s in row.iter("span"):
                if s.get("class") == "postdetails":
                    t = _norm(s.text)
                    if ":" in t and t.lower().split(":", 1)[0] + ":" in _POSTED_LABELS:
                        return t.split(":", 1)[1].split("Post subject")[0].strip()
        else:
            for b in row.iter("b"):
                if _norm(b.text).lower() in _POSTED_LABELS:
                    return _norm(b.tail)
    return None


def _subsilver_post(pid, anchor, rows, *, phpbb2, tz, fetched_at, url) -> Post:
    if phpbb2:
        return _phpbb2_post(pid, anchor, rows, tz=tz, fetched_at=fetched_at, url=url)
    author = shown = None
    for b in rows[0].iter("b"):
        if author is None and "postauthor" in (b.get("class") or ""):
            author = _norm(_tc(b))
        elif shown is None and _norm(b.text).lower() in _POSTED_LABELS:
            shown = _norm(b.tail)
    if not author:
        raise ParseError(f"post {pid}: no author name", url=url or None)
    if not shown:
        shown = _posted_text(rows[1:], False)
        if not shown:
            raise ParseError(f"post {pid}: no post time", url=url or None)
    tr = _time_range(shown, tz=tz, fetched_at=fetched_at, url=url, post_id=pid)
    body = None
    body_row_index = 0
    # the body is in the second row in every subsilver2 we know; look there first
    order = list(range(1, len(rows))) + [0]
    for i in order:
        # the message cell is the row's last cell: look there before the profile cell
        for cell in reversed(rows[i]):
            for d in cell.iter("div", "span"):
                cls = d.get("class")
                if cls and "postbody" in cls.split():
                    body = d
                    break
            if body is not None:
                break
        if body is not None:
            body_row_index = i
            break
    if body is None:
        raise ParseError(f"post {pid}: no body (postbody)", url=url or None)
    # the signature (a second div/span.postbody after "_________________") and the edit
    # notice (a table with td.row3) follow the body in the same cell
    sigs = []
    edit = None
    for sib in body.itersiblings():
        tag = sib.tag
        if tag in ("div", "span"):
            if "postbody" in (sib.get("class") or "").split():
                sigs.append(sib)
        elif tag == "table" and edit is None:
            for td in sib.iter("td"):
                if td.get("class") == "row3" and any(
                        m in _norm(_tc(td)).lower() for m in _EDIT_MARKERS):
                    r2 = td.getparent().getnext()
                    reason = _norm(_tc(r2)) or None if r2 is not None else None
                    edit = _parse_edit(td, reason, tz=tz, fetched_at=fetched_at, url=url,
                                       post_id=pid)
                    break
    if edit is None:
        # a style that puts the notice in the body's own cell, after the text
        cell = body.getparent()
        edit = _moved_edit(cell if cell is not None else body, tz=tz, fetched_at=fetched_at,
                           url=url, post_id=pid)
        if edit is not None:
            sigs = [e for e in sigs if _NOTICE_MARK not in (e.get("class") or "")]
    parts = walk_body(body, extra=sigs)
    return _make_post(pid, author, _profile_id(rows[body_row_index + 1:]), tr, url, edit,
                      parts)


def _profile_id(rows) -> int | None:
    """The user id from the post's profile button (the rows after the body)."""
    for row in rows:
        for a in row.iter("a"):
            href = a.get("href")
            if href and "mode=viewprofile" in href:
                return _int_param(_RE_U_PARAM, href)
    return None


def _phpbb2_post(pid, anchor, rows, *, tz, fetched_at, url) -> Post:
    b = anchor.getparent().find("b")
    author = _norm(_tc(b)) if b is not None else _norm(_tc(anchor.getparent()))
    if not author:
        raise ParseError(f"post {pid}: no author name", url=url or None)
    shown = _posted_text(rows, True)
    if not shown:
        raise ParseError(f"post {pid}: no post time", url=url or None)
    tr = _time_range(shown, tz=tz, fetched_at=fetched_at, url=url, post_id=pid)
    body = None
    body_row_index = 0
    for i, row in enumerate(rows):
        for td in row.iter("td"):
            if td.get("colspan") == "2" and any(s.get("class") == "postbody"
                                                for s in td.iterchildren("span")):
                body = td
                break
        if body is not None:
            body_row_index = i
            break
    if body is None:
        raise ParseError(f"post {pid}: no body (postbody)", url=url or None)
    edit = None
    for s in body.iterchildren("span"):
        if s.get("class") == "gensmall" and any(m in _norm(_tc(s)).lower()
                                                for m in _EDIT_MARKERS):
            edit = _parse_edit(s, None, tz=tz, fetched_at=fetched_at, url=url, post_id=pid)
    if edit is None:
        edit = _moved_edit(body, tz=tz, fetched_at=fetched_at, url=url, post_id=pid)
    parts = _walk_phpbb2_cell(body)
    return _make_post(pid, author, _profile_id(rows[body_row_index + 1:]), tr, url, edit,
                      parts)


def _walk_phpbb2_cell(td) -> BodyParts:
    w = _Walker()
    where = None
    # the cell holds span.postbody pieces around quote tables, then span.gensmall (edit notice)
    if td.text:
        where = w.put(td.text, where, None, None, False, True)
    for child in td:
        if child.tag == "span" and child.get("class") == "gensmall":
            continue
        if child.tag == "span" and child.get("class") == "postbody":
            where = w.run(child, where, None, None, False, where is None)
        else:
            where = w.child(child, where, None, None, False, where is None)
        if child.tail:
            where = w.put(child.tail, where, None, None, False, where is None)
    return w.parts


# ---------------------------------------------------------------- entry points

_BOTTOM_BAR = b'<div class="action-bar bar-bottom">'


_RE_RAW_ANCHOR = re.compile(rb'<a name="p\d+"')


def _head(body: bytes, before: int) -> int:
    """Where the <body ...> tag before ``before`` ends (0: not found)."""
    i = body.find(b"<body", 0, before)
    return body.find(b">", i) + 1 if i > 0 else 0


def _topic_region(body):
    """The part of a page that holds the topic: <html>, <head> and <body> tags, then from the
    topic title to the end of the last post. The navigation above and the bottom bars, jump
    box and board footer below hold nothing the parser reads, and parsing a fifth less of
    every page matters to a poller. Only where the bytes show the parts plainly (prosilver
    3.1+, subsilver2); the caller checks the posts against a count in the bytes and parses
    the whole page when they differ."""
    if not isinstance(body, bytes):
        return body
    last = len(body)
    while True:     # the last prosilver post: '<div id="p' and a digit (not page-footer)
        last = body.rfind(b'<div id="p', 0, last)
        if last < 0 or body[last + 10:last + 11].isdigit():
            break
    if last >= 0:
        end = body.find(_BOTTOM_BAR, last)
        start = body.find(b'<h2 class="topic-title"', 0, last)
    else:
        # subsilver2: from the page header (the title) to the table of the last post
        last = body.rfind(b'<a name="p')
        if last < 0 or not body[last + 10:last + 11].isdigit():
            return body
        end = body.find(b'class="spacer"', last)
        end = body.find(b"</table>", end) + 8 if end > 0 else -1
        start = body.find(b'<div id="pageheader">', 0, last)
    head_end = _head(body, start) if start > 0 else 0
    if end <= last or head_end <= 0:
        return body
    return body[:head_end] + body[start:end] + b"</body></html>"


def _detect_style(scan: _Scan) -> str:
    if scan.post_divs:
        return "prosilver"
    names = [a.get("name") or "" for a in scan.anchors]
    if any(_RE_POST_ID.match(n) for n in names):
        return "subsilver2"
    if scan.has_postbody and any(_RE_NUM_ID.match(n) for n in names):
        return "subsilver"
    return ""


def parse_topic_page(body: bytes, *, url: str = "", fetched_at: datetime | None = None,
                     board_tz: tzinfo | None = MOSCOW) -> TopicPage:
    """Parse one viewtopic page into a ``TopicPage`` (posts in page order).

    ``fetched_at`` is the board's clock at fetch time (aware; the response's ``Date`` header),
    needed only for relative dates («Сегодня», «35 минут назад»). ``board_tz`` is the zone the
    board shows times in; None means the zone the page declares (else Europe/Moscow).

    Raises ``TopicNotFoundError``, ``LoginRequiredError``, ``BoardDisabledError``,
    ``NotPhpbbError`` for those pages and ``ParseError`` for anything else it cannot read
    (truncated, garbage); never another exception.
    """
    # A page makes a few thousand short-lived, acyclic objects (element proxies, strings);
    # the cyclic collector running over the whole heap in between cost an eighth of the
    # parse in the benchmark. It is paused for the call and restored as it was.
    gc_was_on = gc.isenabled()
    if gc_was_on:
        gc.disable()
    try:
        return _parse_topic_page(body, url=url, fetched_at=fetched_at, board_tz=board_tz)
    except ForumError:
        raise
    except (RecursionError, MemoryError):
        raise ParseError("page too deeply nested or too large to read", url=url or None) \
            from None
    except Exception as e:  # noqa: BLE001 - the contract: only the parser's own errors
        raise ParseError(f"unreadable page structure ({type(e).__name__}: {e})",
                         url=url or None) from None
    finally:
        if gc_was_on:
            gc.enable()


def _parse_topic_page(body, *, url, fetched_at, board_tz) -> TopicPage:
    if fetched_at is not None and fetched_at.tzinfo is None:
        raise ParseError("fetched_at must be timezone-aware (the board's clock at fetch, "
                         "e.g. the Date header)", url=url or None)
    # the zone the page declares stands in its footer: keep the footer when it is wanted
    region = _topic_region(body) if board_tz is not None else body
    doc = parse_html(region, url)
    scan = _Scan(doc, body)
    if region is not body and (
            scan.expected != len(scan.post_divs) if scan.post_divs else
            len(_RE_RAW_ANCHOR.findall(body)) != sum(
                1 for a in scan.anchors if _RE_POST_ID.match(a.get("name") or ""))):
        # the region missed posts the bytes have: read the whole page
        region = body
        doc = parse_html(body, url)
        scan = _Scan(doc, body)
    style = _detect_style(scan)
    if not style:
        if region is not body:
            doc = parse_html(body, url)     # classify on the whole page
        raise classify_error_page(doc, url=url)
    if not _complete(body):
        raise ParseError("the page is truncated (no </html>); posts may be missing",
                         url=url or None, hint="retry the request")
    tz = board_tz
    if tz is None:
        tz = declared_timezone(doc=doc) or MOSCOW
    posts: list[Post] = []
    if style == "prosilver":
        for div in scan.post_divs:
            pid = int(div.get("id")[1:])
            posts.append(_prosilver_post(div, pid, tz=tz, fetched_at=fetched_at, url=url))
    else:
        phpbb2 = style == "subsilver"
        for pid, a, rows in _subsilver_groups(scan.anchors, phpbb2):
            posts.append(_subsilver_post(pid, a, rows, phpbb2=phpbb2, tz=tz,
                                         fetched_at=fetched_at, url=url))
    if not posts:
        raise classify_error_page(doc, url=url)
    seen = set()
    for p in posts:
        if p.post_id in seen:
            raise ParseError(f"post {p.post_id} appears twice on the page", url=url or None)
        seen.add(p.post_id)
    title, tid = _title_and_topic(doc, scan)
    if tid is None and url:
        tid = _int_param(_RE_T_PARAM, url)
    page, count, next_url = _pagination(scan, url)
    # <html lang="ru"> / "en-gb" (phpBB 3.1+); older pages leave it out: ""
    lang = (doc.get("lang") or "").split("-")[0].lower()
    return TopicPage(topic_id=tid, title=title, locked=_locked(scan), page=page,
                     page_count=count, next_url=next_url, posts=tuple(posts), style=style,
                     language=lang, url=url)


def parse_forum_page(body: bytes, *, url: str = "") -> list[TopicLink]:
    """The topics listed on a viewforum page (stickies and announcements included), in order.

    Raises the same errors as ``parse_topic_page`` for login / not found / disabled pages.
    """
    try:
        doc = parse_html(body, url)
        links = doc.xpath("//a[contains(concat(' ',normalize-space(@class),' '),' topictitle ')]")
        if not links:
            raise classify_error_page(doc, url=url, what="forum")
        if not _complete(body):
            raise ParseError("the page is truncated (no </html>)", url=url or None)
        out: list[TopicLink] = []
        seen: set = set()
        for a in links:
            href = a.get("href") or ""
            tid = _int_param(_RE_T_PARAM, href)
            key = tid if tid is not None else href
            if key in seen:
                continue
            seen.add(key)
            out.append(TopicLink(tid, _norm(_tc(a)), urljoin(url, href) if url
                                 else href))
        return out
    except ForumError:
        raise
    except Exception as e:  # noqa: BLE001
        raise ParseError(f"unreadable forum page ({type(e).__name__}: {e})",
                         url=url or None) from None


def parse_topic_file(path: str | Path, *, fetched_at: datetime | None = None,
                     board_tz: tzinfo | None = None) -> TopicPage:
    """Parse a saved topic page (for ``scraper-mod posts FILE``).

    No fetch time is known for a file, so relative dates cannot be resolved (prosilver 3.2.9+
    pages still have every time from ``<time datetime>``); the zone is the one the page
    declares, else Europe/Moscow.
    """
    p = Path(path)
    try:
        body = p.read_bytes()
    except OSError as e:
        raise ParseError(f"cannot read the file: {e.strerror or e}", url=str(p)) from None
    return parse_topic_page(body, url=str(p), fetched_at=fetched_at,
                            board_tz=board_tz)
