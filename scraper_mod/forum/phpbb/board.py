"""``PhpbbBoard``: forum/engine.py's ``Board`` for phpBB 3.3, made of the phpBB modules as they
are (``ForumClient``, ``ForumWriter``, the page, feed and PM parsers), nothing rewritten.

The poller, the publisher, the PM move source and the daemon reach phpBB through it; what is
phpBB's own (``viewtopic.php?t=N`` addresses, the ``style`` kept on page URLs, the topic feed
a prosilver page advertises or 3.0/3.1's guessed one, crash recovery by ``forum/phpbb/lookback.py``)
stays here.
"""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Callable
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit, urlunsplit

from scraper_mod.errors import ForumError
from scraper_mod.forum.client import FetchResult, ForumClient
from scraper_mod.forum.feed import FeedEntry, advertised_feed_url, feed_url_for, parse_topic_feed
from scraper_mod.forum.html import MOSCOW
from scraper_mod.forum.model import TopicPage
from scraper_mod.forum.phpbb.links import post_path
from scraper_mod.forum.phpbb.lookback import find_pm, find_reply, find_topic
from scraper_mod.forum.phpbb.parse import parse_topic_page
from scraper_mod.forum.phpbb.parse.topic import parse_forum_page
from scraper_mod.forum.phpbb.pm import parse_pm_inbox, parse_pm_view, read_pm_inbox
from scraper_mod.forum.phpbb.writer import ForumWriter, forum_id_of, topic_id_of
from scraper_mod.forum.pms import PmRowProblem, PmSummary, PrivateMessage
from scraper_mod.forum.posting import Posted

_KEEP_PARAMS = ("style",)  # query parameters worth keeping when fetching (not in the key)


def phpbb_topic_key(url: str) -> str:
    """The topic key: ``scheme://host/path/viewtopic.php?t=N`` (no start, sid, f, p...)."""
    tid = topic_id_of(url)
    if tid is None:
        raise ForumError("not a topic URL (expected …/viewtopic.php?t=N)", url=url,
                         hint="copy the topic's link from the board, e.g. "
                              "https://forum.example.org/viewtopic.php?t=123")
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, f"t={tid}", ""))


