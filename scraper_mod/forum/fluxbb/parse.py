"""FluxBB 1.5 pages (FluxBB_by_Visman 1.5.11, style Air, any of its languages) read into
forum/model.py's values.

- a topic page, ``viewtopic.php?id=T&p=K`` (25 posts a page): each post is
  ``div.blockpost#pN``; its time the text of ``h2 a[href*=pid]`` in the viewer's zone **to the
  second** («Сегодня 20:26:33», «Вчера …», «2026-12-01 20:27:45»); its author
  ``div.postleft dt`` (a link to ``profile.php?id=U`` for members); its body ``div.postmsg``
  whose last ``p.postedit`` is the last edit («Отредактировано Вася (Сегодня 20:26:33)»; a
  moderator's silent edit leaves none); its signature ``div.postsignature``. Quotes are
  ``div.quotebox`` with a ``blockquote``; a spoiler is a ``div.quotebox`` without one (its
  hidden ``div`` is marked ``spoiler`` for the walk); code is ``div.codebox``.
- **merged replies** (the fork's «Merge Post»): a member's reply after his own last post is
  appended to it with «Добавлено спустя 1 ч 05 мин 03 с:» (grey, at the head of a ``<p>``),
  or, written in the same second, a bare ``<br />`` between paragraphs. Each piece is a
  ``Part`` with its seconds after the post's time; the marks are not the author's words.
- a PM dialog, ``pmsnew.php?mdl=topic&tid=D``: its messages are ``div.blockpost#pN`` as posts
  (``parse_fluxbb_dialog``); the dialog list ``pmsnew.php?mdl=list`` / ``pmsnew.php`` (the new
  ones): ``parse_fluxbb_dialog_list``.
- an error page (``div#msg``: «Неверный запрос…», «У вас нет прав…») is one ``ForumError``
  line naming the URL.
"""

from __future__ import annotations

import dataclasses
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
from ..model import Part, Post, TopicPage

__all__ = ["parse_fluxbb_topic_page", "parse_fluxbb_dialog", "parse_fluxbb_dialog_list",
           "page_error", "merge_after_seconds", "fluxbb_feed_post_id", "Dialog",
           "dialog_marks"]

_RE_PID = re.compile(r"[?&](?:amp;)?pid=(\d{1,12})")
_RE_TID = re.compile(r"[?&](?:amp;)?(?:id|tid)=(\d{1,12})")
_RE_UID = re.compile(r"profile\.php\?(?:.*&)?id=(\d{1,12})")
_RE_FEED_PID = re.compile(r"viewtopic\.php\?pid=(\d{1,12})")
# «Добавлено спустя 1 дн 2 ч 05 мин 03 с:» / «Added later 1 d 2 h 05 min 03 s:» (any language:
# the numbers with their units, read by the unit's first letter)
_RE_MARK = re.compile(r"^\s*(?P<words>[^\d:]{3,60}?)\s+(?P<span>(?:\d{1,6}\s*[^\d\s:]{1,6}\s*)+):\s*$")
_RE_UNIT = re.compile(r"(\d{1,6})\s*([^\d\s:]{1,6})")
_UNITS = {"д": 86400, "d": 86400, "ч": 3600, "h": 3600, "м": 60, "m": 60, "i": 60, "с": 1,
          "s": 1}
_MARK_WORDS = ("добавлено спустя", "added later", "ajouté")
_RE_EDIT = re.compile(r"^(?:Отредактировано|Last edited by|Modifié par)\s+(?P<by>.+?)\s*"
                      r"\((?P<when>[^()]+)\)\s*$", re.S)
_LOCKED = ("тема закрыта", "topic closed", "sujet fermé")
_NOT_FOUND = ("неверный запрос", "bad request", "mauvaise requête")
_NO_RIGHTS = ("нет прав", "do not have permission", "n'avez pas la permission")


def fluxbb_feed_post_id(*candidates: str | None, topic_id: int | None = None) -> int | None:
    """The post id of a FluxBB feed entry (its link ``viewtopic.php?pid=P#pP``)."""
    for value in candidates:
        m = _RE_FEED_PID.search(value or "")
        if m:
            return int(m.group(1))
    return None


