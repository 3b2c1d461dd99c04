"""A post body's markup read into plain values: colours (``[color]``, ``<font>``, styles),
bold runs, quotes, spoilers, code and signatures (``walk_body``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from scraper_mod.forum.html import _RE_P_PARAM, _int_param, _norm, _tc
from scraper_mod.forum.model import Colored, Hidden

_RE_COLOR_DECL = re.compile(r"(?:^|;)\s*color\s*:\s*([^;]+)", re.I)
_RE_BOLD_DECL = re.compile(r"font-weight\s*:\s*(bold|bolder|[6-9]00)", re.I)
_RE_HEX = re.compile(r"^#?([0-9a-f]{3}|[0-9a-f]{6})$", re.I)
_RE_RGB = re.compile(r"^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})", re.I)


def color_as_written(value: str) -> str | None:
    """A CSS color value cleaned for storing as phpBB wrote it: ``#ff0000`` -> ``#FF0000``,
    ``#f00`` -> ``#FF0000``, ``Red`` -> ``red``, rgb() -> hex. Names stay names: the
    canonical ``#RRGGBB`` the vote rules compare is ``rules.colors.normalize_color``'s."""
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
    c = color_as_written(m.group(1)) if m else None
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
            return color_as_written(c)
    return None


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


def walk_body(el: Any, *, where: str | None = None, sig_split: bool = False,
              extra: Any = None) -> BodyParts:
    """Collect own text, coloured and bold fragments, hidden fragments and quote ids."""
    w = _Walker()
    w.run(el, where, None, None, False, sig_split)
    for e in extra or ():
        w.run(e, "signature", None, None, False, False)
    return w.parts
