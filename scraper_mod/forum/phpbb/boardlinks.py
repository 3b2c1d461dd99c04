"""What on a board's page is the board's own, not a player's (issue 26).

A topic page holds the players' posts: any link, any text inside them is theirs. The host's
account acts only on controls outside every post body, on URLs it builds itself, and only on
its own board (never another host)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

# prosilver's post (div.post, div.postbody, div.content), subsilver2's (div.postbody), a
# signature, a quote, a code box: whatever a player wrote
_PLAYER_BLOCKS = ("post", "postbody", "content", "signature", "postprofile")
_POST_ID = re.compile(r"(?:p|post_content|post-)\d+")


def outside_posts(el: Any) -> bool:
    """True when ``el`` is not inside any post, signature or profile block."""
    node = el.getparent()
    while node is not None:
        classes = (node.get("class") or "").split()
        if any(c in _PLAYER_BLOCKS for c in classes):
            return False
        if _POST_ID.fullmatch(node.get("id") or ""):
            return False
        node = node.getparent()
    return True


def same_board(url: str, base_url: str) -> bool:
    """True when ``url`` is on the board at ``base_url`` (scheme, host and port)."""
    a, b = urlsplit(url), urlsplit(base_url)
    return (a.scheme, a.netloc.lower()) == (b.scheme, b.netloc.lower())


def query(url: str) -> dict[str, str]:
    """A URL's query as single values (phpBB's ``&amp;`` already unescaped by the parser)."""
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def board_tools(doc: Any, *, action: str) -> list:
    """The board's own quick-mod links for ``action`` on a topic page (outside every post)."""
    return [a for a in doc.xpath("//a[contains(@href,'mcp.php')]")
            if query(a.get("href") or "").get("action") == action and outside_posts(a)]
