"""The posts of a topic page read before, taken again when their bytes are the same.

A poll of a live topic reads its last page again and again, and between two polls one or two
posts are new: the other posts' bytes are the ones the previous poll parsed; the re-scan at
the deadline reads every page, each read before as the last one. A ``PostMemo`` keeps, for
the pages of a topic, each post the parser read with the digest of the bytes it was read
from, and ``parse_topic_page(…, memo=)`` takes a post from it instead of walking
its tree when all of these hold (issue 16: the CPU of many games in one daemon):

- the page is prosilver and declares UTF-8 (so the bytes decode the same whatever else the
  page holds), and its post ``<div id="pNNN" class="post`` starts, found in the bytes, are
  the posts the tree shows, in the same order, all children of one element: each post's
  element is closed before the next one opens, so its tree is made of its own bytes;
- the digest covers the post's bytes after its opening tag up to the next post (the last:
  to the end of what the parser reads), with two things left out that the parser never
  reads and that change without the post changing: the post element's own classes (bg1/bg2,
  ``online``: only its id and the ``post`` class are read, and the start pattern checks
  both) and the author's post count in the profile column (``dd.profile-posts``: a link to
  search.php that the author lookup skips; it grows with every post the author writes);
- the URL and the zone are the ones it was read with (``Post.page_url``, the shown times);
- nothing read from it depends on the time of the fetch: its time from ``<time datetime>``
  to the second, no edit notice (the words «Сегодня» or «5 минут назад» are read against the
  fetch's time), as ``forum/pagecache.py`` reasons for a whole page.

What changes between polls outside the posts (the board's clock in the header, a new
``form_token`` in the quick-reply form below) is not part of any digest either. The memo holds
one topic's pages, up to ``MEMO_POSTS`` posts.
"""

from __future__ import annotations

import hashlib
import re
from datetime import tzinfo
from typing import Any, Callable

from scraper_mod.forum.model import Post

from .html import _RE_META_CHARSET
from .pages import _BOTTOM_BAR

_RE_POST_START = re.compile(rb'<div id="p(\d+)" class="post[ "]')
# the author's post count in a post's profile column (prosilver's template, phpBB 3.1-3.3)
_RE_POST_COUNT = re.compile(rb'(<dd class="profile-posts"><strong>[^<>]*</strong> '
                            rb'<a href="[^"<>]*search\.php\?author_id=\d+&amp;sr=posts">)'
                            rb'\d+(</a></dd>)')


#: posts a topic's memo keeps at most (a day's topic of 1,000 posts; a post is about 1 KB)
MEMO_POSTS = 1000


class PostMemo:
    """What the parser read from a topic's pages: post id -> (URL, zone, digest, post), for
    every page read (each page's posts in place of what the same page showed before), the
    posts read longest ago dropped past ``MEMO_POSTS``. A poll reads the last page again and
    again; the deadline's re-scan reads every page, each of them read before as the last
    page, and takes their unchanged posts from here. Not shared between threads (one topic
    is polled by one lane)."""

    __slots__ = ("posts", "_by_url")

    def __init__(self) -> None:
        self.posts: dict[int, tuple[str, tzinfo | None, bytes, Post]] = {}
        self._by_url: dict[str, list[int]] = {}

    def get(self, post_id: int, url: str, tz: tzinfo | None, digest: bytes) -> Post | None:
        hit = self.posts.get(post_id)
        if hit is None or hit[2] != digest or hit[0] != url or hit[1] != tz:
            return None
        return hit[3]

    def keep(self, url: str, tz: tzinfo | None,
             read: list[tuple[int, bytes, Post]]) -> None:
        """Remember this page's posts (those read without the fetch's time) in place of what
        this page showed before."""
        posts = self.posts
        for pid in self._by_url.pop(url, ()):
            hit = posts.get(pid)
            if hit is not None and hit[0] == url:
                del posts[pid]
        kept = []
        for pid, d, p in read:
            if read_without_fetch_time(p):
                posts.pop(pid, None)            # to the end: read last, dropped last
                posts[pid] = (url, tz, d, p)
                kept.append(pid)
        self._by_url[url] = kept
        while len(posts) > MEMO_POSTS:
            del posts[next(iter(posts))]


def read_without_fetch_time(p: Post) -> bool:
    """Nothing read from the post depends on the time of the fetch: its time to the second
    (``<time datetime>``), no edit notice (whose words may be «Сегодня»)."""
    return (p.precision == "second" and p.edited_at is None and not p.edit_count
            and p.edited_by is None)


