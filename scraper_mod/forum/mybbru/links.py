"""mybb.ru addresses: ``viewtopic.php?id=N`` (``&p=P``: page P), ``viewtopic.php?pid=M#pM``
(a post), ``viewforum.php?id=F``, ``api.php?method=…`` (the public API)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from ...errors import ForumError

#: hosts of the mybb.ru family (a board is ``NAME.<host>``); a board on its own domain is
#: told by its front page (engine.detect_engine) or ``[forum] engine = "mybbru"``
HOSTS = ("mybb.ru", "7bb.ru", "rolka.me", "fludilka.su", "forumbb.ru")

#: the fields asked of ``post.get`` (the API's names)
POST_FIELDS = "id,user_id,username,message,posted"
API_LIMIT = 100     # posts per ``post.get`` answer (the API's most)


def on_family_host(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return any(host == h or host.endswith("." + h) for h in HOSTS)


def _query(url: str) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()}


def _int(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


def mybbru_topic_id(url: str) -> int | None:
    """The topic id of ``…/viewtopic.php?id=N`` (any page), else None."""
    if not urlsplit(url).path.endswith("/viewtopic.php"):
        return None
    return _int(_query(url).get("id"))


def mybbru_forum_id(url: str) -> int | None:
    if not urlsplit(url).path.endswith("/viewforum.php"):
        return None
    return _int(_query(url).get("id"))


def is_mybbru_url(url: str) -> bool:
    """A topic or forum address of the shape mybb.ru uses, on a mybb.ru-family host."""
    return on_family_host(url) and (mybbru_topic_id(url) is not None
                                    or mybbru_forum_id(url) is not None)


def root_of(url: str) -> str:
    parts = urlsplit(url)
    path = parts.path.rsplit("/", 1)[0] + "/"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def mybbru_topic_key(url: str) -> str:
    """The store's name of a topic: ``scheme://host/path/viewtopic.php?id=N``."""
    tid = mybbru_topic_id(url)
    if tid is None:
        raise ForumError("not a topic address of a mybb.ru board (expected "
                         "…/viewtopic.php?id=N)", url=url,
                         hint="copy the topic's link from the board, e.g. "
                              "https://mafia.mybb.ru/viewtopic.php?id=12")
    return root_of(url) + f"viewtopic.php?id={tid}"


def api_url(root: str, method: str, **params: str | int) -> str:
    return f"{root}api.php?" + urlencode({"method": method, **params})


def api_posts_url(root: str, topic_id: int, skip: int = 0) -> str:
    return api_url(root, "post.get", topic_id=topic_id, fields=POST_FIELDS, limit=API_LIMIT,
                   skip=skip)


def api_skip(url: str) -> tuple[int, int] | None:
    """(topic id, skip) of a ``post.get`` address, else None."""
    if not urlsplit(url).path.endswith("/api.php"):
        return None
    q = _query(url)
    tid = _int(q.get("topic_id"))
    if q.get("method") != "post.get" or tid is None:
        return None
    return tid, _int(q.get("skip")) or 0


def page_number(url: str) -> int:
    """The page ``p`` of a topic page's address (1 when absent)."""
    return max(1, _int(_query(url).get("p")) or 1)


RE_POST_ID = re.compile(r"^p(\d+)$")
