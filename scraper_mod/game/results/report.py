"""The report: everything the posts of one resolved day say, as plain values (``DayReport``
and its parts: the vote table, the rejected votes, the random list revealed). Tests build it
by hand; ``game.resolve.build_report`` builds it from a resolved day.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, Mapping
from zoneinfo import ZoneInfo

from scraper_mod.forum.engine import topic_post_url
from scraper_mod.posts.render import bbcode_inert
from scraper_mod.rules.model import DayResult, Move, Role, RuleOptions, Vote
from scraper_mod.rules.randomlist import commitment_text
from scraper_mod.rules.votes import EditNote


@dataclass(frozen=True)
class VoteLine:
    """One counted vote in the table: the voter, when, and the post it was written in."""

    voter: str
    at: datetime
    post_id: int | None = None
    url: str | None = None
    final: bool = False     # R2.14: a final vote
    double: bool = False    # R14: the Mayor's vote, counted as two («×2»)


@dataclass(frozen=True)
class Candidate:
    """One line of the vote table: the candidate, his count and his voters in time order."""

    target: str
    votes: int
    voters: tuple[VoteLine, ...]
    penalty: int = 0        # R2.16: votes for not voting, included in ``votes``


@dataclass(frozen=True)
class Rejected:
    """A vote-looking post or colored nick that was not counted (R9.4), and why.

    ``reason`` is the tally's code (``quoted``, ``late``...), ``why`` its words."""

    post_id: int | None
    author: str
    text: str
    reason: str
    why: str = ""


@dataclass(frozen=True)
class RandomReveal:
    """The host's random list revealed at the end (R3.1): the order, the salt, the hash."""

    order: tuple[str, ...]
    salt: str | None = None
    commitment: str | None = None

    @property
    def text(self) -> str | None:
        """The exact text whose SHA-256 is the commitment (``randomlist.commitment_text``)."""
        if not self.salt:
            return None
        return commitment_text(list(self.order), self.salt)


def code_inert(value: object) -> str:
    """Text for inside ``[code]``: the board parses nothing there but ``[/code]``, so the text is
    kept byte for byte (players copy it, e.g. to check a hash) unless it could close the
    block, in which case it is made inert like any player text."""
    s = "" if value is None else str(value)
    return bbcode_inert(s) if "[/code" in s.lower() else s


@dataclass(frozen=True)
class DayReport:
    """Everything the posts of one resolved day need, as plain values.

    ``roles``: every player's role; ``alive_before``: alive at the start of the day;
    ``commissar``/``sergeant``/``duty``: as they stand before the night (``*_after`` after it).
    ``lynch_by``/``tied``: how the lynch was decided; ``cursor_before``/``cursor_after``: the
    random list's cursor (R3.2). ``orders`` is the night's ``NightOrders`` (or None).
    """

    title: str
    day: int
    lang: str
    tz: ZoneInfo
    options: RuleOptions
    result: DayResult
    roles: Mapping[str, Role]
    alive_before: tuple[str, ...]
    deadline: datetime
    newspaper_at: datetime                 # when the newspaper appears: the next day's start
    next_deadline: datetime | None
    next_deadline_regular: datetime | None = None   # what it would be unmoved (R1.4)
    deadline_regular: datetime | None = None        # this day's unmoved deadline (R1.4)
    next_day_merged: bool = False          # the next day runs over a weekend (R1.3)
    candidates: tuple[Candidate, ...] = ()
    not_voting: tuple[str, ...] = ()
    lynch_by: str | None = None
    tied: tuple[str, ...] = ()
    random_order: tuple[str, ...] = ()
    cursor_before: int = 0
    cursor_after: int = 0
    rejected: tuple[Rejected, ...] = ()
    tally_notes: tuple[str, ...] = ()
    moves: tuple[Move, ...] = ()
    orders: Any = None
    commissar: str | None = None
    sergeant: str | None = None
    duty: str | None = None
    commissar_after: str | None = None
    duty_after: str | None = None
    frozen_today: str | None = None        # frozen by the previous night: vote not counted
    posts_by: tuple[tuple[str, int], ...] = ()
    edits: tuple[EditNote, ...] = ()
    late_posts: tuple[int, ...] = ()
    deleted_posts: tuple[int, ...] = ()
    reveal: RandomReveal | None = None
    topic: str | None = None
    discussion: str | None = None          # R2.17: the day's topic when the votes had their own
    vote_table: str = "list"               # "list" | "code" | "table"
    contacts: Mapping[str, str] = field(default_factory=dict)  # nick -> where his PMs go
    templates: str | None = None           # a game's own templates/ folder, tried first
    decisions: tuple = ()                  # R10, R11: slotbook.Decision, all (host report)
    max_post_chars: int = 60000            # the board's post limit: a longer newspaper is split
    max_story_chars: int = 3000            # what of the murder story the newspaper quotes
    house: Mapping[str, Any] = field(default_factory=dict)  # R2.12, R2.15 (game/day/house.py)
    # R14.3 / issue 37: how to send night moves (game/setup/deal.py ``move_help``): the day-start
    # post says where, the words of the dealt roles and the deadline; empty: not said
    move_help: Mapping[str, Any] = field(default_factory=dict)

    @property
    def deaths(self) -> tuple[str, ...]:
        """Who died this day (lynch first, then the night), for the last-word window (R8.1)."""
        out = []
        if self.result.lynched:
            out.append(self.result.lynched.player)
        out += [d.player for d in self.result.killed]
        return tuple(out)


def vote_table_layout(options: RuleOptions) -> str:
    """R9.1: the board's own ``[table]`` when ``table_bbcode``; else ``vote_table`` or a list."""
    if options.table_bbcode:
        return "table"
    layout = getattr(options, "vote_table", "list")
    return layout if layout in ("list", "code", "table") else "list"


def post_url(topic: str | None, post_id: int | None) -> str | None:
    """The permanent link of a post on the topic's board (the engine its address names)."""
    if not topic or post_id is None:
        return None
    return topic_post_url(topic, post_id)


def build_candidates(counts: Iterable[Any], votes: Iterable[Vote], *,
                     topic: str | None = None,
                     link: Callable[[int], str | None] | None = None) -> tuple[Candidate, ...]:
    """The vote table from a tally's ``counts`` (target, votes, voters) and counted ``votes``.

    Keeps the tally's order of candidates (CONTRACT: by votes, then who reached it first);
    each candidate's voters are put in the order their votes were cast (R9.1).
    """
    by_voter = {v.voter: v for v in votes}
    out = []
    for c in counts:
        lines = []
        for nick in c.voters:
            v = by_voter.get(nick)
            if v is None:
                continue
            url = link(v.post_id) if link else post_url(topic, v.post_id)
            lines.append(VoteLine(voter=nick, at=v.at, post_id=v.post_id, url=url,
                                  final=v.final, double=nick in getattr(c, "doubled", ())))
        lines.sort(key=lambda x: (x.at, x.post_id or 0))
        out.append(Candidate(target=c.target, votes=int(c.votes), voters=tuple(lines),
                             penalty=int(getattr(c, "penalty", 0))))
    return tuple(out)
