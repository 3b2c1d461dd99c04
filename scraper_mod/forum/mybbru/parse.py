"""mybb.ru answers read into ``Post``/``TopicPage``: the public API's JSON and the topic pages.

**The API** (``/api.php``), as the issue and the family's public documentation give it (never
checked on a live board here: docs/engines.md):

- ``method=post.get&topic_id=N&fields=id,user_id,username,message,posted&limit=100&skip=K``
  → ``{"response": [{"id": "12", "user_id": "5", "username": "Вася",
  "message": "<p>…</p>", "posted": "1712681970"}, …]}``: numbers may come as strings,
  ``posted`` is Unix time (UTC seconds), ``message`` the rendered HTML of the post;
- ``method=topic.get&topic_id=N`` → ``{"response": [{"id": …, "subject": …, "num_replies": …,
  "closed": "0"|"1", …}]}``; ``method=users.get&user_id=…`` → ``{"response": [{"user_id": …,
  "username": …}]}``;
- an API that is off, or a method refused, answers ``{"error": {"code": …, "message": …}}``
  (or an HTML page): ``ApiOff``, and the board reads the pages instead.

**The pages** (PunBB 1.2 markup as mybb.ru renders it): each post is
``<div id="pM" class="post …">`` with ``<h3><span>… <a class="permalink" href="…?pid=M#pM">
TIME</a></span></h3>``, the author in ``li.pa-author a`` (``profile.php?id=U``), the body in
``div.post-content`` (its edit note ``p.lastedit``: «Отредактировано NAME (TIME)»), the
signature in ``div.post-sig``; pages are listed in ``div.pagelink``; windows-1251 or UTF-8.
"""

from __future__ import annotations

import html
import json
import re
from datetime import datetime, timezone, tzinfo
from typing import Any

import lxml.html

from ...errors import ForumError, ParseError, TopicNotFoundError
from ..dates import DateParseError, parse_shown_date
from ..html import _norm, _tc, parse_html
from ..markup import walk_body
from ..model import Post, TopicPage
from .links import RE_POST_ID, page_number


class ApiOff(ForumError):
    """The board's API does not answer for this (switched off, or the method refused)."""


def _api_answer(body: bytes, *, url: str) -> Any:
    try:
        data = json.loads(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        raise ApiOff("the API did not answer in JSON (is it switched off?)", url=url) from None
    if isinstance(data, dict) and "error" in data:
        err = data["error"]
        msg = err.get("message") if isinstance(err, dict) else err
        raise ApiOff(f"the API refused: {str(msg)[:160]}", url=url)
    if not isinstance(data, dict) or "response" not in data:
        raise ApiOff("the API's answer has no \"response\"", url=url)
    return data["response"]


def _num(item: dict, key: str, *, url: str) -> int:
    v = item.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, str)) or not str(v).strip().isdigit():
        raise ParseError(f"the API's post has no number in {key!r} ({v!r})", url=url)
    return int(v)


def _clean(el: Any) -> Any:
    """mybb.ru's boxes as ``walk_body`` reads them: a spoiler's inner ``blockquote`` is the
    spoiler's (not a quote), a code box's «Код:» legend is no one's words."""
    for inner in el.xpath(".//div[contains(@class, 'spoiler-box')]//blockquote"):
        inner.tag = "div"
    for legend in el.xpath(".//div[contains(@class, 'code-box')]//strong[contains(@class, "
                           "'legend')]"):
        _remove(legend)
    return el


def _remove(el: Any) -> None:
    """Take ``el`` out of its tree, keeping the text that follows it."""
    parent, prev = el.getparent(), el.getprevious()
    if parent is None:
        return
    if el.tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def _body_parts(fragment: str) -> Any:
    return walk_body(_clean(lxml.html.fragment_fromstring(fragment or "", create_parent="div")))


