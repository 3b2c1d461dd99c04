"""Reading the day's votes out of the stored posts (RULES R2.2-R2.8, R8.1).

``extract_votes`` takes every stored version of every post of the day's topic, each with the
moment the poller first saw it, and returns the vote events that count as of an instant (the
deadline, or earlier for a live count), the colored fragments that were not counted with a
reason, and notes for the host report. ``count_votes`` (rules/tally.py) then takes each
voter's latest vote.

The decisions, rule by rule:

- R2.2 a vote is a player's nick in a vote color (rules/colors.py) in the post's own body.
  Colored text in quotes, spoilers, code and signatures was set aside by the parser
  (``Post.hidden``); it is reported (``quoted``, ``spoiler``, ``code``, ``signature``). Bold
  is a vote only with ``bold_votes``; a bold player name is otherwise reported as ``bold``.
- R2.3 names are matched by rules/names.py; colored text that names nobody is
  ``not_a_player``; a name that could be two players is ``ambiguous_name`` (it matches no
  one; the post's other names still count).
- R2.4 colored names of two different players in one post: no vote (``two_players``), the
  voter's previous vote stands; with ``ambiguous_post = "last"`` the last one counts.
- R2.6 the cutoff works on the post's time *range*: latest < cutoff counts; earliest >=
  cutoff is ``late``; a range across the cutoff (relative dates) counts only if the post was
  first seen before the cutoff, else ``late_unclear``.
- R2.7 the post counts as it stood before the cutoff. The version that stood is the latest
  stored version whose own time (the post time, or the edit time for an edited version) is
  before the cutoff. A vote that appeared or changed through an edit counts from the edit
  time. An edit after the cutoff changes nothing (``edited_after_deadline`` when it touched
  the vote). An edited version whose earlier text was never seen, with the edit after the
  cutoff, gives no vote (``edit_unseen``). With ``edited_votes = "never"`` a post that stood
  edited gives no vote (``edited_votes_never``).
- R2.8 the host's posts never vote (``host_post``); nor posts by people who are not players
  (``not_in_game``), dead players (``dead_voter``), frozen players (``frozen_voter``); votes
  for the dead are ``dead_target``; with ``self_votes = false`` a self-vote is ``self_vote``.
  A rejected vote never replaces the voter's previous vote.
- R8.1 a dead player's posts after his last-word window: ``dead_after_last_word``.
- R2.11 the topic as it stood at the deadline: the board writes no edit notice when the author
  edits the topic's last post (or a moderator edits without a reason), so such an edit after
  the deadline looks like the post itself. ``deadline_posts`` is the version of every post the
  daemon's read at the deadline showed (the first request after it); at the final count a
  post whose text differs from that version with no new edit notice stood as it was at the
  deadline. The host is told (``silent_edit`` note; ``silent_edit_after_deadline`` when it
  changed the vote). ``deadline_read_failed`` (why the read failed) is said in a note, and
  without a deadline version a silent change first seen after the deadline is named
  (``silent_edit_unplaced``): it counts as read, since it may have been before.
- House rules (docs/rules-house.md): R2.19 a post whose own text holds a pass word and names
  no player is a vote for ``NO_ONE``; R2.21 a vote whose post has fewer than
  ``vote_min_words`` letters besides the nick is ``too_few_words``; R2.20 a vote standing in
  an edited version is marked ``Vote.edited`` (rules/house.py judges R2.18 and R2.20).
- Deleted posts: a post found deleted *before* the cutoff does not count
  (``deleted_post``, the host is told); one found deleted after it counts as it stood, since
  the deletion can only be placed after the moment it was detected missing.

Nothing here reads the clock, the disk or the network.
"""

# long: R2 in one place (versions, fragments, targets, edits, notes); to be split once issue
# 15's changes to it have landed

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Sequence

from .colors import DEFAULT_TEXT_COLORS, is_vote_color
from .house import HOUSE_REASONS, own_chars, pass_word_in
from .model import NO_ONE, RuleOptions, Vote
from .names import Match, NameIndex
from .post import Post
from .slots import Book, VoteDecision
from .tally import Rejection

__all__ = ["extract_votes", "VoteNotes", "EditNote", "REASONS", "reason_text", "NOTES",
           "note_text",
           "standing_version"]

