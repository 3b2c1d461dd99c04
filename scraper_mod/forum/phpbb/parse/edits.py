"""Edit notices («Last edited by …», «Последний раз редактировалось …»): who, when, how
many times and why, wherever a style puts them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from lxml import etree

from scraper_mod.errors import (
    ParseError,
)
from scraper_mod.forum.dates import DateParseError, parse_shown_date
from scraper_mod.forum.html import _norm, _tc
from scraper_mod.forum.markup import _NOTICE_MARK

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
