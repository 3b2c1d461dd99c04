"""phpBB private-message pages (the host's inbox and one message) read into plain values.

Night moves may arrive as PMs to the host. Two pages matter:

* the inbox, ``ucp.php?i=pm&folder=inbox``: one row per message (id, subject, sender, date,
  unread or not) — ``parse_pm_inbox``;
* a message, ``ucp.php?i=pm&mode=view&f=0&p=N``: sender, date, subject and the body —
  ``parse_pm_view``. ``text`` is the sender's own words: quoted text (a reply that quotes the
  host's message, «проверить Вася» in the example) is removed, as are signatures.

PM pages never carry seconds (no ``<time datetime>``): dates are to the minute, or relative
(«Сегодня, 19:59», «5 минут назад») when recent — resolved against ``fetched_at``, the
board's clock at fetch (the ``Date`` header). prosilver and subsilver2-style markup are read;
a login page raises ``LoginRequiredError``. Only the page given is read: an inbox with more
than one page of messages lists the first page's rows (phpBB shows the newest first).
"""

from __future__ import annotations

import re
from datetime import datetime, tzinfo
from typing import Any, cast
from urllib.parse import urljoin

from scraper_mod.errors import ForumError, ParseError
from scraper_mod.forum.dates import TimeRange, read_shown_date
from scraper_mod.forum.html import (
    _RE_U_PARAM,
    MOSCOW,
    _complete,
    _int_param,
    _norm,
    _tc,
    parse_html,
)
from scraper_mod.forum.markup import walk_body
from scraper_mod.forum.phpbb.parse.kinds import classify_error_page

__all__ = ["PmRowProblem", "PmSummary", "PrivateMessage", "parse_pm_inbox", "parse_pm_view",
           "read_pm_inbox"]

from scraper_mod.forum.pms import PmRowProblem, PmSummary, PrivateMessage

_RE_MSG_PARAM = re.compile(r"[?&;](?:amp;)?p=(\d{1,12})")
_RE_REPORT = re.compile(r"/pm/(\d{1,12})/report")
_LABELS = {
    "sent": ("отправлено:", "sent:", "добавлено:", "posted:"),
    "from": ("от:", "from:", "автор:", "author:"),
    "subject": ("тема сообщения:", "subject:", "заголовок:", "тема:"),
}


def _when(text: str, *, what: str, tz, fetched_at, url) -> TimeRange:
    return read_shown_date(text, what=what, tz=tz, fetched_at=fetched_at, url=url)


def _guard(fn):
    """Only the parser's own errors leave these functions."""
    def wrapper(body, *, url: str = "", fetched_at: datetime | None = None,
                board_tz: tzinfo = MOSCOW):
        if fetched_at is not None and fetched_at.tzinfo is None:
            raise ParseError("fetched_at must be timezone-aware", url=url or None)
        try:
            return fn(body, url=url, fetched_at=fetched_at, tz=board_tz or MOSCOW)
        except ForumError:
            raise
        except Exception as e:  # noqa: BLE001 - the contract: only the parser's own errors
            raise ParseError(f"unreadable private-message page ({type(e).__name__}: {e})",
                             url=url or None) from None
    wrapper.__name__ = fn.__name__.lstrip("_")
    wrapper.__doc__ = fn.__doc__
    return wrapper


def _row_container(inp):
    el = inp.getparent()
    while el is not None:
        if el.tag == "tr" or (el.tag == "li" and "row" in (el.get("class") or "")):
            return el
        el = el.getparent()
    return None


def _parse_pm_inbox(body, *, url, fetched_at, tz) -> list[PmSummary]:
    """The messages listed on an inbox (or other folder) page, in page order (newest first);
    a row that cannot be read is left out (``read_pm_inbox`` names it).

    Raises ``LoginRequiredError`` for the login page, ``ParseError`` for anything that is
    not a message list; an empty folder gives ``[]``.
    """
    return _parse_pm_rows(body, url=url, fetched_at=fetched_at, tz=tz)[0]