class PhpbbBoard:
    """A phpBB 3.3 board through ``client``'s session."""

    engine = "phpbb"

    def __init__(self, client: ForumClient, *, writer: ForumWriter | None = None,
                 board_tz: tzinfo = MOSCOW) -> None:
        self.client = client
        self.writer = writer or ForumWriter(client)
        self.board_tz = board_tz

    def topic_url(self, topic_id: int, start: int = 0) -> str:
        return self.client.url(f"viewtopic.php?t={int(topic_id)}"
                               + (f"&start={int(start)}" if start else ""))

    def read_topic_page(self, topic_id: int, start: int = 0) -> TopicPage:
        res = self.client.get_page(self.topic_url(topic_id, start))
        return parse_topic_page(res.body, url=res.url, fetched_at=res.fetched_at,
                                board_tz=self.board_tz, page=res.page)

    def read_topic(self, topic_id: int) -> list[TopicPage]:
        pages = [self.read_topic_page(topic_id)]
        while pages[-1].next_url and len(pages) < pages[0].page_count:
            res = self.client.get_page(self.client.url(pages[-1].next_url))
            pages.append(parse_topic_page(res.body, url=res.url, fetched_at=res.fetched_at,
                                          board_tz=self.board_tz, page=res.page))
        return pages

    def feed_entries(self, topic_id: int) -> list[FeedEntry]:
        res = self.client.get(feed_url_for(self.topic_url(topic_id)))
        return parse_topic_feed(res.body, url=res.url)

    def pm_inbox(self) -> list[PmSummary]:
        self.writer.ensure_login()
        res = self.client.get_page(self.client.url("ucp.php?i=pm&folder=inbox"))
        return parse_pm_inbox(res.body, url=res.url, fetched_at=res.fetched_at,
                              board_tz=self.board_tz)

    def read_pm(self, msg_id: int) -> PrivateMessage:
        self.writer.ensure_login()
        res = self.client.get_page(self.client.url(f"ucp.php?i=pm&mode=view&f=0&p={msg_id}"))
        return parse_pm_view(res.body, url=res.url, fetched_at=res.fetched_at,
                             board_tz=self.board_tz)

    def pm_rows(self, folder: str = "inbox") -> tuple[list[PmSummary], list[PmRowProblem]]:
        res = self.client.get_page(self.client.url(f"ucp.php?i=pm&folder={folder}"))
        return read_pm_inbox(res.body, url=res.url, fetched_at=res.fetched_at,
                             board_tz=self.board_tz)

    def fetch_pm(self, msg_id: int) -> FetchResult:
        return self.client.get_page(self.client.url(f"ucp.php?i=pm&mode=view&f=0&p={msg_id}"))

    def parse_pm(self, body: bytes, *, msg_id: int, url: str,
                 fetched_at: datetime) -> PrivateMessage:
        return parse_pm_view(body, url=url, fetched_at=fetched_at, board_tz=self.board_tz)

    def login(self) -> None:
        self.writer.ensure_login()

    def logout(self) -> bool:
        self.writer._logged_in = False
        return self.client.logout()

    def reply(self, topic_id: int, text: str) -> Posted:
        return self.writer.reply(topic_id, text)

    def new_topic(self, forum_id: int, subject: str, text: str) -> tuple[int | None, Posted]:
        return self.writer.new_topic(forum_id, subject, text)

    def edit(self, post_id: int, text: str, *, reason: str = "") -> Posted:
        return self.writer.edit(post_id, text, reason=reason)

    def send_pm(self, nick: str, subject: str, text: str, *,
                member_id: int | None = None) -> Posted:
        # phpBB usernames change only by an administrator: the PM goes by the username
        return self.writer.send_pm(nick, subject, text)

    def lock(self, topic_id: int) -> None:
        self.writer.lock(topic_id)

    def own_posts(self, topic_id: int, *, limit: int = 30,
                  first: bool = False) -> list[tuple[int, str]]:
        return self.writer.own_posts(topic_id, limit=limit, first=first)

    def sent_pms(self) -> list[tuple[int, str, str]]:
        return self.writer.sent_pms()


    def find_reply(self, topic_id: int, text: str) -> int | None:
        return find_reply(self.writer, topic_id, text)

    def find_topic(self, forum_id: int, subject: str, text: str) -> tuple[int, int] | None:
        return find_topic(self.writer, self.forum_url(forum_id), subject, text)

    def find_pm(self, nick: str, subject: str, text: str) -> int | None:
        return find_pm(self.writer, nick, subject, text)

    # -- addresses -----------------------------------------------------------------------
    def topic_key(self, url: str) -> str:
        return phpbb_topic_key(url)

    def topic_id_of(self, url: str) -> int | None:
        return topic_id_of(url)

    def forum_id_of(self, url: str) -> int | None:
        return forum_id_of(url)

    def forum_url(self, forum_id: int) -> str:
        return self.client.url(f"viewforum.php?f={int(forum_id)}")

    def post_url(self, post_id: int) -> str:
        return self.client.url(post_path(post_id))

    def pm_url(self, msg_id: int) -> str:
        return self.client.url(f"ucp.php?i=pm&mode=view&p={int(msg_id)}")

    def forum_topics(self, forum_url: str) -> list[tuple[int, str, str]]:
        page = self.client.get_page(forum_url)
        return [(t.topic_id or 0, t.title or "", t.url)
                for t in parse_forum_page(page.body, url=page.url)]

    # -- the poller's steps --------------------------------------------------------------
    def page_url(self, topic_url: str, start: int) -> str:
        q = parse_qs(urlsplit(topic_url).query)
        extra = [(k, q[k][-1]) for k in _KEEP_PARAMS if k in q]
        params = extra + ([("start", str(start))] if start else [])
        return phpbb_topic_key(topic_url) + ("&" + urlencode(params) if params else "")

    def fetch_topic_page(self, url: str, *, on_fetch: Callable[[FetchResult], None] | None
                         = None) -> tuple[FetchResult, TopicPage]:
        res = self.client.get_page(url, on_fetch=on_fetch)
        return res, parse_topic_page(res.body, url=res.url, fetched_at=res.fetched_at,
                                     board_tz=self.board_tz, page=res.page)

    def post_page_url(self, key: str, post_id: int) -> str:
        """The page that shows post ``post_id``, on the board of topic ``key``."""
        return urljoin(key, f"viewtopic.php?p={post_id}")

    def poll_feed_url(self, key: str, topic_id: int, last_page: tuple[bytes, str, str]
                      ) -> str | None:
        body, page_url, style = last_page
        url = advertised_feed_url(body, page_url=page_url, topic_id=topic_id)
        if url:
            return url
        # prosilver (3.0.6+) links the topic feed in its <head> whenever it is on, and
        # phpBB 2 has none: no link, no feed. Other styles may leave the link out: guess
        # the URL of the board's version (3.1+ routes everything through app.php).
        if style in ("prosilver", "subsilver"):
            return None
        return feed_url_for(key, layout="3.1" if b"app.php" in body else "3.0")

    def parse_feed(self, res: FetchResult, topic_id: int) -> list[FeedEntry]:
        return parse_topic_feed(res.body, url=res.url)
