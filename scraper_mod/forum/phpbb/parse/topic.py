"""The entry points: ``parse_topic_page``, ``parse_forum_page``, ``parse_topic_file``."""

from __future__ import annotations

import gc
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from scraper_mod.errors import (
    ForumError,
    ParseError,
)
from scraper_mod.forum.html import (
    _RE_T_PARAM,
    MOSCOW,
    _complete,
    _int_param,
    _norm,
    _tc,
    parse_html,
)
from scraper_mod.forum.model import Post, TopicPage
from scraper_mod.forum.phpbb.parse.doc import PageDoc
from scraper_mod.forum.phpbb.parse.kinds import classify_error_page
from scraper_mod.forum.phpbb.parse.pages import (
    _detect_style,
    _locked,
    _pagination,
    _Scan,
    _title_and_topic,
    declared_timezone,
)
from scraper_mod.forum.phpbb.parse.posts import _prosilver_post, _subsilver_groups, _subsilver_post


@dataclass(frozen=True)
class TopicLink:
    """A topic listed on a viewforum page."""

    topic_id: int | None
    title: str
    url: str


def parse_topic_page(body: bytes, *, url: str = "", fetched_at: datetime | None = None,
                     board_tz: tzinfo | None = MOSCOW, page: PageDoc | None = None
                     ) -> TopicPage:
    """Parse one viewtopic page into a ``TopicPage`` (posts in page order).

    ``fetched_at`` is the board's clock at fetch time (aware; the response's ``Date`` header),
    needed only for relative dates («Сегодня», «35 минут назад»). ``board_tz`` is the zone the
    board shows times in; None means the zone the page declares (else Europe/Moscow).

    Raises ``TopicNotFoundError``, ``LoginRequiredError``, ``BoardDisabledError``,
    ``NotABoardPageError`` for those pages and ``ParseError`` for anything else it cannot read
    (truncated, garbage); never another exception.

    ``page``: the ``PageDoc`` of these bytes that the client's checks already read (a
    fetch's ``FetchResult.page``), so the page is parsed once; made here when not given.
    """
    # A page makes a few thousand short-lived, acyclic objects (element proxies, strings);
    # the cyclic collector running over the whole heap in between cost an eighth of the
    # parse in the benchmark. It is paused for the call and restored as it was.
    gc_was_on = gc.isenabled()
    if gc_was_on:
        gc.disable()
    try:
        return _parse_topic_page(body, url=url, fetched_at=fetched_at, board_tz=board_tz,
                                 page=page)
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


def _parse_topic_page(body, *, url, fetched_at, board_tz, page) -> TopicPage:
    if fetched_at is not None and fetched_at.tzinfo is None:
        raise ParseError("fetched_at must be timezone-aware (the board's clock at fetch, "
                         "e.g. the Date header)", url=url or None)
    if page is None or page.body is not body or page.url != url:
        page = PageDoc(body, url)
    doc = page.tree()
    scan = _Scan(doc, body)
    style = _detect_style(scan)
    if not style:
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
            posts.append(_prosilver_post(div, int(div.get("id")[1:]), tz=tz,
                                         fetched_at=fetched_at, url=url))
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


def _empty_forum(doc: Any, body: bytes) -> bool:
    """A whole prosilver viewforum page of a forum without topics: the forum's title, no
    topic list (phpBB's NO_TOPICS panel instead)."""
    return (_complete(body)
            and bool(doc.xpath("//h2[contains(concat(' ',normalize-space(@class),' '),"
                               "' forum-title ')]"))
            and not doc.xpath("//ul[contains(concat(' ',normalize-space(@class),' '),"
                              "' topics ')]"))


def parse_forum_page(body: bytes, *, url: str = "") -> list[TopicLink]:
    """The topics listed on a viewforum page (stickies and announcements included), in order.

    Raises the same errors as ``parse_topic_page`` for login / not found / disabled pages.
    """
    try:
        doc = parse_html(body, url)
        links = doc.xpath("//a[contains(concat(' ',normalize-space(@class),' '),' topictitle ')]")
        if not links:
            if _empty_forum(doc, body):
                return []         # a forum with no topic yet (a game's start)
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
