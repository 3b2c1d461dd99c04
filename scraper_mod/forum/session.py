"""The board session: one logged-in ``ForumClient`` per game and process, ended when done.

phpBB keeps a logged-in user in a session (the ``<cookie>_sid``, ``_u`` and ``_k`` cookies,
and a ``sid=`` parameter in links until the board has seen the cookie come back). A daemon
that logs in at every poll costs the board two requests and a session row a minute for
weeks; a command that never logs out leaves a live session behind. So:

- ``game.connect.game_client(ctx)``: the one client of a game context (its cookies, its pace, its
  ``requests``/``logins`` counters), shared by the topic reader, the phpBB PM move source
  and anything else that talks to the board (a forum writer, a pacing layer). It logs in
  only when a page shows the login form (``ForumClient.get_page``), i.e. when the board says
  the session has ended.
- ``end_sessions()``: logs every client that logged in during this process out
  (``ForumClient.logout``: phpBB's ``ucp.php?mode=logout&sid=…``). The CLI calls it when a
  command ends, ``run`` included: the daemon keeps its one session for its life and ends it
  when it stops.
- The session is never written anywhere: a restart logs in once (the password comes from
  ``SCRAPER_MOD_FORUM_PASSWORD`` every time; no cookie file to steal).
- ``scrub_url`` / ``scrub_body``: what is stored of a page carries no session id. phpBB puts
  ``sid=<32 hex>`` into links and into the login form's hidden ``sid`` field; both are
  replaced by ``sid=`` with nothing after it before a page or message is stored (nothing else
  of the page changes, so every stored page still parses as it was served). Cookies
  (``Set-Cookie``) are never stored: the store keeps a fetch's URL, status, date and body only.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Iterable

from ..errors import scrub_secrets

if TYPE_CHECKING:
    from .client import ForumClient

log = logging.getLogger(__name__)

__all__ = ["register_login", "end_sessions", "scrub_url", "scrub_body",
           "session_id"]

_SID_URL = re.compile(r"([?&;]sid=)[0-9a-fA-F]{32}")
# "sid=" and 32 hex digits after "?", "&" or ";" ("&amp;" ends in ";"): found by the literal,
# the character before it checked in the replacement (a pattern led by the character class
# tried every "&" of a page: a third of a poll's CPU went here)
_SID_URL_B = re.compile(rb"sid=[0-9a-fA-F]{32}")


def _scrub_sid_param(m: re.Match) -> bytes:
    at = m.start()
    return b"sid=" if at and m.string[at - 1:at] in (b"?", b"&", b";") else m.group(0)
_SID_INPUT_B = re.compile(rb"""(name=["']sid["'][^>]*?value=["'])[0-9a-fA-F]{32}""")
_SID_INPUT_B2 = re.compile(rb"""(value=["'])[0-9a-fA-F]{32}(["'][^>]*?name=["']sid["'])""")

_LOGGED_IN: list["ForumClient"] = []


def scrub_url(url: str) -> str:
    """``url`` without the value of a ``sid=`` parameter (a phpBB session id) or of SMF's
    ``PHPSESSID=`` (``errors.scrub_secrets``)."""
    return scrub_secrets(_SID_URL.sub(r"\1", url))


_SMF_SESSID_B = re.compile(rb"(PHPSESSID=)[0-9A-Za-z,-]{16,128}")


def scrub_body(body: bytes) -> bytes:
    """A page's bytes without phpBB session ids (in links and the login form's ``sid``) and
    SMF's ``PHPSESSID=`` in links."""
    if b"PHPSESSID=" in body:
        body = _SMF_SESSID_B.sub(rb"\1", body)
    if b"sid=" in body:
        body = _SID_URL_B.sub(_scrub_sid_param, body)
    if b'sid"' in body or b"sid'" in body:      # the login form's name="sid" field
        body = _SID_INPUT_B.sub(rb"\1", body)
        body = _SID_INPUT_B2.sub(rb"\1\2", body)
    return body


def session_id(client: "ForumClient") -> str | None:
    """The board's session id from the client's cookies (phpBB's ``<cookie name>_sid``)."""
    for cookie in client.session.cookies:
        if cookie.name.endswith("_sid") and cookie.value:
            return cookie.value
    return None


def register_login(client: "ForumClient") -> None:
    """Remember a client that logged in, so that ``end_sessions`` logs it out."""
    if not any(c is client for c in _LOGGED_IN):
        _LOGGED_IN.append(client)


def logged_in() -> tuple["ForumClient", ...]:
    """The clients logged in now (``register_login``), oldest first."""
    return tuple(_LOGGED_IN)


def end_sessions(keep: Iterable["ForumClient"] = ()) -> int:
    """Log out every client that logged in during this process but those in ``keep`` (the
    sessions a caller found open and leaves to their owner); returns how many were ended.
    Never raises: a board that cannot be reached ends the session itself in time."""
    ended = 0
    kept = [c for c in _LOGGED_IN if any(c is k for k in keep)]
    ending = [c for c in _LOGGED_IN if not any(c is k for k in kept)]
    _LOGGED_IN[:] = kept
    while ending:
        client = ending.pop()
        try:
            if client.logout():
                ended += 1
        except Exception as e:  # noqa: BLE001 - logging out is best effort, never an error
            log.info("could not log out of %s: %s", client.base_url, type(e).__name__)
    return ended
