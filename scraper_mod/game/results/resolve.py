"""Resolving a game day (RULES R6) and writing every post the host needs (R9).

``resolve_day_files(ctx, day)`` ties the layers to the game: the final re-scan
(``game/day/rescan.py``), the final tally, the lynch, the night, the store, the files, and the
later days that depend on this one. The layers, each usable alone:

* ``game/results/report.py``: ``DayReport``, everything the posts say about one resolved day, as plain
  values (the outcome ``DayResult``, the final vote table, the judged night moves, the state
  after the night, the calendar instants). Tests build it by hand; ``build_report`` here
  builds it from a resolved day.
* ``game/results/rendering.py``: ``render_day(report)``, the texts, ``{relative path: text}`` —
  ``newspaper.bbcode``, ``day-start.bbcode``, ``pm/<nick>.txt``, ``host-report.txt``,
  ``result.json`` — from the Jinja2 templates in ``templates/`` (``newspaper.<lang>.bbcode.j2``
  ...), with the wording helpers of ``game/results/wording.py``. Pure: the same report gives the same
  bytes; no "now" appears in any output. A game may carry its own copies of templates in
  ``GAME/templates/`` (same file names): they are used instead of the built-in ones, so a
  host can change the wording of one post without touching the installation.
* ``game/publishing/outdir.py``: ``write_day_files(out_dir, day, files)`` writes ``out/day-N/``
  atomically (the new folder is built beside the old one and swapped in; a crash leaves the
  old folder or the new one, and ``recover_out_dir`` finishes an interrupted swap).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any, Sequence

from scraper_mod.errors import RulesError, StorageError
from scraper_mod.game.context import GameContext
from scraper_mod.game.day.house import newspaper_house
from scraper_mod.game.day.rescan import check_topic_read, final_scan
from scraper_mod.game.day.tally import DayTally, tally_day
from scraper_mod.game.history.record import update_record
from scraper_mod.game.night.intake import day_moves
from scraper_mod.game.publishing.outdir import write_day_files
from scraper_mod.game.results.rendering import render_day
from scraper_mod.game.results.report import (
    DayReport,
    RandomReveal,
    Rejected,
    build_candidates,
    vote_table_layout,
)
from scraper_mod.game.roster.slotbook import report_extras, resolve_view, with_book
from scraper_mod.game.setup.deal import move_help
from scraper_mod.posts.preview import preview_files
from scraper_mod.rules.house import remove_non_voters
from scraper_mod.rules.model import DayResult, Move
from scraper_mod.rules.moves import orders_from_moves
from scraper_mod.rules.night import NightOrders, resolve_day
from scraper_mod.rules.notes import Note
from scraper_mod.rules.state import GameState, with_named_duty
from scraper_mod.rules.tally import Lynch, decide_lynch
from scraper_mod.rules.votes import reason_text

log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------------------
# The service: resolve a day of a game and write its posts
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ResolveOutcome:
    """What ``resolve_day_files`` did: the day's result, where its posts are, and which later
    days it rewrote (``rewritten``) or withdrew because the game now ends earlier
    (``withdrawn``)."""

    day: int
    result: DayResult
    out_dir: Path
    files: tuple[str, ...]
    report: DayReport
    state: Any                     # the GameState after the day
    lynch: Any = None              # the tally's Lynch
    rewritten: tuple[int, ...] = ()
    withdrawn: tuple[int, ...] = ()


def default_day(ctx: GameContext) -> int:
    """``resolve``'s default day: the last one whose deadline has passed (CONTRACT)."""
    day = ctx.calendar().last_due_day(ctx.now())
    if day < 1:
        cal = ctx.calendar()
        raise RulesError(f"no day's deadline has passed yet (day 1 ends "
                         f"{cal.deadline(1).isoformat()})",
                         hint="wait for the deadline, or give --day N --force")
    return day


