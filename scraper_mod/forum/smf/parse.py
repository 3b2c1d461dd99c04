"""Simple Machines Forum 2.1 pages read into forum/model.py's values (Curve2, the default theme).

- a topic page, ``index.php?topic=T.START`` (15 messages a page): each message is
  ``div.windowbg#msgM``, its author ``div.poster h4 a`` (``action=profile;u=ID``), its time
  the text of ``div.postinfo a.smalltext`` in the viewer's zone to the minute («Dec 01, 2026,
  02:33 PM», «Today at 07:35 PM»), its last edit ``span#modified_M`` («Last Edit: … by NAME
  Reason: …»; none when the author edited within SMF's 90 s grace), its body
  ``div.inner#msg_M``, its signature ``div.signature``. The body is made to read as the
  phpBB parser's walk (``walk_body``) reads bodies: the code header is skipped, each quote's
  ``<cite>`` link (``?msg=N``) gives the quoted message id, and the literal ``[spoiler]`` …
  ``[/spoiler]`` text (not an SMF tag) marks what stands between as a spoiler (R2.2: never
  a vote). ``parse_smf_topic_page``.
- the board's Atom feed (``index.php?action=.xml;type=atom;board=B;limit=255``): each
  message's time to the second in UTC; ``smf_msg_id`` names a feed entry's message for
  forum/feed.py's ``parse_topic_feed``.
- a PM folder, ``index.php?action=pm`` (``;f=sent``): the rows (``parse_smf_pm_list``) and,
  since SMF shows every listed PM below the list, the messages (``parse_smf_pms``).

An SMF error page (a missing topic, «off limits», a locked topic) or its login page is one
``ForumError`` line naming the URL. Only the parser's own errors leave these functions.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime, tzinfo
from typing import Any, Callable

from lxml import etree

from scraper_mod.forum.html import MOSCOW, _complete, _norm, _tc, parse_html
from scraper_mod.forum.markup import walk_body
from scraper_mod.forum.pms import PmSummary, PrivateMessage

from ...errors import ForumError, LoginRequiredError, ParseError, TopicNotFoundError
from ..dates import TimeRange, read_shown_date
from ..model import Post, TopicPage

__all__ = ["parse_smf_topic_page", "parse_smf_pm_list", "parse_smf_pms", "smf_msg_id",
           "page_error", "PER_PAGE", "strip_session", "parse_smf_pm"]

PER_PAGE = 15
_RE_TOPIC = re.compile(r"[?;&](?:amp;)?topic=(\d{1,12})")
_RE_MSG = re.compile(r"[?;&](?:amp;)?msg=(\d{1,12})")
_RE_U = re.compile(r"[?;&](?:amp;)?u=(\d{1,12})")
_RE_FEED_LINK = re.compile(r"[?;&]topic=(\d{1,12})\.msg(\d{1,12})")
_RE_FEED_ID = re.compile(r":msg=(\d{1,12})$")
_RE_EDIT = re.compile(r"^Last Edit:\s*(?P<when>.+?)\s+by\s+(?P<by>.+?)"
                      r"(?:\s+Reason:\s*(?P<reason>.*))?$", re.S)
_RE_SPOILER = re.compile(r"\[(/?)spoiler(?:=[^\]]{0,100})?\]", re.I)
_RE_SESSION = re.compile(r"([?;&])PHPSESSID=[^;&#]*[;&]?")


def strip_session(url: str) -> str:
    """A URL without SMF's ``PHPSESSID=…`` (a cookieless guest's links carry it)."""
    return _RE_SESSION.sub(lambda m: m.group(1), url).rstrip("?;&")


def _int(rx: re.Pattern, s: str | None) -> int | None:
    m = rx.search(s or "")
    return int(m.group(1)) if m else None


def smf_msg_id(*candidates: str | None, topic_id: int | None = None) -> int | None:
    """The message id of an SMF feed entry (its link ``?topic=T.msgM#msgM``, its id
    ``tag:…:msg=M``); with ``topic_id``, only an entry whose link names that topic."""
    for value in candidates:
        m = _RE_FEED_LINK.search(value or "")
        if m:
            return int(m.group(2)) if topic_id in (None, int(m.group(1))) else None
    if topic_id is not None:
        return None
    for value in candidates:
        m = _RE_FEED_ID.search((value or "").strip())
        if m:
            return int(m.group(1))
    return None


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Only the parser's own errors leave: anything else is a ParseError naming the URL."""
    @functools.wraps(fn)
    def wrapper(body: bytes, *, url: str = "", fetched_at: datetime | None = None,
                board_tz: tzinfo = MOSCOW) -> Any:
        if fetched_at is not None and fetched_at.tzinfo is None:
            raise ParseError("fetched_at must be timezone-aware", url=url or None)
        try:
            return fn(body, url=url, fetched_at=fetched_at, tz=board_tz)
        except ForumError:
            raise
        except Exception as e:  # noqa: BLE001 - the contract: only the parser's own errors
            raise ParseError(f"unreadable SMF page ({type(e).__name__}: {e})",
                             url=url or None) from None
    return wrapper


