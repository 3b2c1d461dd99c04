"""A fetched page and what it says about itself: ``FetchResult`` (one response, its bytes
parsed at most once), the board's login form on it, and the error a page without posts
stands for. The client (``forum/client.py``) reads every page through these."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Mapping
from urllib.parse import urljoin

import lxml.html
from lxml import etree

from scraper_mod.forum.phpbb.parse.doc import PageDoc
from scraper_mod.forum.phpbb.parse.kinds import classify_error_page

from ..errors import (
    BoardDisabledError,
    FetchError,
    ForumError,
    LoginRequiredError,
    ParseError,
    TopicNotFoundError,
)


@dataclass(frozen=True)
class FetchResult:
    """One HTTP response, as fetched.

    ``fetched_at`` is the board's clock at the fetch (the ``Date`` header) or, without a usable
    header, the client's ``now()``; ``board_date`` is the header alone (None when absent);
    ``requested_at`` is the client's own clock when the request was sent.
    """

    url: str
    status: int
    body: bytes
    fetched_at: datetime
    headers: Mapping[str, str] = field(default_factory=dict)
    board_date: datetime | None = None
    requested_at: datetime | None = None

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    @property
    def page(self) -> PageDoc:
        """The body's lxml trees, made on first use and shared by everything that reads this
        response (the login-form check, the error check, the topic parser): parsed once."""
        doc = self.__dict__.get("_page")
        if doc is None:
            doc = PageDoc(self.body, self.url)
            object.__setattr__(self, "_page", doc)   # a cache, not a field: frozen stays true
        return doc


# -- page helpers (login form) ------------------------------------------------------------

@dataclass(frozen=True)
class LoginForm:
    """The board's login form: where to post and the hidden fields to send back."""

    action: str
    hidden: dict[str, str]
    submit_name: str = "login"
    submit_value: str = "Login"


def _html(body: bytes):
    if not body or not body.strip():
        return None
    try:
        return lxml.html.document_fromstring(body)
    except (ValueError, etree.ParserError):
        return None


def find_login_form(body: bytes, *, url: str, page: PageDoc | None = None) -> LoginForm | None:
    """The phpBB login form on a page (the login page, or "login required"), else None.

    A page with posts on it is never a login page, even if it carries a quick-login box.
    ``page``: the body's ``PageDoc`` when the caller has one (``FetchResult.page``), so the
    page is not parsed again.
    """
    if page is None or page.body is not body:
        page = PageDoc(body, url)
    try:
        if page.shows_class("postbody"):
            return None
        doc = page.tree()
    except ParseError:
        return None
    for form in doc.xpath("//form"):
        if not form.xpath(".//input[@name='password']"):
            continue
        hidden: dict[str, str] = {}
        for inp in form.xpath(".//input[@type='hidden'][@name]"):
            hidden[inp.get("name")] = inp.get("value", "")   # the last one wins, as in PHP
        submit = form.xpath(".//input[@type='submit'][@name]")
        name, value = ("login", "Login")
        if submit:
            name, value = submit[0].get("name"), submit[0].get("value", "")
        action = urljoin(url, form.get("action") or url)
        return LoginForm(action=action, hidden=hidden, submit_name=name, submit_value=value)
    return None


def login_error_text(body: bytes) -> str:
    """The board's own reason for a refused login (prosilver ``div.error``), if shown."""
    doc = _html(body)
    if doc is None:
        return ""
    for el in doc.xpath("//form//*[contains(concat(' ', normalize-space(@class), ' '), ' error ')]"):
        text = " ".join(el.text_content().split())
        if text:
            return text
    return ""


def page_error(result: FetchResult) -> ForumError | None:
    """The error a page without posts stands for (board disabled, no such topic or forum,
    login required), else None. The page kinds are the parser's (``classify_error_page``);
    the tree is the response's own (``FetchResult.page``), parsed once for every check."""
    page = result.page
    try:
        if page.shows_class("postbody", "topictitle"):
            return None
        doc = page.tree()
    except ParseError:
        return _status_error(result)
    err = classify_error_page(doc, url=result.url)
    if isinstance(err, (BoardDisabledError, TopicNotFoundError, LoginRequiredError)):
        return err
    return _status_error(result)


def _status_error(result: FetchResult) -> ForumError | None:
    """An HTTP error status on a page phpBB did not explain (a web server's own 404 or 403)."""
    if result.status < 400:
        return None
    return FetchError(f"HTTP {result.status}: the server answered with an error page that is "
                      "not phpBB's", url=result.url,
                      hint="check the URL in game.toml and that the board is at that address")