def post_digests(body: Any, divs: list, pids: list[int], trimmed: bool,
                 made: dict | None = None) -> list[bytes] | None:
    """Each post's digest (module docstring), in page order; None when the page does not
    qualify, and then every post is read from its tree. ``made``: the digests made of these
    bytes before (``PageDoc.digests``, filled by ``hollow``), taken instead of hashing
    again."""
    if not divs:
        return None
    starts = _post_starts(body, made)
    if starts is None or [pid for _, pid in starts] != pids:
        return None
    parent = divs[0].getparent()
    if parent is None or any(d.getparent() is not parent for d in divs):
        return None
    end = len(body)
    if trimmed:     # the tree was read from the topic region, which ends at the bottom bar
        cut = body.find(_BOTTOM_BAR, starts[-1][0])
        if cut > 0:
            end = cut
    out: list[bytes] = []
    bounds = [body.rfind(b"<div", 0, s) for s, _ in starts[1:]] + [end]
    for (s, _), nxt in zip(starts, bounds):
        got = _span_digest(body, s, nxt, made)
        if got is None:
            return None
        out.append(got[1])
    return out


def _post_starts(body: Any, made: dict | None = None) -> list[tuple[int, int]] | None:
    """(where each post's start pattern ends, its post id), in page order, for a page of
    bytes that declares UTF-8; else None. Found once per page (kept in ``made``)."""
    if made is not None and "starts" in made:
        return made["starts"]
    starts = None
    if isinstance(body, bytes):
        m = _RE_META_CHARSET.search(body, 0, 4096)
        if m is not None and m.group(1).lower() in (b"utf-8", b"utf8"):
            starts = [(s.end(), int(s.group(1))) for s in _RE_POST_START.finditer(body)]
    if made is not None:
        made["starts"] = starts
    return starts


def _span_digest(body: bytes, start_end: int, nxt: int, made: dict | None = None
                 ) -> tuple[int, bytes] | None:
    """(where the post's bytes begin, their digest) for the post whose start pattern ends at
    ``start_end`` and whose bytes end at ``nxt``; None without a closed opening tag. The
    digest is SHA-256 of those bytes with the author's post count left out (hashed in
    pieces: the same digest as of the bytes with the count cut out)."""
    if made is not None:
        got = made.get((start_end, nxt))
        if got is not None:
            return got
    inside = body.find(b">", start_end, nxt) + 1     # past the post's own opening tag
    if inside <= 0:
        return None
    h = hashlib.sha256()
    view = memoryview(body)
    pos = inside
    for m in _RE_POST_COUNT.finditer(body, inside, nxt):
        h.update(view[pos:m.end(1)])
        pos = m.start(2)
    h.update(view[pos:nxt])
    got = (inside, h.digest())
    if made is not None:
        made[(start_end, nxt)] = got
    return got


# what a left-out post's bytes become: its element closed at once, with the one class the
# page checks look for inside a post (``PageDoc.shows_class("postbody")``)
_STUB = b'<div class="postbody"></div></div>'


def hollow(body: Any, known: Callable[[int, bytes], bool], made: dict | None = None
           ) -> tuple[Any, frozenset[int]]:
    """The page's bytes with the posts the memo will give back left out, and their ids.

    A post is left out when ``known(post id, digest)`` says the memo holds it for these bytes
    (the digest ``post_digests`` makes); its bytes, from the end of its opening tag to the
    next post's, become ``_STUB``. The last post of the page is always kept (its bytes run
    to the end of the topic region, which the page fields are read from), and so is every
    post of a page that does not qualify (not UTF-8 declared, under two posts). The parse
    of the result is the parse of the page without those posts' subtrees: the topic parser
    checks that each of them came from the memo, and parses the page whole otherwise.
    ``made`` keeps the digests for ``post_digests``."""
    starts = _post_starts(body, made)
    if starts is None:
        return body, frozenset()
    parts: list[bytes] = []
    gone: list[int] = []
    pos = 0
    for (s, pid), (nxt_end, _) in zip(starts, starts[1:]):
        nxt = body.rfind(b"<div", 0, nxt_end)
        got = _span_digest(body, s, nxt, made)
        if got is None or not known(pid, got[1]):
            continue
        parts += (body[pos:got[0]], _STUB)
        pos = nxt
        gone.append(pid)
    if not gone:
        return body, frozenset()
    parts.append(body[pos:])
    return b"".join(parts), frozenset(gone)
