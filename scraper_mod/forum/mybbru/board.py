"""``MybbruBoard``: forum/engine.py's ``Board`` for a hosted mybb.ru board, read only.

Reading: the public API's ``post.get`` in answers of 100 posts (``posted`` to the second), with
``topic.get`` for the title, the lock and the count; where the API is off (an error answer, no
JSON, a failed request) the topic pages instead, and the board remembers that the API is off.
Neither readable: one ``ForumError`` line naming both. Writing: every write is refused with
``PostRefused("read-only")`` in one line (English, and Russian in ``.ru``) that names the fix:
the host posts by hand; the game file's check refuses ``[publish] mode = "auto"`` and moves by
PM at load (game/setup/config.py), so the autopilot never gets here.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime, tzinfo
from typing import Callable, NoReturn

from ...errors import FetchError, ForumError, TopicNotFoundError
from ..client import FetchResult, ForumClient
from ..feed import FeedEntry
from ..html import MOSCOW, _norm, _tc, parse_html
from ..model import TopicPage
from ..pms import PmRowProblem, PmSummary, PrivateMessage
from ..posting import Posted, PostRefused
from .links import (
    API_LIMIT,
    api_posts_url,
    api_skip,
    api_url,
    mybbru_forum_id,
    mybbru_topic_id,
    mybbru_topic_key,
)
from .parse import ApiOff, parse_api_posts, parse_api_topic, parse_topic_html

log = logging.getLogger(__name__)

PAGE_POSTS = 25     # posts on a topic page (PunBB's default "disp_posts")

READ_ONLY = ("a mybb.ru board is read only for scraper-mod: post {what} on the board by hand "
             "(the text is in out/day-N/) and set [publish] mode = \"off\"")
READ_ONLY_RU = ("форум на mybb.ru scraper-mod только читает: опубликуйте {what_ru} на форуме "
                "вручную (текст лежит в out/day-N/) и поставьте [publish] mode = \"off\"")

_FOREIGN_TOPIC = ((re.compile(r"viewtopic\.php\?(?:.*&)?[tp]=\d+"), "phpbb"),
                  (re.compile(r"index\.php\?topic=\d+"), "smf"))


def read_only_refusal(what: str, what_ru: str, url: str) -> PostRefused:
    """The one-line refusal of a write on a read-only board (its Russian line in ``.ru``)."""
    err = PostRefused("read-only", READ_ONLY.format(what=what), url=url)
    err.ru = READ_ONLY_RU.format(what_ru=what_ru)
    return err


def topic_key_of(url: str) -> str:
    """``mybbru_topic_key``, with the engine named when ``url`` is another engine's topic."""
    try:
        return mybbru_topic_key(url)
    except ForumError:
        for rx, engine in _FOREIGN_TOPIC:
            if rx.search(url):
                raise ForumError(f"this is a topic address of a {engine} board, not of a "
                                 "mybb.ru one", url=url,
                                 hint=f'set [forum] engine = "{engine}" (or leave it out), or '
                                      'give the topic\'s mybb.ru address …/viewtopic.php?id=N'
                                 ) from None
        raise