# Stable reason codes -> a line for the host, in each language.
REASONS: dict[str, dict[str, str]] = {
    "quoted": {"en": "inside a quote: the quoted post's words, not a vote",
               "ru": "внутри цитаты: это слова цитируемого поста, не голос"},
    "spoiler": {"en": "inside a spoiler: not the author's visible words",
                "ru": "внутри спойлера: не голос"},
    "code": {"en": "inside a code block: not a vote", "ru": "внутри блока кода: не голос"},
    "signature": {"en": "in the signature: not a vote", "ru": "в подписи: не голос"},
    "bold": {"en": "bold, not colored: not a vote (bold votes are off)",
             "ru": "жирный шрифт, не цвет: не голос"},
    "not_a_player": {"en": "colored text that names no player",
                     "ru": "цветной текст не называет ни одного игрока"},
    "ambiguous_name": {"en": "the name could be more than one player: no vote, the previous "
                             "vote stands",
                       "ru": "имя подходит нескольким игрокам: голос не засчитан, в силе "
                             "прежний"},
    "two_players": {"en": "colored names of two different players in one post: no vote, the "
                          "previous vote stands",
                    "ru": "в одном посте цветом названы два разных игрока: голос не засчитан, "
                          "в силе прежний"},
    "host_post": {"en": "a post by the host: never a vote", "ru": "пост ведущего: не голос"},
    "not_in_game": {"en": "the author is not a player of this game",
                    "ru": "автор не участвует в игре"},
    "dead_voter": {"en": "the author is dead: the dead do not vote",
                   "ru": "автор уже вне игры: выбывшие не голосуют"},
    "frozen_voter": {"en": "the author is frozen today: their vote does not count",
                     "ru": "заморозка: голос автора сегодня не считается"},
    "dead_target": {"en": "a vote for a dead player: not counted, the previous vote stands",
                    "ru": "голос за выбывшего игрока: не засчитан, в силе прежний"},
    "self_vote": {"en": "a vote for oneself, forbidden in this game",
                  "ru": "голос за самого себя запрещён в этой игре"},
    "late": {"en": "posted at or after the deadline", "ru": "пост после срока"},
    "late_unclear": {"en": "the board's time cannot tell if it was before the deadline, and it "
                           "was first seen after it: counted as late",
                     "ru": "по времени форума нельзя понять, был ли пост до срока, а увидели "
                           "пост после срока: считается опоздавшим"},
    "edited_after_deadline": {"en": "the vote was changed by an edit after the deadline: the "
                                    "post counts as it stood before",
                              "ru": "голос изменён правкой после срока: пост считается в "
                                    "прежнем виде"},
    "edit_unseen": {"en": "edited after the deadline and its earlier text was never seen: no "
                          "known vote, the previous vote stands",
                    "ru": "пост отредактирован после срока, а прежний текст никто не видел: "
                          "голос неизвестен, в силе прежний"},
    "edited_votes_never": {"en": "the post was edited, and votes in edited posts do not count "
                                 "in this game",
                           "ru": "пост отредактирован, а голоса в отредактированных постах в "
                                 "этой игре не считаются"},
    "dead_after_last_word": {"en": "posted by a dead player after their last word's time: "
                                   "never counted",
                             "ru": "пост выбывшего игрока после срока последнего слова: не "
                                   "считается"},
    "silent_edit_after_deadline": {
        "en": "edit without a notice after the deadline (the board hides it): the post counts "
              "as it stood at the deadline",
        "ru": "правка без отметки после срока: пост считается в виде на момент срока"},
    "deleted_post": {"en": "the post was deleted before the deadline: not counted",
                     "ru": "пост удалён до срока: не засчитан"},
    # R10.2, R11.1
    "replaced_player": {"en": "posted after the author's slot passed to a replacement: never "
                              "counted",
                        "ru": "пост после замены автора: голос не считается"},
    "decided_no_vote": {"en": "the host decided this post is no vote: the previous vote "
                              "stands",
                        "ru": "по решению ведущего пост не голос: в силе прежний"},
}
# Notes for the host report: code -> text per language (str.format fields).
NOTES: dict[str, dict[str, str]] = {
    "uncertain_time": {
        "en": "post {post_id} by {author}: its time ({precision}) may fall on either side of "
              "the cutoff; counted because it was seen before it",
        "ru": "пост {post_id} ({author}): по времени форума ({precision}) пост может быть и до, "
              "и после срока; засчитан, потому что пост увидели до срока"},
    "foreign_account": {
        "en": "post {post_id}: the author {author!r} (forum user id {author_id}) has a "
              "player's name but not that player's forum account",
        "ru": "пост {post_id}: у автора {author!r} (id на форуме {author_id}) ник игрока, но "
              "учётная запись не игрока"},
    "deleted_late": {
        "en": "post {post_id} by {author} was found deleted after the cutoff: counted as it "
              "stood",
        "ru": "пост {post_id} ({author}) удалён после срока: засчитан в том виде, в каком был"},
    "edit_missed": {
        "en": "post {post_id} by {author}: an edit was never seen (edit {n} of {total}) and "
              "may have been before the cutoff; counted as last seen before it",
        "ru": "пост {post_id} ({author}): одну правку никто не видел (правка {n} из {total}), "
              "она могла быть до срока; засчитан в виде, последнем до срока"},
    "silent_edit": {
        "en": "post {post_id} by {author}: edit without a notice after the deadline (read at "
              "the deadline: {before}; at the re-scan: {after}); counted as it stood at the "
              "deadline",
        "ru": "пост {post_id} ({author}): правка без отметки после срока (на момент срока: "
              "{before}; при пересчёте: {after}); засчитан в виде на момент срока"},
    "silent_edit_unplaced": {
        "en": "post {post_id} by {author}: changed without an edit notice, first seen so at "
              "{seen} (after the deadline); the topic was not read at the deadline, so it "
              "cannot be placed: counted as read last",
        "ru": "пост {post_id} ({author}): изменён без отметки о правке, таким впервые увиден "
              "в {seen} (после срока); на момент срока тема не прочитана, и когда была правка, "
              "не понять: засчитан в последнем виде"},
    "deadline_read_failed": {
        "en": "the topic could not be read at the deadline ({reason}): an edit of the last "
              "post without a notice after the deadline cannot be told apart",
        "ru": "на момент срока тему прочитать не удалось ({reason}): правку последнего поста "
              "без отметки после срока отличить нельзя"},
    "edited_by_other": {
        "en": "post {post_id} by {author} was last edited by {editor}",
        "ru": "пост {post_id} ({author}): последняя правка — {editor}"},
}


