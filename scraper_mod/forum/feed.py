"""phpBB's Atom feed of a topic: every listed post's time to the second.

Boards without prosilver's ``<time datetime>`` (subsilver2 and its ports, phpBB 3.0–3.2 styles)
show post times to the minute, and Russian boards show recent posts as «35 минут назад»; a
post made at 19:59:30 and first seen at 20:35 then cannot be placed before a 20:00 deadline
(RULES R2.6). phpBB 3.x publishes each topic's Atom feed (3.1+: ``<board>/app.php/feed/topic/N``;
3.0: ``<board>/feed.php?t=N``), newest posts first (``feed_limit_post``, 15 by default), with
``<published>`` (the post time) and ``<updated>`` (the last edit, else the post time) to the
second, with the board's UTC offset.

``parse_topic_feed`` is pure (bytes in, entries out) and raises only ``ParseError``;
``feed_url_for`` builds the feed URL of a topic; ``advertised_feed_url`` finds the topic feed
a topic page links to in its ``<head>`` (phpBB does when the topic feed is enabled).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Callable
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from lxml import etree

from ..errors import ParseError

ATOM = "{http://www.w3.org/2005/Atom}"

__all__ = ["FeedEntry", "parse_topic_feed", "feed_url_for", "advertised_feed_url"]


@dataclass(frozen=True)
class FeedEntry:
    """One post as the topic feed lists it.

    ``published``: the post time (aware, to the second); ``updated``: the last edit time, or
    the post time when never edited (phpBB); ``title``: the post subject («Re: …»).
    """

    post_id: int
    published: datetime
    updated: datetime
    author: str
    title: str


_POST_ID_RES = (re.compile(r"[?&;]p=(\d+)"), re.compile(r"#p(\d+)\s*$"))


def _post_id(*candidates: str | None) -> int | None:
    for value in candidates:
        if not value:
            continue
        value = html.unescape(value)
        for rx in _POST_ID_RES:
            m = rx.search(value)
            if m:
                return int(m.group(1))
    return None


def _text(el: etree._Element | None) -> str:
    if el is None:
        return ""
    return " ".join("".join(el.itertext()).split())


def _instant(value: str, *, what: str, url: str | None, post_id: int | None) -> datetime:
    where = f"entry for post {post_id}" if post_id is not None else "an entry"
    raw = value.strip()
    try:
        t = datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw)
    except ValueError:
        raise ParseError(f"the feed's {where} has an unreadable <{what}> {raw[:40]!r}",
                         url=url, hint="expected an ISO 8601 time such as "
                                       "2024-04-09T19:59:30+03:00") from None
    if t.tzinfo is None:
        raise ParseError(f"the feed's {where} has a <{what}> without a UTC offset: {raw!r}",
                         url=url)
    return t


def _parser() -> etree.XMLParser:
    # no DTDs, no entity expansion, no network: a feed is untrusted input
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           huge_tree=False, remove_comments=True, remove_pis=True)


def parse_topic_feed(body: bytes, *, url: str = "",
                     post_id: Callable[..., int | None] = _post_id) -> list[FeedEntry]:
    """The entries of a phpBB topic's Atom feed, in the feed's order (newest first).

    Entries that name no post (no ``p=N`` / ``#pN`` in their link or id) are skipped. Another
    engine's feed gives its own ``post_id`` (the entry's alternate links and ``<id>`` in, the
    post id or None out: SMF's ``?topic=T.msgM#msgM``, see forum/smf/). Raises
    ``ParseError`` naming ``url`` for anything that is not a readable Atom feed (an HTML
    page, an error page, truncated or corrupted XML) or an entry with an unreadable time.
    """
    if not body or not body.strip():
        raise ParseError("the feed is empty", url=url or None,
                         hint="is the board's topic feed switched on (ACP > Board feeds)?")
    try:
        root = etree.fromstring(body, _parser())
    except (etree.LxmlError, ValueError, LookupError) as e:
        msg = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
        raise ParseError(f"not a readable Atom feed: {msg}", url=url or None,
                         hint="the board may have sent an error page instead") from None
    if root is None or not isinstance(root.tag, str) or root.tag != ATOM + "feed":
        tag = root.tag if root is not None and isinstance(root.tag, str) else "?"
        raise ParseError(f"not an Atom feed (the document is <{etree.QName(tag).localname}>)"
                         if tag != "?" else "not an Atom feed", url=url or None,
                         hint="is the board's topic feed switched on (ACP > Board feeds)?")
    entries: list[FeedEntry] = []
    for entry in root.iterfind(ATOM + "entry"):
        links = [link.get("href") for link in entry.iterfind(ATOM + "link")
                 if link.get("rel", "alternate") == "alternate"]
        pid = post_id(*links, entry.findtext(ATOM + "id"))
        if pid is None:
            continue
        published_s = entry.findtext(ATOM + "published")
        updated_s = entry.findtext(ATOM + "updated")
        if not (published_s or "").strip() and not (updated_s or "").strip():
            raise ParseError(f"the feed's entry for post {pid} has no <published> or <updated>",
                             url=url or None)
        published = (_instant(published_s, what="published", url=url or None, post_id=pid)
                     if (published_s or "").strip() else None)
        updated = (_instant(updated_s, what="updated", url=url or None, post_id=pid)
                   if (updated_s or "").strip() else None)
        if published is None:   # phpBB always gives <published> for a post; be lenient
            published = updated
        assert published is not None  # one of the two was given (checked above)
        entries.append(FeedEntry(
            post_id=pid, published=published, updated=updated or published,
            author=_text(entry.find(f"{ATOM}author/{ATOM}name")),
            title=_text(entry.find(ATOM + "title"))))
    return entries


def _topic_id(topic_url: str) -> tuple[str, int]:
    parts = urlsplit(topic_url)
    q = dict(parse_qsl(parts.query))
    t = q.get("t", "")
    if not parts.path.endswith("viewtopic.php") or not t.isdigit():
        raise ParseError("not a topic URL (expected …/viewtopic.php?t=N)", url=topic_url)
    return urljoin(topic_url, "./"), int(t)


def feed_url_for(topic_url: str, *, layout: str = "3.1") -> str:
    """The Atom feed of the topic at ``topic_url`` (``…/viewtopic.php?t=N``).

    ``layout="3.1"`` (phpBB 3.1 and later): ``<board>/app.php/feed/topic/N``;
    ``layout="3.0"``: ``<board>/feed.php?t=N``.
    """
    board, tid = _topic_id(topic_url)
    if layout == "3.1":
        return f"{board}app.php/feed/topic/{tid}"
    if layout == "3.0":
        return f"{board}feed.php?t={tid}"
    raise ValueError(f"layout must be '3.1' or '3.0', not {layout!r}")


_LINK_RE = re.compile(rb"<link\b[^>]*>", re.I)
_ATTR_RE = re.compile(rb"""([a-zA-Z:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_HEAD_END_RE = re.compile(rb"</head\s*>|<body\b", re.I)


def _without_sid(url: str) -> str:
    parts = urlsplit(url)
    q = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "sid"]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(q), ""))