def _parse_pm_rows(body, *, url, fetched_at, tz) -> tuple[list[PmSummary], list[PmRowProblem]]:
    """``read_pm_inbox``: the rows read, and those that could not be (one row a player
    wrote strangely never hides the others)."""
    doc = parse_html(body, url)
    rows = []
    for inp in doc.iter("input"):
        if inp.get("name") == "marked_msg_id[]":
            c = _row_container(inp)
            if c is not None:
                rows.append((inp, c))
    if not rows:
        is_ucp_pm = any("mode=compose" in (a.get("href") or "") and "i=pm" in (a.get("href") or "")
                        or "i=ucp_pm" in (a.get("href") or "") for a in doc.iter("a"))
        has_login = any(i.get("type") == "password" for i in doc.iter("input"))
        if is_ucp_pm and not has_login and _complete(body):
            return [], []
        raise classify_error_page(doc, url=url, what="inbox")
    if not _complete(body):
        raise ParseError("the page is truncated (no </html>); messages may be missing",
                         url=url or None, hint="retry the request")
    out: list[PmSummary] = []
    problems: list[PmRowProblem] = []
    for inp, row in rows:
        got = _pm_row(inp, row, url=url, fetched_at=fetched_at, tz=tz)
        if isinstance(got, PmSummary):
            out.append(got)
        else:
            problems.append(got)
    return out, problems


def _pm_row(inp, row, *, url, fetched_at, tz) -> PmSummary | PmRowProblem:
    msg_id = int(inp.get("value")) if (inp.get("value") or "").isdigit() else None
    subject = view_href = None
    author = author_id = None
    date_text = None
    unread = "unread" in (row.get("class") or "")
    for el in row.iter("a", "img", "p", "dl"):
        tag = el.tag
        if tag == "dl":
            if "unread" in (el.get("class") or ""):
                unread = True
        elif tag == "img":
            if "unread" in (el.get("src") or ""):
                unread = True
        elif tag == "p":
            if el.get("class") == "topicdetails" and date_text is None:
                date_text = _norm(_tc(el))
        else:
            href = el.get("href") or ""
            text = _norm(_tc(el))
            if ("mode=view" in href and "mode=viewprofile" not in href
                    and (text or view_href is None) and not subject):
                # a subject that looks blank (U+3164, U+2800 ...) is an empty subject
                subject, view_href = text, href
                if msg_id is None:
                    msg_id = _int_param(_RE_MSG_PARAM, href)
            elif "mode=viewprofile" in href and author is None:
                author, author_id = text, _int_param(_RE_U_PARAM, href)
                tail = _norm(el.tail or "")
                if date_text is None and tail.startswith("»"):
                    date_text = tail[1:].strip()
    what = f"message {msg_id}"
    if msg_id is None or subject is None or not author or not date_text:
        return PmRowProblem(msg_id, author or None, "an inbox row without id, subject, sender "
                            f"or date ({what})", _norm(_tc(row))[:500])
    try:
        tr = _when(date_text, what=what, tz=tz, fetched_at=fetched_at, url=url)
    except ParseError as e:
        if fetched_at is None:      # the caller's mistake, not the row's
            raise
        return PmRowProblem(msg_id, author, e.message, _norm(_tc(row))[:500])
    return PmSummary(msg_id=msg_id, subject=subject, author=author, author_id=author_id,
                     sent_at=tr.earliest, earliest=tr.earliest, latest=tr.latest,
                     precision=tr.precision, unread=unread,
                     url=urljoin(url, view_href) if url else cast(str, view_href))


def _label(b) -> str | None:
    t = _norm(_tc(b)).lower()
    for key, names in _LABELS.items():
        if t in names:
            return key
    return None