def note_text(code: str, lang: str = "en", **fields: Any) -> str:
    """A host-report line for a note code, in ``lang`` (English when not translated)."""
    texts = NOTES[code]
    return (texts.get(lang) or texts["en"]).format(**fields)


# count_votes' own codes (rules/tally.py), should a vote reach it unfiltered
REASONS["frozen"] = REASONS["frozen_voter"]
REASONS.update(HOUSE_REASONS)   # R2.13-R2.15, R2.18, R2.21

_HIDDEN_REASON = {"quote": "quoted", "spoiler": "spoiler", "code": "code",
                  "signature": "signature", "bold": "bold"}


def reason_text(code: str, lang: str = "en") -> str:
    """The host's line for a reason code (the code itself when unknown)."""
    return REASONS.get(code, {}).get(lang) or REASONS.get(code, {}).get("en") or code


@dataclass(frozen=True)
class EditNote:
    """An edit that touched a vote (R2.7), for the host report."""

    post_id: int
    author: str
    edited_at: datetime | None
    edited_by: str | None = None
    before: tuple[str, ...] = ()  # vote targets before the edit (empty: none or never seen)
    after: tuple[str, ...] = ()
    counted: bool = True          # did the edit's vote take effect (before the cutoff)?
    seen_before: bool = True      # was the earlier version ever seen

    def to_json(self) -> dict:
        return {"post_id": self.post_id, "author": self.author,
                "edited_at": self.edited_at.isoformat() if self.edited_at else None,
                "edited_by": self.edited_by, "before": list(self.before),
                "after": list(self.after), "counted": self.counted,
                "seen_before": self.seen_before}


@dataclass(frozen=True)
class VoteNotes:
    """What the host report needs besides the votes (R9.4)."""

    edits: tuple[EditNote, ...] = ()
    posts_per_player: dict = field(default_factory=dict)   # nick -> posts before the cutoff
    not_voted: tuple[str, ...] = ()                        # alive, unfrozen, no vote at all
    deleted: tuple[int, ...] = ()                          # post ids found deleted
    late_posts: tuple[int, ...] = ()                       # post ids at or after the cutoff
    notes: tuple[str, ...] = ()                            # anything else, one line each

    def to_json(self) -> dict:
        return {"edits": [e.to_json() for e in self.edits],
                "posts_per_player": dict(self.posts_per_player),
                "not_voted": list(self.not_voted), "deleted": list(self.deleted),
                "late_posts": list(self.late_posts), "notes": list(self.notes)}


# --- versions ------------------------------------------------------------------------------

def _version_time(post: Post, first_seen: datetime) -> datetime:
    """When a version came to stand, for the cutoff: the edit time for an edited one (the
    first sighting when the board gave none); for the original, the earliest instant its
    post time allows (the post's own R2.6 decision has been made on its whole range)."""
    if post.edit_count > 0:
        return post.edited_at or first_seen
    return post.earliest


def _vote_time(post: Post, first_seen: datetime) -> datetime:
    """When a version's vote was cast: the post time (the board's best estimate), or the
    edit time for an edited version. An edit notice that shows the minute only (a board's
    «Последний раз редактировалось … 11:22») places the edit at the latest instant it can
    have been: the minute's end, never after the edited text was first seen (issue 40: the
    minute's start put an edit made after a majority, or after the post itself, before it)."""
    if post.edit_count > 0:
        t = post.edited_at
        if t is None:
            return first_seen
        if t.second == 0 and t.microsecond == 0:
            return min(t + timedelta(seconds=59), max(first_seen, t))
        return t
    return post.posted_at


def _event_times(vs: Sequence[tuple[Post, datetime]]) -> dict[int, datetime]:
    """id(version) -> its vote time (``_vote_time``), never before the version it follows
    (an edit comes after the text it changed; a microsecond keeps their order)."""
    out: dict[int, datetime] = {}
    prev: datetime | None = None
    for post, seen in vs:
        t = _vote_time(post, seen)
        if prev is not None and t <= prev:
            t = prev + timedelta(microseconds=1)
        out[id(post)] = prev = t
    return out


