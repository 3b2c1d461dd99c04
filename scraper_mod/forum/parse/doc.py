"""One fetched page read once: its lxml trees, shared by everything that reads the page.

A page the client fetches is looked at three times: is it the login form (``client.
find_login_form``), is it an error page (``client.page_error``), and, for a topic, its posts
(``parse_topic_page``). Each used to parse the bytes itself, and the parses were most of a
poll's CPU. A ``PageDoc`` parses each tree at most once and hands the same tree to all
three:

- ``topic_tree()``: the tree the topic parser reads (the topic region of the bytes, checked
  against the posts the bytes show, else the whole page), with its scan;
- ``whole()``: the whole page, parsed only when something needs more than the topic region
  (a login form, an error page's words, a page without posts);
- ``shows_class(*tokens)``: whether any element of the page carries one of these class
  tokens, as the XPath ``contains(concat(' ', normalize-space(@class), ' '), ' T ')`` says,
  found in the topic tree when the page has posts (a topic region is a part of the page, so
  what it shows the page shows), else in the whole page.

Errors are kept and raised again to every reader, so each sees what a parse of its own
would have given.
"""

from __future__ import annotations

import re
from typing import Any, cast

from lxml import etree

from scraper_mod.errors import ParseError

from .html import parse_html
from .pages import _RE_POST_ID, _RE_RAW_ANCHOR, _Scan, _topic_region

_XML_SPACE = re.compile(r"[ \t\r\n]+")          # XPath normalize-space's whitespace
_X_CLASS_HAS = etree.XPath("//*[contains(@class, $token)]")


def _has_token(cls: str | None, token: str) -> bool:
    return cls is not None and token in cls and token in _XML_SPACE.split(cls)


def _doc_shows(doc, tokens: tuple[str, ...], scan: _Scan | None = None) -> bool:
    if scan is not None and scan.post_divs:
        # a prosilver post holds div.postbody a few elements in: look there first
        for el in scan.post_divs[0].iter():
            if isinstance(el.tag, str) and any(_has_token(el.get("class"), t) for t in tokens):
                return True
    for token in tokens:
        if any(_has_token(el.get("class"), token) for el in _X_CLASS_HAS(doc, token=token)):
            return True
    return False


class PageDoc:
    """A page's bytes and the trees parsed from them, each at most once (module docstring).
    Not shared between threads: one fetch, one reader at a time."""

    __slots__ = ("body", "url", "_whole", "_topic")

    def __init__(self, body: bytes | str, url: str = "") -> None:
        self.body = body
        self.url = url
        self._whole: object = None      # the tree, or the error the parse raised
        self._topic: dict[bool, tuple[object, _Scan, bool] | BaseException] = {}

    def whole(self) -> Any:
        """The whole page's tree (``parse_html``); raises its ParseError."""
        if self._whole is None:
            try:
                self._whole = parse_html(self.body, self.url)
            except ParseError as e:
                self._whole = e
        if isinstance(self._whole, BaseException):
            raise self._whole
        return self._whole

    def topic_tree(self, trim: bool = True) -> tuple[object, _Scan, bool]:
        """(tree, scan, whether the tree is only the topic region) as the topic parser reads
        the page: the topic region when ``trim`` and it holds every post the bytes show,
        else the whole page. Raises what the parse or the scan raised."""
        got = self._topic.get(trim)
        if got is None:
            try:
                got = self._read_topic(trim)
            except Exception as e:  # noqa: BLE001 - kept for every reader, raised to each
                self._topic[trim] = e
                raise
            self._topic[trim] = got
        if isinstance(got, BaseException):
            raise got
        return got

    def _read_topic(self, trim: bool) -> tuple[object, _Scan, bool]:
        body = self.body
        region = _topic_region(body) if trim else body
        if region is body:
            doc = self.whole()
            return doc, _Scan(doc, body), False
        doc = parse_html(region, self.url)
        scan = _Scan(doc, body)
        if (scan.expected != len(scan.post_divs) if scan.post_divs else
                len(_RE_RAW_ANCHOR.findall(cast(bytes, body))) != sum(
                    1 for a in scan.anchors if _RE_POST_ID.match(a.get("name") or ""))):
            # the region missed posts the bytes have: read the whole page
            doc = self.whole()
            return doc, _Scan(doc, body), False
        return doc, scan, True

    def shows_class(self, *tokens: str) -> bool:
        """Whether an element of the page has one of the class ``tokens``. Raises the whole
        page's ParseError when it has to be read and cannot be."""
        try:
            doc, scan, trimmed = self.topic_tree(True)
        except Exception:  # noqa: BLE001 - the whole page decides below
            doc, scan, trimmed = None, None, True
        if doc is not None and _doc_shows(doc, tokens, scan):
            return True
        if not trimmed:
            return False
        return _doc_shows(self.whole(), tokens)