def page_error(doc: Any, *, url: str) -> ForumError | None:
    """The error an SMF page without messages stands for, else None."""
    for box in doc.xpath("//div[@id='fatal_error']"):
        pad = box.xpath(".//div[contains(@class,'padding')]")
        why = _norm(_tc(pad[0] if pad else box))
        kind = pad[0].get("id", "") if pad else ""
        if kind == "topic_gone" or "missing or off limits" in why:
            return TopicNotFoundError(f"SMF says: {why}", url=url,
                                      hint="check the topic URL (was it deleted or moved?)")
        if "logged in" in why or "login" in kind:
            return LoginRequiredError(f"SMF says: {why}", url=url)
        return ForumError(f"SMF says: {why}", url=url)
    if doc.xpath("//form[@id='frmLogin']") and not doc.xpath("//div[@id='forumposts']"):
        return LoginRequiredError("SMF shows its login page: this page is for members only",
                                  url=url, hint="set [forum] username and the "
                                                "SCRAPER_MOD_FORUM_PASSWORD environment variable")
    return None


def _when(text: str, *, what: str, tz: tzinfo, fetched_at: datetime | None, url: str) -> TimeRange:
    return read_shown_date(text, what=what, tz=tz, fetched_at=fetched_at, url=url,
                           hint="SMF's time format must keep a date (or Today/Yesterday) and "
                                "the time")


# -- the body: SMF's markup as the phpBB walk reads it -------------------------------------

def _text_slots(el: Any) -> list[tuple[Any, str]]:
    """Every text node under ``el`` in document order, as (element, "text" | "tail")."""
    out: list[tuple[Any, str]] = [(el, "text")]
    for ch in el:
        if isinstance(ch.tag, str):
            out.extend(_text_slots(ch))
        out.append((ch, "tail"))
    return out


def _span(cls: str, text: str) -> Any:
    s = etree.Element("span")
    s.set("class", cls)
    s.text = text
    return s


def _mark_spoilers(body: Any) -> None:
    """Put what stands between a literal ``[spoiler]`` and its ``[/spoiler]`` (or the end of
    the body, when never closed) in ``<span class="spoiler">`` pieces; the markers themselves
    go in ``<span class="spoiler-title">``, which the walk skips."""
    depth = 0
    for el, slot in _text_slots(body):
        s = getattr(el, slot)
        if not s or (depth == 0 and "[" not in s):
            continue
        pieces: list[tuple[str, str | None]] = []     # (text, the class of its span or None)
        pos = 0
        for m in _RE_SPOILER.finditer(s):
            if m.start() > pos:
                pieces.append((s[pos:m.start()], "spoiler" if depth else None))
            pieces.append((m.group(0), "spoiler-title"))
            depth = max(0, depth - 1) if m.group(1) else depth + 1
            pos = m.end()
        if pos < len(s):
            pieces.append((s[pos:], "spoiler" if depth else None))
        if all(cls is None for _, cls in pieces):
            continue
        first_plain = "" if pieces[0][1] else pieces.pop(0)[0]
        spans: list[Any] = []
        for text, cls in pieces:
            if cls:
                spans.append(_span(cls, text))
            else:                   # plain text after a marked piece: that span's tail
                spans[-1].tail = (spans[-1].tail or "") + text
        setattr(el, slot, first_plain)
        parent, at = (el, 0) if slot == "text" else (el.getparent(), el.getparent().index(el) + 1)
        for i, sp in enumerate(spans):
            parent.insert(at + i, sp)


def _prepare_body(body: Any) -> None:
    for head in body.xpath(".//div[contains(@class,'codeheader')]"):
        head.set("class", "codetitle")          # «Code Select Expand»: not the author's words
    for a in body.xpath(".//blockquote/cite//a[@href]"):
        mid = _int(_RE_MSG, a.get("href"))
        if mid is not None:
            a.set("data-post-id", str(mid))     # the quoted message, as walk_body reads it
    _mark_spoilers(body)


# -- a topic page ---------------------------------------------------------------------------