def standing_version(versions: Sequence[tuple[Post, datetime]], cutoff: datetime
                     ) -> tuple[tuple[Post, datetime] | None, bool]:
    """R2.7: the version of one post that stood before ``cutoff``.

    ``versions`` in the order first seen. Returns (version or None, unseen): None with
    ``unseen=True`` when every stored version is an edit made at or after the cutoff, so
    the text that stood was never seen.
    """
    stood = None
    for post, seen in versions:
        if _version_time(post, seen) < cutoff:
            stood = (post, seen)
    if stood is not None:
        return stood, False
    return None, bool(versions) and versions[0][0].edit_count > 0


def _group(versions: Iterable[tuple[Post, datetime]]) -> dict[int, list[tuple[Post, datetime]]]:
    by_post: dict[int, list[tuple[Post, datetime]]] = defaultdict(list)
    for post, seen in versions:
        by_post[post.post_id].append((post, seen))
    for vs in by_post.values():
        if len(vs) < 2:
            continue
        # the order versions appeared, independent of the order pages were fetched
        vs.sort(key=lambda v: (v[1], v[0].edit_count,
                               v[0].edited_at or v[0].posted_at, _content_sort(v[0])))
    return by_post


def _content_sort(post: Post) -> str:
    return repr(post.content_key())


def _time_range(versions: Sequence[tuple[Post, datetime]]) -> tuple[datetime, datetime, str]:
    """The tightest post-time range all versions agree on (precision of the best one)."""
    earliest = max(p.earliest for p, _ in versions)
    latest = min(p.latest for p, _ in versions)
    rank = {"second": 0, "minute": 1, "relative": 2}
    best = min((p.precision for p, _ in versions), key=lambda x: rank.get(x, 3))
    if earliest > latest:  # inconsistent sightings: trust the most precise one
        p = min((p for p, _ in versions), key=lambda x: rank.get(x.precision, 3))
        return p.earliest, p.latest, p.precision
    return earliest, latest, best


# --- extraction ----------------------------------------------------------------------------

class _Frag(NamedTuple):
    color: str
    text: str


@dataclass
class _Ctx:
    index: NameIndex
    alive: frozenset
    frozen: frozenset
    host_key: str | None
    players: frozenset
    options: RuleOptions
    text_colors: tuple[str, ...]
    forum_ids: dict = field(default_factory=dict)      # forum user id -> nick
    book: Book | None = None                           # R10, R11: slots and decisions
    cutoff: datetime | None = None
    rename: dict = field(default_factory=dict)         # any nick of a slot -> its nick now
    index_at: Callable[[datetime], NameIndex] | None = None   # instant -> names live then

    _colors: dict = field(default_factory=dict)        # color -> is a vote color
    _targets: dict = field(default_factory=dict)       # id(post) -> (post, targets, failed)

    def is_vote_color(self, color: str | None) -> bool:
        found = self._colors.get(color)
        if found is None:
            found = self._colors[color] = is_vote_color(
                color, vote_colors=self.options.vote_colors,
                excluded_colors=self.options.excluded_colors, text_colors=self.text_colors)
        return found

    def index_for(self, post: Post) -> NameIndex:
        """R2.3 against the names live when this version was written (R10: a newcomer's
        nick names nobody before he comes); the game's index without replacements."""
        if self.index_at is None:
            return self.index
        return self.index_at(_vote_time(post, post.posted_at))

    def fragments(self, post: Post) -> list[_Frag]:
        """The post's candidate vote fragments: vote-colored text (and bold, when on)."""
        out = [_Frag(c.color, c.text) for c in post.colored if self.is_vote_color(c.color)]
        if self.options.bold_votes:
            out += [_Frag("bold", b) for b in post.bold]
        return out


def _targets(ctx: _Ctx, post: Post) -> tuple[tuple[str, ...], list[tuple[_Frag, str]]]:
    """Matched targets of a version in fragment order, and the fragments that failed
    (with their reason)."""
    cached = ctx._targets.get(id(post))
    if cached is not None and cached[0] is post:
        return cached[1], cached[2]
    targets: list[str] = []
    failed: list[tuple[_Frag, str]] = []
    index = ctx.index_for(post)
    for frag in ctx.fragments(post):
        results = index.match_all(frag.text)
        for r in results:
            if isinstance(r, Match):
                targets.append(ctx.rename.get(r.player, r.player))
            elif r.reason == "ambiguous":
                failed.append((frag, "ambiguous_name"))
            elif len(results) == 1:
                failed.append((frag, "not_a_player"))
    ctx._targets[id(post)] = (post, tuple(targets), failed)
    return tuple(targets), failed


def _decide(ctx: _Ctx, targets: tuple[str, ...]) -> tuple[str | None, list[str]]:
    """R2.4: the post's one target, or None; and the targets not taken."""
    distinct = list(dict.fromkeys(targets))
    if not distinct:
        return None, []
    if len(distinct) == 1:
        return distinct[0], []
    if ctx.options.ambiguous_post == "last":
        last = targets[-1]
        return last, [t for t in distinct if t != last]
    return None, distinct


