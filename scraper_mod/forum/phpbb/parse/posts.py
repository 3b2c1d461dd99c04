"""Posts read from a topic page's tree: prosilver ``div.post`` and the table styles
(subsilver2, phpBB 2 subSilver): author, ids, times, edit notice and body."""

from __future__ import annotations

import re
from datetime import datetime

from scraper_mod.errors import (
    ParseError,
)
from scraper_mod.forum.dates import DateParseError, TimeRange, parse_shown_date
from scraper_mod.forum.html import _RE_NUM_ID, _RE_POST_ID, _RE_U_PARAM, _int_param, _norm, _tc
from scraper_mod.forum.markup import _NOTICE_MARK, BodyParts, _Walker, walk_body
from scraper_mod.forum.model import Post
from scraper_mod.forum.phpbb.parse.edits import _EDIT_MARKERS, _moved_edit, _parse_edit

# ---------------------------------------------------------------- posts: prosilver

_POSTED_LABELS = ("posted:", "добавлено:", "отправлено:", "написано:", "sent:")


def _time_range(text: str, *, tz, fetched_at, url, post_id) -> TimeRange:
    try:
        return parse_shown_date(text, tz=tz, fetched_at=fetched_at)
    except DateParseError as e:
        raise ParseError(f"post {post_id}: {e}", url=url or None) from None


def _make_post(post_id, author, author_id, tr: TimeRange, page_url, edit, parts: BodyParts):
    return Post(
        post_id=post_id, author=author, author_id=author_id,
        posted_at=tr.earliest, precision=tr.precision, earliest=tr.earliest, latest=tr.latest,
        page_url=page_url,
        edited_at=edit.at if edit else None, edited_by=edit.by if edit else None,
        edit_count=edit.count if edit else 0, edit_reason=edit.reason if edit else None,
        colored=tuple(parts.colored), bold=tuple(parts.bold), hidden=tuple(parts.hidden),
        quotes=tuple(parts.quotes), text=parts.text())


def _prosilver_time(time_el, p_author, author: str, *, tz, fetched_at, url,
                    post_id: int) -> TimeRange:
    """A prosilver post's time: ``<time datetime>`` to the second, else the date shown in
    its ``time`` element or after the author in ``p.author``."""
    tr = None
    if time_el is not None:
        dt = time_el.get("datetime")
        if dt:
            try:
                inst = datetime.fromisoformat(dt)
            except ValueError:
                inst = None
            if inst is not None and inst.tzinfo is not None:
                try:
                    inst = inst.astimezone(tz)
                except (OverflowError, ValueError):
                    inst = None
                if inst is not None:
                    tr = TimeRange(inst, inst, "second")
        if tr is None:
            tr = _time_range(_norm(_tc(time_el)), tz=tz, fetched_at=fetched_at, url=url,
                             post_id=post_id)
    else:
        full = _norm(_tc(p_author))
        if "»" in full:
            shown = full.rsplit("»", 1)[-1]
        else:
            shown = re.sub(r"^\s*(?:#\d+\s*)?(?:by|автор|от)?\s*" + re.escape(author), "", full)
        tr = _time_range(shown, tz=tz, fetched_at=fetched_at, url=url, post_id=post_id)
    return tr


