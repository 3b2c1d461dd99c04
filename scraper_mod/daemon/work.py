"""The daemon's work as plain functions, and the one ``DaemonOps`` that does it for real.

* ``LiveOps.poll(ctx, day, full=...)``: read the day's topic (``game.poll.poll_day``, the one
  poll path; incrementally, a full re-scan at the deadline) and the move source, store what
  is new;
* ``resolve_due(ctx, day)``: resolve a day whose deadline has passed and write ``out/day-N/``;
* ``open_next_day(ctx, day)``: find the day's topic: ``[[days]]`` in the game file,
  ``scraper-mod day open GAME N URL``, or the newest topic of ``[forum] forum`` whose title
  matches ``[forum] title_pattern`` («День 4»).

``LiveOps`` calls them for ``daemon.scheduler.Daemon``; tests hand the daemon fakes instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol, cast

from scraper_mod.game.day.daytopic import own_day_topic, topic_title_regex  # noqa: F401
from scraper_mod.game.day.poll import poll_day_topics
from scraper_mod.game.night.intake import poll_moves
from scraper_mod.game.night.movesource import source_for
from scraper_mod.game.results.resolve import resolve_day_files
from scraper_mod.game.setup.connect import game_board, game_client, make_client

from ..errors import ForumError, MailboxError
from ..forum.client import ForumClient
from ..forum.poller import DeadlineRead, read_at_deadline
from ..game.context import GameContext
from ..moves.sources import FetchReport
from ..rules.model import ROLE_NAMES, Role
from ..store import Store
from .dayone import open_day_one

# ---------------------------------------------------------------------------------------------
# What the work functions report
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PollResult:
    """One poll of a day: the topic (when known) and the move source."""

    day: int
    topic: str | None
    full: bool = False
    requests: int = 0
    new_posts: int = 0
    new_versions: int = 0   # edits of posts seen before
    deleted: int = 0
    pages: int = 0
    new_moves: int = 0
    move_error: str | None = None   # the move source failed (the topic poll may still be good)
    errors: tuple[str, ...] = ()    # problems that did not stop the poll (a failed page...)

    def describe(self) -> str:
        what = "full re-scan of" if self.full else "polled"
        parts = [f"{self.new_posts} new post{'s' if self.new_posts != 1 else ''}"]
        if self.new_versions:
            parts.append(f"{self.new_versions} edit{'s' if self.new_versions != 1 else ''}")
        if self.deleted:
            parts.append(f"{self.deleted} deleted")
        topic = (f"{what} {self.topic} ({self.requests} request"
                 f"{'s' if self.requests != 1 else ''}): {', '.join(parts)}"
                 if self.topic else "no topic yet")
        moves = (f"move source failed: {self.move_error}" if self.move_error else
                 f"{self.new_moves} new move message{'s' if self.new_moves != 1 else ''}")
        return f"{topic}; {moves}"


@dataclass(frozen=True)
class Resolution:
    """A resolved day: where its posts are and what they say, in one line."""

    day: int
    out_dir: Path
    files: tuple[str, ...] = ()
    winner: str | None = None
    summary: str = ""


class DaemonOps(Protocol):
    """The work the daemon calls; ``LiveOps`` does it for real, tests pass fakes."""

    def poll(self, ctx: GameContext, day: int, *, full: bool) -> PollResult: ...
    def resolve(self, ctx: GameContext, day: int) -> Resolution: ...
    def find_topic(self, ctx: GameContext, day: int) -> str | None: ...
    # optional: ``read_deadline(ctx, day)`` reads the topic at the deadline (R2.11)


# ---------------------------------------------------------------------------------------------
# The plain functions (the real work)
# ---------------------------------------------------------------------------------------------


@dataclass
class _Fetched:
    """A move source whose fetch already happened (hands its report to ``poll_moves``)."""

    name: str
    report: FetchReport

    def fetch_new(self, store: Store, *, now: datetime) -> FetchReport:
        return self.report


def poll_moves_once(ctx: GameContext, *, answer: bool = True,
                    client: ForumClient | None = None) -> tuple[int, tuple[str, ...]]:
    """Read the move source once: (new messages stored, per-message problems).

    The messages are stored raw by the source; the move intake then judges and answers them.
    The intake re-reads every stored letter, so on an idle poll (nothing new, no SMTP
    answers to retry) it is skipped unless ``answer``. Without ``[moves] source`` there is
    nothing to read. A source that cannot be read at all raises ``MailboxError``. The board's
    PM source reads over ``client`` (default: the game's one client, ``game_client``), the
    same session as the topic.
    """
    if not ctx.game.moves.source:
        return 0, ()
    source = source_for(ctx.game, client_factory=lambda: client or game_client(ctx))
    fetch = source.fetch_new(ctx.store, now=ctx.now())
    errors = tuple(fetch.errors)
    if fetch.new or errors or answer or ctx.game.moves.smtp_host:
        report = poll_moves(ctx, source=_Fetched(source.name, fetch))
        errors += tuple(e for e in report.errors if e not in errors)
    return len(fetch.new), errors


def resolve_due(ctx: GameContext, day: int) -> Resolution:
    """Resolve day ``day`` (its deadline has passed and its final re-scan is done) and write
    ``out/day-N/`` (``resolving.resolve_day_files``, offline: the daemon re-scanned already).
    The store then holds the day's resolution."""
    out = resolve_day_files(ctx, day, offline=True)
    result = out.result.to_json()
    return Resolution(day=day, out_dir=out.out_dir, files=tuple(sorted(out.files)),
                      winner=result.get("winner"), summary=summarize_result(result))


_RU_BY = {"votes": "по голосам", "random": "по жребию", "mafia": "мафия", "maniac": "Маньяк",
          "sheriff": "Шериф", "kamikaze": "Камикадзе"}
_RU_WINNER = {"mafia": "мафия", "town": "мирные", "maniac": "Маньяк"}


def _role_ru(role: str) -> str:
    try:
        return ROLE_NAMES["ru"][Role(role)]
    except ValueError:
        return role


def summarize_result(result: dict | None, lang: str = "en") -> str:
    """One line about a resolved day (CONTRACT resolve JSON): jailed, killed, winner; in a
    Russian game in Russian (issue 39 item 4)."""
    if not result:
        return ""
    if isinstance(result.get("result"), dict):
        result = result["result"]
    if lang == "ru":
        return _summarize_ru(result)
    parts = []
    lyn = result.get("lynched")
    if lyn:
        parts.append(f"jailed {lyn['player']} ({lyn['role']}, by {lyn['by']})")
    else:
        parts.append("nobody jailed")
    killed = result.get("killed") or []
    if killed:
        parts.append("killed " + ", ".join(f"{k['player']} ({k['role']}, by {k['by']})"
                                           for k in killed))
    else:
        parts.append("nobody killed at night")
    if result.get("winner"):
        parts.append(f"the game is over: {result['winner']} wins")
    return "; ".join(parts)


def _summarize_ru(result: dict) -> str:
    parts = []
    lyn = result.get("lynched")
    if lyn:
        parts.append(f"посадка: {lyn['player']} ({_role_ru(lyn['role'])}, "
                     f"{_RU_BY.get(lyn['by'], lyn['by'])})")
    else:
        parts.append("посадки нет")
    killed = result.get("killed") or []
    if killed:
        parts.append("жертвы ночи: " if len(killed) > 1 else "жертва ночи: ")
        parts[-1] += ", ".join(f"{k['player']} ({_role_ru(k['role'])}, "
                               f"{_RU_BY.get(k['by'], k['by'])})" for k in killed)
    else:
        parts.append("ночью никто не погиб")
    if result.get("winner"):
        parts.append(f"игра окончена, победа: {winner_ru(result['winner'])}")
    return "; ".join(parts)


def winner_ru(winner: str) -> str:
    """The winning side in Russian: «мафия», «мирные», «Маньяк»."""
    return _RU_WINNER.get(winner, winner)


def open_next_day(ctx: GameContext, day: int, *,
                  client: ForumClient | None = None) -> str | None:
    """Day ``day``'s topic URL: already known (``[[days]]``, ``day open``), or the game's own
    topic found in ``[forum] forum`` (``game.daytopic.own_day_topic``, R12.5)."""
    known = ctx.topic_for_day(day)
    if known or not ctx.game.forum.forum:
        return known
    return own_day_topic(ctx, day, game_board(ctx, client))


class LiveOps:
    """The real work: one ``ForumClient`` kept for the daemon's life (its session, its pace)."""

    def __init__(self, client: ForumClient | None = None) -> None:
        self._client = client
        self._answered_once = False   # the first poll answers anything left from before

    def client(self, ctx: GameContext) -> ForumClient:
        if self._client is None:
            self._client = make_client(ctx)
        return self._client

    def poll(self, ctx: GameContext, day: int, *, full: bool) -> PollResult:
        """Poll day ``day``'s topic (a full re-scan when ``full``: ``game.poll.poll_day``, the
        one poll path) and the move source.

        A full re-scan that cannot read every page raises (the caller holds the resolution);
        an incremental poll reports its problems in ``errors``. A move-source error is
        reported in ``move_error`` by an incremental poll, so one broken mailbox does not stop
        the vote count, and raised by the final (full) poll, so no day is resolved without
        its moves. The first poll of the daemon answers any move letter left from before.
        """
        topic = ctx.topic_for_day(day)
        client = self.client(ctx) if topic else None
        # R2.17: the day's voting topic too, when the house has one
        reports = (poll_day_topics(ctx, day, full=full, client=client,
                                   board=game_board(ctx, client)) if client is not None else [])
        answer_moves = full or not self._answered_once
        self._answered_once = True
        move_error = None
        move_problems: tuple[str, ...] = ()
        try:
            new_moves, move_problems = poll_moves_once(ctx, answer=answer_moves, client=client)
        except MailboxError as e:
            if full:
                raise
            new_moves, move_error = 0, str(e)
        errors = tuple(e for r in reports for e in r.errors) + move_problems
        if full and reports and (errors or not all(r.complete for r in reports)):
            first = errors[0] if errors else "the last page was not reached"
            raise ForumError(f"the final re-scan of day {day}'s topic is incomplete: {first}",
                             url=topic, hint="it is tried again until the board answers")
        if full and move_problems:
            raise MailboxError(f"the last read of the moves failed: {move_problems[0]}",
                               hint="check the message named; it is tried again")
        return PollResult(day=day, topic=topic, full=full,
                          requests=sum(r.requests for r in reports),
                          new_posts=sum(len(r.new_posts) for r in reports),
                          new_versions=sum(len(r.new_versions) for r in reports),
                          deleted=sum(len(r.deleted) for r in reports),
                          pages=sum(len(r.pages) for r in reports),
                          new_moves=new_moves, move_error=move_error, errors=errors)

    def resolve(self, ctx: GameContext, day: int) -> Resolution:
        return resolve_due(ctx, day)

    def read_deadline(self, ctx: GameContext, day: int) -> DeadlineRead:
        """R2.11: the day's topic read at its deadline (``forum.poller.read_at_deadline``)."""
        client = self.client(ctx)
        return read_at_deadline(client, ctx.store, cast(str, ctx.votes_topic_for_day(day)),
                                deadline=ctx.calendar().deadline(day), now=ctx.now,
                                board_tz=ctx.game.timezone, board=game_board(ctx, client))

    def find_topic(self, ctx: GameContext, day: int) -> str | None:
        if ctx.topic_for_day(day) or not ctx.game.forum.forum:
            return ctx.topic_for_day(day)
        found = open_next_day(ctx, day, client=self.client(ctx))
        if found is None and day == 1:    # on autopilot, day 1 is opened at the start
            found = open_day_one(ctx, game_board(ctx, self.client(ctx)))
        return found