def parse_api_posts(body: bytes, *, url: str, board_tz: tzinfo, page_url: str = ""
                    ) -> list[Post]:
    """The posts of a ``post.get`` answer, in the answer's order (oldest first)."""
    items = _api_answer(body, url=url)
    if not isinstance(items, list):
        raise ParseError("the API's post.get answer is not a list of posts", url=url)
    posts = []
    for item in items:
        if not isinstance(item, dict):
            raise ParseError("the API's post.get answer holds a non-object", url=url)
        pid = _num(item, "id", url=url)
        at = datetime.fromtimestamp(_num(item, "posted", url=url), tz=timezone.utc
                                    ).astimezone(board_tz)
        parts = _body_parts(str(item.get("message") or ""))
        uid = item.get("user_id")
        posts.append(Post(
            post_id=pid, author=_norm(html.unescape(str(item.get("username") or ""))),
            author_id=int(str(uid)) if str(uid or "").isdigit() else None,
            posted_at=at, precision="second", earliest=at, latest=at,
            page_url=page_url or url, colored=tuple(parts.colored), bold=tuple(parts.bold),
            hidden=tuple(parts.hidden), quotes=tuple(parts.quotes), text=parts.text()))
    return posts


def parse_api_topic(body: bytes, *, url: str) -> tuple[str, bool, int | None]:
    """(subject, closed, posts) of a ``topic.get`` answer; ``TopicNotFoundError`` for none."""
    items = _api_answer(body, url=url)
    if isinstance(items, dict):
        items = [items]
    if not items or not isinstance(items[0], dict):
        raise TopicNotFoundError("the API knows no such topic", url=url)
    t = items[0]
    replies = t.get("num_replies")
    count = int(str(replies)) + 1 if str(replies or "").isdigit() else None
    return str(t.get("subject") or ""), str(t.get("closed") or "0") not in ("0", ""), count


def parse_api_users(body: bytes, *, url: str) -> dict[int, str]:
    """user id -> name of a ``users.get`` answer."""
    items = _api_answer(body, url=url)
    out = {}
    for u in items if isinstance(items, list) else []:
        uid = str(u.get("user_id") or u.get("id") or "") if isinstance(u, dict) else ""
        if uid.isdigit():
            out[int(uid)] = html.unescape(str(u.get("username") or ""))
    return out


_RE_EDIT = re.compile(r"(?:Отредактировано|Edited by)\s+(.+?)\s+\((.+)\)\s*$", re.I)
_RE_PROFILE = re.compile(r"profile\.php\?id=(\d+)")
_FOREIGN = ((re.compile(rb"viewtopic\.php\?(?:[^\"']*&(?:amp;)?)?[tp]=\d+"), "phpBB"),
            (re.compile(rb"index\.php\?topic=\d+"), "SMF"))


