"""``FluxbbBoard``: forum/engine.py's ``Board`` for FluxBB 1.5 (the FluxBB_by_Visman fork
1.5.11, Russian by default), through the board's own forms.

It rides on ``ForumClient`` (the politeness gate, timeouts, size limits, retries of GETs) and
adds what this fork does its own way:

- **a browser's headers**: the fork's security addon refuses a login without ``Accept``,
  ``Accept-Language``, ``Accept-Encoding`` and ``Origin``, and takes a User-Agent without
  «Mozilla/…Gecko» for a bot (bots may not post): the client says «Mozilla/5.0 (compatible;
  Gecko) scraper-mod/…» (still naming itself);
- **login**: ``login.php``'s ``form#login`` (``req_username``, ``req_password``, the one-time
  ``form_key``) is refused when sent less than 3 s after it was served («Данные отправлены
  слишком быстро»): the client waits ``login_wait`` (4 s) on the form, and opens one login form
  at a time, so it never brings the arithmetic captcha on (three unused forms in 15 s do); a
  captcha shown all the same (other people logging in) is waited out, never answered;
- **forms**: each submit loads its form fresh (``csrf_hash``); the board answers with a
  «Переадресация» page whose refresh names the post (``viewtopic.php?pid=N#pN``): **posted**
  means that page named the id and the post's page shows it;
- **Merge Post**: a member's reply after his own last post is appended to it (no new id): the
  host's replies leave the form's «Соединить с предыдущим сообщением» box unticked (a
  moderator has it), so each of his posts stands alone; a host without it gets the merged
  post's id back;
- **times to the second** on every page (the viewer's zone: the host's profile's), and the
  topic's Atom feed ``extern.php?action=feed&tid=T&type=atom&show=50`` (UTC, to the second);
- **PMs are dialogs** («PMS New», ``pmsnew.php``): a PM here is one message of a dialog, its id
  the message's (``#pN`` of ``pmsnew.php?mdl=topic&pid=N``); the inbox is the messages others
  wrote in the account's dialogs.
"""

# long: one adapter for one engine (its forms, pages, feed and PM dialogs), as forum/smf/board.py
from __future__ import annotations

import logging
import os
import re
from datetime import datetime, tzinfo
from typing import Callable, cast
from urllib.parse import urljoin, urlsplit

from scraper_mod import __version__
from scraper_mod.forum.html import MOSCOW, _norm, _tc, parse_html
from scraper_mod.forum.pms import PmRowProblem, PmSummary, PrivateMessage
from scraper_mod.forum.posting import Posted, PostRefused, read_form, same_text

from ...errors import FetchError, ForumError, LoginRequiredError, ParseError
from ..client import PASSWORD_ENV, FetchResult, ForumClient
from ..feed import FeedEntry, parse_topic_feed
from ..merged import real_post_id
from ..model import TopicPage
from .links import PER_PAGE, fluxbb_forum_id, fluxbb_topic_id, fluxbb_topic_key
from .parse import (
    Dialog,
    dialog_marks,
    fluxbb_feed_post_id,
    page_error,
    parse_fluxbb_dialog,
    parse_fluxbb_dialog_list,
    parse_fluxbb_topic_page,
)

log = logging.getLogger(__name__)

USER_AGENT = (f"Mozilla/5.0 (compatible; Gecko) scraper-mod/{__version__} "
              "(+forum mafia host tool)")
BROWSER_HEADERS = {
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "Accept-Language": "ru-RU,ru;q=0.8,en-US;q=0.5,en;q=0.3",
    "Accept-Encoding": "gzip, deflate",
}
LOGIN_WAIT = 4.0        # the board refuses a login form sent < 3 whole seconds after it was served
CAPTCHA_WAIT = 20.0     # the captcha shows while 3 login forms of the last 15 s are unused
TRIES = 3

