"""A board's pages fetched straight through urllib3, the connection pool under requests.

``requests.Session.send`` spends more CPU around a GET than the GET itself: its hooks, the
cookies read out of every answer twice (``http.cookiejar`` over the ``email`` package's
headers), the adapter choosing its pool and its TLS settings anew, the ``Response`` built.
On a poll of a topic page that was half of the HTTP work, and HTTP was the largest part of a
poll (issue 16). ``DirectGet`` sends a GET that the session has prepared (``ForumClient``'s
``_prepare``: the URL, the session's headers, its cookies, auth) through a urllib3 pool of
its own, with the arguments requests' ``HTTPAdapter`` would pass, maps urllib3's errors to
requests' as the adapter does, and files the board's ``Set-Cookie`` in the session's jar
with the standard library's own ``CookieJar.extract_cookies``.

It is used only where it sends what the session would (``usable``): a GET, a session that
sends as requests does (not a subclass's own ``send``), requests' own adapter unchanged for
the URL (a test's mock of requests, or an adapter a host mounted, keeps the session's path),
no response hooks, no proxy for the URL, no client certificate, and certificates checked
against requests' own bundle or not an https URL at all. Anything else goes through the
session as before.
"""

from __future__ import annotations

import urllib.request
from typing import Any

import requests
import urllib3
from requests.adapters import HTTPAdapter
from requests.utils import DEFAULT_CA_BUNDLE_PATH, select_proxy
from urllib3.exceptions import (
    ConnectTimeoutError,
    MaxRetryError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
)
from urllib3.exceptions import SSLError as Urllib3SSLError

#: requests' own HTTPAdapter.send, by where it was written: a test's mock (``responses``
#: patches the method on the class) or a subclass's is not it
_ADAPTER_SEND = (HTTPAdapter.send.__module__, HTTPAdapter.send.__qualname__)
_REDIRECT_STATI = frozenset({301, 302, 303, 307, 308})


class DirectResponse:
    """A urllib3 response under the names ``ForumClient`` reads of a ``requests.Response``:
    ``url``, ``status_code``, ``headers`` (case-insensitive), ``raw``, ``is_redirect``,
    ``close()``."""

    __slots__ = ("url", "status_code", "headers", "raw")

    def __init__(self, url: str, raw: urllib3.BaseHTTPResponse) -> None:
        self.url = url
        self.status_code = raw.status
        self.headers = raw.headers
        self.raw = raw

    @property
    def is_redirect(self) -> bool:
        return "location" in self.headers and self.status_code in _REDIRECT_STATI

    def close(self) -> None:
        """Drop the connection, its body unread (as ``requests.Response.close``)."""
        self.raw.close()
        self.raw.release_conn()


class _CookieInfo:
    """The answer's headers as ``http.cookiejar`` asks for them (``info().get_all``)."""

    def __init__(self, headers: Any) -> None:
        self._headers = headers

    def info(self) -> _CookieInfo:
        return self

    def get_all(self, name: str, default: Any = None) -> Any:
        values = self._headers.getlist(name)
        return values if values else default


class DirectGet:
    """GETs sent straight through a urllib3 pool (see the module docstring)."""

    def __init__(self) -> None:
        self._pools = urllib3.PoolManager(num_pools=8, maxsize=2, cert_reqs="CERT_REQUIRED",
                                          ca_certs=DEFAULT_CA_BUNDLE_PATH)

    @staticmethod
    def usable(session: requests.Session, prep: requests.PreparedRequest,
               settings: dict) -> bool:
        """Whether this GET, sent here, is what the session would send."""
        url = prep.url or ""
        if prep.method != "GET" or prep.body is not None or session.hooks.get("response"):
            return False
        if (type(session).send is not requests.Session.send  # a session that sends its own way
                or (HTTPAdapter.send.__module__, HTTPAdapter.send.__qualname__) != _ADAPTER_SEND):
            return False
        try:
            adapter = session.get_adapter(url)
        except requests.exceptions.InvalidSchema:
            return False
        if type(adapter) is not HTTPAdapter or getattr(adapter.max_retries, "total", 0) != 0:
            return False
        if settings.get("cert") is not None or select_proxy(url, settings.get("proxies") or {}):
            return False
        return not url.startswith("https:") or settings.get("verify", True) is True

    def send(self, prep: requests.PreparedRequest, timeout: float) -> DirectResponse:
        """Send the prepared GET; the answer's body is left to stream (``raw.read1``)."""
        url = prep.url or ""
        try:
            pool = self._pools.connection_from_url(url)
            raw = pool.urlopen(method="GET", url=prep.path_url, body=None,
                               headers=prep.headers,  # type: ignore[arg-type]
                               redirect=False, assert_same_host=False,
                               preload_content=False, decode_content=False,
                               retries=urllib3.Retry(0, read=False),
                               timeout=urllib3.Timeout(connect=timeout, read=timeout),
                               chunked=False)
        except (ProtocolError, OSError) as e:
            raise requests.ConnectionError(e, request=prep) from None
        except MaxRetryError as e:
            if isinstance(e.reason, ConnectTimeoutError) and not isinstance(
                    e.reason, NewConnectionError):
                raise requests.ConnectTimeout(e, request=prep) from None
            if isinstance(e.reason, Urllib3SSLError):
                raise requests.exceptions.SSLError(e, request=prep) from None
            raise requests.ConnectionError(e, request=prep) from None
        except Urllib3SSLError as e:
            raise requests.exceptions.SSLError(e, request=prep) from None
        except ReadTimeoutError as e:
            raise requests.ReadTimeout(e, request=prep) from None
        except urllib3.exceptions.ClosedPoolError as e:
            raise requests.ConnectionError(e, request=prep) from None
        return DirectResponse(url, raw)

    @staticmethod
    def keep_cookies(session: requests.Session, resp: DirectResponse) -> None:
        """The board's ``Set-Cookie`` into the session's jar (the standard library's rules:
        domain, path, expiry), as requests does with every answer."""
        if "set-cookie" in resp.headers or "set-cookie2" in resp.headers:
            session.cookies.extract_cookies(_CookieInfo(resp.headers),  # type: ignore[arg-type]
                                            urllib.request.Request(resp.url))
