"""SMF 2.1's addresses: a topic is ``index.php?topic=T.START``, a board ``index.php?board=B.0``,
a message ``index.php?msg=M``. The topic key (the store's name of a topic) is
``…/index.php?topic=T``: no page, no ``PHPSESSID``."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from ...errors import ForumError

__all__ = ["smf_topic_id", "smf_board_id", "smf_topic_key", "is_smf_url", "PAGE_LINKS"]

# the board's own addresses inside a rendered post (posts/bbcode.py's ``links``)
PAGE_LINKS = {"profile": "index.php?action=profile;u={id}",
              "post": "index.php?msg={id}",
              "pm": "index.php?action=pm;f=inbox#msg{id}"}

_RE_TOPIC = re.compile(r"(?:^|[?;&])topic=(\d{1,12})(?:\.|$|[;&#])")
_RE_BOARD = re.compile(r"(?:^|[?;&])board=(\d{1,12})(?:\.|$|[;&#])")


def smf_topic_id(url: str) -> int | None:
    """``T`` of ``index.php?topic=T.START`` (or ``?topic=T``), else None."""
    m = _RE_TOPIC.search(urlsplit(url).query)
    return int(m.group(1)) if m else None


def smf_board_id(url: str) -> int | None:
    """``B`` of ``index.php?board=B.0``, else None."""
    m = _RE_BOARD.search(urlsplit(url).query)
    return int(m.group(1)) if m else None


def is_smf_url(url: str) -> bool:
    """An SMF topic or board address (``?topic=T…`` / ``?board=B…``)."""
    return smf_topic_id(url) is not None or smf_board_id(url) is not None


def smf_topic_key(url: str) -> str:
    """The topic key ``scheme://host/path/index.php?topic=T`` of any address of its pages."""
    tid = smf_topic_id(url)
    if tid is None:
        raise ForumError("not an SMF topic URL (expected …/index.php?topic=N.0)", url=url,
                         hint="copy the topic's link from the board, e.g. "
                              "https://forum.example.org/index.php?topic=12.0")
    parts = urlsplit(url)
    path = parts.path if parts.path.endswith("index.php") else parts.path.rstrip("/") + "/index.php"
    return urlunsplit((parts.scheme, parts.netloc, path, f"topic={tid}", ""))