def state_before(ctx: GameContext, day: int) -> GameState:
    """The game state day ``day`` starts from: the stored state after day ``day - 1``."""
    if day == 1:
        return ctx.initial_state()
    stored = ctx.store.resolution(day - 1)
    if stored is None:
        missing = min(d for d in range(1, day) if ctx.store.resolution(d) is None)
        raise RulesError(f"day {missing} is not resolved yet, so day {day} has no state to "
                         "start from", hint=f"resolve day {missing} first")
    if not isinstance(stored.get("state"), dict):
        raise StorageError(f"the stored resolution of day {day - 1} has no game state",
                           path=str(ctx.store.path),
                           hint=f"resolve day {day - 1} again (scraper-mod resolve --day "
                                f"{day - 1})")
    st = GameState.from_json(stored["state"])
    # the store keeps JSON with sorted keys: put the players back in the game file's order,
    # which every list in the posts follows
    order = [p.nick for p in ctx.game.players if p.nick in st.roles]
    order += [n for n in st.roles if n not in order]
    # R4.1: a duty mafioso the host named in game.toml since (the same rule the moves use)
    return with_named_duty(st.evolve(roles={n: st.roles[n] for n in order}), ctx.game.duty)


def _reveal(ctx: GameContext, state) -> RandomReveal | None:
    if not state.order:
        return None
    deal = ctx.store.get("deal") or {}
    if list(deal.get("random_list") or ()) == list(state.order):
        return RandomReveal(order=tuple(state.order), salt=deal.get("salt"),
                            commitment=deal.get("commitment"))
    return RandomReveal(order=tuple(state.order))


def build_report(ctx: GameContext, day: int, *, tally: DayTally, lynch: Lynch | None,
                 moves: Sequence[Move], orders: NightOrders, before: GameState,
                 result: DayResult, after: GameState) -> DayReport:
    """The ``DayReport`` of a resolved day from the service objects (VOTES' ``DayTally``,
    MOVES' judged moves, CORE's states and result)."""
    game = ctx.game
    lang = game.language
    cal = ctx.calendar()
    deadline = cal.deadline(day)
    over = result.winner is not None
    next_deadline = None if over else cal.deadline(day + 1)
    next_regular = None
    if not over and cal.is_moved(day + 1):
        next_regular = cal.scheduled_deadline(day + 1)
    merged = (not over and not cal.is_moved(day + 1)
              and cal.deadline(day + 1) - cal.day_start(day + 1) > timedelta(hours=24))
    link = tally.link

    notes = tally.notes
    rejected = tuple(Rejected(post_id=r.post_id, author=r.author, text=r.text, reason=r.reason,
                              why=reason_text(r.reason, lang)) for r in tally.rejected)
    edits = tuple(notes.edits)
    order = {n: i for i, n in enumerate(before.roles)}
    posts_by = tuple(sorted(((n, int(c)) for n, c in dict(notes.posts_per_player).items()
                             if c), key=lambda x: (order.get(x[0], len(order)), x[0])))
    frozen_today = ", ".join(sorted(tally.state.frozen)) or None
    tally_notes = tuple(tally.state.notes) + tuple(notes.notes) + (
        (tally.lynch_note,) if tally.lynch_note else ()) + tuple(tally.house_notes(lang))
    return DayReport(
        title=game.title, day=day, lang=lang, tz=game.timezone, options=game.rules,
        result=result, roles=dict(before.roles), alive_before=before.alive_in_order(),
        deadline=deadline, newspaper_at=cal.day_start(day + 1),
        next_deadline=next_deadline, next_deadline_regular=next_regular,
        deadline_regular=cal.scheduled_deadline(day) if cal.is_moved(day) else None,
        next_day_merged=merged,
        candidates=build_candidates(tally.tally.counts, tally.tally.votes, link=link),
        not_voting=tuple(tally.tally.not_voting),
        lynch_by=lynch.by if lynch else None, tied=tuple(lynch.tied) if lynch else (),
        random_order=tuple(before.order), cursor_before=before.cursor,
        cursor_after=lynch.cursor if lynch else before.cursor,
        rejected=rejected, tally_notes=tally_notes, moves=tuple(moves), orders=orders,
        commissar=before.commissar, sergeant=before.sergeant, duty=before.duty,
        commissar_after=after.commissar, duty_after=after.duty, frozen_today=frozen_today,
        posts_by=posts_by, edits=edits, late_posts=tuple(notes.late_posts),
        deleted_posts=tuple(notes.deleted),
        reveal=_reveal(ctx, before) if over else None, topic=tally.topic,
        discussion=ctx.topic_for_day(day) if ctx.vote_topic_for_day(day) else None,
        vote_table=vote_table_layout(game.rules),
        contacts={p.nick: p.contact for p in game.players if p.contact},
        templates=str(game.folder / "templates"), max_post_chars=game.forum.max_post_chars,
        max_story_chars=game.moves.max_story_chars,
        move_help=move_help(game, before.roles.values()))