def merge_after_seconds(text: str) -> int | None:
    """The seconds a merge mark names («Добавлено спустя 1 ч 05 мин 03 с:» -> 3903), else
    None (not a mark)."""
    m = _RE_MARK.match(_norm(text))
    if not m or not any(m.group("words").casefold().startswith(w) for w in _MARK_WORDS):
        return None
    total = 0
    for n, unit in _RE_UNIT.findall(m.group("span")):
        mult = _UNITS.get(unit[0].casefold())
        if mult is None:
            return None
        total += int(n) * mult
    return total


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Only the parser's own errors leave: anything else is a ParseError naming the URL."""
    @functools.wraps(fn)
    def wrapper(body: bytes, *, url: str = "", fetched_at: datetime | None = None,
                board_tz: tzinfo = MOSCOW, **kw: Any) -> Any:
        if fetched_at is not None and fetched_at.tzinfo is None:
            raise ParseError("fetched_at must be timezone-aware", url=url or None)
        try:
            return fn(body, url=url, fetched_at=fetched_at, tz=board_tz, **kw)
        except ForumError:
            raise
        except Exception as e:  # noqa: BLE001 - the contract: only the parser's own errors
            raise ParseError(f"unreadable FluxBB page ({type(e).__name__}: {e})",
                             url=url or None) from None
    return wrapper


def page_error(doc: Any, *, url: str) -> ForumError | None:
    """The error a FluxBB page without posts stands for (its ``div#msg`` box), else None."""
    for box in doc.xpath("//div[@id='msg']"):
        why = _norm(_tc(box.xpath(".//div[contains(@class,'inbox')]")[0]
                        if box.xpath(".//div[contains(@class,'inbox')]") else box))
        why = re.sub(r"\s*(?:Назад|Go back|Retour)$", "", why)
        low = why.casefold()
        if any(w in low for w in _NOT_FOUND):
            return TopicNotFoundError(f"FluxBB: {why}", url=url,
                                      hint="проверьте адрес темы (её удалили или перенесли?)")
        if any(w in low for w in _NO_RIGHTS):
            return LoginRequiredError(f"FluxBB: {why}", url=url,
                                      hint="задайте [forum] username и пароль в переменной "
                                           "SCRAPER_MOD_FORUM_PASSWORD")
        return ForumError(f"FluxBB: {why}", url=url)
    if doc.xpath("//form[@id='login']") and not doc.xpath("//div[contains(@class,'blockpost')]"):
        return LoginRequiredError("FluxBB показывает вход: страница только для участников",
                                  url=url, hint="задайте [forum] username и пароль в переменной "
                                                "SCRAPER_MOD_FORUM_PASSWORD")
    return None


def _when(text: str, *, what: str, tz: tzinfo, fetched_at: datetime | None, url: str) -> TimeRange:
    return read_shown_date(text, what=what, tz=tz, fetched_at=fetched_at, url=url,
                           hint="the host's profile on the board must show a date (or "
                                "Сегодня/Вчера) and the time")


# -- the body ---------------------------------------------------------------------------------

def _prepare(body: Any) -> None:
    """FluxBB's markup as the walk reads it: a spoiler (a quotebox without a blockquote) is
    marked ``spoiler`` (its title ``spoiler-title``); merge marks inside quotes are dropped."""
    for box in body.xpath(".//div[contains(concat(' ', @class, ' '), ' quotebox ')]"):
        if box.xpath("./blockquote"):
            continue
        kids = [k for k in box if isinstance(k.tag, str)]
        if kids:
            kids[0].set("class", "spoiler-title")
        for k in kids[1:]:
            k.set("class", "spoiler")
    for em in body.xpath(".//blockquote//span[starts-with(normalize-space(@style),'color')]/em"):
        if merge_after_seconds(_tc(em)) is not None:
            span = em.getparent()
            _drop(span)


def _drop(el: Any) -> None:
    """Remove ``el`` keeping its tail (and a ``<br>`` right after it)."""
    parent = el.getparent()
    nxt = el.getnext()
    tail = el.tail or ""
    if nxt is not None and nxt.tag == "br" and not tail.strip():
        tail = nxt.tail or ""
        parent.remove(nxt)
    prev = el.getprevious()
    if prev is not None:
        prev.tail = (prev.tail or "") + tail
    else:
        parent.text = (parent.text or "") + tail
    parent.remove(el)


