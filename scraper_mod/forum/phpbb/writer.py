"""Posting on a phpBB 3.3 board through its own forms (RULES R12), on the reader's client.

``ForumWriter`` uses only ``ForumClient``'s public methods (``get``, ``post``, ``login``,
``pause``), so it shares the reader's session and cookies:

- ``reply(topic_id, text)``: ``posting.php?mode=reply&t=T``, the form's hidden fields
  (``form_token``, ``creation_time``, ``topic_cur_post_id``, ...) sent back a second after the
  form was served (phpBB refuses a form submitted in the second it was made);
- ``new_topic(forum_id, subject, text)``: ``posting.php?mode=post&f=F``;
- ``edit(post_id, text)``: ``posting.php?mode=edit&p=P``;
- ``send_pm(nick, subject, text)``: ``ucp.php?i=pm&mode=compose``, the recipient added by
  name (``add_to``), then the message submitted;
- ``lock(topic_id)``: the quick-mod URL built for the topic (when the page shows the board's
  own lock tool, outside every post), then its confirm form, checked to be about that topic.

The new post's id is read from phpBB's redirect (``viewtopic.php?p=N#pN``), a PM's from the
refresh link (``ucp.php?i=pm&mode=view&p=N``). Each refusal is its own ``PostRefused`` naming the
URL and what to check; flood, an expired or invalid form and 5xx are retried with a fresh form.
"""

from __future__ import annotations

import logging
import re
from typing import Callable
from urllib.parse import parse_qs, urljoin, urlsplit

from scraper_mod.errors import FetchError, ForumError
from scraper_mod.forum.client import PASSWORD_ENV, FetchResult, ForumClient, find_login_form
from scraper_mod.forum.phpbb.boardlinks import board_tools, query, same_board
from scraper_mod.forum.phpbb.links import post_path
from scraper_mod.forum.phpbb.lookback import find_pm, find_reply, find_topic, first_post, post_by_me
from scraper_mod.forum.phpbb.parse import parse_topic_page
from scraper_mod.forum.posting import Form, Posted, PostRefused, html_doc, read_form, same_text

log = logging.getLogger(__name__)

FORM_AGE = 1.1        # seconds a form must be old before phpBB takes it
TRANSIENT_TRIES = 3   # a flood/expired-form/5xx refusal is tried again this many times


# phpBB's own English and Russian wording (language/*/posting.php, common.php, ucp.php)
_REFUSALS: list[tuple[str, re.Pattern, str, bool]] = [
    ("flood", re.compile(r"cannot make another post so soon|another private message so soon|"
                         r"слишком часто|так скоро", re.I),
     "the board's flood limit; it is tried again after a pause", True),
    ("form-invalid", re.compile(r"submitted form was invalid|form.*expired|"
                                r"отправленная форма неверна|форма недействительна|форма устарела", re.I),
     "the form expired; it is tried again with a fresh one", True),
    ("too-long", re.compile(r"Your message contains \d+ characters|maximum number of allowed "
                            r"characters|сообщение содержит \d+ символ", re.I),
     "the text is longer than the board allows: shorten it in out/day-N/ or raise the "
     "board's limit (ACP: Posting settings, max_post_chars)", False),
    ("locked", re.compile(r"topic is locked|тема закрыта", re.I),
     "the topic is locked: unlock it, or give the account moderator rights there", False),
    ("no-recipient", re.compile(r"requested users to be added do not exist|"
                                r"пользователи не существуют|No recipient|не указан получатель",
                                re.I),
     "the nick is not a board user: check [[players]] nick (or forum_id) in game.toml", False),
    ("no-permission", re.compile(r"not authori[sz]ed|cannot (?:post|reply|send|edit)|"
                                 r"not allowed to|You need to login|нет прав|не можете|"
                                 r"необходимо войти", re.I),
     "the account may not do this here: check [forum] username and its permissions on the "
     "board (post, reply, send private messages)", False),
    ("no-topic", re.compile(r"requested topic does not exist|requested forum does not exist|"
                            r"тема не существует|форум не существует", re.I),
     "check the topic or forum URL in [publish] / [forum] forum", False),
    ("disabled", re.compile(r"board is currently (?:disabled|unavailable)|"
                            r"конференция.*(?:отключена|недоступна)", re.I),
     "the board is disabled; it is tried again later", False),
]


