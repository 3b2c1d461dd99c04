"""Looking on the board whether it took a post, a topic or a PM (issue 26, items 4-6).

Used before any POST is sent again after a time-out, a reset or a 5xx (the board may have
taken it), after a crash (the publication journal's "intended"), and to check that what the
board named as the new post really is this account's. Only what the posting account made,
with the text that was sent, is ever taken for ours: a player's topic of the same title, or
an older PM of the same subject, never is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scraper_mod.errors import ForumError
from scraper_mod.forum.model import TopicPage
from scraper_mod.forum.phpbb.parse import parse_topic_page
from scraper_mod.forum.phpbb.parse.topic import parse_forum_page
from scraper_mod.forum.phpbb.pm import parse_pm_view
from scraper_mod.forum.posting import same_text

if TYPE_CHECKING:
    from scraper_mod.forum.phpbb.writer import ForumWriter


def _mine(writer: "ForumWriter", author: str | None) -> bool:
    return (author or "").casefold() == (writer.client.username or "").casefold() != ""


def _topic_page(writer: "ForumWriter", path: str) -> TopicPage | None:
    """The topic page at ``path`` as the board shows it now, else None (a look, never an
    error: what cannot be read is not there)."""
    try:
        page = writer.client.get_page(path)
        return parse_topic_page(page.body, url=page.url, fetched_at=page.fetched_at,
                                page=page.page)
    except ForumError:
        return None


def post_by_me(writer: "ForumWriter", post_id: int) -> tuple[int | None, str] | None:
    """(topic id, text) of post ``post_id`` when the board shows it, written by this
    account; else None."""
    parsed = _topic_page(writer, f"viewtopic.php?p={post_id}")
    if parsed is None:
        return None
    for p in parsed.posts:
        if p.post_id == post_id and _mine(writer, p.author):
            return parsed.topic_id, p.text
    return None


def find_reply(writer: "ForumWriter", topic_id: int, text: str, *,
               after: int | None = None) -> int | None:
    """The id of this account's post in ``topic_id`` holding ``text`` (newer than post
    ``after``, the topic's last post when the form was served), else None."""
    for pid, shown in writer.own_posts(topic_id):
        if (after is None or pid > after) and same_text(text, shown):
            return pid
    return None


def first_post(writer: "ForumWriter", topic_id: int) -> tuple[int, str, str] | None:
    """(post id, author, text) of a topic's first post, else None."""
    parsed = _topic_page(writer, f"viewtopic.php?t={topic_id}")
    if parsed is None or not parsed.posts or parsed.page > 1:
        return None
    p = min(parsed.posts, key=lambda x: x.post_id)
    return p.post_id, p.author, p.text


def find_topic(writer: "ForumWriter", forum_url: str, subject: str,
               text: str) -> tuple[int, int] | None:
    """(topic id, first post id) of a topic titled ``subject`` in the forum that this account
    opened with ``text``; a topic of that title someone else opened is never taken."""
    writer.ensure_login()
    try:
        page = writer.client.get_page(forum_url)
        topics = parse_forum_page(page.body, url=page.url)
    except ForumError:
        return None
    for tid in sorted({t.topic_id for t in topics if t.title == subject and t.topic_id},
                      reverse=True):
        first = first_post(writer, tid)
        if first is not None and _mine(writer, first[1]) and same_text(text, first[2]):
            return tid, first[0]
    return None


def find_pm(writer: "ForumWriter", nick: str, subject: str, text: str, *,
            after: int | None = None) -> int | None:
    """The id of a PM this account sent to ``nick`` with ``subject`` and ``text`` (newer than
    message ``after`` when given), else None: two messages of one subject to one player are
    told apart by their text."""
    want = nick.casefold()
    for mid, to, subj in sorted(writer.sent_pms(), reverse=True):
        if subj != subject or (after is not None and mid <= after):
            continue
        if want not in [to.casefold(), *to.casefold().split(" ")]:
            continue
        try:
            page = writer.client.get_page(f"ucp.php?i=pm&mode=view&p={mid}")
            pm = parse_pm_view(page.body, url=page.url, fetched_at=page.fetched_at)
        except ForumError:
            continue
        if same_text(text, pm.text):
            return mid
    return None