def _split_merged(msg: Any) -> list[tuple[int, list[Any]]]:
    """The pieces of a post body (``div.postmsg``, the edit notice removed): (seconds after
    the post time, the body's top-level elements of the piece). One piece when nothing was
    merged. The marks are taken out of the tree."""
    pieces: list[tuple[int, list[Any]]] = [(0, [])]
    for el in list(msg):
        if not isinstance(el.tag, str):
            continue
        if el.tag == "br":        # a bare <br /> between paragraphs: merged in the same second
            if pieces[-1][1]:
                pieces.append((0, []))
            continue
        if el.tag == "p":
            first = next((k for k in el if isinstance(k.tag, str)), None)
            if (first is not None and not (el.text or "").strip() and first.tag == "span"
                    and "color" in (first.get("style") or "")):
                em = first.xpath("./em")
                after = merge_after_seconds(_tc(em[0])) if em else None
                if after is not None:
                    _drop(first)
                    pieces.append((after, []))
        pieces[-1][1].append(el)
    return [p for i, p in enumerate(pieces) if p[1] or i == 0]


def _walk_piece(elements: list[Any]) -> Part:
    box = etree.Element("div")
    for el in elements:
        clone = etree.fromstring(etree.tostring(el, encoding="unicode", with_tail=False),
                                 etree.HTMLParser()).find(".//body")
        for k in (clone if clone is not None else []):
            box.append(k)
    parts = walk_body(box)
    return Part(after=0, colored=tuple(parts.colored), bold=tuple(parts.bold),
                hidden=tuple(parts.hidden), text=parts.text())


def _body(el: Any, *, url: str, tz: tzinfo, fetched_at: datetime | None, what: str
          ) -> tuple[Any, tuple[datetime | None, str | None], tuple[Part, ...], Any]:
    """The post's body walked, its last edit (time, editor), its merged pieces."""
    msgs = el.xpath(".//div[@class='postmsg']")
    if not msgs:
        raise ParseError(f"{what} has no body", url=url or None)
    msg = msgs[0]
    edited: tuple[datetime | None, str | None] = (None, None)
    for notice in msg.xpath("./p[contains(concat(' ', @class, ' '), ' postedit ')]"):
        m = _RE_EDIT.match(_norm(_tc(notice)))
        if m:
            t = _when(m.group("when"), what=f"{what}'s edit time", tz=tz,
                      fetched_at=fetched_at, url=url)
            edited = (t.earliest, m.group("by").strip())
        msg.remove(notice)
    _prepare(msg)
    pieces = _split_merged(msg)
    parts: tuple[Part, ...] = ()
    if len(pieces) > 1:
        parts = tuple(Part(after=after, **{k: getattr(p, k) for k in
                                           ("colored", "bold", "hidden", "text")})
                      for after, els in pieces for p in (_walk_piece(els),))
    sig = el.xpath(".//div[contains(concat(' ', @class, ' '), ' postsignature ')]")
    if parts and sig:       # the signature follows the post: the last piece shows it
        signed = walk_body(etree.Element("div"), extra=sig).hidden
        parts = (*parts[:-1], dataclasses.replace(parts[-1],
                                                  hidden=(*parts[-1].hidden, *signed)))
    return walk_body(msg, extra=sig), edited, parts, msg


def _author(el: Any) -> tuple[str, int | None]:
    dt = el.xpath(".//div[contains(@class,'postleft')]//dt")
    if not dt:
        return "", None
    link = dt[0].xpath(".//a[contains(@href,'profile.php')]")
    name = _norm(_tc(link[0] if link else dt[0]))
    uid = _RE_UID.search(link[0].get("href") or "") if link else None
    return name, int(uid.group(1)) if uid else None


