"""A post's permanent link on a phpBB board, built in one place: ``viewtopic.php?p=N#pN``
(phpBB's own form: the topic and page are found by the board, the anchor scrolls to it).
"""

from __future__ import annotations

__all__ = ["post_path", "post_link", "topic_root"]


def post_path(post_id: int) -> str:
    """The link relative to the board's root: ``viewtopic.php?p=N#pN``."""
    return f"viewtopic.php?p={post_id}#p{post_id}"


def post_link(root: str, post_id: int) -> str:
    """A post's permanent link under ``root`` (the board's URL ending in ``/``)."""
    return root + post_path(post_id)


def topic_root(topic: str) -> str:
    """The board's root (ending in ``/``) from a topic URL (``.../viewtopic.php?t=N``); ""
    for a URL without a path."""
    base = topic.split("?", 1)[0].split("#", 1)[0]
    return base.rsplit("/", 1)[0] + "/" if "/" in base else ""