def _decide_lynch(tally, before, options):
    leaders = [t for t in tally.tally.leaders if t in before.alive]
    if len(leaders) != 1 and not before.order:
        raise RulesError("the vote is tied or empty and the game has no random list (R3)",
                         hint="draw it with `scraper-mod deal`, or set game.random_list")
    return decide_lynch(tally.tally, alive=before.alive, order=before.order,
                        cursor=before.cursor, options=options)


def checked_state_before(ctx: GameContext, day: int) -> GameState:
    """``state_before``, refusing a day after the game's end."""
    before = state_before(ctx, day)
    if day > 1:
        prev = ctx.store.resolution(day - 1) or {}
        if prev.get("winner"):
            raise RulesError(f"the game ended on day {day - 1} ({prev['winner']} won): "
                             f"there is no day {day}")
    return before


def compute_day(ctx: GameContext, day: int
                ) -> tuple[DayReport, GameState, GameState, Lynch | None, NightOrders]:
    """Resolve day ``day`` from the stored posts and moves, without writing anything.

    Returns ``(report, files-independent parts)``: the ``DayReport``, the state after the
    day, the lynch and the night orders."""
    game = ctx.game
    before = checked_state_before(ctx, day)
    deadline = ctx.calendar().deadline(day)
    # R10, R11: renamed to the slots' nicks at the deadline, the host's removals dead
    before, host_kills, book = resolve_view(ctx, before, day=day, cutoff=deadline)
    tally = tally_day(ctx, day, as_of=deadline)
    lynch = _decide_lynch(tally, before, game.rules)
    moves = day_moves(ctx, day, state=before)
    orders = orders_from_moves(moves, before, game.rules)
    result, after = resolve_day(day, before, lynch, orders, game.rules)
    result = with_book(ctx, result, book, day, host_kills)
    result, after = remove_non_voters(   # R2.16
        result, after, options=game.rules, voted={v.voter for v in tally.tally.votes},
        exempt=tally.tally.frozen, counts_day=tally.tally.majority is None,
        at=deadline.astimezone(game.timezone))
    report = build_report(ctx, day, tally=tally, lynch=lynch, moves=moves, orders=orders,
                          before=before, result=result, after=after)
    report = replace(report, **report_extras(ctx, book, report.contacts),
                     house=newspaper_house(tally))
    if report.reveal is not None and not book.empty:   # the list as committed to (R3.1)
        report = replace(report, reveal=_reveal(ctx, ctx.initial_state()))
    return report, before, after, lynch, orders


