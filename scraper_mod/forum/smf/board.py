"""``SmfBoard``: forum/engine.py's ``Board`` for Simple Machines Forum 2.1, through SMF's forms.

It rides on ``ForumClient`` (the politeness gate, timeouts, size limits, redirects kept on
the board, retries of GETs) and adds what SMF does its own way:

- **login**: ``action=login``'s ``form#frmLogin`` (``user``, ``passwrd``, the session-check
  hidden field with its random name, the one-time token), posted to ``action=login2``; logged
  in when the board then shows a ``action=logout;<var>=<id>`` link, whose session pair signs
  the lock link;
- **forms**: each submit loads its form fresh (``seqnum`` and the tokens are one-time); «While
  you were typing a new reply has been posted» re-shows the form: it is sent again;
- **flood**: SMF allows a moderator one post per 2 s per IP (it cannot be switched off),
  counted in whole seconds: submits are spaced ``post_gap`` (3.1) seconds, and «…wait N seconds» is waited out and retried;
- **posted** means SMF's answer names the message and the board shows it: a reply or a new
  topic is found on the page SMF redirects to (``topic=T.new#new``) as this account's newest
  message after the form's ``last_msg``; an edit's redirect names ``msgM``; a PM is the new
  row of the sent folder;
- **exact times**: the board's Atom feed, ``action=.xml;type=atom;board=B;limit=255`` (guests
  read it), gives each listed message's time to the second (``exact_posts``).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
from datetime import datetime, tzinfo
from typing import Callable
from urllib.parse import urljoin

from scraper_mod.forum.html import MOSCOW, _norm, _tc, parse_html
from scraper_mod.forum.pms import PmRowProblem, PmSummary, PrivateMessage
from scraper_mod.forum.posting import Posted, PostRefused, read_form, same_subject, same_text

from ...errors import FetchError, ForumError, LoginRequiredError, TopicNotFoundError
from ..client import PASSWORD_ENV, FetchResult, ForumClient
from ..feed import FeedEntry, parse_topic_feed
from ..model import Post, TopicPage
from .links import smf_board_id, smf_topic_id, smf_topic_key
from .parse import (
    PER_PAGE,
    page_error,
    parse_smf_pm,
    parse_smf_pm_list,
    parse_smf_pms,
    parse_smf_topic_page,
    smf_msg_id,
)

log = logging.getLogger(__name__)

# seconds from one submit's answer to the next submit: SMF's per-IP flood limit (2 s for a
# moderator's posts and for logins) is kept in whole seconds (a post at 12:00:00.9 blocks
# until 12:00:03), so 2 s of wall clock are not always enough
POST_GAP = 3.1
TRIES = 4

_RE_WAIT = re.compile(r"less than (\d+) seconds ago|wait about (\d+) seconds")
_RE_LOGOUT = re.compile(r"action=logout;([0-9a-zA-Z_]+)=([0-9a-f]+)")
_RE_NEW_TOPIC = re.compile(r"[?;&]topic=(\d+)")
_RE_LOC_MSG = re.compile(r"[?;&]topic=(\d+)\.msg(\d+)")
_REFUSALS = [
    ("locked", re.compile(r"topic is locked", re.I),
     "the topic is locked: unlock it, or give the account moderator rights there", False),
    ("no-topic", re.compile(r"missing or off limits|does not exist", re.I),
     "check the topic or board address in game.toml", False),
    ("no-recipient", re.compile(r"recipient|could not be found|not be sent to", re.I),
     "the nick is not a board member: check [[players]] nick in game.toml", False),
    ("form-invalid", re.compile(r"session (?:timed out|verification)|token|verify", re.I),
     "the form expired; it is tried again with a fresh one", True),
    ("no-permission", re.compile(r"not allowed|permission|not authori[sz]ed", re.I),
     "the account may not do this here: check [forum] username and its rights", False),
    ("too-long", re.compile(r"exceeds the maximum", re.I),
     "the text is longer than the board allows: shorten it in out/day-N/", False),
]


def _location(answer: FetchResult) -> str:
    """The redirect's target (PHP's server sends ``location`` in lower case)."""
    for k, v in answer.headers.items():
        if k.lower() == "location":
            return urljoin(answer.url, v)
    return ""


def _message(body: bytes) -> str:
    """SMF's error text on an answer: the fatal error box, or the form's error list."""
    try:
        doc = parse_html(body)
    except ForumError:
        return ""
    for xp in ("//div[@id='fatal_error']//div[contains(@class,'padding')]",
               "//div[contains(@class,'errorbox') and not(contains(@style,'none'))]",
               "//ul[@id='error_list']"):
        texts = [_norm(_tc(el)) for el in doc.xpath(xp)]
        if any(texts):
            return " ".join(t for t in texts if t)
    return ""


class SmfBoard:
    """An SMF 2.1 board through ``client``'s session (see the module docstring)."""

    engine = "smf"

    def __init__(self, client: ForumClient, *, board_id: int | None = None,
                 password: str | None = None, board_tz: tzinfo = MOSCOW,
                 post_gap: float = POST_GAP, tries: int = TRIES,
                 clock: Callable[[], float] | None = None) -> None:
        self.client = client
        self.board_id = board_id        # the board whose feed lists the topics, if known
        self._boards: dict[int, int] = {}  # topic -> its board
        self.board_tz = board_tz
        self.post_gap = post_gap
        self.tries = tries
        self.__password = password if password is not None else os.environ.get(PASSWORD_ENV)
        self._clock = clock or client._monotonic
        self._last_submit: float | None = None
        self._session: tuple[str, str] | None = None

    def __repr__(self) -> str:
        return f"SmfBoard({self.client.base_url!r}, user={self.client.username!r})"

    # -- addresses ---------------------------------------------------------------------------
    def url(self, query: str = "") -> str:
        return self.client.base_url + "index.php" + (f"?{query}" if query else "")

    def topic_url(self, topic_id: int, start: int = 0) -> str:
        return self.url(f"topic={int(topic_id)}.{int(start)}")

    def feed_url(self, board_id: int) -> str:
        return self.url(f"action=.xml;type=atom;board={int(board_id)};limit=255")

    # -- reading -----------------------------------------------------------------------------
    def _page(self, url: str) -> FetchResult:
        res = self.client.get(url)
        if res.status >= 500:
            raise FetchError(f"HTTP {res.status}", url=res.url)
        return res

    def read_topic_page(self, topic_id: int, start: int = 0) -> TopicPage:
        res = self._page(self.topic_url(topic_id, start))
        return parse_smf_topic_page(res.body, url=res.url, fetched_at=res.fetched_at,
                                    board_tz=self.board_tz)

    def read_topic(self, topic_id: int) -> list[TopicPage]:
        pages = [self.read_topic_page(topic_id)]
        for n in range(2, pages[0].page_count + 1):
            pages.append(self.read_topic_page(topic_id, (n - 1) * PER_PAGE))
        return pages

    def _board_of(self, topic_id: int) -> int:
        """The board that holds a topic (the page's ``<link rel="index">``), which names the
        feed; ``board_id`` when given."""
        if self.board_id is not None:
            return self.board_id
        if topic_id not in self._boards:
            res = self._page(self.topic_url(topic_id))
            index = parse_html(res.body, res.url).xpath("//link[@rel='index']/@href")
            m = re.search(r"[?;&]board=(\d+)", index[0] if index else "")
            if not m:
                err = page_error(parse_html(res.body, res.url), url=res.url)
                raise err or TopicNotFoundError(f"topic {topic_id} names no board", url=res.url)
            self._boards[topic_id] = int(m.group(1))
        return self._boards[topic_id]

    def feed_entries(self, topic_id: int) -> list[FeedEntry]:
        res = self._page(self.feed_url(self._board_of(topic_id)))
        return parse_topic_feed(res.body, url=res.url,
                                post_id=lambda *c: smf_msg_id(*c, topic_id=topic_id))

    def exact_posts(self, topic_id: int) -> list[Post]:
        """The topic's posts, each the feed lists with its time to the second (the same
        sharpening as the poller's ``_refine_from_feed``: the feed's author must match)."""
        posts = [p for page in self.read_topic(topic_id) for p in page.posts]
        by_id = {e.post_id: e for e in self.feed_entries(topic_id)}
        out = []
        for p in posts:
            e = by_id.get(p.post_id)
            if e is not None and (not e.author or e.author == p.author):
                t = e.published.astimezone(self.board_tz)
                p = dataclasses.replace(p, posted_at=t, earliest=t, latest=t,
                                        precision="second")
            out.append(p)
        return out

    def _pm_folder(self, folder: str) -> FetchResult:
        self.ensure_login()
        return self._page(self.url("action=pm" if folder == "inbox" else f"action=pm;f={folder}"))

    def pm_inbox(self) -> list[PmSummary]:
        res = self._pm_folder("inbox")
        return parse_smf_pm_list(res.body, url=res.url, fetched_at=res.fetched_at,
                                 board_tz=self.board_tz)

    def read_pm(self, msg_id: int) -> PrivateMessage:
        res = self.fetch_pm(msg_id)
        return self.parse_pm(res.body, msg_id=msg_id, url=res.url, fetched_at=res.fetched_at)

    def pm_rows(self, folder: str = "inbox") -> tuple[list[PmSummary], list[PmRowProblem]]:
        res = self._pm_folder(folder)
        return parse_smf_pm_list(res.body, url=res.url, fetched_at=res.fetched_at,
                                 board_tz=self.board_tz), []

    def fetch_pm(self, msg_id: int) -> FetchResult:
        """The page that shows PM ``msg_id``: SMF's inbox shows every listed PM below the
        list (the move source stores it whole, as it was fetched)."""
        return self._pm_folder("inbox")

    def parse_pm(self, body: bytes, *, msg_id: int, url: str,
                 fetched_at: datetime | None) -> PrivateMessage:
        return parse_smf_pm(body, msg_id=msg_id, url=url, fetched_at=fetched_at,
                            board_tz=self.board_tz)

    # -- the account -------------------------------------------------------------------------
    def ensure_login(self) -> None:
        if self._session is None:
            self.login()

    def login(self) -> None:
        if not self.client.username or not self.__password:
            raise LoginRequiredError("posting needs the account's name and password",
                                     url=self.url("action=login"),
                                     hint=f"set [forum] username and the {PASSWORD_ENV} "
                                          "environment variable")
        self.client.raise_if_refused()
        for _ in range(self.tries):
            page = self._page(self.url("action=login"))
            form = read_form(page, "frmLogin")
            if form is None and self._logged_in():
                return      # the session (a cookie of this client) is logged in already
            if form is None:
                raise LoginRequiredError("SMF's login page has no login form", url=page.url,
                                         hint="check [forum] url and [forum] engine")
            form.fields.update({"user": self.client.username, "passwrd": self.__password})
            self._gap()
            answer = self._sent(self.client.post(form.action, form.fields))
            if self._logged_in():
                self.client.logins += 1
                log.info("logged in to %s as %s", self.client.base_url, self.client.username)
                return
            text = _message(answer.body)
            if not self._flood(text):
                raise self.client.refused(LoginRequiredError(
                    f"SMF refused the login as {self.client.username!r}: "
                    f"{text or 'no reason shown'}", url=form.action,
                    hint=f"check [forum] username and {PASSWORD_ENV}"))
        raise LoginRequiredError("SMF's flood limit kept refusing the login",
                                 url=self.url("action=login"))

    def _logged_in(self) -> bool:
        m = _RE_LOGOUT.search(self._page(self.url()).text)
        self._session = (m.group(1), m.group(2)) if m else None
        return m is not None

    def logout(self) -> bool:
        if self._session is None:
            self.client.session.cookies.clear()
            return False
        var, sid = self._session
        self._session = None
        try:
            self.client.get(self.url(f"action=logout;{var}={sid}"))
        except FetchError as e:
            log.info("logging out of %s failed: %s", self.client.base_url, e)
            return False
        finally:
            self.client.session.cookies.clear()
        return True

    # -- the form round trip -----------------------------------------------------------------
    def _gap(self) -> None:
        """The politeness gate for writes: SMF's 2 s flood limit per IP (see POST_GAP)."""
        now = self._clock()
        if self._last_submit is not None and now - self._last_submit < self.post_gap:
            self.client.pause(self.post_gap - (now - self._last_submit))

    def _sent(self, answer: FetchResult) -> FetchResult:
        self._last_submit = self._clock()
        return answer

    def _flood(self, text: str) -> bool:
        m = _RE_WAIT.search(text)
        if m:
            self.client.pause(min(30, int(next(g for g in m.groups() if g))) + 1.5)
        return m is not None

    def _refusal(self, answer: FetchResult, what: str) -> PostRefused:
        text = _message(answer.body) or f"HTTP {answer.status}, no message shown"
        for kind, rx, hint, transient in _REFUSALS:
            if rx.search(text):
                return PostRefused(kind, f"SMF refused {what}: {text[:200]}", url=answer.url,
                                   hint=hint, transient=transient)
        return PostRefused("unknown", f"SMF did not confirm {what}: {text[:200]}",
                           url=answer.url, hint="look at the board; run publish again")

    def _submit(self, query: str, fields: dict[str, str], what: str) -> tuple[FetchResult, dict]:
        """Load the form at ``query`` fresh, fill ``fields``, submit; SMF's redirect (its
        answer) and the form as sent. Flood and expired forms are tried again."""
        self.ensure_login()
        last: PostRefused | None = None
        for _ in range(self.tries):
            page = self._page(self.url(query))
            form = read_form(page, "postmodify")
            if form is None:
                doc_err = page_error(parse_html(page.body, page.url), url=page.url)
                if isinstance(doc_err, LoginRequiredError) and last is None:
                    self._session = None        # the session ended: log in again, once
                    self.login()
                    last = PostRefused("login", f"logged in again for {what}", url=page.url,
                                       transient=True)
                    continue
                raise self._refusal(page, what) if doc_err is None else PostRefused(
                    "no-form", f"no form for {what}: {doc_err}", url=page.url,
                    hint="check the address and the account's rights")
            data = {**form.fields, **fields, "post": "Post"}
            self._gap()
            answer = self._sent(self.client.post(form.action, data))
            if 300 <= answer.status < 400:
                return answer, data
            text = _message(answer.body)
            if self._flood(text) or "new repl" in answer.text:
                last = PostRefused("flood", f"SMF asked to send {what} again: {text[:120]}",
                                   url=answer.url, transient=True)
                continue
            err = self._refusal(answer, what)
            if not err.transient:
                raise err
            last = err
        assert last is not None
        raise last

    def _follow(self, answer: FetchResult) -> FetchResult:
        return self._page(_location(answer))

    # -- writing -----------------------------------------------------------------------------
    def _mine_after(self, topic_id: int, after: int, page: FetchResult | None) -> int | None:
        me = (self.client.username or "").casefold()
        pages = [page] if page is not None else []
        for res in pages + [self._page(self.url(f"topic={topic_id}.msg{after + 1}"))]:
            parsed = parse_smf_topic_page(res.body, url=res.url, fetched_at=res.fetched_at,
                                          board_tz=self.board_tz)
            ids = [p.post_id for p in parsed.posts
                   if p.post_id > after and p.author.casefold() == me]
            if ids:
                return max(ids)
        return None

    def reply(self, topic_id: int, text: str) -> Posted:
        what = f"a reply in topic {topic_id}"
        answer, sent = self._submit(f"action=post;topic={int(topic_id)}.0",
                                    {"message": text, "goback": "1"}, what)
        last = int(sent.get("last_msg") or 0)
        mid = self._mine_after(topic_id, last, self._follow(answer))
        if mid is None:
            raise PostRefused("unknown", f"SMF took {what} but the topic does not show it",
                              url=answer.url, hint="look at the topic; run publish again")
        return Posted(mid, self.url(f"msg={mid}"))

    def new_topic(self, forum_id: int, subject: str, text: str) -> tuple[int | None, Posted]:
        answer, _ = self._submit(f"action=post;board={int(forum_id)}.0",
                                 {"subject": subject, "message": text, "goback": "1"},
                                 f"a new topic in board {forum_id}")
        m = _RE_NEW_TOPIC.search(_location(answer))
        if not m:
            raise PostRefused("unknown", "SMF's answer names no topic", url=answer.url,
                              hint="look at the board; run publish again")
        tid = int(m.group(1))
        first = self.read_topic_page(tid).posts
        return tid, Posted(first[0].post_id if first else None, self.topic_url(tid))

    def edit(self, post_id: int, text: str, *, reason: str = "") -> Posted:
        what = f"an edit of message {post_id}"
        res = self._page(self.url(f"msg={int(post_id)}"))
        m = _RE_NEW_TOPIC.search(res.url) or re.search(
            r"[?;&]topic=(\d+)", " ".join(parse_html(res.body, res.url).xpath(
                "//link[@rel='canonical']/@href")))
        if not m:
            raise self._refusal(res, what)
        fields = {"message": text, "goback": "1"}
        if reason:
            fields["modify_reason"] = reason
        answer, _ = self._submit(f"action=post;msg={int(post_id)};topic={m.group(1)}.0",
                                 fields, what)
        loc = _RE_LOC_MSG.search(_location(answer))
        if not loc or int(loc.group(2)) != post_id:
            raise PostRefused("unknown", f"SMF's answer to {what} names no message",
                              url=answer.url, hint="look at the post; run publish again")
        return Posted(post_id, self.url(f"msg={post_id}"))

    def send_pm(self, nick: str, subject: str, text: str, *,
                member_id: int | None = None) -> Posted:
        """A PM to ``nick``; with ``member_id``, to that member whatever his display name
        (R12.5: a display name can be changed, a member id cannot). A PM the sent folder does
        not show is ``unconfirmed`` (never sent blind again, R12.2)."""
        before = {mid for mid, _, _ in self.sent_pms()}
        fields = ({"recipient_to[]": str(int(member_id)), "to": ""} if member_id is not None
                  else {"to": f'"{nick}"'})
        self._submit("action=pm;sa=send", {**fields, "subject": subject, "message": text},
                     f"a PM to {nick!r}")
        new = [mid for mid, to, subj in self.sent_pms()
               if mid not in before and same_subject(subj, subject)
               and (member_id is not None or nick.casefold() in to.casefold())]
        if not new:
            raise PostRefused("unconfirmed", f"the PM to {nick!r} is not in the sent folder",
                              url=self.url("action=pm;f=sent"),
                              hint="look in the sent PMs: it is not sent again by itself")
        return Posted(max(new), self.url(f"action=pm;f=sent#msg{max(new)}"))

    def sent_pms(self) -> list[tuple[int, str, str]]:
        res = self._pm_folder("sent")
        return [(s.msg_id, s.author, s.subject) for s in parse_smf_pm_list(
            res.body, url=res.url, fetched_at=res.fetched_at, board_tz=self.board_tz)]

    def own_posts(self, topic_id: int, *, limit: int = 30,
                  first: bool = False) -> list[tuple[int, str]]:
        self.ensure_login()
        head = self.read_topic_page(topic_id)
        pages = [head]
        if not first:
            for n in (head.page_count - 1, head.page_count):
                if n > 1:
                    pages.append(self.read_topic_page(topic_id, (n - 1) * PER_PAGE))
        me = (self.client.username or "").casefold()
        seen = {p.post_id: p.text for page in pages for p in page.posts
                if p.author.casefold() == me}
        return sorted(seen.items(), reverse=True)[:limit]

    def lock(self, topic_id: int) -> None:
        self.ensure_login()
        page = self._page(self.topic_url(topic_id))
        links = parse_html(page.body, page.url).xpath(
            f"//a[contains(@href,'action=lock;topic={int(topic_id)}.')]/@href")
        if not links:
            raise PostRefused("no-permission", f"no lock button on topic {topic_id} for "
                              f"{self.client.username!r}", url=page.url,
                              hint="lock_day_topic needs a moderator account")
        if "sa=unlock" in links[0]:
            return
        self._gap()
        answer = self._sent(self.client.get(urljoin(page.url, links[0])))
        if not self.read_topic_page(topic_id).locked:
            raise self._refusal(answer, f"locking topic {topic_id}")

    # -- after a crash -----------------------------------------------------------------------
    def find_reply(self, topic_id: int, text: str) -> int | None:
        return next((pid for pid, shown in self.own_posts(topic_id) if same_text(text, shown)),
                    None)

    def find_topic(self, forum_id: int, subject: str, text: str) -> tuple[int, int] | None:
        self.ensure_login()
        me = (self.client.username or "").casefold()
        for tid in sorted({t for t, title, _ in self.forum_topics(self.forum_url(forum_id))
                           if title == subject}, reverse=True):
            try:
                first = self.read_topic_page(tid).posts
            except ForumError:
                continue
            if first and first[0].author.casefold() == me and same_text(text, first[0].text):
                return tid, first[0].post_id
        return None

    def find_pm(self, nick: str, subject: str, text: str) -> int | None:
        want = nick.casefold()
        res = self._pm_folder("sent")
        rows = {s.msg_id: s for s in parse_smf_pm_list(
            res.body, url=res.url, fetched_at=res.fetched_at, board_tz=self.board_tz)}
        for pm in sorted(parse_smf_pms(res.body, url=res.url, fetched_at=res.fetched_at,
                                       board_tz=self.board_tz),
                         key=lambda m: m.msg_id, reverse=True):
            row = rows.get(pm.msg_id)
            if row is None or not same_subject(row.subject, subject) or \
                    want not in row.author.casefold():
                continue
            if same_text(text, pm.text):
                return pm.msg_id
        return None

    # -- addresses ---------------------------------------------------------------------------
    def topic_key(self, url: str) -> str:
        return smf_topic_key(url)

    def topic_id_of(self, url: str) -> int | None:
        return smf_topic_id(url)

    def forum_id_of(self, url: str) -> int | None:
        return smf_board_id(url)

    def forum_url(self, forum_id: int) -> str:
        return self.url(f"board={int(forum_id)}.0")

    def post_url(self, post_id: int) -> str:
        return self.url(f"msg={int(post_id)}")

    def pm_url(self, msg_id: int) -> str:
        return self.url(f"action=pm;f=sent#msg{int(msg_id)}")

    def forum_topics(self, forum_url: str) -> list[tuple[int, str, str]]:
        res = self._page(self.client.url(forum_url))
        doc = parse_html(res.body, res.url)
        found = []
        for a in doc.xpath("//div[@id='messageindex']//span[starts-with(@id,'msg_')]/a"):
            tid = smf_topic_id(a.get("href") or "")
            if tid is not None:
                found.append((tid, _norm(_tc(a)), self.topic_url(tid)))
        if not found and not doc.xpath("//div[@id='messageindex']"):
            err = page_error(doc, url=res.url)
            raise err or ForumError("not an SMF board's topic list", url=res.url,
                                    hint="check [forum] forum (index.php?board=N.0)")
        return found

    # -- the poller's steps ------------------------------------------------------------------
    def page_url(self, topic_url: str, start: int) -> str:
        key = smf_topic_key(topic_url)
        return f"{key}.{int(start)}"

    def fetch_topic_page(self, url: str, *, on_fetch: Callable[[FetchResult], None] | None
                         = None) -> tuple[FetchResult, TopicPage]:
        for attempt in (1, 2):
            res = self._page(self.client.url(url))
            if on_fetch:
                on_fetch(res)
            try:
                return res, parse_smf_topic_page(res.body, url=res.url,
                                                 fetched_at=res.fetched_at,
                                                 board_tz=self.board_tz)
            except LoginRequiredError:
                if attempt == 2 or not self.client.username or not self.__password:
                    raise
                self._session = None
                self.login()        # a members-only board: log in once, read again
        raise AssertionError("unreachable")

    def post_page_url(self, key: str, post_id: int) -> str:
        return urljoin(key, f"index.php?msg={int(post_id)}")

    def poll_feed_url(self, key: str, topic_id: int, last_page: tuple[bytes, str, str]
                      ) -> str | None:
        body, page_url, _ = last_page
        if self.board_id is not None:
            return self.feed_url(self.board_id)
        index = parse_html(body, page_url).xpath("//link[@rel='index']/@href")
        board = smf_board_id(index[0]) if index else None
        if board is None:
            return None
        return urljoin(key, f"index.php?action=.xml;type=atom;board={board};limit=255")

    def parse_feed(self, res: FetchResult, topic_id: int) -> list[FeedEntry]:
        return parse_topic_feed(res.body, url=res.url,
                                post_id=lambda *c: smf_msg_id(*c, topic_id=topic_id))