def extract_votes(versions: Iterable[tuple[Post, datetime]], *, players: Sequence,
                  alive: Iterable[str], host: str | None, deadline: datetime,
                  as_of: datetime | None = None, options: RuleOptions = RuleOptions(),
                  deleted: dict[int, datetime] | None = None,
                  last_word_until: dict[str, datetime] | None = None,
                  frozen: Iterable[str] = (),
                  text_colors: tuple[str, ...] = DEFAULT_TEXT_COLORS,
                  index: NameIndex | None = None, lang: str = "en",
                  deadline_posts: Mapping[int, Post] | None = None,
                  deadline_read_failed: str | None = None,
                  book: Book | None = None,
                  index_at: Callable[[datetime], NameIndex] | None = None,
                  ) -> tuple[list[Vote], list[Rejection], VoteNotes]:
    # long: R2's steps in the order RULES gives them, over one shared context
    """R2, R8.1: the day's vote events as of ``as_of`` (default and at most: the deadline).

    ``versions``: every stored version of the day topic's posts with its first sighting, in
    any order. ``players``: (nick, aliases) pairs or ``Player`` objects (everyone a vote may
    name). ``alive``/``frozen``: who may vote today. ``deleted``: post id -> when it was
    found missing. ``last_word_until``: a dead player -> the end of his last-word window.
    ``lang``: the language of the notes for the host. ``deadline_posts``: post id -> the
    version the read at the deadline showed (R2.11); ``deadline_read_failed``: why that read
    failed, if it did. ``book``: the slots and the host's decisions (R10, R11): a post is its
    author's slot's by the time it was written, votes and voters are named by the slots'
    nicks at the cutoff, a decided post is read as the host said; ``index_at`` (instant ->
    ``NameIndex`` of the names live then) matches names as they stood when written.
    Returns (votes, rejections, notes); votes are not yet reduced to one per voter.
    """
    cutoff = deadline if as_of is None or as_of >= deadline else as_of
    final = cutoff == deadline
    index = index or NameIndex(players)
    users = frozenset(index.players)
    if book is not None:   # every forum user who ever held a slot writes as a player
        users = frozenset(n for s in book.slots for n, _ in s.users)
    ctx = _Ctx(index=index, alive=frozenset(alive), frozen=frozenset(frozen),
               host_key=_key(host) if host else None, players=users,
               options=options, text_colors=text_colors,
               forum_ids={p.forum_id: p.nick for p in players
                          if getattr(p, "forum_id", None) is not None},
               book=book, cutoff=cutoff,
               rename=book.rename_at(cutoff) if book is not None else {},
               index_at=index_at if book is not None else None)
    deleted = deleted or {}
    last_word_until = last_word_until or {}

    votes: list[Vote] = []
    rejected: list[Rejection] = []
    edits: list[EditNote] = []
    posts_per: Counter = Counter()
    late_posts: list[int] = []
    deleted_seen: list[int] = []
    notes: list[str] = []
    if final and deadline_read_failed:
        notes.append(note_text("deadline_read_failed", lang, reason=deadline_read_failed))
    at_deadline = dict(deadline_posts or {}) if final else {}

    by_post = _group(versions)
    for post_id in sorted(by_post):
        vs = by_post[post_id]
        first = vs[0][0]
        author = first.author
        first_seen = vs[0][1]
        earliest, latest, precision = _time_range(vs)

        # R2.6 the post itself against the cutoff
        if latest < cutoff:
            timing = "in_time"
        elif earliest >= cutoff:
            timing = "late"
        elif first_seen < cutoff:
            timing = "in_time"
            notes.append(note_text("uncertain_time", lang, post_id=post_id, author=author,
                                   precision=precision))
        else:
            timing = "late_unclear"
        if timing != "in_time":
            if final:
                late_posts.append(post_id)
                # the post as first seen: later versions are edits after it anyway
                for frag in ctx.fragments(first):
                    rejected.append(Rejection(post_id, author, frag.text, timing))
            continue
        nick, how = _author(ctx, first, first.posted_at)
        if nick is not None:
            if not how:     # R10.2: the old user's posts after the replacement are not the slot's
                posts_per[nick] += 1
        elif _player_nick(ctx, author, None) is not None:
            notes.append(note_text("foreign_account", lang, post_id=post_id, author=author,
                                   author_id=first.author_id))

        if post_id in deleted and deleted[post_id] < cutoff:
            deleted_seen.append(post_id)
            stood, _ = standing_version(vs, cutoff)
            for frag in ctx.fragments((stood or vs[-1])[0]):
                rejected.append(Rejection(post_id, author, frag.text, "deleted_post"))
            continue
        if post_id in deleted:
            deleted_seen.append(post_id)
            notes.append(note_text("deleted_late", lang, post_id=post_id, author=author))

        stood, unseen = standing_version(vs, cutoff)
        silent: list[Post] = []
        if final and stood is not None:
            stood, silent = _r2_11(ctx, vs, stood, at_deadline.get(post_id), cutoff, notes,
                                   lang)
        # every edit that touched a vote (R2.7), before or after the cutoff
        edits.extend(_edit_notes(ctx, vs, cutoff, silent={id(p) for p in silent}))
        if silent and stood is not None and \
                _targets(ctx, silent[-1])[0] != _targets(ctx, stood[0])[0]:
            for frag in ctx.fragments(silent[-1]):
                rejected.append(Rejection(post_id, author, frag.text,
                                          "silent_edit_after_deadline"))
        if stood is None:
            if unseen:
                p = vs[0][0]
                for frag in ctx.fragments(p):
                    rejected.append(Rejection(post_id, author, frag.text, "edit_unseen"))
            continue
        post, _seen = stood
        # R2.7, R2.13-R2.15: every earlier version that held a vote is a vote at its own time
        votes.extend(_history_votes(ctx, vs, stood, silent, last_word_until, cutoff))
        later = [p for p, s in vs if _version_time(p, s) >= cutoff]
        if later and later[0].edit_count > post.edit_count + 1:
            notes.append(note_text("edit_missed", lang, post_id=post_id, author=author,
                                   n=post.edit_count + 1, total=later[0].edit_count))
        if final and later and _targets(ctx, later[-1])[0] != _targets(ctx, post)[0]:
            # an edit after the deadline that changed the vote: reported, changes nothing
            for frag in ctx.fragments(later[-1]):
                rejected.append(Rejection(post_id, author, frag.text, "edited_after_deadline"))

        # set-aside colored text: quotes, spoilers, code, signatures (and bold)
        for h in post.hidden:
            if h.color is None or h.where == "bold" or not ctx.is_vote_color(h.color):
                continue
            rejected.append(Rejection(post_id, author, h.text,
                                      _HIDDEN_REASON.get(h.where, h.where)))
        if not ctx.options.bold_votes and _key(author) != ctx.host_key:
            colored_texts = {c.text.strip() for c in post.colored}
            for b in post.bold:
                if b.strip() not in colored_texts and ctx.index.match(b):
                    rejected.append(Rejection(post_id, author, b, "bold"))

        frags = ctx.fragments(post)
        decision = ctx.book.vote_decision(post_id) if ctx.book is not None else None
        passed = bool(options.pass_words) and pass_word_in(post.text, options.pass_words)
        if not frags and decision is None and not passed:
            continue
        voter_reason = _voter_reason(ctx, author, post, last_word_until, _vote_time(*stood))
        if voter_reason is None and post.edit_count > 0 and post.edited_by and \
                _key(post.edited_by) != _key(author):
            notes.append(note_text("edited_by_other", lang, post_id=post_id, author=author,
                                   editor=post.edited_by))
        if voter_reason is None and options.edited_votes == "never" and post.edit_count > 0:
            voter_reason = "edited_votes_never"
        if voter_reason is not None:
            for frag in frags or ([_Frag("", NO_ONE)] if passed else []):
                rejected.append(Rejection(post_id, author, frag.text, voter_reason))
            continue
        voter = _author(ctx, post, _vote_time(*stood))[0] or author
        if decision is not None and ctx.book is not None:   # R11.1: as the host decided
            _decided(ctx, ctx.book, decision, post_id, author, voter, frags, stood, votes,
                     rejected)
            continue

        targets, failed = _targets(ctx, post)
        for frag, reason in failed:
            if passed and pass_word_in(frag.text, options.pass_words):
                continue        # R2.19: a colored «пас» is the pass, not a name of no one
            rejected.append(Rejection(post_id, author, frag.text, reason))
        target, not_taken = _decide(ctx, targets)
        if target is None and not not_taken and passed:     # R2.19: a vote for no one
            votes.append(Vote(voter=voter, target=NO_ONE, at=_vote_time(*stood),
                              post_id=post_id, final=_final_word(ctx, post),
                              edited=_edited(vs, stood)))
            continue
        if target is None:
            for t in not_taken:
                rejected.append(Rejection(post_id, author, _frag_text(ctx, post, t),
                                          "two_players"))
            continue
        for t in not_taken:
            rejected.append(Rejection(post_id, author, _frag_text(ctx, post, t), "two_players"))
        text = _frag_text(ctx, post, target)
        if target not in ctx.alive:
            rejected.append(Rejection(post_id, author, text, "dead_target"))
            continue
        if target == voter and not options.self_votes:
            rejected.append(Rejection(post_id, author, text, "self_vote"))
            continue
        if options.vote_min_words and own_chars(post.text, (f.text for f in frags)) < \
                options.vote_min_words:                     # R2.21: a bare nick
            rejected.append(Rejection(post_id, author, text, "too_few_words"))
            continue
        final_word = _final_word(ctx, post)
        at = _vote_since(ctx, vs, stood, target)
        edited = _edited(vs, stood)
        if votes and votes[-1].post_id == post_id and votes[-1].target == target and \
                votes[-1].voter == voter and votes[-1].at == at:
            # the standing vote restates the history's last: one event (final if either)
            votes[-1] = replace(votes[-1], final=votes[-1].final or final_word,
                                edited=votes[-1].edited or edited)
            continue
        votes.append(Vote(voter=voter, target=target, at=at, post_id=post_id,
                          final=final_word, edited=edited))

    voted = {v.voter for v in votes}
    not_voted = tuple(sorted((p for p in ctx.alive - ctx.frozen if p not in voted),
                             key=lambda n: (n.casefold(), n)))
    per_player = {p: posts_per.get(p, 0) for p in ctx.index.players}
    return votes, rejected, VoteNotes(
        edits=tuple(edits), posts_per_player=per_player, not_voted=not_voted,
        deleted=tuple(deleted_seen), late_posts=tuple(late_posts), notes=tuple(notes))