def _post(el: Any, *, url: str, tz: tzinfo, fetched_at: datetime | None) -> Post:
    pid = int(el.get("id")[1:])
    author, author_id = _author(el)
    if not author:
        raise ParseError(f"post {pid} names no author", url=url or None)
    shown = el.xpath("./h2//a[contains(@href,'pid=')]")
    if not shown:
        raise ParseError(f"post {pid} shows no time", url=url or None)
    when = _when(_norm(_tc(shown[0])), what=f"post {pid}'s time", tz=tz,
                 fetched_at=fetched_at, url=url)
    parts, (edited_at, edited_by), pieces, _ = _body(el, url=url, tz=tz, fetched_at=fetched_at,
                                                     what=f"post {pid}")
    return Post(post_id=pid, author=author, author_id=author_id, posted_at=when.earliest,
                precision=when.precision, earliest=when.earliest, latest=when.latest,
                page_url=url, edited_at=edited_at, edited_by=edited_by,
                edit_count=1 if edited_at else 0, colored=tuple(parts.colored),
                bold=tuple(parts.bold), hidden=tuple(parts.hidden),
                quotes=tuple(parts.quotes), text=parts.text(), parts=pieces)


def _pages(doc: Any) -> tuple[int, int, str | None]:
    box = doc.xpath("(//p[contains(concat(' ', @class, ' '), ' pagelink ')])[1]")
    if not box:
        return 1, 1, None
    cur = box[0].xpath("./strong")
    page = int(_norm(_tc(cur[0]))) if cur and _norm(_tc(cur[0])).isdigit() else 1
    numbers = [int(t) for t in (_norm(_tc(a)) for a in box[0].xpath("./a")) if t.isdigit()]
    nxt = box[0].xpath("./a[@rel='next']/@href")
    return page, max([page, *numbers]), nxt[0] if nxt else None


@_guard
def parse_fluxbb_topic_page(body: bytes, *, url: str, fetched_at: datetime | None,
                            tz: tzinfo) -> TopicPage:
    """One FluxBB topic page (see the module docstring). ``fetched_at``: the board's clock at
    the fetch (the ``Date`` header), which «Сегодня …» is read against."""
    doc = parse_html(body, url)
    err = page_error(doc, url=url)
    if err is not None:
        raise err
    posts_el = doc.xpath("//div[contains(concat(' ', @class, ' '), ' blockpost ')]"
                         "[starts-with(@id, 'p')]")
    if not posts_el:
        raise ParseError("not a FluxBB topic page (no div.blockpost)", url=url or None,
                         hint="check the topic URL (viewtopic.php?id=N) and [forum] engine")
    if not _complete(body):
        raise ParseError("the page is cut off (no </html>)", url=url or None,
                         hint="the board or the network broke off; it is read again")
    canonical = doc.xpath("//link[@rel='canonical']/@href")
    crumbs = doc.xpath("(//ul[@class='crumbs'])[1]/li[last()]//a")
    postlink = " ".join(_norm(_tc(p)).casefold()
                        for p in doc.xpath("//p[contains(@class,'postlink')]"))
    page, count, nxt = _pages(doc)
    tid = _RE_TID.search(canonical[0]) if canonical else None
    return TopicPage(
        topic_id=int(tid.group(1)) if tid else None,
        title=_norm(_tc(crumbs[0])) if crumbs else "",
        locked=any(w in postlink for w in _LOCKED), page=page, page_count=count,
        next_url=nxt, posts=tuple(_post(el, url=url, tz=tz, fetched_at=fetched_at)
                                  for el in posts_el),
        style="fluxbb", language=(doc.get("lang") or "ru")[:2], url=url)


# -- PM dialogs ---------------------------------------------------------------------------------

class Dialog:
    """One PM dialog's page: its id, subject, the other member, its messages."""

    def __init__(self, dialog_id: int, subject: str, messages: list[PrivateMessage]) -> None:
        self.dialog_id = dialog_id
        self.subject = subject
        self.messages = messages