_RE_REFRESH = re.compile(r'<meta http-equiv="refresh" content="\d+;URL=([^"]*)"', re.I)
_RE_PID = re.compile(r"[?&]pid=(\d{1,12})")
_RE_TOO_FAST = re.compile(r"слишком быстро|too fast|trop rapidement", re.I)
_RE_CAPTCHA = re.compile(r'<input type="text" name="[^"]+" size="4" maxlength="4"')
_REFUSALS = [
    ("locked", re.compile(r"закрыт|closed|нет прав|permission", re.I),
     "тема закрыта или у аккаунта нет прав: откройте тему или дайте аккаунту права модератора",
     False),
    ("no-topic", re.compile(r"Неверный запрос|Bad request", re.I),
     "проверьте адрес темы или раздела в game.toml", False),
    ("to-self", re.compile(r"себе|yourself", re.I),
     "FluxBB не отправляет ЛС самому себе: оповещения ведущему — на другой ник "
     '([publish] alert_to) или почтой (alert_host = "mail")', False),
    ("no-recipient", re.compile(r"получател|адресат|не существует|не найден|does not exist|"
                                r"addressee|recipient", re.I),
     "ника нет среди участников форума: проверьте [[players]] nick в game.toml", False),
    ("flood", re.compile(r"подождите|wait|секунд", re.I),
     "форум просит подождать; отправка повторится", True),
    ("form-invalid", re.compile(r"csrf|устарел|просрочен|expired", re.I),
     "форма устарела; отправка повторится с новой", True),
    ("too-long", re.compile(r"длинн|too long", re.I),
     "текст длиннее, чем позволяет форум: сократите его в out/day-N/", False),
]


def _message(body: bytes) -> str:
    """The board's complaint on an answer: the form's error list, or its message box."""
    try:
        doc = parse_html(body)
    except ForumError:
        return ""
    for xp in ("//div[@id='posterror']//li", "//div[@id='msg']//div[contains(@class,'inbox')]",
               "//div[@id='errorbox']"):
        texts = [_norm(_tc(el)) for el in doc.xpath(xp)]
        if any(texts):
            return re.sub(r"\s*(?:Назад|Go back|Retour)$", "", " ".join(t for t in texts if t))
    return ""


