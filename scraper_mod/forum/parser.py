"""The phpBB page parser's public entry (the code is in ``forum/parse/``, one module a job)."""

from __future__ import annotations

from .parse import (
    MOSCOW,
    BodyParts,
    TopicLink,
    classify_error_page,
    color_as_written,
    declared_timezone,
    parse_forum_page,
    parse_html,
    parse_topic_file,
    parse_topic_page,
    walk_body,
)

__all__ = ["parse_topic_page", "parse_forum_page", "parse_topic_file", "TopicLink",
           "declared_timezone", "parse_html", "classify_error_page", "walk_body", "BodyParts",
           "color_as_written", "MOSCOW"]
