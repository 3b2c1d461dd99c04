"""FluxBB 1.5's addresses: a topic is ``viewtopic.php?id=T`` (page K: ``&p=K``), a post
``viewtopic.php?pid=P#pP``, a forum ``viewforum.php?id=F``. The topic key (the store's name of
a topic) is ``…/viewtopic.php?id=T``: no page. phpBB's ``viewtopic.php?t=N`` shares the script
name: the query tells them apart (``id=``/``pid=`` is FluxBB's, ``t=``/``p=`` phpBB's)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit, urlunsplit

from ...errors import ForumError

__all__ = ["fluxbb_topic_id", "fluxbb_forum_id", "fluxbb_topic_key", "fluxbb_post_id",
           "is_fluxbb_url", "PER_PAGE"]

PER_PAGE = 25       # the board's default posts a page (a guest's, and the host's unless changed)


def _query(url: str) -> tuple[str, dict[str, list[str]]]:
    parts = urlsplit(url or "")
    return parts.path.rsplit("/", 1)[-1], parse_qs(parts.query)


def _num(values: list[str] | None) -> int | None:
    v = (values or [""])[0]
    return int(v) if re.fullmatch(r"\d{1,12}", v) else None


def fluxbb_topic_id(url: str) -> int | None:
    """``T`` of ``viewtopic.php?id=T[&p=K]``, else None."""
    script, q = _query(url)
    return _num(q.get("id")) if script == "viewtopic.php" else None


def fluxbb_post_id(url: str) -> int | None:
    """``P`` of ``viewtopic.php?pid=P#pP``, else None."""
    script, q = _query(url)
    return _num(q.get("pid")) if script == "viewtopic.php" else None


def fluxbb_forum_id(url: str) -> int | None:
    """``F`` of ``viewforum.php?id=F``, else None."""
    script, q = _query(url)
    return _num(q.get("id")) if script == "viewforum.php" else None


def is_fluxbb_url(url: str) -> bool:
    """A FluxBB topic, post or forum address (``viewtopic.php?id=``/``?pid=``,
    ``viewforum.php?id=``)."""
    return (fluxbb_topic_id(url) is not None or fluxbb_post_id(url) is not None
            or fluxbb_forum_id(url) is not None)


def fluxbb_topic_key(url: str) -> str:
    """The topic key ``scheme://host/path/viewtopic.php?id=T`` of any address of its pages."""
    tid = fluxbb_topic_id(url)
    if tid is None:
        raise ForumError(f"не адрес темы FluxBB (нужен …/viewtopic.php?id=N): {url}", url=url,
                         hint="скопируйте ссылку на тему с форума, например "
                              "https://forum.example.org/viewtopic.php?id=12")
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, f"id={tid}", ""))