def _cls(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


def _shown(text: str, *, tz: tzinfo, fetched_at: datetime, url: str, what: str):
    try:
        return parse_shown_date(text, tz=tz, fetched_at=fetched_at)
    except DateParseError as e:
        raise ParseError(f"{what}: {e}", url=url,
                         hint="a date format scraper-mod does not know; tell the maintainers"
                         ) from None


def _page_post(el: Any, *, url: str, tz: tzinfo, fetched_at: datetime) -> Post:
    m = RE_POST_ID.match(el.get("id") or "")
    assert m is not None
    pid = int(m.group(1))
    links = el.xpath(f".//li[{_cls('pa-author')}]//a")
    if links:
        author, aid = _norm(_tc(links[0])), _RE_PROFILE.search(links[0].get("href") or "")
    else:   # a guest: «Автор: NAME» without a link
        cell = el.xpath(f".//li[{_cls('pa-author')}]")
        author = re.sub(r"^\s*(Автор|Author)\s*:\s*", "", _norm(_tc(cell[0])) if cell else "")
        aid = None
    stamp = el.xpath(f".//h3//a[{_cls('permalink')}]") or el.xpath(".//h3//a")
    if not stamp:
        raise ParseError(f"post {pid} shows no time", url=url)
    when = _shown(_tc(stamp[0]), tz=tz, fetched_at=fetched_at, url=url, what=f"post {pid}")
    content = el.xpath(f".//div[{_cls('post-content')}]")
    if not content:
        raise ParseError(f"post {pid} has no div.post-content", url=url)
    edited_at = edited_by = None
    for note in content[0].xpath(f".//p[{_cls('lastedit')} or {_cls('postedit')}]"):
        found = _RE_EDIT.search(_norm(_tc(note)))
        if found:
            edited_by = found.group(1)
            edited_at = _shown(found.group(2), tz=tz, fetched_at=fetched_at, url=url,
                               what=f"post {pid}'s edit note").earliest
        _remove(note)
    sigs = el.xpath(f".//div[{_cls('post-sig')} or {_cls('postsignature')}]")
    for sig in sigs:        # inside the post box but never the author's words of the post
        if sig.getparent() is not None and content[0] in sig.iterancestors():
            sig.getparent().remove(sig)
    parts = walk_body(_clean(content[0]), extra=sigs)
    return Post(post_id=pid, author=author, author_id=int(aid.group(1)) if aid else None,
                posted_at=when.earliest, precision=when.precision, earliest=when.earliest,
                latest=when.latest, page_url=url, edited_at=edited_at, edited_by=edited_by,
                edit_count=1 if edited_at else 0, colored=tuple(parts.colored),
                bold=tuple(parts.bold), hidden=tuple(parts.hidden),
                quotes=tuple(parts.quotes), text=parts.text())


def parse_topic_html(body: bytes, *, url: str, board_tz: tzinfo, fetched_at: datetime,
                     topic_id: int | None) -> TopicPage:
    """One topic page of a mybb.ru board (windows-1251 or UTF-8)."""
    doc = parse_html(body, url)
    posts_el = doc.xpath(f"//div[{_cls('post')}][starts-with(@id, 'p')]")
    posts_el = [p for p in posts_el if RE_POST_ID.match(p.get("id") or "")]
    if not posts_el:
        for rx, engine in _FOREIGN:
            if rx.search(body):
                raise ParseError(f"this is a page of a {engine} board, not of a mybb.ru one",
                                 url=url, hint=f'set [forum] engine to the board\'s engine '
                                               f'("{engine.lower()}") or leave it out')
        info = _norm(_tc(doc.xpath(f"//div[{_cls('info')}]")[0])) if doc.xpath(
            f"//div[{_cls('info')}]") else ""
        if info or b"pun" in body:
            raise TopicNotFoundError(f"the board shows no posts here{': ' + info[:160] if info else ''}",
                                     url=url)
        raise ParseError("not a topic page of a mybb.ru board (no div.post)", url=url)
    posts = tuple(_page_post(el, url=url, tz=board_tz, fetched_at=fetched_at)
                  for el in posts_el)
    title_el = doc.xpath("//h1//span | //h1") or doc.xpath("//title")
    title = _norm(_tc(title_el[0])) if title_el else ""
    current = [int(t) for t in (_norm(_tc(s)) for s in doc.xpath(
        f"//div[{_cls('pagelink')}]//strong")) if t.isdigit()]
    page = current[0] if current else page_number(url)
    numbers = [int(t) for t in (_norm(_tc(a)) for a in doc.xpath(
        f"//div[{_cls('pagelink')}]//a | //div[{_cls('pagelink')}]//strong")) if t.isdigit()]
    count = max([page, *numbers])
    nxt = doc.xpath(f"//div[{_cls('pagelink')}]//a[{_cls('next')}]/@href")
    next_url = nxt[0] if nxt else None
    if next_url is None and page < count:
        base = re.sub(r"&p=\d+", "", url)
        next_url = f"{base}&p={page + 1}"
    locked = bool(doc.xpath(f"//*[{_cls('closed')}]"))
    return TopicPage(topic_id=topic_id, title=title, locked=locked, page=page,
                     page_count=count, next_url=next_url, posts=posts, style="mybbru",
                     language="ru", url=url)