def _value_after(b):
    """The value of a ``<b>Label:</b> value`` pair: its tail, else the next cell."""
    tail = _norm(b.tail or "").replace("\xa0", " ").strip()
    if tail:
        return tail, None
    nxt = b.getnext()
    if nxt is not None and nxt.tag == "a":
        return _norm(_tc(nxt)), nxt
    td = b.getparent()
    while td is not None and td.tag != "td":
        td = td.getparent()
    if td is not None:
        cell = td.getnext()
        if cell is not None:
            link = next((a for a in cell.iter("a") if "viewprofile" in (a.get("href") or "")),
                        None)
            return _norm(_tc(cell)), link
    return "", None


def _parse_pm_view(body, *, url, fetched_at, tz) -> PrivateMessage:
    # long: reads a message page's fields in the page's order
    """One message's view page.

    Raises ``LoginRequiredError`` for the login page and ``ParseError`` for anything else
    that is not a message.
    """
    doc = parse_html(body, url)
    post = None
    for div in doc.iter("div"):
        i = div.get("id") or ""
        if i.startswith("post-") and i[5:].isdigit() and "pm" in (div.get("class") or "").split():
            post = div
            break
    msg_id = int(post.get("id")[5:]) if post is not None else None
    scope = post if post is not None else doc
    fields: dict[str, tuple[str, Any]] = {}
    for b in scope.iter("b", "strong"):
        key = _label(b)
        if key and key not in fields:
            fields[key] = _value_after(b)
    body_el = None
    if post is not None:
        for d in post.iter("div"):
            if "content" in (d.get("class") or "").split():
                body_el = d
                break
    else:
        for d in doc.iter("div"):
            if "postbody" in (d.get("class") or "").split():
                body_el = d
                break
    if body_el is None or "sent" not in fields:
        raise classify_error_page(doc, url=url, what="private message")
    if not _complete(body):
        raise ParseError("the page is truncated (no </html>)", url=url or None,
                         hint="retry the request")
    if msg_id is None:
        for a in doc.iter("a"):
            href = a.get("href") or ""
            m = _RE_REPORT.search(href)
            if m:
                msg_id = int(m.group(1))
                break
            if "action=quote" in href or "action=delete" in href:
                msg_id = _int_param(_RE_MSG_PARAM, href)
                if msg_id is not None:
                    break
    if msg_id is None:
        msg_id = _int_param(_RE_MSG_PARAM, url)
    if msg_id is None:
        raise ParseError("no message id on the page", url=url or None)
    author, author_id = None, None
    if "from" in fields:
        text, link = fields["from"]
        author = _norm(_tc(link)) if link is not None else text
        author_id = _int_param(_RE_U_PARAM, link.get("href")) if link is not None else None
    if not author and post is not None:
        for a in post.iter("a"):
            if "mode=viewprofile" in (a.get("href") or ""):
                author, author_id = _norm(_tc(a)), _int_param(_RE_U_PARAM, a.get("href"))
                break
    if not author:
        raise ParseError(f"message {msg_id}: no sender", url=url or None)
    subject = fields["subject"][0] if "subject" in fields else ""
    if not subject and post is not None:
        h3 = next(post.iter("h3"), None)
        subject = _norm(_tc(h3)) if h3 is not None else ""
    tr = _when(fields["sent"][0], what=f"message {msg_id}", tz=tz, fetched_at=fetched_at,
               url=url)
    # the first div.postbody (subsilver2) or div.content (prosilver) is the message; a
    # signature follows in its own element and is left out
    parts = walk_body(body_el)
    quoted = []
    for el in body_el.iter("a"):
        v = el.get("data-msg-id")
        if v and v.isdigit() and int(v) not in quoted:
            quoted.append(int(v))
    return PrivateMessage(msg_id=msg_id, author=author, author_id=author_id,
                          sent_at=tr.earliest, earliest=tr.earliest, latest=tr.latest,
                          precision=tr.precision, subject=subject, text=parts.text(),
                          quoted_msg_ids=tuple(quoted), bold=tuple(parts.bold), url=url)


parse_pm_inbox = _guard(_parse_pm_inbox)
read_pm_inbox = _guard(_parse_pm_rows)
parse_pm_view = _guard(_parse_pm_view)
