"""Page-level reading of a topic page: the one walk over the tree that finds the posts and
the page's parts (``_Scan``), title and topic id, pagination, the lock, the declared time
zone and the markup family."""

from __future__ import annotations

import re
from datetime import timedelta, timezone, tzinfo
from typing import Any
from urllib.parse import urljoin
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from lxml import etree

from scraper_mod.errors import (
    ForumError,
)
from scraper_mod.forum.html import (
    _RE_NUM_ID,
    _RE_POST_ID,
    _RE_T_PARAM,
    _int_param,
    _norm,
    _tc,
    parse_html,
)

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

    prosilver pages need a walk over the divs up to the first post (pagination), one over
    every div (the posts) and one over the few h2s; table styles (subsilver2, phpBB 2) walk
    the links, spans and cells."""

    __slots__ = ("post_divs", "pagination", "nav_tds", "reply_links", "rel_next", "title_el",
                 "canonical", "anchors", "gensmall_b", "has_postbody", "doc")

    def __init__(self, doc, raw: bytes | str = b"") -> None:
        self.doc = doc
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
        # the page's parts above the posts: walk the divs up to the first post
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
            if self.rel_next is None:
                for div in self.pagination:
                    for a in div.iter("a"):
                        if a.get("rel") == "next":
                            self.rel_next = a
                            break
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


def declared_timezone(body: bytes | str | None = None, *, doc: Any = None) -> tzinfo | None:
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


def _detect_style(scan: _Scan) -> str:
    if scan.post_divs:
        return "prosilver"
    names = [a.get("name") or "" for a in scan.anchors]
    if any(_RE_POST_ID.match(n) for n in names):
        return "subsilver2"
    if scan.has_postbody and any(_RE_NUM_ID.match(n) for n in names):
        return "subsilver"
    return ""
