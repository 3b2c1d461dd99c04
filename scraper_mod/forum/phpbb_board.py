"""``PhpbbBoard``: forum/engine.py's ``Board`` for phpBB 3.3, made of the phpBB modules as they
are (``ForumClient``, ``ForumWriter``, the page, feed and PM parsers), nothing rewritten.

Phase 1 of issue 31: the seam is drawn and both engines plug into it; the poller, the
publisher and the PM source still call the phpBB modules directly (phase 2 moves them to
``forum/phpbb/`` and routes every caller through ``Board``).
"""

from __future__ import annotations

from datetime import tzinfo

from .client import ForumClient
from .feed import FeedEntry, feed_url_for, parse_topic_feed
from .model import TopicPage
from .parse import MOSCOW, parse_topic_page
from .pm import PmSummary, PrivateMessage, parse_pm_inbox, parse_pm_view
from .writer import ForumWriter, Posted


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

    def send_pm(self, nick: str, subject: str, text: str) -> Posted:
        return self.writer.send_pm(nick, subject, text)

    def lock(self, topic_id: int) -> None:
        self.writer.lock(topic_id)

    def own_posts(self, topic_id: int, *, limit: int = 30,
                  first: bool = False) -> list[tuple[int, str]]:
        return self.writer.own_posts(topic_id, limit=limit, first=first)

    def sent_pms(self) -> list[tuple[int, str, str]]:
        return self.writer.sent_pms()