def advertised_feed_url(body: bytes, *, page_url: str, topic_id: int) -> str | None:
    """The topic feed a topic page links to in its ``<head>``, or None.

    phpBB adds ``<link rel="alternate" type="application/atom+xml" href="…">`` for the topic
    feed (``app.php/feed/topic/N``, 3.0: ``feed.php?f=F&t=N``) only when that feed is on.
    The URL is made absolute against ``page_url``; a ``sid`` parameter is dropped.
    """
    m = _HEAD_END_RE.search(body)
    head = body[:m.start()] if m else body[:65536]
    for tag in _LINK_RE.findall(head):
        attrs = {}
        for name, v1, v2 in _ATTR_RE.findall(tag):
            attrs[name.lower()] = v1 if v1 or not v2 else v2
        if attrs.get(b"type", b"").strip().lower() != b"application/atom+xml":
            continue
        href = html.unescape(attrs.get(b"href", b"").decode("ascii", "replace")).strip()
        if not href:
            continue
        parts = urlsplit(href)
        q = dict(parse_qsl(parts.query))
        m_path = re.search(r"/feed/topic/(\d+)/?$", parts.path)
        if m_path:
            tid = int(m_path.group(1))
        elif parts.path.endswith("feed.php") and q.get("t", "").isdigit():
            tid = int(q["t"])
        else:
            continue
        if tid == topic_id:
            return _without_sid(urljoin(page_url, href))
    return None