def _prosilver_post(div, post_id: int, *, tz, fetched_at, url) -> Post:
    author = None
    author_id = None
    p_author = None
    content = None
    profile = None
    notices = []
    sigs = []
    # walk the post's structural divs only (inner, postbody, post_contentNN...), not the
    # buttons, profile details or the body itself: a third of the elements of a full walk
    stack = [div]
    while stack:
        for el in stack.pop():
            tag = el.tag
            if tag == "div":
                cls = el.get("class")
                if cls:
                    if content is None and (cls == "content" or "content" in cls.split()):
                        content = el
                        continue
                    if "notice" in cls:
                        notices.append(el)
                        continue
                    if "signature" in cls:
                        sigs.append(el)
                        continue
                stack.append(el)
            elif tag == "p":
                if p_author is None:
                    cls = el.get("class")
                    if cls and (cls == "author" or "author" in cls.split()):
                        p_author = el
            elif tag == "dl":
                if profile is None and "postprofile" in (el.get("class") or ""):
                    profile = el
    if p_author is None:
        raise ParseError(f"post {post_id}: no author line (p.author)", url=url or None)
    if content is None:
        raise ParseError(f"post {post_id}: no body (div.content)", url=url or None)
    time_el = None
    for el in p_author.iter("a", "time", "strong", "span"):
        tag = el.tag
        if tag == "time":
            time_el = el
        elif author is None and tag == "a":
            href = el.get("href")
            if href and "mode=viewprofile" in href:
                author = _norm(_tc(el))
                author_id = _int_param(_RE_U_PARAM, href)
    if not author and profile is not None:
        for el in profile.iter("a", "span"):
            href = el.get("href")
            if (href and "mode=viewprofile" in href) or "username" in (el.get("class") or ""):
                author = _norm(_tc(el))
                if author:
                    author_id = _int_param(_RE_U_PARAM, href)
                    break
    if not author:
        # a guest or deleted user: the name stands in p.author's <strong> / span.username
        for el in p_author.iter("strong", "span"):
            if el.tag == "strong" or "username" in (el.get("class") or ""):
                author = _norm(_tc(el))
                if author:
                    break
    if not author:
        raise ParseError(f"post {post_id}: no author name", url=url or None)
    tr = _prosilver_time(time_el, p_author, author, tz=tz, fetched_at=fetched_at, url=url,
                         post_id=post_id)
    edit = None
    for n in notices:
        edit = _parse_edit(n, None, tz=tz, fetched_at=fetched_at, url=url, post_id=post_id)
        if edit:
            break
    if edit is None:
        edit = _moved_edit(content, tz=tz, fetched_at=fetched_at, url=url, post_id=post_id)
    parts = walk_body(content, extra=sigs)
    return _make_post(post_id, author, author_id, tr, url, edit, parts)


# ---------------------------------------------------------------- posts: subsilver2 / subSilver

def _row_of(el):
    while el is not None and el.tag != "tr":
        el = el.getparent()
    return el


def _subsilver_groups(named_anchors, phpbb2: bool):
    """(post_id, anchor, rows) per post: the anchor's row and its following rows."""
    anchors = []
    for a in named_anchors:
        name = a.get("name") or ""
        m = (_RE_NUM_ID if phpbb2 else _RE_POST_ID).match(name)
        if not m:
            continue
        if phpbb2 and "name" not in (a.getparent().get("class") or ""):
            continue
        row = _row_of(a)
        if row is None:
            continue
        anchors.append((int(m.group(1)), a, row))
    anchor_rows = {id(r) for _, _, r in anchors}
    groups = []
    for pid, a, row in anchors:
        rows = [row]
        nxt = row.getnext()
        while nxt is not None and id(nxt) not in anchor_rows:
            if nxt.tag == "tr":
                rows.append(nxt)
                stop = False
                for td in nxt:      # (a plain walk: tag-filtered iterchildren is slower)
                    c = td.get("class")
                    if c and ("spacer" in c or "spaceRow" in c):
                        stop = True
                        break
                if stop:
                    break
            nxt = nxt.getnext()
        groups.append((pid, a, rows))
    return groups


def _posted_text(rows, phpbb2: bool) -> str | None:
    for row in rows:
        if phpbb2:
            for s in row.iter("span"):
                if s.get("class") == "postdetails":
                    t = _norm(s.text)
                    if ":" in t and t.lower().split(":", 1)[0] + ":" in _POSTED_LABELS:
                        return t.split(":", 1)[1].split("Post subject")[0].strip()
        else:
            for b in row.iter("b"):
                if _norm(b.text).lower() in _POSTED_LABELS:
                    return _norm(b.tail)
    return None


