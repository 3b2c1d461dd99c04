"""What the page parser produces: posts and pages, as plain frozen values.

A post's time is a range: ``posted_at`` is the best estimate (the shown time, or the start of
the shown minute), ``earliest``/``latest`` bound the real instant. With prosilver's
``<time datetime>`` they are all equal (precision "second"); a page showing ``19:59`` gives
[19:59:00, 19:59:59] ("minute"); «35 минут назад» fetched at T gives a wider range
("relative"). RULES R2.6 decides the cutoff from the range.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, cast

Precision = Literal["second", "minute", "relative"]


@dataclass(frozen=True)
class Colored:
    """Colored text in a post's own body (outside quotes, spoilers, code and signatures)."""

    color: str  # as written by phpBB: "#FF0000", "red", "darkred" (normalised upper-case hex)
    text: str


@dataclass(frozen=True)
class Hidden:
    """Colored or bold text that is not the author's own visible words, for the host report."""

    color: str | None  # None for bold
    text: str
    where: str  # "quote" | "spoiler" | "code" | "signature" | "bold"
    quoted_post_id: int | None = None


@dataclass(frozen=True)
class Part:
    """One piece of a post that the board merged from several replies (FluxBB_by_Visman's
    «Merge Post»: a member's reply after his own last post is appended to it, marked
    «Добавлено спустя 1 ч 05 мин 03 с:»). ``after``: seconds after the post's own time that
    the piece was written (the mark; 0 for the first piece and an unmarked one)."""

    after: int
    colored: tuple[Colored, ...] = ()
    bold: tuple[str, ...] = ()
    hidden: tuple[Hidden, ...] = ()
    text: str = ""


@dataclass(frozen=True)
class Post:
    post_id: int
    author: str
    author_id: int | None
    posted_at: datetime
    precision: Precision
    earliest: datetime
    latest: datetime
    page_url: str = ""
    edited_at: datetime | None = None
    edited_by: str | None = None
    edit_count: int = 0
    edit_reason: str | None = None
    colored: tuple[Colored, ...] = ()
    bold: tuple[str, ...] = ()            # bold text in the own body (R2.2 option)
    hidden: tuple[Hidden, ...] = ()       # colored text that is not a vote, and where it was
    quotes: tuple[int, ...] = ()          # ids of quoted posts, where the board gives them
    text: str = ""                        # the plain text of the own body
    # the pieces of a merged post, oldest first (the whole body is in the fields above
    # too); empty when the board merged nothing into it. forum/merged.py reads them.
    parts: tuple[Part, ...] = ()

    def content_key(self) -> dict:
        """The fields whose change makes a new stored version (not page position or time bounds)."""
        return {
            "author": self.author, "text": self.text,
            "colored": [[c.color, c.text] for c in self.colored],
            "bold": list(self.bold),
            "hidden": [[h.color, h.text, h.where] for h in self.hidden],
            "edited_at": self.edited_at.isoformat() if self.edited_at else None,
            "edit_count": self.edit_count,
            **({"parts": [_part_json(p) for p in self.parts]} if self.parts else {}),
        }

    def to_json(self) -> dict:
        """A JSON-ready dict; ``post_from_json`` reads it back."""
        # written out field by field (dataclasses.asdict deep-copies every value: slow on a
        # season of posts); the same keys in the same order, the same values and containers
        def iso(t: datetime | None) -> str | None:
            return None if t is None else t.isoformat()
        return {
            "post_id": self.post_id, "author": self.author, "author_id": self.author_id,
            "posted_at": iso(self.posted_at), "precision": self.precision,
            "earliest": iso(self.earliest), "latest": iso(self.latest),
            "page_url": self.page_url, "edited_at": iso(self.edited_at),
            "edited_by": self.edited_by, "edit_count": self.edit_count,
            "edit_reason": self.edit_reason,
            "colored": cast(Any, type(self.colored))({"color": c.color, "text": c.text}
                                                     for c in self.colored),
            "bold": type(self.bold)(self.bold),
            "hidden": cast(Any, type(self.hidden))({"color": h.color, "text": h.text,
                                                    "where": h.where,
                                                    "quoted_post_id": h.quoted_post_id}
                                                   for h in self.hidden),
            "quotes": type(self.quotes)(self.quotes),
            "text": self.text,
            "parts": cast(Any, type(self.parts))(_part_json(p) for p in self.parts),
        }


def _part_json(p: Part) -> dict:
    return {"after": p.after,
            "colored": cast(Any, type(p.colored))({"color": c.color, "text": c.text}
                                                  for c in p.colored),
            "bold": type(p.bold)(p.bold),
            "hidden": cast(Any, type(p.hidden))({"color": h.color, "text": h.text,
                                                 "where": h.where,
                                                 "quoted_post_id": h.quoted_post_id}
                                                for h in p.hidden),
            "text": p.text}


def _part_from_json(d: dict) -> Part:
    return Part(after=int(d.get("after", 0)),
                colored=tuple(Colored(**c) for c in d.get("colored", ())),
                bold=tuple(d.get("bold", ())),
                hidden=tuple(Hidden(**h) for h in d.get("hidden", ())), text=d.get("text", ""))


def post_from_json(d: dict) -> Post:
    """Inverse of ``Post.to_json``."""
    def t(v):
        return datetime.fromisoformat(v) if v else None
    return Post(
        post_id=d["post_id"], author=d["author"], author_id=d.get("author_id"),
        posted_at=t(d["posted_at"]), precision=d["precision"],
        earliest=t(d["earliest"]), latest=t(d["latest"]), page_url=d.get("page_url", ""),
        edited_at=t(d.get("edited_at")), edited_by=d.get("edited_by"),
        edit_count=d.get("edit_count", 0), edit_reason=d.get("edit_reason"),
        colored=tuple(Colored(**c) for c in d.get("colored", ())),
        bold=tuple(d.get("bold", ())),
        hidden=tuple(Hidden(**h) for h in d.get("hidden", ())),
        quotes=tuple(d.get("quotes", ())), text=d.get("text", ""),
        parts=tuple(_part_from_json(p) for p in d.get("parts", ())),
    )


@dataclass(frozen=True)
class TopicPage:
    """One parsed viewtopic page."""

    topic_id: int | None
    title: str
    locked: bool
    page: int            # 1-based
    page_count: int
    next_url: str | None
    posts: tuple[Post, ...] = field(default=())
    style: str = ""      # "prosilver" | "subsilver2" | "subsilver" (phpBB 2) ...
    language: str = ""   # "ru" | "en"
    url: str = ""