def resolve_day_files(ctx: GameContext, day: int | None = None, *, force: bool = False,
                      offline: bool = False, preview: bool = False,
                      cascade: bool = True) -> ResolveOutcome:
    """Resolve day ``day`` (RULES R6) and write ``out/day-N/`` (R9).

    Refuses before the day's deadline unless ``force``. Unless ``offline``, first re-scans
    the whole topic and reads the move source a last time. Records the result and the game
    state after the day in the store, writes the posts atomically, and — when later days
    were already resolved — resolves them again from the new state (``cascade``), so a
    correction of an earlier day carries through; later days that no longer happen (the game
    now ends earlier) are withdrawn from the store and from ``out/``.
    """
    if day is None:
        day = default_day(ctx)
    if day < 1:
        raise RulesError(f"there is no day {day}: days are numbered from 1")
    cal = ctx.calendar()
    deadline = cal.deadline(day)
    now = ctx.now()
    if now < deadline and not force:
        raise RulesError(f"day {day}'s deadline has not passed yet: it is "
                         f"{deadline.astimezone(ctx.game.timezone).isoformat()}",
                         hint="wait for it, or use --force to resolve early",
                         ru=f"срок дня {day} ещё не прошёл: он "
                            f"{deadline.astimezone(ctx.game.timezone):%d.%m.%Y %H:%M} "
                            "(дождитесь его или подведите итоги раньше с --force)")
    if cascade:
        finish_cascade(ctx)         # a re-resolution a crash cut short, first
    checked_state_before(ctx, day)  # before any network: an impossible day fails fast
    if not offline:
        final_scan(ctx, day)
    elif not force:
        check_topic_read(ctx, day)
    report, before, after, lynch, orders = compute_day(ctx, day)
    files = render_day(report)
    out_dir = ctx.game.out_dir
    final = out_dir / f"day-{day}"
    if preview or (final / "preview").is_dir():
        files.update(preview_files(files, lang=report.lang, links=ctx.quote_links()))
    write_day_files(out_dir, day, files)
    result = report.result
    data = {
        **result.to_json(),
        "story": result.story, "vsb_protected": result.vsb_protected,
        "notes": [n.to_json() if isinstance(n, Note) else n for n in result.notes],
        "lynch": lynch.to_json() if lynch is not None else None,
        "orders": orders.to_json(),
        "cursor": after.cursor,
        "state_before": before.to_json(),
        "state": after.to_json(),
        "files": {rel: hashlib.sha256(text.encode("utf-8")).hexdigest()
                  for rel, text in files.items()},
    }
    ctx.store.save_resolution(day, data, resolved_at=now)
    ctx.store.log_event("resolve", {"day": day, "forced": bool(force and now < deadline),
                                    "offline": offline, "winner": result.winner},
                        at=now)
    rewritten: list[int] = []
    withdrawn: list[int] = []
    if cascade:
        rewritten, withdrawn = _cascade(ctx, day)
        update_record(ctx)          # the game's record, once it has a winner
    return ResolveOutcome(day=day, result=result, out_dir=final, files=tuple(files),
                          report=report, state=after, lynch=lynch, rewritten=tuple(rewritten),
                          withdrawn=tuple(withdrawn))


CASCADE_PENDING = "cascade_pending"     # kv: the day whose later days are being redone


def _cascade(ctx: GameContext, day: int) -> tuple[list[int], list[int]]:
    """Resolve again (or withdraw) every resolved day after ``day`` from the new state. The
    store says a cascade is under way until it is done, so a crash in the middle never
    leaves later days resolved from the old state: ``finish_cascade`` redoes them."""
    rewritten: list[int] = []
    withdrawn: list[int] = []
    later = sorted(d for d in ctx.store.resolutions() if d > day)
    if not later:
        return rewritten, withdrawn
    ctx.store.put(CASCADE_PENDING, day)
    for d in later:
        if ctx.store.resolution(d - 1) is None or (ctx.store.resolution(d - 1) or {}).get(
                "winner"):
            withdraw_day(ctx, d)
            withdrawn.append(d)
            continue
        resolve_day_files(ctx, d, force=True, offline=True, cascade=False)
        rewritten.append(d)
    ctx.store.put(CASCADE_PENDING, None)
    return rewritten, withdrawn


def finish_cascade(ctx: GameContext) -> tuple[int, ...]:
    """A cascade a crash cut short (``run`` calls this when it starts): the days after the
    one recorded are resolved again from its state. Returns the days redone."""
    day = ctx.store.get(CASCADE_PENDING)
    if not isinstance(day, int):
        return ()
    if ctx.store.resolution(day) is None:
        ctx.store.put(CASCADE_PENDING, None)
        return ()
    log.warning("a re-resolution from day %d was cut short: the later days are resolved "
                "again", day)
    rewritten, _ = _cascade(ctx, day)
    return tuple(rewritten)


def withdraw_day(ctx: GameContext, day: int) -> None:
    """Forget a resolved day that no longer happens: its stored resolution and its posts
    (the folder is renamed aside first, so a crash leaves it whole or gone)."""
    ctx.store.delete_resolutions_from(day)
    final = ctx.game.out_dir / f"day-{day}"
    gone = ctx.game.out_dir / f".day-{day}.gone"
    if final.exists():
        if gone.exists():
            shutil.rmtree(gone)
        os.rename(final, gone)
        shutil.rmtree(gone, ignore_errors=True)
    ctx.store.log_event("withdraw", {"day": day}, at=ctx.now())