@_guard
def parse_fluxbb_dialog(body: bytes, *, url: str, fetched_at: datetime | None,
                        tz: tzinfo, dialog_id: int = 0) -> Dialog:
    """A PM dialog page (``pmsnew.php?mdl=topic&tid=D``): every message, oldest first, each
    a ``PrivateMessage`` whose ``msg_id`` is the message's own id (``#pN``) and whose
    ``subject`` is the dialog's."""
    doc = parse_html(body, url)
    err = page_error(doc, url=url)
    if err is not None:
        raise err
    crumbs = doc.xpath("(//ul[@class='crumbs'])[1]/li[last()]/strong")
    subject = _norm(_tc(crumbs[0])) if crumbs else ""
    out = []
    for el in doc.xpath("//div[contains(concat(' ', @class, ' '), ' blockpost ')]"
                        "[starts-with(@id, 'p')]"):
        mid = int(el.get("id")[1:])
        author, author_id = _author(el)
        shown = el.xpath("./h2//a")
        when = _when(_norm(_tc(shown[0])) if shown else "", what=f"PM {mid}'s time", tz=tz,
                     fetched_at=fetched_at, url=url)
        parts, _, _, _ = _body(el, url=url, tz=tz, fetched_at=fetched_at, what=f"PM {mid}")
        out.append(PrivateMessage(
            msg_id=mid, author=author, author_id=author_id, sent_at=when.earliest,
            earliest=when.earliest, latest=when.latest, precision=when.precision,
            subject=subject, text=parts.text(), quoted_msg_ids=tuple(parts.quotes),
            bold=tuple(parts.bold), url=url))
    if not out and not doc.xpath("//form[@id='quickpostform']"):
        raise ParseError("not a FluxBB PM dialog page (no messages)", url=url or None,
                         hint="check that the board's PMs are on for the account")
    return Dialog(dialog_id, subject, out)


@_guard
def parse_fluxbb_dialog_list(body: bytes, *, url: str, fetched_at: datetime | None,
                             tz: tzinfo, me: str = "") -> list[PmSummary]:
    """The rows of a dialog list (``pmsnew.php?mdl=list``; ``pmsnew.php``: the new ones):
    each a ``PmSummary`` whose ``msg_id`` is the **dialog** id, ``author`` the other member
    (the one of sender and addressee who is not ``me``), the time the dialog's last
    message's."""
    doc = parse_html(body, url)
    err = page_error(doc, url=url)
    if err is not None:
        raise err
    out = []
    for row in doc.xpath("//tr[.//a[contains(@href,'mdl=topic') and contains(@href,'tid=')]]"):
        link = row.xpath(".//a[contains(@href,'mdl=topic') and contains(@href,'tid=')]")[0]
        m = re.search(r"tid=(\d{1,12})", link.get("href") or "")
        if not m:
            continue
        who = row.xpath(".//a[contains(@href,'profile.php')]")
        texts = [_norm(t) for t in row.xpath("./td//text()")]
        shown = next((t for t in texts if re.search(r"\d\d:\d\d", t)), "")
        when = _when(shown, what=f"dialog {m.group(1)}'s time", tz=tz, fetched_at=fetched_at,
                     url=url)
        if len(who) > 1 and _norm(_tc(who[0])).casefold() == me.casefold():
            who = who[1:]       # the account started the dialog: the other is the addressee
        uid = _RE_UID.search(who[0].get("href") or "") if who else None
        out.append(PmSummary(
            msg_id=int(m.group(1)), subject=_norm(_tc(link)),
            author=_norm(_tc(who[0])) if who else "", author_id=int(uid.group(1)) if uid else None,
            sent_at=when.earliest, earliest=when.earliest, latest=when.latest,
            precision=when.precision,
            unread="inew" in (row.get("class") or "") or bool(row.xpath(".//strong/a")),
            url=f"{url.split('?')[0]}?mdl=topic&tid={m.group(1)}"))
    return out


def dialog_marks(body: bytes) -> dict[int, str]:
    """Each dialog row's replies and last message (time and author): a dialog whose row
    reads the same has no new message (the PM source opens only the others)."""
    doc = parse_html(body)
    out = {}
    for row in doc.xpath("//tr[.//a[contains(@href,'mdl=topic') and contains(@href,'tid=')]]"):
        link = row.xpath(".//a[contains(@href,'mdl=topic') and contains(@href,'tid=')]")[0]
        m = re.search(r"tid=(\d{1,12})", link.get("href") or "")
        if m:
            cells = row.xpath("./td[contains(@class,'tc3')] | ./td[contains(@class,'tc2')][last()]")
            out[int(m.group(1))] = "|".join(_norm(_tc(c)) for c in cells)
    return out
