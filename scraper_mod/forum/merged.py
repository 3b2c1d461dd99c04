"""Merged replies read as the posts they were (FluxBB_by_Visman's «Merge Post»).

The fork appends a member's reply to his own last post (within 24 h): no new post, no new id,
no edit notice; the piece is marked «Добавлено спустя 1 ч 05 мин 03 с:» (seconds after the
post's own time), or nothing when written in the same second. The parser keeps the pieces in
``Post.parts``. ``merged_versions`` turns every stored version of such a post into one post per
piece, each with its own time, so the vote rules (rules/votes.py, which know nothing of
merging) read them as they were written:

- the first piece keeps the post's id; piece ``k`` (1, 2, …) gets ``part_post_id(id, k)`` =
  ``id + k * PART_STEP`` (``real_post_id`` gives the board's id back, for links);
- a piece's time is the post's time + its mark (R2.6: an addition after the deadline is
  late and changes nothing, R2.7); two votes in two pieces are two votes at two times, not
  one ambiguous post (R2.4 reads each piece alone);
- **a mark is the author's word**: anyone can type ``[after=60]``. A piece that a stored
  version of the post did not have yet, first seen at ``S``, was written after the sighting
  of the last version without it: its time is never before that, and when the read at the
  deadline (R2.11) showed the post without it, never before the deadline; nor is it after
  the first sighting that showed it (a mark of «2 ч» on a post seen 10 minutes after it
  was written: the piece then lies between the piece before it and that sighting);
- an edit of a merged post (one notice for the whole post) is a new version of the pieces
  whose text it changed only.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from typing import Iterable, Mapping

from .model import Post

__all__ = ["PART_STEP", "part_post_id", "real_post_id", "merged_versions", "merged_at_deadline"]

PART_STEP = 10_000_000_000


def part_post_id(post_id: int, k: int) -> int:
    """The id piece ``k`` of post ``post_id`` is read under (``k = 0``: the post's own)."""
    return post_id + k * PART_STEP


def real_post_id(post_id: int) -> int:
    """The board's id of the post a piece id names (any other id unchanged)."""
    return post_id % PART_STEP if post_id >= PART_STEP else post_id


def _piece(post: Post, k: int) -> Post:
    """Piece ``k`` of a merged post as a post of its own (no edit: see ``merged_versions``)."""
    if not post.parts:
        return post
    part = post.parts[k]
    d = timedelta(seconds=part.after)
    return dataclasses.replace(
        post, post_id=part_post_id(post.post_id, k), colored=part.colored, bold=part.bold,
        hidden=part.hidden, text=part.text, parts=(), posted_at=post.posted_at + d,
        earliest=post.earliest + d, latest=post.latest + d, edited_at=None, edited_by=None,
        edit_count=0, edit_reason=None)


def _content(p: Post) -> tuple:
    return (p.text, tuple((c.color, c.text) for c in p.colored), tuple(p.bold),
            tuple((h.color, h.text, h.where) for h in p.hidden))


def _pieces(vs: list[tuple[Post, datetime]], shown: Post | None,
            deadline: datetime | None, *, sighted: bool = True) -> list[tuple[Post, datetime]]:
    out: list[tuple[Post, datetime]] = []
    at_dl = (len(shown.parts) or 1) if shown is not None else None
    last: dict[int, tuple] = {}
    lacking: datetime | None = None     # the last sighting of a version with fewer pieces
    for post, seen in sorted(vs, key=lambda v: v[1]):
        n = len(post.parts) or 1
        for k in range(n):
            piece = _piece(post, k)
            key = _content(piece)
            if k in last:
                if last[k] == key:
                    continue            # this piece did not change in this version
                # changed: the post's (one) edit notice dates it; none: a silent change
                piece = dataclasses.replace(piece, edited_at=post.edited_at,
                                            edited_by=post.edited_by,
                                            edit_count=post.edit_count,
                                            edit_reason=post.edit_reason)
            elif not out and post.edit_count:
                # first seen already edited: which piece the edit touched is unknown
                piece = dataclasses.replace(piece, edited_at=post.edited_at,
                                            edited_by=post.edited_by,
                                            edit_count=post.edit_count,
                                            edit_reason=post.edit_reason)
            elif k and sighted:
                floor = lacking
                if deadline is not None and at_dl is not None and k >= at_dl:
                    floor = max(floor or deadline, deadline)   # not there at the deadline
                if floor is not None and piece.earliest < floor:
                    # the mark says earlier than a sighting without the piece: it was
                    # written between that sighting and this one
                    piece = dataclasses.replace(piece, posted_at=floor, earliest=floor,
                                                latest=max(seen, floor), precision="relative")
            if sighted and k not in last and k and piece.earliest > seen:
                # a mark past the sighting that already showed the piece (a typed mark): it
                # was written between the piece before it and that sighting
                before = out[-1][0].earliest if out else post.earliest
                piece = dataclasses.replace(piece, posted_at=before, earliest=before,
                                            latest=seen, precision="relative")
            last[k] = key
            out.append((piece, seen))
        lacking = seen
    return out


def merged_versions(versions: Iterable[tuple[Post, datetime]], *,
                    at_deadline: Mapping[int, Post] | None = None,
                    deadline: datetime | None = None) -> list[tuple[Post, datetime]]:
    """Every stored version (post, first seen) with merged posts read piece by piece (see
    the module docstring); posts never merged pass through as they are."""
    by_post: dict[int, list[tuple[Post, datetime]]] = {}
    for post, seen in versions:
        by_post.setdefault(post.post_id, []).append((post, seen))
    out: list[tuple[Post, datetime]] = []
    for pid, vs in by_post.items():
        if not any(p.parts for p, _ in vs):
            out.extend(vs)
            continue
        out.extend(_pieces(vs, at_deadline.get(pid) if at_deadline else None, deadline))
    return out


def merged_at_deadline(posts: Mapping[int, Post] | None) -> dict[int, Post] | None:
    """The read at the deadline (post id -> Post), merged posts read piece by piece (each
    at its mark's time: what the read showed, with no sightings to weigh)."""
    if posts is None:
        return None
    out: dict[int, Post] = {}
    for pid, post in posts.items():
        if not post.parts:
            out[pid] = post
            continue
        for piece, _ in _pieces([(post, post.posted_at)], None, None, sighted=False):
            out[piece.post_id] = piece
    return out