def board_message(body: bytes) -> str:
    """The text phpBB shows for an answer: a form's ``.error`` or the message box."""
    doc = html_doc(body)
    if doc is None:
        return ""
    parts = []
    for el in doc.xpath("//*[contains(concat(' ', normalize-space(@class), ' '), ' error ')]"):
        t = " ".join(el.text_content().split())
        if t:
            parts.append(t)
    if not parts:
        for el in doc.xpath("//*[@id='message']//p | //div[@class='panel']//div[@class='inner']/p"):
            t = " ".join(el.text_content().split())
            if t:
                parts.append(t)
                break
    return " ".join(parts)


def classify_refusal(result: FetchResult, *, what: str) -> PostRefused | None:
    """The refusal an answer page stands for, else None."""
    text = board_message(result.body)
    if not text and find_login_form(result.body, url=result.url, page=result.page) is not None:
        text = "You need to login"
    for kind, rx, hint, transient in _REFUSALS:
        if rx.search(text):
            return PostRefused(kind, f"the board refused {what}: {text[:200]}", url=result.url,
                               hint=hint, transient=transient)
    return None


Probe = Callable[[dict[str, str]], "Posted | None"]


def _look(probe: Probe | None, fields: dict[str, str], what: str) -> Posted | None:
    """What ``probe`` finds on the board after a failed POST (None: not there, post again)."""
    if probe is None:
        return None
    try:
        found = probe(fields)
    except ForumError as e:       # cannot look: never post blindly a second time
        raise PostRefused("unconfirmed", f"cannot tell whether the board took {what}: {e}",
                          url=getattr(e, "url", "") or "", hint="look at the board; run "
                          "publish again (it looks there first)") from None
    if found is not None:
        log.info("%s: the board took it after all (%s)", what, found.url)
    return found


def _post_id(location: str) -> int | None:
    m = re.search(r"[?&]p=(\d+)", location or "")
    return int(m.group(1)) if m else None


def _refresh_url(result: FetchResult) -> str | None:
    doc = html_doc(result.body)
    if doc is None:
        return None
    for meta in doc.xpath("//meta[@http-equiv='refresh']"):
        m = re.search(r"url=(.+)$", meta.get("content", ""), re.I)
        if m:
            return urljoin(result.url, m.group(1).strip())
    return None


def topic_id_of(url: str) -> int | None:
    """``t=`` of a viewtopic URL, else None."""
    q = parse_qs(urlsplit(url).query)
    try:
        return int(q["t"][0]) if urlsplit(url).path.endswith("viewtopic.php") else None
    except (KeyError, ValueError, IndexError):
        return None


def forum_id_of(url: str) -> int | None:
    """``f=`` of a viewforum URL, else None."""
    q = parse_qs(urlsplit(url).query)
    try:
        return int(q["f"][0]) if urlsplit(url).path.endswith("viewforum.php") else None
    except (KeyError, ValueError, IndexError):
        return None


