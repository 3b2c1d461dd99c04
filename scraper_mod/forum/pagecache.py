"""The last page of each topic a poll read, kept per open state file so that an idle poll
of an unchanged page parses nothing (issue 16: the CPU of many games in one daemon)."""

from __future__ import annotations

import threading
import weakref
from zoneinfo import ZoneInfo

from ..store import Store
from .client import FetchResult
from .model import TopicPage
from .parse import parse_topic_page
from .parse.reuse import PostMemo, read_without_fetch_time

# the last page each topic showed, per open state file: (its URL, the SHA-256 of its bytes, the
# zone it was read in, what the parser made of it); one page a topic, so bounded by the games
_LAST_PAGE: "weakref.WeakKeyDictionary[Store, dict[str, tuple]]" = weakref.WeakKeyDictionary()
_LAST_PAGE_LOCK = threading.Lock()
# the posts each topic's parses read, per open state file (parse/reuse.py), for the last
# MEMOS_KEPT topics read (the day's, and the day before's until its deadline is done)
_POSTS: "weakref.WeakKeyDictionary[Store, dict[str, PostMemo]]" = weakref.WeakKeyDictionary()
MEMOS_KEPT = 2


def expect_page(store: Store, key: str, res: FetchResult, board_tz: ZoneInfo) -> None:
    """Call before anything reads ``res`` (a page of topic ``key``): its topic tree is then
    parsed without the posts this topic's ``PostMemo`` holds for their bytes, which
    ``read_page`` takes from the memo (``PageDoc.reuse``, ``parse/reuse.py`` ``hollow``)."""
    with _LAST_PAGE_LOCK:
        memo = _POSTS.get(store, {}).get(key)
    if memo is None or not memo.posts:
        return
    url = res.url
    res.page.reuse(lambda pid, digest: memo.get(pid, url, board_tz, digest) is not None)


def read_page(store: Store, key: str, res: FetchResult, board_tz: ZoneInfo) -> TopicPage:
    """``parse_topic_page`` of a fetched page, or the page the previous poll parsed when the
    board sent the same bytes for the same URL and nothing read from them depends on the
    time of the fetch (every post time to the second from ``<time datetime>``, no edit
    notice: the words «Сегодня» or «5 минут назад» are read against the fetch's time). An
    idle poll of the last page then parses nothing; its posts are still stored as any poll
    stores them. A page that did change is parsed with the topic's ``PostMemo``: its posts
    whose bytes did not change are taken from the previous parse (``parse/reuse.py``)."""
    digest = res.digest
    with _LAST_PAGE_LOCK:
        last = _LAST_PAGE.get(store, {}).get(key)
    if last is not None and last[:3] == (res.url, digest, board_tz):
        return last[3]
    with _LAST_PAGE_LOCK:
        memos = _POSTS.setdefault(store, {})
        memo = memos.get(key)
        if memo is None:
            while len(memos) >= MEMOS_KEPT:     # a past day's topic: its re-scan is done
                del memos[next(iter(memos))]
            memo = memos[key] = PostMemo()
    page = parse_topic_page(res.body, url=res.url, fetched_at=res.fetched_at,
                            board_tz=board_tz, page=res.page, memo=memo)
    timeless = all(read_without_fetch_time(p) for p in page.posts)
    with _LAST_PAGE_LOCK:
        pages = _LAST_PAGE.setdefault(store, {})
        if timeless:
            pages[key] = (res.url, digest, board_tz, page)
        else:
            pages.pop(key, None)
    return page