def _key(nick: str) -> str:
    return nick.strip().casefold()


def _player_nick(ctx: _Ctx, author: str, author_id: int | None) -> str | None:
    """The player who wrote a post: by his forum account when the game file gives its id
    (``forum_id``: a renamed account still votes, and another account that took his name
    does not), else by the nick (exact, then case-insensitive). Anyone else: None."""
    if author_id is not None and author_id in ctx.forum_ids:
        return ctx.forum_ids[author_id]
    nick = author if author in ctx.players else next(
        (p for p in ctx.players if _key(p) == _key(author)), None)
    if nick is None:
        return None
    if author_id is not None and nick in ctx.forum_ids.values():
        return None  # the player's account is a different one: an impostor
    return nick


def _author(ctx: _Ctx, post: Post, at: datetime) -> tuple[str | None, str]:
    """The slot whose post this is, by its nick at the cutoff, and ``""``; or with
    ``"replaced"`` / ``"not_yet"`` when the author was not the slot's at ``at`` (R10.2)."""
    user = _player_nick(ctx, post.author, post.author_id)
    if user is None or ctx.book is None:
        return user, ""
    slot, how = ctx.book.who(user, at)
    if slot is None:
        return user, ""
    return slot.nick_at(ctx.cutoff), how


def _decided(ctx: _Ctx, book: Book, decision: VoteDecision, post_id: int, author: str,
             voter: str, frags: list, stood: tuple[Post, datetime], votes: list[Vote],
             rejected: list[Rejection]) -> None:
    """R11.1: a post the host decided: a vote for the decision's target, or none (the
    voter's previous vote stands); the target is still a living player (R2.8)."""
    written = ", ".join(f.text for f in frags)
    if decision.target is None:
        rejected.append(Rejection(post_id, author, written, "decided_no_vote"))
        return
    target = book.nick_at(decision.target, ctx.cutoff)
    if target not in ctx.alive:
        rejected.append(Rejection(post_id, author, target, "dead_target"))
    elif target == voter and not ctx.options.self_votes:
        rejected.append(Rejection(post_id, author, target, "self_vote"))
    else:
        votes.append(Vote(voter=voter, target=target, at=_vote_time(*stood), post_id=post_id,
                          decided=True, final=_final_word(ctx, stood[0])))