def _edit(notice: Any, *, tz: tzinfo, fetched_at: datetime | None, url: str, mid: int
          ) -> tuple[datetime | None, str | None, str | None]:
    text = _norm(_tc(notice)) if notice is not None else ""
    if not text:
        return None, None, None
    m = _RE_EDIT.match(text)
    if not m:
        raise ParseError(f"message {mid}: unreadable edit notice {text[:80]!r}", url=url or None)
    when = _when(m.group("when"), what=f"message {mid}'s edit time", tz=tz,
                 fetched_at=fetched_at, url=url)
    return when.earliest, m.group("by").strip(), (m.group("reason") or "").strip() or None


def _post(el: Any, *, url: str, tz: tzinfo, fetched_at: datetime | None) -> Post:
    mid = int(el.get("id")[3:])
    who = el.xpath(".//div[@class='poster']/h4")
    link = who[0].xpath(".//a[contains(@href,'action=profile')]") if who else []
    author = _norm(_tc(link[0] if link else who[0])) if who else ""
    if not author:
        raise ParseError(f"message {mid} names no author", url=url or None)
    shown = el.xpath(".//div[@class='postinfo']/a[contains(@class,'smalltext')]")
    if not shown:
        raise ParseError(f"message {mid} shows no time", url=url or None)
    when = _when(_norm(_tc(shown[0])), what=f"message {mid}'s time", tz=tz,
                 fetched_at=fetched_at, url=url)
    edited_at, edited_by, reason = _edit(
        next(iter(el.xpath(f".//span[@id='modified_{mid}']")), None),
        tz=tz, fetched_at=fetched_at, url=url, mid=mid)
    inner = el.xpath(f".//div[@id='msg_{mid}']")
    if not inner:
        raise ParseError(f"message {mid} has no body", url=url or None)
    _prepare_body(inner[0])
    parts = walk_body(inner[0], extra=el.xpath(".//div[contains(@class,'signature')]"))
    return Post(post_id=mid, author=author,
                author_id=_int(_RE_U, link[0].get("href")) if link else None,
                posted_at=when.earliest, precision=when.precision, earliest=when.earliest,
                latest=when.latest, page_url=url, edited_at=edited_at, edited_by=edited_by,
                edit_count=1 if edited_at else 0, edit_reason=reason,
                colored=tuple(parts.colored), bold=tuple(parts.bold),
                hidden=tuple(parts.hidden), quotes=tuple(parts.quotes), text=parts.text())


def _pages(doc: Any, url: str) -> tuple[int, int, str | None]:
    box = doc.xpath("(//div[contains(@class,'pagelinks')])[1]")
    if not box:
        return 1, 1, None
    cur = box[0].xpath(".//span[@class='current_page']")
    page = int(_norm(_tc(cur[0]))) if cur and _norm(_tc(cur[0])).isdigit() else 1
    numbers = [int(t) for t in (_norm(_tc(a)) for a in box[0].xpath(".//a[@class='nav_page']"))
               if t.isdigit()]
    nxt = box[0].xpath(".//a[@class='nav_page'][.//span[contains(@class,'next_page')]]/@href")
    return page, max([page, *numbers]), strip_session(nxt[0]) if nxt else None


@_guard
def parse_smf_topic_page(body: bytes, *, url: str, fetched_at: datetime | None,
                         tz: tzinfo) -> TopicPage:
    """One SMF topic page (see the module docstring). ``fetched_at``: the board's clock at
    the fetch (the ``Date`` header), which «Today at …» is read against."""
    doc = parse_html(body, url)
    err = page_error(doc, url=url)
    if err is not None:
        raise err
    if not doc.xpath("//div[@id='forumposts']"):
        raise ParseError("not an SMF topic page (no div#forumposts)", url=url or None,
                         hint="check the topic URL (index.php?topic=N.0) and [forum] engine")
    if not _complete(body):
        raise ParseError("the page is cut off (no </html>)", url=url or None,
                         hint="the board or the network broke off; it is read again")
    canonical = doc.xpath("//link[@rel='canonical']/@href")
    title = doc.xpath("//span[@id='top_subject']")
    locked = bool(doc.xpath("//span[@id='top_subject']/following-sibling::span"
                            "[contains(concat(' ', @class, ' '), ' lock ')]"))
    page, count, nxt = _pages(doc, url)
    posts = tuple(_post(el, url=url, tz=tz, fetched_at=fetched_at) for el in doc.xpath(
        "//div[@id='forumposts']//div[contains(concat(' ', @class, ' '), ' windowbg ')]"
        "[starts-with(@id, 'msg')]"))
    return TopicPage(topic_id=_int(_RE_TOPIC, canonical[0] if canonical else url),
                     title=_norm(_tc(title[0])) if title else "", locked=locked, page=page,
                     page_count=count, next_url=nxt, posts=posts, style="curve2",
                     language=(doc.get("lang") or "en")[:2], url=url)


