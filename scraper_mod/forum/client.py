"""HTTP client for a phpBB board: polite, patient, and careful with the password.

``ForumClient`` wraps an injected ``requests.Session`` (tests pass one driven by
``responses``; the demo and the end-to-end tests talk to ``LocalBoard`` on 127.0.0.1):

- every request carries the User-Agent ``scraper-mod/<version> (+forum mafia host tool)``
  and a timeout for each read;
- a page is read as it streams in, within limits (the constants below): at most
  ``max_page_size`` bytes (past that it stops reading: a 1 GiB page costs 8 MiB, not 1 GiB),
  each request within ``request_time_limit`` seconds of wall clock, body included (a board
  sending a byte a second never gets past it: the request counts as timed out and is
  retried), and each page, retries and a login included, within ``page_time_limit``;
- redirects are followed by hand (10 at most): one to another host is logged, and refused
  while logged in, so the session cookie never leaves the board;
- connection errors, 5xx and 429 are retried with exponential back-off (1, 2, 4, 8... s),
  honouring ``Retry-After`` in seconds or as an HTTP date;
- consecutive requests are spaced by at least ``min_delay`` seconds;
- ``sleep`` and ``monotonic`` are injected, so tests never wait;
- ``FetchResult.fetched_at`` is the board's clock (the response's ``Date`` header), which is
  what relative post dates («35 минут назад») are counted from; without the header, the
  injected ``now()``;
- ``login()`` submits the board's own login form (``ucp.php?mode=login``) with its hidden
  fields (``form_token``, ``creation_time``, ``sid``, ``redirect``); ``get_page()`` logs in
  again, once per request, when a page shows the login form (an expired session).

The password (argument or ``SCRAPER_MOD_FORUM_PASSWORD``) is never logged, never put into an
exception message and never shown by ``repr``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import time
from datetime import datetime, timezone
from typing import Any, Callable, Iterator
from urllib.parse import urljoin, urlsplit

import requests
import urllib3

from .. import __version__
from ..errors import (
    FetchError,
    ForumError,
    LoginRequiredError,
    size_text,
)
from .fetched import FetchResult as FetchResult
from .fetched import LoginForm as LoginForm
from .fetched import find_login_form, login_error_text, page_error
from .httpdates import parse_http_date, retry_after_seconds
from .session import register_login, scrub_url, session_id

log = logging.getLogger(__name__)

USER_AGENT = f"scraper-mod/{__version__} (+forum mafia host tool)"
PASSWORD_ENV = "SCRAPER_MOD_FORUM_PASSWORD"

#: a page's limits (issue 18; game.toml ``[forum] max_page_size``, ``request_time_limit``,
#: ``page_time_limit``): the bytes read of one page (past them, an error naming the URL), the
#: seconds of one request with its body (then retried), and of one page with its retries,
#: waits and a login
MAX_PAGE_SIZE = 8 * 1024 * 1024
REQUEST_TIME_LIMIT = 60.0
PAGE_TIME_LIMIT = 180.0

#: redirects followed for one request at most
MAX_REDIRECTS = 10


class RequestTooSlow(requests.Timeout):
    """A request still running at ``request_time_limit`` (wall clock, body included)."""


# Network failures worth another try; anything else (a bad URL, too many redirects) is not.
# (urllib3's own errors come from reading a streamed body.)
_RETRYABLE_EXC = (requests.ConnectionError, requests.Timeout,
                  requests.exceptions.ChunkedEncodingError,
                  requests.exceptions.ContentDecodingError,
                  urllib3.exceptions.HTTPError)
_RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504, 520, 521, 522, 523, 524})


_ERRNO_RE = re.compile(r"\[Errno -?\d+\] [^'\")]+|Read timed out|Connection reset by peer|"
                       r"Remote end closed connection without response|"
                       r"Connection aborted|IncompleteRead")


def _reason(e: BaseException) -> str:
    """A short reason for a network error (``ConnectionError: [Errno 111] Connection refused``)."""
    if isinstance(e, RequestTooSlow):
        return str(e)
    m = _ERRNO_RE.search(str(e))
    return f"{type(e).__name__}: {m.group(0).strip()}" if m else type(e).__name__


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


# -- the client ----------------------------------------------------------------------------

def _one_page(method):
    """Run a ``ForumClient`` method under one page time limit (``page_time_limit``): every
    request it makes, a login included, shares the page's deadline."""
    @functools.wraps(method)
    def wrapper(self: "ForumClient", *args, **kwargs):
        if self._page_deadline is not None:
            return method(self, *args, **kwargs)
        self._page_deadline = self._monotonic() + self.page_time_limit
        try:
            return method(self, *args, **kwargs)
        finally:
            self._page_deadline = None
    return wrapper