class FluxbbBoard:
    """A FluxBB 1.5 (Visman) board through ``client``'s session (see the module docstring)."""

    engine = "fluxbb"

    def __init__(self, client: ForumClient, *, password: str | None = None,
                 board_tz: tzinfo = MOSCOW, login_wait: float = LOGIN_WAIT,
                 captcha_wait: float = CAPTCHA_WAIT, tries: int = TRIES) -> None:
        self.client = client
        self.board_tz = board_tz
        self.login_wait = login_wait
        self.captcha_wait = captcha_wait
        self.tries = tries
        self.__password = password if password is not None else os.environ.get(PASSWORD_ENV)
        self._logged_in = False
        self._pms_ok = False
        # dialog -> (its row in the list when it was read, its messages): a game opens its
        # board once, so an unchanged dialog is not opened again while the game runs
        self._dialogs: dict[int, tuple[str, list[PrivateMessage]]] = {}
        self._user_id: int | None = None
        self._zone_checked: set[int | None] = set()   # viewers (user id, None: a guest)
        headers = client.session.headers
        headers["User-Agent"] = USER_AGENT
        headers.update(BROWSER_HEADERS)
        parts = urlsplit(client.base_url)
        headers["Origin"] = f"{parts.scheme}://{parts.netloc}"

    def __repr__(self) -> str:
        return f"FluxbbBoard({self.client.base_url!r}, user={self.client.username!r})"

    # -- addresses ---------------------------------------------------------------------------
    def url(self, path: str) -> str:
        return self.client.base_url + path

    def topic_url(self, topic_id: int, start: int = 0) -> str:
        page = int(start) // PER_PAGE + 1
        return self.url(f"viewtopic.php?id={int(topic_id)}" + (f"&p={page}" if page > 1 else ""))

    def feed_url(self, topic_id: int) -> str:
        return self.url(f"extern.php?action=feed&tid={int(topic_id)}&type=atom&show=50")

    def topic_key(self, url: str) -> str:
        return fluxbb_topic_key(url)

    def topic_id_of(self, url: str) -> int | None:
        return fluxbb_topic_id(url)

    def forum_id_of(self, url: str) -> int | None:
        return fluxbb_forum_id(url)

    def forum_url(self, forum_id: int) -> str:
        return self.url(f"viewforum.php?id={int(forum_id)}")

    def post_url(self, post_id: int) -> str:
        """A post's permanent link (a merged piece's id links its post: forum/merged.py)."""
        pid = real_post_id(int(post_id))
        return self.url(f"viewtopic.php?pid={pid}#p{pid}")

    def pm_url(self, msg_id: int) -> str:
        return self.url(f"pmsnew.php?mdl=topic&pid={int(msg_id)}#p{int(msg_id)}")

    # -- reading -----------------------------------------------------------------------------
    def _page(self, url: str) -> FetchResult:
        res = self.client.get(url)
        if res.status >= 500:
            raise FetchError(f"HTTP {res.status}", url=res.url)
        return res

    def _parse(self, res: FetchResult) -> TopicPage:
        return parse_fluxbb_topic_page(res.body, url=res.url, fetched_at=res.fetched_at,
                                       board_tz=self.board_tz)

    def read_topic_page(self, topic_id: int, start: int = 0) -> TopicPage:
        return self.fetch_topic_page(self.topic_url(topic_id, start))[1]

    def read_topic(self, topic_id: int) -> list[TopicPage]:
        pages = [self.read_topic_page(topic_id)]
        for n in range(2, pages[0].page_count + 1):
            pages.append(self.read_topic_page(topic_id, (n - 1) * PER_PAGE))
        return pages

    def feed_entries(self, topic_id: int) -> list[FeedEntry]:
        return self.parse_feed(self._page(self.feed_url(topic_id)), topic_id)

    def parse_feed(self, res: FetchResult, topic_id: int) -> list[FeedEntry]:
        return parse_topic_feed(res.body, url=res.url, post_id=fluxbb_feed_post_id)

    def page_url(self, topic_url: str, start: int) -> str:
        key = fluxbb_topic_key(topic_url)
        page = int(start) // PER_PAGE + 1
        return key + (f"&p={page}" if page > 1 else "")

    def fetch_topic_page(self, url: str, *, on_fetch: Callable[[FetchResult], None] | None
                         = None) -> tuple[FetchResult, TopicPage]:
        for attempt in (1, 2):
            res = self._page(self.client.url(url))
            if on_fetch:
                on_fetch(res)
            try:
                page = self._parse(res)
                # the pages show the viewer's zone: a guest's, then (once the PM source or a
                # post logged the session in) the account's
                viewer = self._who(res.body)
                if viewer not in self._zone_checked and page.posts and \
                        page.topic_id is not None:
                    self._check_zone(page, viewer)
                return res, page
            except LoginRequiredError:
                if attempt == 2 or not self.client.username or not self.__password:
                    raise
                self._logged_in = False
                self.login()        # a members-only board: log in once, read again
        raise AssertionError("unreachable")

    def _check_zone(self, page: TopicPage, viewer: int | None) -> None:
        """Once: the pages' times (the viewer's zone: the account's profile, the board's for
        a guest) against the feed's (UTC). A zone other than the game's would move every
        vote by hours: one line naming the fix, never a silent shift."""
        try:
            entries = {e.post_id: e for e in self.feed_entries(cast(int, page.topic_id))}
        except ForumError as e:         # no feed: nothing to compare with
            log.info("FluxBB feed not read for the zone check: %s", e)
            self._zone_checked.add(viewer)
            return
        for post in page.posts:
            entry = entries.get(post.post_id)
            if entry is None or (entry.author and entry.author != post.author):
                continue
            self._zone_checked.add(viewer)
            delta = (post.posted_at - entry.published).total_seconds()
            if abs(delta) >= 60:
                who = (f"аккаунту {self.client.username!r}" if viewer is not None
                       else "гостям")
                fix = ("поставьте в профиле аккаунта на форуме (Профиль → Личное → Часовой "
                       "пояс) часовой пояс игры" if viewer is not None else
                       "поставьте часовой пояс форума (Админка → Опции) равным поясу игры или "
                       "читайте форум под аккаунтом ([forum] username) с поясом игры в профиле")
                raise ForumError(
                    f"время на страницах форума расходится с его лентой на {delta / 3600:+.1f} "
                    f"ч: форум показывает {who} другой часовой пояс, чем пояс игры",
                    url=page.url, hint=f"{fix}, или задайте [game] timezone поясу форума")
            return

    def post_page_url(self, key: str, post_id: int) -> str:
        return urljoin(key, f"viewtopic.php?pid={int(post_id)}")

    def poll_feed_url(self, key: str, topic_id: int, last_page: tuple[bytes, str, str]
                      ) -> str | None:
        return urljoin(key, f"extern.php?action=feed&tid={int(topic_id)}&type=atom&show=50")

    def forum_topics(self, forum_url: str) -> list[tuple[int, str, str]]:
        res = self._page(self.client.url(forum_url))
        doc = parse_html(res.body, res.url)
        found: list[tuple[int, str, str]] = []
        for a in doc.xpath("//div[@id='vf']//div[contains(@class,'tclcon')]"
                           "//a[contains(@href,'viewtopic.php?id=')]"):
            tid = fluxbb_topic_id(urljoin(res.url, a.get("href") or ""))
            if tid is not None and tid not in {t for t, _, _ in found}:
                found.append((tid, _norm(_tc(a)), self.topic_url(tid)))
        if not found and not doc.xpath("//div[@id='vf']"):
            err = page_error(doc, url=res.url)
            raise err or ForumError("не список тем FluxBB", url=res.url,
                                    hint="проверьте адрес раздела (viewforum.php?id=N)")
        return found

    # -- the account -------------------------------------------------------------------------
    def ensure_login(self) -> None:
        if not self._logged_in:
            self.login()

    def _who(self, body: bytes) -> int | None:
        m = re.search(rb'href="login\.php\?action=out&amp;id=(\d+)&amp;csrf_hash=', body)
        return int(m.group(1)) if m else None

    def login(self) -> None:
        if not self.client.username or not self.__password:
            raise LoginRequiredError("для записи на форум нужны имя и пароль аккаунта",
                                     url=self.url("login.php"),
                                     hint=f"задайте [forum] username и переменную окружения "
                                          f"{PASSWORD_ENV}")
        for _ in range(self.tries + 2):
            page = self._page(self.url("login.php"))
            uid = self._who(page.body)
            if uid is not None:
                self._logged_in, self._user_id = True, uid
                return      # the session's cookie is logged in already
            if _RE_CAPTCHA.search(page.text):
                log.info("FluxBB shows its login captcha (other logins in flight): waiting")
                self.client.pause(self.captcha_wait)
                continue
            form = read_form(page, "login")
            if form is None:
                raise LoginRequiredError("на странице входа FluxBB нет формы входа",
                                         url=page.url, hint="проверьте [forum] url и engine")
            form.fields.update({"req_username": self.client.username,
                                "req_password": self.__password, "save_pass": "1",
                                "login": "Войти"})
            self.client.pause(self.login_wait)      # the board's 3 s rule
            answer = self.client.post(form.action, form.fields)
            target = _RE_REFRESH.search(answer.text)
            probe = self._page(urljoin(answer.url, target.group(1)) if target
                               else self.url("index.php"))
            uid = self._who(probe.body) or self._who(answer.body)
            if uid is not None:
                self._logged_in, self._user_id = True, uid
                self.client.logins += 1
                log.info("logged in to %s as %s", self.client.base_url, self.client.username)
                return
            text = _message(answer.body)
            if _RE_TOO_FAST.search(text):
                continue
            raise LoginRequiredError(f"FluxBB не принял вход как {self.client.username!r}: "
                                     f"{text or 'причина не показана'}", url=form.action,
                                     hint=f"проверьте [forum] username и {PASSWORD_ENV}")
        raise LoginRequiredError("FluxBB так и не принял вход (слишком быстро или капча)",
                                 url=self.url("login.php"), hint="запустите ещё раз позже")

    def logout(self) -> bool:
        if not self._logged_in:
            self.client.session.cookies.clear()
            return False
        self._logged_in = False
        try:
            page = self._page(self.url("index.php"))
            m = re.search(r'href="(login\.php\?action=out&amp;id=\d+&amp;csrf_hash=[0-9a-f]+)"',
                          page.text)
            if m:
                self.client.get(self.url(m.group(1).replace("&amp;", "&")))
        except FetchError as e:
            log.info("logging out of %s failed: %s", self.client.base_url, e)
            return False
        finally:
            self.client.session.cookies.clear()
        return True

    # -- the form round trip -----------------------------------------------------------------
    def _refusal(self, answer: FetchResult, what: str) -> PostRefused:
        text = _message(answer.body) or f"HTTP {answer.status}, без сообщения"
        for kind, rx, hint, transient in _REFUSALS:
            if rx.search(text):
                return PostRefused(kind, f"FluxBB отказал ({what}): {text[:200]}",
                                   url=answer.url, hint=hint, transient=transient)
        return PostRefused("unknown", f"FluxBB не подтвердил {what}: {text[:200]}",
                           url=answer.url, hint="посмотрите на форуме; запустите publish ещё раз")

    def _submit(self, path: str, form_id: str, fields: dict[str, str], what: str, *,
                drop: tuple[str, ...] = ()) -> str:
        """Load the form at ``path`` fresh, fill ``fields``, submit; the URL the board's
        «Переадресация» page names."""
        self.ensure_login()
        last: PostRefused | None = None
        for attempt in range(self.tries):
            page = self._page(self.url(path))
            form = read_form(page, form_id)
            if form is None:
                err = page_error(parse_html(page.body, page.url), url=page.url)
                if isinstance(err, LoginRequiredError) and attempt == 0 and \
                        self._who(page.body) is None:
                    self._logged_in = False     # the session ended: log in again, once
                    self.login()
                    continue
                raise self._refusal(page, what)
            data = {k: v for k, v in {**form.fields, **fields}.items() if k not in drop}
            data["submit"] = "Отправить"
            answer = self.client.post(form.action, data)
            target = _RE_REFRESH.search(answer.text)
            if target:
                return urljoin(answer.url, target.group(1).replace("&amp;", "&"))
            err = self._refusal(answer, what)
            if not err.transient:
                raise err
            last = err
            self.client.pause(2.0)
        assert last is not None
        raise last

    def _shown(self, target: str, what: str) -> tuple[int, TopicPage]:
        """The post id the redirect names, checked on the page it names."""
        m = _RE_PID.search(target)
        if not m:
            raise PostRefused("unknown", f"ответ FluxBB на {what} не называет сообщение",
                              url=target, hint="посмотрите на форуме; запустите publish ещё раз")
        pid = int(m.group(1))
        page = self.fetch_topic_page(self.url(f"viewtopic.php?pid={pid}"))[1]
        if not any(p.post_id == pid for p in page.posts):
            raise PostRefused("unknown", f"FluxBB принял {what}, но сообщения {pid} не видно",
                              url=target, hint="посмотрите на форуме; запустите publish ещё раз")
        return pid, page

    # -- writing -----------------------------------------------------------------------------
    def reply(self, topic_id: int, text: str) -> Posted:
        what = f"ответ в теме {topic_id}"
        target = self._submit(f"post.php?tid={int(topic_id)}", "post", {"req_message": text},
                              what, drop=("merge",))
        pid, _ = self._shown(target, what)
        return Posted(pid, self.post_url(pid))

    def new_topic(self, forum_id: int, subject: str, text: str) -> tuple[int | None, Posted]:
        what = f"новая тема в разделе {forum_id}"
        target = self._submit(f"post.php?fid={int(forum_id)}", "post",
                              {"req_subject": subject, "req_message": text}, what,
                              drop=("merge",))
        pid, page = self._shown(target, what)
        return page.topic_id, Posted(pid, self.post_url(pid))

    def edit(self, post_id: int, text: str, *, reason: str = "") -> Posted:
        what = f"правка сообщения {post_id}"
        target = self._submit(f"edit.php?id={int(post_id)}", "edit", {"req_message": text},
                              what)
        pid, _ = self._shown(target, what)
        return Posted(pid, self.post_url(pid))

    def lock(self, topic_id: int) -> None:
        self.ensure_login()
        page = self._page(self.topic_url(topic_id))
        doc = parse_html(page.body, page.url)
        err = page_error(doc, url=page.url)
        if err is not None:
            raise err
        if doc.xpath(f"//a[contains(@href,'moderate.php') and contains(@href,'open={int(topic_id)}')]"):
            return
        links = doc.xpath(f"//a[contains(@href,'moderate.php') and "
                          f"contains(@href,'close={int(topic_id)}&')]/@href")
        if not links:
            raise PostRefused("no-permission", f"у {self.client.username!r} нет кнопки "
                              f"«Закрыть тему» в теме {topic_id}", url=page.url,
                              hint="lock_day_topic нужен аккаунт модератора")
        answer = self.client.get(urljoin(page.url, links[0]))
        if not self.read_topic_page(topic_id).locked:
            raise self._refusal(answer, f"закрытие темы {topic_id}")

    # -- PMs: the dialogs --------------------------------------------------------------------
    def _dialog_list(self) -> list[PmSummary]:
        return self._dialog_rows()[0]

    def _dialog_rows(self) -> tuple[list[PmSummary], dict[int, str]]:
        """The dialogs (``PmSummary`` rows whose id is the dialog's) and each row's text."""
        self.ensure_login()
        res = self._page(self.url("pmsnew.php?mdl=list"))
        doc = parse_html(res.body, res.url)
        if res.status in (403, 404) or page_error(doc, url=res.url) is not None:
            why = _message(res.body) or f"HTTP {res.status}"
            raise PostRefused("pm-off", f"личные сообщения форума недоступны аккаунту "
                              f"{self.client.username!r}: {why}", url=res.url,
                              hint="включите ЛС на форуме (Админка → Плагины → PMS New → "
                                   "«Включить ЛС») и группе аккаунта, или задайте в game.toml "
                                   '[moves] source = "maildir", "imap" или "queue"')
        return parse_fluxbb_dialog_list(res.body, url=res.url, fetched_at=res.fetched_at,
                                        board_tz=self.board_tz, me=self.client.username or "",
                                        ), dialog_marks(res.body)

    def pms_available(self) -> str | None:
        """None when the account can use the board's PMs, else why not (one line); once they
        were found usable, this board does not ask again (a game opens its board once)."""
        if self._pms_ok:
            return None
        try:
            self._dialog_list()
        except ForumError as e:
            return str(e)
        self._pms_ok = True
        return None

    def _dialog(self, dialog_id: int) -> tuple[FetchResult, Dialog]:
        res = self._page(self.url(f"pmsnew.php?mdl=topic&tid={int(dialog_id)}"))
        return res, parse_fluxbb_dialog(res.body, url=res.url, fetched_at=res.fetched_at,
                                        board_tz=self.board_tz, dialog_id=dialog_id)

    def _messages(self) -> list[tuple[PmSummary, PrivateMessage]]:
        """Every message of every dialog; a dialog whose row in the list reads as when it
        was last opened (by this board) is not opened again."""
        rows, marks = self._dialog_rows()
        out: list[tuple[PmSummary, PrivateMessage]] = []
        for row in rows:
            cached = self._dialogs.get(row.msg_id)
            mark = marks.get(row.msg_id, "")
            if cached is not None and mark and cached[0] == mark:
                messages = cached[1]
            else:
                messages = self._dialog(row.msg_id)[1].messages
                self._dialogs[row.msg_id] = (mark, messages)
            out.extend((row, m) for m in messages)
        return out

    def _me(self, author: str) -> bool:
        return author.casefold() == (self.client.username or "").casefold()

    def pm_rows(self, folder: str = "inbox") -> tuple[list[PmSummary], list[PmRowProblem]]:
        """Every message others wrote in the account's dialogs (``folder`` "sent": the
        account's own), each a row whose id is the message's."""
        mine = folder == "sent"
        rows = []
        for row, m in self._messages():
            if self._me(m.author) != mine:
                continue
            rows.append(PmSummary(msg_id=m.msg_id, subject=row.subject,
                                  author=row.author if mine else m.author,
                                  author_id=m.author_id, sent_at=m.sent_at, earliest=m.earliest,
                                  latest=m.latest, precision=m.precision, unread=row.unread,
                                  url=self.pm_url(m.msg_id)))
        return rows, []

    def pm_inbox(self) -> list[PmSummary]:
        return self.pm_rows()[0]

    def fetch_pm(self, msg_id: int) -> FetchResult:
        """The dialog page that shows message ``msg_id`` (stored whole, as fetched)."""
        self.ensure_login()
        return self._page(self.url(f"pmsnew.php?mdl=topic&pid={int(msg_id)}"))

    def parse_pm(self, body: bytes, *, msg_id: int, url: str,
                 fetched_at: datetime | None) -> PrivateMessage:
        return parse_fluxbb_pm(body, msg_id=msg_id, url=url, fetched_at=fetched_at,
                               board_tz=self.board_tz)

    def read_pm(self, msg_id: int) -> PrivateMessage:
        res = self.fetch_pm(msg_id)
        return self.parse_pm(res.body, msg_id=msg_id, url=res.url, fetched_at=res.fetched_at)

    def send_pm(self, nick: str, subject: str, text: str, *,
                member_id: int | None = None) -> Posted:
        what = f"ЛС для {nick!r}"
        # with member_id, to that member whatever his name now: the board's own «ЛС» link
        # (pmsnew.php?mdl=post&uid=U) fills the addressee in (R12.5)
        fields = {"req_subject": subject, "req_message": text}
        if member_id is None:
            fields["req_addressee"] = nick
        path = "pmsnew.php?mdl=post" + (f"&uid={int(member_id)}" if member_id is not None
                                        else "")
        target = self._submit(path, "post", fields, what)
        m = _RE_PID.search(target)
        if not m:
            raise PostRefused("unknown", f"ответ FluxBB на {what} не называет сообщение",
                              url=target, hint="посмотрите в ЛС; запустите publish ещё раз")
        mid = int(m.group(1))
        return Posted(mid, self.pm_url(mid))

    def sent_pms(self) -> list[tuple[int, str, str]]:
        rows, _ = self.pm_rows("sent")
        return [(r.msg_id, r.author, r.subject) for r in rows]

    def find_pm(self, nick: str, subject: str, text: str) -> int | None:
        want = nick.casefold()
        for row, m in sorted(self._messages(), key=lambda x: x[1].msg_id, reverse=True):
            if (self._me(m.author) and row.subject == subject
                    and row.author.casefold() == want and same_text(text, m.text)):
                return m.msg_id
        return None

    # -- after a crash -----------------------------------------------------------------------
    def own_posts(self, topic_id: int, *, limit: int = 30,
                  first: bool = False) -> list[tuple[int, str]]:
        self.ensure_login()
        head = self.read_topic_page(topic_id)
        pages = [head]
        if not first:
            for n in (head.page_count - 1, head.page_count):
                if n > 1:
                    pages.append(self.read_topic_page(topic_id, (n - 1) * PER_PAGE))
        seen: dict[int, str] = {}
        for page in pages:
            for p in page.posts:
                if self._me(p.author):
                    seen[p.post_id] = p.text
        return sorted(seen.items(), reverse=True)[:limit]

    def find_reply(self, topic_id: int, text: str) -> int | None:
        self.ensure_login()
        head = self.read_topic_page(topic_id)
        pages = [head] + [self.read_topic_page(topic_id, (n - 1) * PER_PAGE)
                          for n in (head.page_count - 1, head.page_count) if n > 1]
        for p in sorted((p for pg in pages for p in pg.posts), key=lambda p: -p.post_id):
            if not self._me(p.author):
                continue
            # a reply the board merged into the account's previous post is one of its parts
            if same_text(text, p.text) or any(same_text(text, part.text) for part in p.parts):
                return p.post_id
        return None

    def find_topic(self, forum_id: int, subject: str, text: str) -> tuple[int, int] | None:
        self.ensure_login()
        for tid in sorted({t for t, title, _ in self.forum_topics(self.forum_url(forum_id))
                           if title == subject}, reverse=True):
            try:
                first = self.read_topic_page(tid).posts
            except ForumError:
                continue
            if first and self._me(first[0].author) and (
                    same_text(text, first[0].text)
                    or any(same_text(text, part.text) for part in first[0].parts)):
                return tid, first[0].post_id
        return None


def parse_fluxbb_pm(body: bytes, *, msg_id: int, url: str, fetched_at: datetime | None,
                    board_tz: tzinfo = MOSCOW) -> PrivateMessage:
    """Message ``msg_id`` of a stored dialog page (``pmsnew.php?mdl=topic&pid=N``)."""
    dialog = parse_fluxbb_dialog(body, url=url, fetched_at=fetched_at, board_tz=board_tz)
    for m in dialog.messages:
        if m.msg_id == msg_id:
            return m
    raise ParseError(f"ЛС {msg_id} нет на странице диалога", url=url or None)