def _edited(vs: Sequence[tuple[Post, datetime]], stood: tuple[Post, datetime]) -> bool:
    """R2.20: the version that stands is an edit: the board says so, or its text differs
    from the first version seen (an edit the board shows no notice of, R2.11)."""
    return stood[0].edit_count > 0 or not _same_text(vs[0][0], stood[0])


def _final_word(ctx: _Ctx, post: Post) -> bool:
    """R2.14: the post's own words (quotes set aside by the parser) hold a final-vote word."""
    words = ctx.options.final_vote_words
    if not words:
        return False
    text = " ".join([post.text, *(c.text for c in post.colored)]).casefold().replace("ё", "е")
    return any(re.search(r"(?<!\w)" + re.escape(w.strip().casefold().replace("ё", "е"))
                         + r"(?!\w)", text) for w in words if w.strip())


def _voter_reason(ctx: _Ctx, author: str, post: Post,
                  last_word_until: dict[str, datetime], at: datetime) -> str | None:
    if ctx.host_key is not None and _key(author) == ctx.host_key:
        return "host_post"
    nick, how = _author(ctx, post, at)
    if how == "replaced":
        return "replaced_player"
    if nick is None or how == "not_yet":
        return "not_in_game"
    if nick not in ctx.alive:
        until = last_word_until.get(nick)
        if until is not None and post.earliest >= until:
            return "dead_after_last_word"
        return "dead_voter"
    if nick in ctx.frozen:
        return "frozen_voter"
    return None


def _frag_text(ctx: _Ctx, post: Post, target: str) -> str:
    """The written text of the (last) fragment that named ``target``."""
    found = target
    index = ctx.index_for(post)
    for frag in ctx.fragments(post):
        for r in index.match_all(frag.text):
            if isinstance(r, Match) and ctx.rename.get(r.player, r.player) == target:
                found = frag.text
    return found