class ForumWriter:
    """Posts, edits, PMs and locks on one board through ``client`` (its session)."""

    def __init__(self, client: ForumClient, *, form_age: float = FORM_AGE,
                 tries: int = TRANSIENT_TRIES, flood_wait: float = 15.0) -> None:
        self.client = client
        self.form_age = form_age
        self.tries = tries
        self.flood_wait = flood_wait
        self._logged_in = False

    def ensure_login(self) -> None:
        if self._logged_in:
            return
        if not self.client.can_login:
            raise PostRefused("login", "posting needs the account's password",
                              url=self.client.url("ucp.php?mode=login"),
                              hint=f"set [forum] username and the {PASSWORD_ENV} environment "
                                   "variable")
        self.client.login()
        self._logged_in = True

    # -- the form round trip ---------------------------------------------------------------
    def _get_form(self, url: str, what: str, form_id: str = "postform") -> tuple[FetchResult, Form]:
        page = self.client.get(url)
        if find_login_form(page.body, url=page.url, page=page.page) is not None and \
                self.client.can_login:
            self._logged_in = False
            self.client.login()
            self._logged_in = True
            page = self.client.get(url)
        form = read_form(page, form_id)
        if form is None:
            err = classify_refusal(page, what=what)
            if err is not None:
                raise err
            raise PostRefused("no-form", f"the board showed no form for {what} "
                              f"(HTTP {page.status})", url=page.url,
                              hint="check the URL and that [forum] username may post there")
        return page, form

    def _submit(self, url: str, fields: dict[str, str], what: str, *,
                form_id: str = "postform", button: str = "post",
                probe: Probe | None = None) -> FetchResult | Posted:
        """Fetch the form at ``url``, fill ``fields``, submit it; retry transient refusals
        with a fresh form. Returns phpBB's answer (a redirect, or the message page), or what
        ``probe`` found on the board: after a time-out, a reset or a 5xx answer to the POST
        the board may have taken it, so ``probe(form fields)`` looks before it is sent again
        (issue 26, item 4)."""
        last: ForumError | None = None
        for attempt in range(self.tries):
            self.ensure_login()
            try:
                _, form = self._get_form(url, what, form_id)
            except FetchError as e:      # nothing was sent: again with a fresh form
                last = e
                log.warning("%s: %s; attempt %d of %d", what, e, attempt + 1, self.tries)
                self.client.pause(min(30.0, 2.0 * 2 ** attempt))
                continue
            data = dict(form.fields)
            data.update(fields)
            data[button] = "Submit"
            self.client.pause(self.form_age)   # phpBB refuses a form of this very second
            try:
                answer = self.client.post(form.action, data)
            except FetchError as e:      # the board down or 5xx: did it take it?
                last = e
                log.warning("%s: %s; attempt %d of %d", what, e, attempt + 1, self.tries)
                self.client.pause(min(30.0, 2.0 * 2 ** attempt))
                found = _look(probe, form.fields, what)
                if found is not None:
                    return found
                continue
            if 300 <= answer.status < 400 or _refresh_url(answer):
                return answer
            err = classify_refusal(answer, what=what)
            if err is None and read_form(answer, form_id) is not None:
                # "at least one new post has been made": phpBB shows the form again
                last = PostRefused("form-again", f"the board showed the form again for {what}",
                                   url=answer.url, transient=True)
                continue
            if err is None:
                raise PostRefused("unknown", f"the board did not confirm {what} "
                                  f"(HTTP {answer.status}): {board_message(answer.body)[:200]}",
                                  url=answer.url, hint="look at the board; run publish again")
            if not err.transient:
                raise err
            last = err
            log.warning("%s; attempt %d of %d", err, attempt + 1, self.tries)
            if err.kind == "flood":
                self.client.pause(self.flood_wait)
        assert last is not None
        raise last

    # -- posting -----------------------------------------------------------------------------
    def reply(self, topic_id: int, text: str, *, subject: str | None = None) -> Posted:
        """Reply in topic ``topic_id``; the new post's id and URL, checked on the board."""
        url = self.client.url(f"posting.php?mode=reply&t={topic_id}")
        fields = {"message": text}
        if subject:
            fields["subject"] = subject

        def probe(form: dict[str, str]) -> Posted | None:
            last = form.get("topic_cur_post_id", "")
            pid = find_reply(self, topic_id, text, after=int(last) if last.isdigit() else None)
            return Posted(pid, self.client.url(post_path(pid))) if pid else None
        what = f"a reply in topic {topic_id}"
        answer = self._submit(url, fields, what, probe=probe)
        if isinstance(answer, Posted):
            return answer
        posted = self._posted(answer)
        self._confirm(posted, answer, what, topic_id=topic_id)
        return posted

    def new_topic(self, forum_id: int, subject: str, text: str) -> tuple[int | None, Posted]:
        """Open a topic in forum ``forum_id``; its topic id and its first post, checked on the
        board."""
        url = self.client.url(f"posting.php?mode=post&f={forum_id}")
        what = f"a new topic in forum {forum_id}"

        def probe(form: dict[str, str]) -> Posted | None:
            found = find_topic(self, f"viewforum.php?f={forum_id}", subject, text)
            return Posted(found[1], self.client.url(post_path(found[1]))) if found else None
        answer = self._submit(url, {"subject": subject, "message": text}, what, probe=probe)
        if isinstance(answer, Posted):
            return self._confirm(answer, None, what), answer
        posted = self._posted(answer)
        loc = urljoin(answer.url, answer.headers.get("Location") or _refresh_url(answer) or "")
        topic = topic_id_of(loc) if same_board(loc, self.client.base_url) else None
        if posted.id is None and topic is not None:
            # phpBB names a new topic (viewtopic.php?t=T): its first post must be ours
            first = first_post(self, topic)
            if first is not None and same_text(text, first[2]):
                posted = Posted(first[0], self.client.url(post_path(first[0])))
        return self._confirm(posted, answer, what, topic_id=topic), posted

    def edit(self, post_id: int, text: str, *, reason: str = "") -> Posted:
        url = self.client.url(f"posting.php?mode=edit&p={post_id}")
        fields = {"message": text}
        if reason:
            fields["edit_reason"] = reason
        what = f"an edit of post {post_id}"
        answer = self._submit(url, fields, what)     # an edit sent twice is the same edit
        if isinstance(answer, FetchResult) and self._posted(answer).id != post_id:
            raise PostRefused("unconfirmed", f"the board did not confirm {what}: its answer "
                              f"names no post {post_id} "
                              f"({answer.headers.get('Location') or _refresh_url(answer)})",
                              url=answer.url, hint="look at the post on the board; a session "
                                                   "that ended or a moderation queue?")
        return Posted(post_id, self.client.url(post_path(post_id)))

    def _posted(self, answer: FetchResult) -> Posted:
        loc = answer.headers.get("Location") or _refresh_url(answer) or ""
        target = urljoin(answer.url, loc)
        pid = _post_id(loc) if (urlsplit(target).path.endswith("viewtopic.php")
                                and same_board(target, self.client.base_url)) else None
        return Posted(pid, self.client.url(loc) if loc else None)

    def _confirm(self, posted: Posted, answer: FetchResult | None, what: str, *,
                 topic_id: int | None = None) -> int | None:
        """Issue 26, item 6: a redirect is no success. Posted means phpBB's answer names the
        new post (``viewtopic.php?p=N``) and the board shows post N, written by this account
        (in ``topic_id`` when given). Returns the post's topic id."""
        shown = post_by_me(self, posted.id) if posted.id is not None else None
        if shown is None or (topic_id is not None and shown[0] != topic_id):
            where = (answer.headers.get("Location") or _refresh_url(answer) or "") \
                if answer is not None else ""
            raise PostRefused("unconfirmed", f"the board did not confirm {what}: "
                              + (f"its answer led to {where or 'no page'}, naming no new post"
                                 if posted.id is None else
                                 f"post {posted.id} is not this account's there"),
                              url=answer.url if answer is not None else self.client.url(""),
                              hint="look at the board (a session that ended? a moderation "
                                   "queue?); it is looked for there before it is posted again")
        return shown[0]

    # -- private messages ------------------------------------------------------------------
    def send_pm(self, nick: str, subject: str, text: str) -> Posted:
        """Send a PM to the board user ``nick``: add the recipient by name, then submit."""
        self.ensure_login()
        url = self.client.url("ucp.php?i=pm&mode=compose")
        what = f"a private message to {nick!r}"
        last: ForumError | None = None
        for attempt in range(self.tries):
            try:
                _, form = self._get_form(url, what)
                data = dict(form.fields)
                data.update({"username_list": nick, "add_to": "Add", "subject": subject,
                             "message": text})
                self.client.pause(self.form_age)
                added = self.client.post(form.action, data)
                form2 = read_form(added)
                err = classify_refusal(added, what=what)
                if err is not None:
                    raise err
                if form2 is None or not any(k.startswith("address_list[") for k in form2.fields):
                    raise PostRefused("no-recipient", f"the board did not add {nick!r} as the "
                                      "recipient", url=added.url,
                                      hint="check [[players]] nick in game.toml")
                data = dict(form2.fields)
                data.update({"subject": subject, "message": text, "post": "Submit"})
                data.pop("username_list", None)
                self.client.pause(self.form_age)
            except FetchError as e:      # nothing was sent yet
                last = e
                self.client.pause(min(30.0, 2.0 * 2 ** attempt))
                continue
            try:
                answer = self.client.post(form2.action, data)
            except FetchError as e:      # sent, perhaps: look in the sentbox first
                last = e
                self.client.pause(min(30.0, 2.0 * 2 ** attempt))
                found = _look(lambda _: self._sent(nick, subject, text), data, what)
                if found is not None:
                    return found
                continue
            except PostRefused as e:
                if not e.transient:
                    raise
                last = e
                continue
            link = answer.headers.get("Location") or _refresh_url(answer)
            if link and "mode=view" in link:
                return Posted(_post_id(link), link)
            err = classify_refusal(answer, what=what)
            if err is None:
                raise PostRefused("unknown", f"the board did not confirm {what} "
                                  f"(HTTP {answer.status}): {board_message(answer.body)[:200]}",
                                  url=answer.url, hint="look in the PM outbox; run publish again")
            if not err.transient:
                raise err
            last = err
            if err.kind == "flood":
                self.client.pause(self.flood_wait)
        assert last is not None
        raise last

    def _sent(self, nick: str, subject: str, text: str) -> Posted | None:
        mid = find_pm(self, nick, subject, text)
        return Posted(mid, self.client.url(f"ucp.php?i=pm&mode=view&p={mid}")) if mid else None

    def sent_pms(self) -> list[tuple[int, str, str]]:
        """(message id, recipient, subject) of the account's outbox and sentbox."""
        self.ensure_login()
        out = []
        for folder in ("outbox", "sentbox"):
            page = self.client.get(f"ucp.php?i=pm&folder={folder}")
            doc = html_doc(page.body)
            if doc is None:
                continue
            for row in doc.xpath("//ul[contains(@class,'topiclist')]/li[contains(@class,'row')]"):
                links = row.xpath(".//a[contains(@href,'mode=view')]")
                if not links:
                    continue
                mid = _post_id(links[0].get("href", ""))
                subject = " ".join(links[0].text_content().split())
                to = " ".join(" ".join(a.text_content().split()) for a in
                              row.xpath(".//a[contains(@class,'username')]"))
                if mid is not None:
                    out.append((mid, to, subject))
        return out

    # -- reading back own posts --------------------------------------------------------------
    def own_posts(self, topic_id: int, *, limit: int = 30,
                  first: bool = False) -> list[tuple[int, str]]:
        """(post id, text) of this account's posts on the first page of a topic (``first``)
        or on its last two pages, newest first."""
        self.ensure_login()

        def read(url: str):
            try:
                page = self.client.get_page(url)
                return parse_topic_page(page.body, url=page.url, fetched_at=page.fetched_at,
                                        page=page.page)
            except ForumError:
                return None
        pages = [read(f"viewtopic.php?t={topic_id}")]
        head = pages[0]
        if head is not None and not first and head.page_count > 1 and head.posts:
            per_page = len(head.posts)
            for n in (head.page_count - 1, head.page_count):
                if n > 1:
                    pages.append(read(f"viewtopic.php?t={topic_id}&start={(n - 1) * per_page}"))
        me = (self.client.username or "").casefold()
        seen: dict[int, str] = {}
        for parsed in pages:
            for p in (parsed.posts if parsed is not None else ()):
                if (p.author or "").casefold() == me:
                    seen[p.post_id] = p.text
        return sorted(seen.items(), reverse=True)[:limit]

    # -- moderation --------------------------------------------------------------------------
    def lock(self, topic_id: int) -> None:
        """Lock a topic with the quick-mod tool and its confirm form (moderators only).

        Only the board's own controls count (a player's link inside a post never does): the
        lock URL is built here for ``topic_id``, and the confirm form must be the board's
        (same host), about that one topic and the lock, before it is sent."""
        self.ensure_login()
        page = self.client.get(f"viewtopic.php?t={topic_id}")
        doc = html_doc(page.body)
        tools = board_tools(doc, action="lock") if doc is not None else []
        if not tools:
            if doc is not None and board_tools(doc, action="unlock"):
                return    # already locked
            raise PostRefused("no-permission", f"no lock tool on topic {topic_id} for "
                              f"{self.client.username!r}", url=page.url,
                              hint="lock_day_topic needs a moderator account: give it moderator "
                                   "rights or set lock_day_topic = false")
        what = f"locking topic {topic_id}"
        confirm_page = self.client.get(f"mcp.php?t={topic_id}&quickmod=1&action=lock")
        form = read_form(confirm_page, "confirm")
        if form is None:
            err = classify_refusal(confirm_page, what=what)
            raise err or PostRefused("no-form", "no confirm form for the lock",
                                     url=confirm_page.url, hint="lock the topic by hand")
        ids = [v for k, v in form.fields.items() if k.startswith("topic_id_list[")]
        target = query(form.action)
        if (not same_board(form.action, self.client.base_url)
                or not urlsplit(form.action).path.endswith("mcp.php")
                or form.fields.get("action") != "lock" or target.get("action") not in (None, "lock")
                or ids != [str(topic_id)] or target.get("t") not in (None, str(topic_id))):
            raise PostRefused("unknown", f"the confirm form is not about {what} (topics {ids}, "
                              f"action {form.fields.get('action')!r}); nothing was sent",
                              url=confirm_page.url, hint="lock the topic by hand")
        data = dict(form.fields)
        data["confirm"] = "Yes"
        answer = self.client.post(form.action, data)
        text = board_message(answer.body)
        if answer.status >= 400 or not re.search(r"locked|закрыт", text, re.I):
            raise PostRefused("unknown", f"the board did not confirm the lock: {text[:200]}",
                              url=answer.url, hint="lock the topic by hand")