# -- personal messages ----------------------------------------------------------------------

def _pm_doc(body: bytes, url: str) -> Any:
    doc = parse_html(body, url)
    err = page_error(doc, url=url)
    if err is not None:
        raise err
    if not doc.xpath("//form[@id='pmFolder']"):
        raise ParseError("not an SMF personal-message folder (no form#pmFolder)",
                         url=url or None, hint="check [forum] url and that the account may "
                                               "use personal messages")
    return doc


@_guard
def parse_smf_pm_list(body: bytes, *, url: str, fetched_at: datetime | None,
                      tz: tzinfo) -> list[PmSummary]:
    """The rows of a PM folder page (the inbox: the senders; ``f=sent``: the recipients,
    several joined with ", "), in the page's order."""
    doc = _pm_doc(body, url)
    out = []
    for row in doc.xpath("//form[@id='pmFolder']//table[contains(@class,'table_grid')]"
                         "/tbody/tr"):
        ids = row.xpath(".//input[@name='pms[]']/@value")
        if not ids or not ids[0].isdigit():
            continue
        mid = int(ids[0])
        subj = row.xpath(".//td[contains(@class,'pm_subject')]/a")
        subject = _norm("".join(subj[0].xpath("text()"))) if subj else ""
        who = row.xpath(".//td[contains(@class,'pm_from_to')]//a[contains(@href,'u=')]")
        shown = row.xpath(".//td[contains(@class,'pm_time')]")
        when = _when(_norm(_tc(shown[0])) if shown else "", what=f"PM {mid}'s time", tz=tz,
                     fetched_at=fetched_at, url=url)
        out.append(PmSummary(
            msg_id=mid, subject=subject, author=", ".join(_norm(_tc(a)) for a in who),
            author_id=_int(_RE_U, who[0].get("href")) if len(who) == 1 else None,
            sent_at=when.earliest, earliest=when.earliest, latest=when.latest,
            precision=when.precision, unread="unread_pm" in (row.get("class") or ""),
            url=f"{url.split('?')[0]}?action=pm;pmsg={mid}"))
    return out


@_guard
def parse_smf_pms(body: bytes, *, url: str, fetched_at: datetime | None,
                  tz: tzinfo) -> list[PrivateMessage]:
    """The messages an SMF PM folder page shows below its list: sender, time, subject and
    the sender's own words (quotes and signatures left out)."""
    doc = _pm_doc(body, url)
    out = []
    for el in doc.xpath("//div[contains(concat(' ', @class, ' '), ' windowbg ')]"
                        "[starts-with(@id, 'msg')]"):
        mid = int(el.get("id")[3:])
        link = el.xpath(".//div[@class='poster']/h4//a[contains(@href,'action=profile')]")
        subject = el.xpath(".//div[contains(@class,'keyinfo')]//h5")
        info = el.xpath(".//div[@class='postinfo']/span[contains(@class,'smalltext')]")
        shown = re.split(r"\bon:\s*", _norm(_tc(info[0])), maxsplit=1)[-1] if info else ""
        when = _when(shown, what=f"PM {mid}'s time", tz=tz, fetched_at=fetched_at, url=url)
        inner = el.xpath(f".//div[@id='msg_{mid}']")
        if not inner:
            raise ParseError(f"PM {mid} has no body", url=url or None)
        _prepare_body(inner[0])
        parts = walk_body(inner[0], extra=el.xpath(".//div[contains(@class,'signature')]"))
        out.append(PrivateMessage(
            msg_id=mid, author=_norm(_tc(link[0])) if link else "",
            author_id=_int(_RE_U, link[0].get("href")) if link else None,
            sent_at=when.earliest, earliest=when.earliest, latest=when.latest,
            precision=when.precision, subject=_norm(_tc(subject[0])) if subject else "",
            text=parts.text(), quoted_msg_ids=tuple(parts.quotes), bold=tuple(parts.bold),
            url=f"{url.split('?')[0]}?action=pm;pmsg={mid}"))
    return out


def parse_smf_pm(body: bytes, *, msg_id: int, url: str, fetched_at: datetime | None,
                 board_tz: tzinfo = MOSCOW) -> PrivateMessage:
    """PM ``msg_id`` of a PM folder's page (SMF shows every listed PM below the list)."""
    for pm in parse_smf_pms(body, url=url, fetched_at=fetched_at, board_tz=board_tz):
        if pm.msg_id == msg_id:
            return pm
    raise ParseError(f"PM {msg_id} is not on the page", url=url or None)