def _subsilver_post(pid, anchor, rows, *, phpbb2, tz, fetched_at, url) -> Post:
    if phpbb2:
        return _phpbb2_post(pid, anchor, rows, tz=tz, fetched_at=fetched_at, url=url)
    author = shown = None
    for b in rows[0].iter("b"):
        if author is None and "postauthor" in (b.get("class") or ""):
            author = _norm(_tc(b))
        elif shown is None and _norm(b.text).lower() in _POSTED_LABELS:
            shown = _norm(b.tail)
    if not author:
        raise ParseError(f"post {pid}: no author name", url=url or None)
    if not shown:
        shown = _posted_text(rows[1:], False)
        if not shown:
            raise ParseError(f"post {pid}: no post time", url=url or None)
    tr = _time_range(shown, tz=tz, fetched_at=fetched_at, url=url, post_id=pid)
    body = None
    body_row_index = 0
    # the body is in the second row in every subsilver2 we know; look there first
    order = list(range(1, len(rows))) + [0]
    for i in order:
        # the message cell is the row's last cell: look there before the profile cell
        for cell in reversed(rows[i]):
            for d in cell.iter("div", "span"):
                cls = d.get("class")
                if cls and "postbody" in cls.split():
                    body = d
                    break
            if body is not None:
                break
        if body is not None:
            body_row_index = i
            break
    if body is None:
        raise ParseError(f"post {pid}: no body (postbody)", url=url or None)
    # the signature (a second div/span.postbody after "_________________") and the edit
    # notice (a table with td.row3) follow the body in the same cell
    sigs = []
    edit = None
    for sib in body.itersiblings():
        tag = sib.tag
        if tag in ("div", "span"):
            if "postbody" in (sib.get("class") or "").split():
                sigs.append(sib)
        elif tag == "table" and edit is None:
            for td in sib.iter("td"):
                if td.get("class") == "row3" and any(
                        m in _norm(_tc(td)).lower() for m in _EDIT_MARKERS):
                    r2 = td.getparent().getnext()
                    reason = _norm(_tc(r2)) or None if r2 is not None else None
                    edit = _parse_edit(td, reason, tz=tz, fetched_at=fetched_at, url=url,
                                       post_id=pid)
                    break
    if edit is None:
        # a style that puts the notice in the body's own cell, after the text
        cell = body.getparent()
        edit = _moved_edit(cell if cell is not None else body, tz=tz, fetched_at=fetched_at,
                           url=url, post_id=pid)
        if edit is not None:
            sigs = [e for e in sigs if _NOTICE_MARK not in (e.get("class") or "")]
    parts = walk_body(body, extra=sigs)
    return _make_post(pid, author, _profile_id(rows[body_row_index + 1:]), tr, url, edit,
                      parts)


def _profile_id(rows) -> int | None:
    """The user id from the post's profile button (the rows after the body)."""
    for row in rows:
        for a in row.iter("a"):
            href = a.get("href")
            if href and "mode=viewprofile" in href:
                return _int_param(_RE_U_PARAM, href)
    return None


def _phpbb2_post(pid, anchor, rows, *, tz, fetched_at, url) -> Post:
    b = anchor.getparent().find("b")
    author = _norm(_tc(b)) if b is not None else _norm(_tc(anchor.getparent()))
    if not author:
        raise ParseError(f"post {pid}: no author name", url=url or None)
    shown = _posted_text(rows, True)
    if not shown:
        raise ParseError(f"post {pid}: no post time", url=url or None)
    tr = _time_range(shown, tz=tz, fetched_at=fetched_at, url=url, post_id=pid)
    body = None
    body_row_index = 0
    for i, row in enumerate(rows):
        for td in row.iter("td"):
            if td.get("colspan") == "2" and any(s.get("class") == "postbody"
                                                for s in td.iterchildren("span")):
                body = td
                break
        if body is not None:
            body_row_index = i
            break
    if body is None:
        raise ParseError(f"post {pid}: no body (postbody)", url=url or None)
    edit = None
    for s in body.iterchildren("span"):
        if s.get("class") == "gensmall" and any(m in _norm(_tc(s)).lower()
                                                for m in _EDIT_MARKERS):
            edit = _parse_edit(s, None, tz=tz, fetched_at=fetched_at, url=url, post_id=pid)
    if edit is None:
        edit = _moved_edit(body, tz=tz, fetched_at=fetched_at, url=url, post_id=pid)
    parts = _walk_phpbb2_cell(body)
    return _make_post(pid, author, _profile_id(rows[body_row_index + 1:]), tr, url, edit,
                      parts)


def _walk_phpbb2_cell(td) -> BodyParts:
    w = _Walker()
    where = None
    # the cell holds span.postbody pieces around quote tables, then span.gensmall (edit notice)
    if td.text:
        where = w.put(td.text, where, None, None, False, True)
    for child in td:
        if child.tag == "span" and child.get("class") == "gensmall":
            continue
        if child.tag == "span" and child.get("class") == "postbody":
            where = w.run(child, where, None, None, False, where is None)
        else:
            where = w.child(child, where, None, None, False, where is None)
        if child.tail:
            where = w.put(child.tail, where, None, None, False, where is None)
    return w.parts
