"""One fetched page read once: its lxml tree, shared by everything that reads the page.

A page the client fetches is looked at three times: is it the login form (``fetched.
find_login_form``), is it an error page (``fetched.page_error``), and, for a topic, its posts
(``parse_topic_page``). A ``PageDoc`` parses the whole page at most once and hands the same
tree to all three. A parse error is kept and raised again to every reader, so each sees what a
parse of its own would have given.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from scraper_mod.errors import ParseError
from scraper_mod.forum.html import parse_html

_XML_SPACE = re.compile(r"[ \t\r\n]+")          # XPath normalize-space's whitespace
_X_CLASS_HAS = etree.XPath("//*[contains(@class, $token)]")


def _has_token(cls: str | None, token: str) -> bool:
    return cls is not None and token in cls and token in _XML_SPACE.split(cls)


class PageDoc:
    """A page's bytes and the tree parsed from them, at most once (module docstring).
    Not shared between threads: one fetch, one reader at a time."""

    __slots__ = ("body", "url", "_tree")

    def __init__(self, body: bytes | str, url: str = "") -> None:
        self.body = body
        self.url = url
        self._tree: object = None      # the tree, or the error the parse raised

    def tree(self) -> Any:
        """The page's tree (``parse_html``); raises its ParseError."""
        if self._tree is None:
            try:
                self._tree = parse_html(self.body, self.url)
            except ParseError as e:
                self._tree = e
        if isinstance(self._tree, BaseException):
            raise self._tree
        return self._tree

    def shows_class(self, *tokens: str) -> bool:
        """Whether an element of the page has one of the class ``tokens``, as the XPath
        ``contains(concat(' ', normalize-space(@class), ' '), ' T ')`` says. Raises the
        page's ParseError."""
        doc = self.tree()
        return any(_has_token(el.get("class"), token)
                   for token in tokens for el in _X_CLASS_HAS(doc, token=token))
