"""A post's permanent link, built in one place. phpBB: ``viewtopic.php?p=N#pN`` under the
board's root (phpBB's own form: the topic and page are found by the board, the anchor
scrolls to it); SMF: ``index.php?msg=N``.

A "root" is what ``topic_root`` gives from a topic address: phpBB's board URL ending in
``/``, or SMF's script address ending in ``index.php?`` (so the services that keep a root
link posts on either engine without knowing which).
"""

from __future__ import annotations

from scraper_mod.forum.smf.links import is_smf_url

__all__ = ["post_path", "post_link", "topic_root", "PAGE_LINKS"]

# the board's own addresses inside a rendered post, as phpBB 3.3 writes them (posts/bbcode.py's
# ``links``): a quoted author's profile, a quoted post, a quoted private message
PAGE_LINKS = {"profile": "./memberlist.php?mode=viewprofile&amp;u={id}",
              "post": "./viewtopic.php?p={id}#p{id}",
              "pm": "./ucp.php?i=pm&amp;mode=view&amp;p={id}"}

_SMF_ROOT_END = "index.php?"


def post_path(post_id: int) -> str:
    """phpBB's link relative to the board's root: ``viewtopic.php?p=N#pN``."""
    return f"viewtopic.php?p={post_id}#p{post_id}"


def post_link(root: str, post_id: int) -> str:
    """A post's permanent link under ``root`` (``topic_root``'s)."""
    if root.endswith(_SMF_ROOT_END):
        return f"{root}msg={post_id}"
    return root + post_path(post_id)


def topic_root(topic: str) -> str:
    """The board's root from a topic URL: ``…/`` for phpBB's ``…/viewtopic.php?t=N``,
    ``…/index.php?`` for SMF's ``…/index.php?topic=N.0``; "" for a URL without a path."""
    base = topic.split("?", 1)[0].split("#", 1)[0]
    if is_smf_url(topic):
        return (base if base.endswith("index.php") else base.rstrip("/") + "/index.php") + "?"
    return base.rsplit("/", 1)[0] + "/" if "/" in base else ""