def _history_votes(ctx: _Ctx, vs: Sequence[tuple[Post, datetime]],
                   stood: tuple[Post, datetime], silent: Sequence[Post],
                   last_word_until: dict[str, datetime], cutoff: datetime) -> list[Vote]:
    """R2.7 (R2.13-R2.15 follow it): the votes the versions *before* the standing one held,
    each at its own time, one per change of target (a restated vote is no new vote). The
    standing version's own vote is the caller's (with its rejections). A version whose vote
    would not count (no single living target, a self-vote, an author who may not vote then)
    is no vote; an edit that removes a vote takes nothing back: the vote was cast (R2.14,
    R2.15: what was final stays final, a majority stays reached). Off with
    ``edited_votes = "never"`` (an edited post holds no vote at all) and for a post the host
    decided (R11.1: the decision is the post's only vote)."""
    if ctx.options.edited_votes == "never":
        return []
    if ctx.book is not None and ctx.book.vote_decision(stood[0].post_id) is not None:
        return []
    skip = {id(p) for p in silent}
    out: list[Vote] = []
    last: str | None = None
    times = _event_times(vs)
    for post, seen in vs:
        if (post, seen) == stood or post is stood[0]:
            break
        if id(post) in skip or _version_time(post, seen) >= cutoff:
            break
        at = times[id(post)]
        target, _ = _decide(ctx, _targets(ctx, post)[0])
        if target is None:
            continue
        if _voter_reason(ctx, post.author, post, last_word_until, at) is not None:
            continue
        voter = _author(ctx, post, at)[0] or post.author
        if target not in ctx.alive or (target == voter and not ctx.options.self_votes):
            continue
        final_word = _final_word(ctx, post)
        if target == last:
            if final_word and not out[-1].final:   # the word added by an edit: final from it
                out.append(Vote(voter=voter, target=target, at=at, post_id=post.post_id,
                                final=True))
            continue
        out.append(Vote(voter=voter, target=target, at=at, post_id=post.post_id,
                        final=final_word))
        last = target
    return out


def _vote_since(ctx: _Ctx, vs: Sequence[tuple[Post, datetime]], stood: tuple[Post, datetime],
                target: str) -> datetime:
    """R2.7: when the standing vote came to stand: the post time, or the time of the edit
    that put this target there (the first version seen when it was already edited)."""
    since: datetime | None = None
    times = _event_times(vs)
    for post, seen in vs:
        t, _ = _decide(ctx, _targets(ctx, post)[0])
        if t != target:
            since = None
        elif since is None:
            since = times[id(post)]
        if (post, seen) == stood:
            break
    return since or times.get(id(stood[0])) or _vote_time(*stood)


def _same_notice(a: Post, b: Post) -> bool:
    return a.edit_count == b.edit_count and a.edited_at == b.edited_at


def _same_text(a: Post, b: Post) -> bool:
    ka, kb = a.content_key(), b.content_key()
    return all(ka[k] == kb[k] for k in ("text", "colored", "bold", "hidden"))


def _r2_11(ctx: _Ctx, vs: Sequence[tuple[Post, datetime]], stood: tuple[Post, datetime],
           snap: Post | None, cutoff: datetime, notes: list[str], lang: str
           ) -> tuple[tuple[Post, datetime], list[Post]]:
    """R2.11: the version that stood at the deadline when the board hides an edit, and the
    versions that are silent edits after it (empty when there are none)."""
    post = stood[0]
    if snap is not None:
        if _same_text(post, snap) or not _same_notice(post, snap):
            return stood, []    # unchanged, or an edit with a notice (R2.7 placed it)
        i = max((k for k, (p, _) in enumerate(vs) if _same_text(p, snap)
                 and _same_notice(p, snap)), default=None)
        standing = vs[i] if i is not None else (snap, cutoff)
        silent = [p for p, _ in vs[(i + 1 if i is not None else 0):]
                  if _same_notice(p, snap) and not _same_text(p, snap)]
        notes.append(note_text("silent_edit", lang, post_id=post.post_id, author=post.author,
                               before=_shown(ctx, snap), after=_shown(ctx, post)))
        return standing, silent
    # no version read at the deadline: name a silent change first seen after it
    for (prev, _), (p, seen) in zip(vs, vs[1:]):
        if seen >= cutoff and _same_notice(prev, p) and not _same_text(prev, p):
            notes.append(note_text("silent_edit_unplaced", lang, post_id=p.post_id,
                                   author=p.author, seen=seen.isoformat(timespec="seconds")))
            break
    return stood, []


def _shown(ctx: _Ctx, post: Post) -> str:
    """A version's vote for the host: its targets, else «—»."""
    targets = _targets(ctx, post)[0]
    return ", ".join(dict.fromkeys(targets)) if targets else "—"


def _edit_notes(ctx: _Ctx, vs: Sequence[tuple[Post, datetime]], cutoff: datetime,
                silent: AbstractSet[int] = frozenset()) -> list[EditNote]:
    """One note per edit that changed the post's vote targets (or whose before is unknown and
    whose after has a vote). ``silent``: ids of versions that are R2.11 edits after the
    deadline (never counted)."""
    out: list[EditNote] = []
    prev: tuple[str, ...] | None = None
    for i, (post, seen) in enumerate(vs):
        targets, _ = _targets(ctx, post)
        if i == 0:
            if post.edit_count > 0 and targets:
                out.append(EditNote(post.post_id, post.author, post.edited_at, post.edited_by,
                                    (), targets, _version_time(post, seen) < cutoff, False))
        elif targets != prev:
            out.append(EditNote(post.post_id, post.author, post.edited_at, post.edited_by,
                                prev or (), targets,
                                _version_time(post, seen) < cutoff and id(post) not in silent,
                                True))
        prev = targets
    return out