class ForumClient:
    """A polite HTTP client for one phpBB board (see the module docstring)."""

    def __init__(self, session: requests.Session | None = None, *, base_url: str,
                 username: str | None = None, password: str | None = None,
                 min_delay: float = 1.0, full_scan_delay: float | None = None,
                 timeout: float = 30, retries: int = 4,
                 backoff: float = 1.0, max_backoff: float = 60.0,
                 max_retry_after: float = 300.0,
                 max_page_size: int = MAX_PAGE_SIZE,
                 request_time_limit: float = REQUEST_TIME_LIMIT,
                 page_time_limit: float = PAGE_TIME_LIMIT,
                 sleep: Callable[[float], None] = time.sleep,
                 monotonic: Callable[[], float] = time.monotonic,
                 now: Callable[[], datetime] = _utcnow, gate: Any = None) -> None:
        if not base_url:
            raise ForumError("no board URL given", hint="set [forum] url in game.toml")
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ForumError(f"not an http(s) URL: {base_url!r}",
                             hint="set [forum] url to the board root, e.g. https://forum.example.org/")
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        self.session = session if session is not None else requests.Session()
        self.session.headers["User-Agent"] = USER_AGENT
        if parts.hostname in ("127.0.0.1", "localhost", "::1"):
            # a board on this machine (LocalBoard, the demo) never goes through HTTP_PROXY
            self.session.trust_env = False
        self.username = username
        self.__password = password if password is not None else os.environ.get(PASSWORD_ENV)
        self.min_delay = float(min_delay)
        # the once-a-day full re-scan at the deadline may be paced faster than the day's polls,
        # never slower (a board read with min_delay = 0 is read so at the deadline too)
        self.full_scan_delay = self.min_delay if full_scan_delay is None else min(
            float(full_scan_delay), self.min_delay)
        self.timeout = timeout
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.max_retry_after = float(max_retry_after)
        self.max_page_size = int(max_page_size)
        self.request_time_limit = float(request_time_limit)
        self.page_time_limit = float(page_time_limit)
        self._page_deadline: float | None = None   # get_page's, over all its requests
        self._sleep = sleep
        self._monotonic = monotonic
        self._now = now
        self._last_request: float | None = None
        # the board's gate (daemon/boards.py), shared with other games on the same board:
        # one request in flight per board, paced across all of them
        self.gate = gate
        self.requests = 0          # HTTP requests sent (each retry and login step counts)
        self.logins = 0            # successful logins
        # the board's refusal of this account's login: never tried again by this client (a
        # wrong password tried once per PM makes phpBB ask for a captcha and lock the account)
        self.login_refused: LoginRequiredError | None = None
        self.slept: list[float] = []  # every wait, for reports and tests

    def __repr__(self) -> str:
        return f"ForumClient(base_url={self.base_url!r}, username={self.username!r})"

    @property
    def can_login(self) -> bool:
        """True when a username and a password are configured."""
        return bool(self.username) and bool(self.__password)

    def url(self, url: str) -> str:
        """An absolute URL on the board (relative ones are taken from the board root)."""
        return urljoin(self.base_url, url)

    # -- low level -----------------------------------------------------------------------
    @contextlib.contextmanager
    def paced(self, min_delay: float) -> Iterator[ForumClient]:
        """Temporarily space requests by ``min_delay`` seconds (the deadline's full re-scan)."""
        saved = self.min_delay
        self.min_delay = float(min_delay)
        try:
            yield self
        finally:
            self.min_delay = saved

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self.slept.append(seconds)
            self._sleep(seconds)

    def _pace(self) -> None:
        if self._last_request is not None and self.min_delay > 0:
            gap = self._monotonic() - self._last_request
            if gap < self.min_delay:
                self._wait(self.min_delay - gap)

    def _backoff_delay(self, attempt: int) -> float:
        return min(self.max_backoff, self.backoff * (2 ** attempt))

    def _request(self, method: str, url: str, *, data: dict | None = None,
                 allow_redirects: bool = True) -> FetchResult:
        url = self.url(url)
        shown = scrub_url(url)    # logs and errors never carry the session id
        last_problem = ""
        page_deadline = (self._page_deadline if self._page_deadline is not None
                         else self._monotonic() + self.page_time_limit)
        for attempt in range(self.retries + 1):
            self._pace()
            if self._monotonic() >= page_deadline:
                raise self._page_too_slow(shown, last_problem)
            requested_at = self._now()
            self.requests += 1
            # the page's time left, taken before the board's gate: waiting for other games'
            # turns (politeness) is not the board being slow
            within = page_deadline - self._monotonic()
            try:
                with (self.gate.turn(self.min_delay) if self.gate is not None
                      else contextlib.nullcontext()):
                    resp, body = self._send(method, url, data=data, shown=shown,
                                            allow_redirects=allow_redirects, within=within)
            except _RETRYABLE_EXC as e:
                self._last_request = self._monotonic()
                last_problem = _reason(e)
                delay = self._backoff_delay(attempt)
                log.warning("%s %s failed (%s); attempt %d of %d", method, shown, last_problem,
                            attempt + 1, self.retries + 1)
                if attempt < self.retries:
                    if self._monotonic() + delay >= page_deadline:
                        raise self._page_too_slow(shown, last_problem)
                    self._wait(delay)
                continue
            except requests.RequestException as e:
                raise FetchError(f"request failed: {type(e).__name__}", url=shown,
                                 hint="check the URL in game.toml") from None
            self._last_request = self._monotonic()
            board_date = parse_http_date(resp.headers.get("Date"))
            result = FetchResult(url=resp.url or url, status=resp.status_code, body=body,
                                 fetched_at=board_date or requested_at,
                                 headers=dict(resp.headers), board_date=board_date,
                                 requested_at=requested_at)
            if resp.status_code not in _RETRYABLE_STATUS:
                return result
            last_problem = f"HTTP {resp.status_code}"
            delay = self._backoff_delay(attempt)
            wait = retry_after_seconds(resp.headers.get("Retry-After"),
                                       now=board_date or requested_at)
            if wait is not None:
                if wait > self.max_retry_after:
                    raise FetchError(f"HTTP {resp.status_code}; the board asks to retry after "
                                     f"{wait:.0f} s", url=shown,
                                     hint="the board is overloaded or down; poll again later")
                delay = wait
            log.warning("%s %s: %s; attempt %d of %d", method, shown, last_problem,
                        attempt + 1, self.retries + 1)
            if attempt < self.retries:
                if self._monotonic() + delay >= page_deadline:
                    raise self._page_too_slow(shown, last_problem)
                self._wait(delay)
        raise FetchError(f"{last_problem} after {self.retries + 1} attempts", url=shown)

    def _page_too_slow(self, shown: str, problem: str) -> FetchError:
        return FetchError(
            f"{problem + '; ' if problem else ''}gave up: the page time limit of "
            f"{self.page_time_limit:g} s ([forum] page_time_limit) is reached", url=shown,
            hint="the board is very slow or down; the next poll tries again")

    def _send(self, method: str, url: str, *, data: dict | None, shown: str,
              allow_redirects: bool, within: float) -> tuple[requests.Response, bytes]:
        """One request, its redirects followed by hand, its body read within
        ``request_time_limit`` (and ``within`` seconds, the page's time left) of wall clock."""
        deadline = time.monotonic() + max(0.0, min(self.request_time_limit, within))
        timeout = min(self.timeout, self.request_time_limit)   # each read, and the connect
        for _ in range(MAX_REDIRECTS + 1):
            resp = self.session.request(method, url, data=data, timeout=timeout,
                                        allow_redirects=False, stream=True)
            target = self.session.get_redirect_target(resp) if allow_redirects else None
            if not target:
                return resp, self._read_body(resp, shown, deadline)
            resp.close()
            nxt = urljoin(resp.url or url, target)
            self._check_redirect(url, nxt)
            url, method, data = nxt, "GET", None   # only GETs follow redirects here
            if time.monotonic() >= deadline:
                raise RequestTooSlow(self._too_slow_text())
        raise FetchError(f"more than {MAX_REDIRECTS} redirects", url=shown,
                         hint="check the URL in game.toml")

    def _too_slow_text(self) -> str:
        return (f"not answered within the request time limit of {self.request_time_limit:g} s "
                "([forum] request_time_limit)")

    def _check_redirect(self, frm: str, to: str) -> None:
        """A redirect to another host is logged; while logged in it is refused, so the
        board's session cookie is never sent anywhere else."""
        a, b = urlsplit(frm).hostname, urlsplit(to).hostname
        if a == b:
            return
        log.warning("%s redirects to another host: %s", scrub_url(frm), scrub_url(to))
        if self.logins and len(self.session.cookies):
            raise FetchError(f"redirected to another host ({b}); not followed while logged "
                             "in, so the board's session stays with the board", url=scrub_url(frm),
                             hint="check [forum] url: has the board moved to that address?")

    def _read_body(self, resp: requests.Response, shown: str,
                   deadline: float) -> bytes:
        """The body as it streams in: what the board has sent, read at each step (``read1``),
        until ``deadline`` (wall clock) and ``max_page_size`` bytes at most.

        A body read to its end gives its connection back to the session's pool, so the next
        request to the board reuses it (HTTP keep-alive: no new TCP and TLS handshake per
        page, where the board keeps connections open); a body left unread (too large, too
        slow, a failure) closes its connection."""
        whole = False
        try:
            length = resp.headers.get("Content-Length", "").strip()
            if length.isdigit() and int(length) > self.max_page_size:
                raise self._page_too_large(shown, int(length))
            chunks: list[bytes] = []
            total = 0
            while True:
                if time.monotonic() >= deadline:
                    raise RequestTooSlow(self._too_slow_text())
                chunk = resp.raw.read1(65536, decode_content=True)
                if not chunk:
                    whole = True
                    return b"".join(chunks)
                total += len(chunk)
                if total > self.max_page_size:
                    raise self._page_too_large(shown, None)
                chunks.append(chunk)
        finally:
            release = getattr(resp.raw, "release_conn", None) if whole else None
            if release is not None:
                release()
            else:
                resp.close()

    def _page_too_large(self, shown: str, size: int | None) -> FetchError:
        said = f" ({size_text(size)} by its Content-Length)" if size is not None else ""
        return FetchError(f"the page is larger than the page size limit of "
                          f"{size_text(self.max_page_size)}{said} ([forum] max_page_size); "
                          "not read past it", url=shown,
                          hint="is this a page of the board? raise max_page_size if it is")

    def get(self, url: str) -> FetchResult:
        """GET with retries; returns any final response (200, 404, ...), raises FetchError
        when the network or the board (5xx, 429) fails every attempt."""
        return self._request("GET", url)

    def post(self, url: str, data: dict) -> FetchResult:
        """POST a form once (never retried here: a board that took it but answered 5xx would
        get it twice; the writer retries with a fresh form after looking on the board). No
        redirects are followed: the writer reads phpBB's ``Location``."""
        saved, self.retries = self.retries, 0
        try:
            return self._request("POST", url, data=data, allow_redirects=False)
        finally:
            self.retries = saved

    def pause(self, seconds: float) -> None:
        """Wait ``seconds`` with the client's injected sleep (tests never wait)."""
        self._wait(seconds)

    # -- login -----------------------------------------------------------------------------
    def login(self, *, on_fetch: Callable[[FetchResult], None] | None = None) -> None:
        """Log in with the board's own form; the session keeps the cookie.

        Raises LoginRequiredError when no credentials are configured or the board refuses
        them (with the board's reason; never the password).
        """
        if not self.can_login:
            raise LoginRequiredError(
                "the board wants a login but no username/password is configured",
                url=self.url("ucp.php?mode=login"))
        self.raise_if_refused()
        form_page = self.get("ucp.php?mode=login")
        if on_fetch:
            on_fetch(form_page)
        form = find_login_form(form_page.body, url=form_page.url, page=form_page.page)
        if form is None:
            err = page_error(form_page)
            if err is not None:
                raise err
            if b"mode=logout" in form_page.body:   # phpBB sends a logged-in user away
                log.info("already logged in to %s", self.base_url)
                return
            raise LoginRequiredError("the login page has no login form", url=form_page.url,
                                     hint="check [forum] url; is this a phpBB 3 board?")
        # phpBB rejects a form posted within the second it was created (form_token check).
        since = self._monotonic() - (self._last_request or 0.0)
        if since < 1.0:
            self._wait(1.0 - since)
        data = dict(form.hidden)
        data["username"] = self.username or ""
        data["password"] = self.__password or ""
        data[form.submit_name] = form.submit_value
        log.info("logging in to %s as %s", self.base_url, self.username)
        answer = self._request("POST", form.action, data=data, allow_redirects=False)
        if on_fetch:
            on_fetch(answer)
        if 300 <= answer.status < 400 or (answer.status < 400 and find_login_form(
                answer.body, url=answer.url, page=answer.page) is None):
            self.logins += 1
            log.info("logged in as %s", self.username)
            register_login(self)
            return
        reason = login_error_text(answer.body)
        raise self.refused(LoginRequiredError(
            f"the board refused the login as {self.username!r}"
            + (f": {reason}" if reason else f" (HTTP {answer.status})"),
            url=form.action,
            hint=f"check [forum] username and the {PASSWORD_ENV} environment variable"))

    def refused(self, e: LoginRequiredError) -> LoginRequiredError:
        """Remember the board's refusal of the login (issue 40: one refusal stops this
        client's logins, so a run never tries a wrong password again); returns ``e``."""
        self.login_refused = e
        log.error("%s", e)
        return e

    def raise_if_refused(self) -> None:
        """The remembered refusal, without asking the board again."""
        e = self.login_refused
        if e is not None:
            raise LoginRequiredError(f"{e.message} (not tried again in this run)",
                                     url=e.url, hint=e.hint)

    def logout(self) -> bool:
        """End the board session (phpBB's ``ucp.php?mode=logout&sid=…``): one request, no
        retries; the cookies are dropped either way. Returns whether a session was ended."""
        sid = session_id(self)
        if not sid or not self.logins:
            self.session.cookies.clear()
            return False
        saved = self.retries
        self.retries = 0
        try:
            self._request("GET", f"ucp.php?mode=logout&sid={sid}", allow_redirects=False)
        except FetchError as e:
            log.info("logging out of %s failed: %s", self.base_url, e)
            return False
        finally:
            self.retries = saved
            self.session.cookies.clear()
        log.info("logged out of %s", self.base_url)
        return True

    @_one_page
    def get_page(self, url: str, *,
                 on_fetch: Callable[[FetchResult], None] | None = None) -> FetchResult:
        """GET a board page; log in (again) once if it shows the login form.

        ``on_fetch`` sees every response, the login steps included, before anything reads it
        (the poller stores the raw bodies with it). Raises LoginRequiredError,
        BoardDisabledError, TopicNotFoundError for those pages, FetchError for failures.
        """
        result = self.get(url)
        if on_fetch:
            on_fetch(result)
        if find_login_form(result.body, url=result.url, page=result.page) is not None:
            if not self.can_login:
                raise LoginRequiredError("the board shows this page to logged-in users only",
                                         url=result.url)
            log.info("%s shows the login form; logging in", result.url)
            self.login(on_fetch=on_fetch)
            result = self.get(url)
            if on_fetch:
                on_fetch(result)
            if find_login_form(result.body, url=result.url, page=result.page) is not None:
                raise LoginRequiredError(
                    f"still asked to log in after logging in as {self.username!r}",
                    url=result.url, hint="does this user have access to the forum?")
        err = page_error(result)
        if err is not None:
            raise err
        return result