class MybbruBoard:
    """A hosted mybb.ru board, read through ``client`` (guests read)."""

    engine = "mybbru"
    can_post = False

    def __init__(self, client: ForumClient, *, board_tz: tzinfo = MOSCOW,
                 page_posts: int = PAGE_POSTS) -> None:
        self.client = client
        self.board_tz = board_tz
        self.page_posts = page_posts
        self.api: bool | None = None       # None: not tried yet; False: off (pages read)
        self.root = client.base_url

    # -- reading ----------------------------------------------------------------------------
    def topic_url(self, topic_id: int, start: int = 0) -> str:
        page = int(start) // self.page_posts + 1
        return f"{self.root}viewtopic.php?id={int(topic_id)}" + (f"&p={page}" if page > 1 else "")

    def read_topic_page(self, topic_id: int, start: int = 0) -> TopicPage:
        return self.fetch_topic_page(self.page_url(self.topic_url(topic_id), start))[1]

    def read_topic(self, topic_id: int) -> list[TopicPage]:
        pages = [self.read_topic_page(topic_id)]
        seen = {pages[0].url}
        while pages[-1].next_url and len(pages) < 1000:
            url = self.client.url(pages[-1].next_url)
            if url in seen:
                break
            seen.add(url)
            pages.append(self.fetch_topic_page(url)[1])
        return pages

    def feed_entries(self, topic_id: int) -> list[FeedEntry]:
        """The posts dated to the second (the API's ``posted``): the board has no feed."""
        pages = self.read_topic(topic_id)
        return [FeedEntry(post_id=p.post_id, published=p.posted_at, updated=p.posted_at,
                          author=p.author, title=pages[0].title)
                for page in reversed(pages) for p in reversed(page.posts)
                if p.precision == "second"]

    def _no_pms(self) -> NoReturn:
        raise ForumError("scraper-mod does not read a mybb.ru board's private messages",
                         url=self.root, hint='take moves by mail: [moves] source = "imap" '
                                             'or "maildir"')

    def pm_inbox(self) -> list[PmSummary]:
        self._no_pms()

    def read_pm(self, msg_id: int) -> PrivateMessage:
        self._no_pms()

    def pm_rows(self, folder: str = "inbox") -> tuple[list[PmSummary], list[PmRowProblem]]:
        self._no_pms()

    def fetch_pm(self, msg_id: int) -> FetchResult:
        self._no_pms()

    def parse_pm(self, body: bytes, *, msg_id: int, url: str,
                 fetched_at: datetime) -> PrivateMessage:
        self._no_pms()

    # -- the account: none (guests read) ---------------------------------------------------
    def login(self) -> None:
        """Nothing to do: the board's topics are read as a guest."""

    def logout(self) -> bool:
        return False

    def reply(self, topic_id: int, text: str) -> Posted:
        raise read_only_refusal("the post", "сообщение", self.topic_url(topic_id))

    def new_topic(self, forum_id: int, subject: str, text: str) -> tuple[int | None, Posted]:
        raise read_only_refusal(f"the topic «{subject}»", f"тему «{subject}»",
                                self.forum_url(forum_id))

    def edit(self, post_id: int, text: str, *, reason: str = "") -> Posted:
        raise read_only_refusal("the edit", "правку", self.post_url(post_id))

    def send_pm(self, nick: str, subject: str, text: str, *,
                member_id: int | None = None) -> Posted:
        raise read_only_refusal(f"the PM to {nick}", f"личное сообщение для {nick}", self.root)

    def lock(self, topic_id: int) -> None:
        raise read_only_refusal("the lock (close the topic)", "закрытие темы",
                                self.topic_url(topic_id))

    def own_posts(self, topic_id: int, *, limit: int = 30,
                  first: bool = False) -> list[tuple[int, str]]:
        return []       # the account never posts here

    def sent_pms(self) -> list[tuple[int, str, str]]:
        return []

    def find_reply(self, topic_id: int, text: str) -> int | None:
        return None

    def find_topic(self, forum_id: int, subject: str, text: str) -> tuple[int, int] | None:
        return None

    def find_pm(self, nick: str, subject: str, text: str) -> int | None:
        return None

    # -- addresses --------------------------------------------------------------------------
    def topic_key(self, url: str) -> str:
        return topic_key_of(url)

    def topic_id_of(self, url: str) -> int | None:
        return mybbru_topic_id(url)

    def forum_id_of(self, url: str) -> int | None:
        return mybbru_forum_id(url)

    def forum_url(self, forum_id: int) -> str:
        return f"{self.root}viewforum.php?id={int(forum_id)}"

    def post_url(self, post_id: int) -> str:
        return f"{self.root}viewtopic.php?pid={int(post_id)}#p{int(post_id)}"

    def pm_url(self, msg_id: int) -> str:
        return f"{self.root}pmsnew.php?mdl=topic&tid={int(msg_id)}"

    def forum_topics(self, forum_url: str) -> list[tuple[int, str, str]]:
        res = self.client.get(forum_url)
        if res.status != 200:
            raise ForumError(f"HTTP {res.status}", url=res.url)
        out: dict[int, tuple[int, str, str]] = {}
        for a in parse_html(res.body, res.url).xpath("//a[contains(@href, 'viewtopic.php?id=')]"):
            href = self.client.url(a.get("href"))
            tid = mybbru_topic_id(href)
            if tid is not None and "&p=" not in href and tid not in out:
                out[tid] = (tid, _norm(_tc(a)), self.topic_url(tid))
        return list(out.values())

    # -- the poller's steps -----------------------------------------------------------------
    def page_url(self, topic_url: str, start: int) -> str:
        tid = mybbru_topic_id(topic_key_of(topic_url))
        assert tid is not None
        if self.api is False:
            return self.topic_url(tid, start)
        return api_posts_url(self.root, tid, skip=int(start))

    def fetch_topic_page(self, url: str, *, on_fetch: Callable[[FetchResult], None] | None
                         = None) -> tuple[FetchResult, TopicPage]:
        url = self.client.url(url)
        asked = api_skip(url)
        if asked is None:
            return self._html_page(url, on_fetch)
        tid, skip = asked
        if self.api is not False:
            try:
                return self._api_page(url, tid, skip, on_fetch)
            except (ApiOff, FetchError) as e:
                api_err = e
                self.api = False
                log.info("the mybb.ru API is off at %s (%s): the topic pages are read", url, e)
        else:
            api_err = None
        page_url = self.topic_url(tid, skip)
        try:
            return self._html_page(page_url, on_fetch)
        except TopicNotFoundError:
            raise
        except ForumError as e:
            if api_err is None:
                raise
            raise ForumError(f"the board's API and its topic page both failed: API: "
                             f"{api_err.message}; page: {e.message}", url=page_url,
                             hint="check [forum] url and the topic's address; the board may "
                                  "be down, or closed to guests") from None

    def _get(self, url: str, on_fetch: Callable[[FetchResult], None] | None) -> FetchResult:
        res = self.client.get(url)
        if on_fetch is not None:
            on_fetch(res)
        return res

    def _api_page(self, url: str, tid: int, skip: int,
                  on_fetch: Callable[[FetchResult], None] | None) -> tuple[FetchResult, TopicPage]:
        res = self._get(url, on_fetch)
        if res.status != 200:
            raise ApiOff(f"HTTP {res.status}", url=res.url)
        page_url = self.topic_url(tid, skip)
        posts = parse_api_posts(res.body, url=res.url, board_tz=self.board_tz,
                                page_url=page_url)
        title, locked, count = "", False, None
        try:
            meta = self._get(api_url(self.root, "topic.get", topic_id=tid), on_fetch)
            if meta.status == 200:
                title, locked, count = parse_api_topic(meta.body, url=meta.url)
        except (ApiOff, FetchError) as e:     # the posts came: the topic's title is not vital
            log.info("topic.get of topic %s failed: %s", tid, e)
        if not posts and skip == 0 and count is None:
            raise TopicNotFoundError("the API gives no post of this topic", url=res.url)
        page = skip // API_LIMIT + 1
        if count is not None:
            pages = max(1, -(-count // API_LIMIT))
        else:
            pages = page + (1 if len(posts) >= API_LIMIT else 0)
        nxt = api_posts_url(self.root, tid, skip + API_LIMIT) if page < pages else None
        self.api = True
        return res, TopicPage(topic_id=tid, title=title, locked=locked, page=page,
                              page_count=max(pages, page), next_url=nxt, posts=tuple(posts),
                              style="mybbru-api", language="ru", url=url)

    def _html_page(self, url: str, on_fetch: Callable[[FetchResult], None] | None
                   ) -> tuple[FetchResult, TopicPage]:
        res = self._get(url, on_fetch)
        if res.status == 404:
            raise TopicNotFoundError("the board has no such topic (HTTP 404)", url=res.url)
        if res.status != 200:
            raise ForumError(f"HTTP {res.status}", url=res.url)
        return res, parse_topic_html(res.body, url=res.url, board_tz=self.board_tz,
                                     fetched_at=res.fetched_at,
                                     topic_id=mybbru_topic_id(url))

    def post_page_url(self, key: str, post_id: int) -> str:
        return self.post_url(post_id).split("#")[0]

    def poll_feed_url(self, key: str, topic_id: int, last_page: tuple[bytes, str, str]
                      ) -> str | None:
        return None     # no feed: the API dates every post to the second

    def parse_feed(self, res: FetchResult, topic_id: int) -> list[FeedEntry]:
        return []


__all__ = ["MybbruBoard", "read_only_refusal", "topic_key_of"]
