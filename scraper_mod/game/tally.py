"""The vote count of a game day, from the stored posts (RULES R2, R3, R8; CONTRACT ``tally``).

``tally_day(ctx, day, as_of=...)`` reads every stored version of the day topic's posts,
extracts the votes as of the instant (``rules.votes.extract_votes``), counts them
(``rules.tally.count_votes``) and, once the deadline has passed, decides the lynch with the
random list (``rules.tally.decide_lynch``). The result, ``DayTally``, renders as CONTRACT's
JSON (``to_json``), as plain text and as a BBCode post for the host (``render``), and gives
the vote section of the host report (``report``, also ``vote_report``).

Who may vote on day N, the random list's cursor and the last-word windows come from the day
before: ``day_state(ctx, N)``, from RESOLVE's stored resolutions (``store.resolutions``:
the game state after each resolved day), or the game file's initial state when no earlier day
is resolved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from scraper_mod.forum.phpbb.links import post_link, topic_root

from ..errors import ConfigError, ForumError, RulesError, ScraperModError
from ..forum.poller import PollReport, canonical_topic_url, deadline_posts, stored_posts
from ..morphology import inflect
from ..posts.plural import plural_ru
from ..posts.render import render_text
from ..rules.deal import effective_players, effective_random_list
from ..rules.house import house_day
from ..rules.model import MoveKind, Vote
from ..rules.names import name_index
from ..rules.night import resolve_day
from ..rules.roles import CATALOGUE
from ..rules.state import GameState, last_word_windows, stored_state_json
from ..rules.tally import Lynch, Rejection, Tally, count_votes, decide_lynch
from ..rules.votes import VoteNotes, extract_votes, reason_text
from .context import GameContext
from .house import house_lines, majority_view
from .intake import day_orders, state_before_day
from .poll import poll_day
from .slotbook import resolve_view, tally_view
from .timearg import parse_time_arg

__all__ = ["DayState", "DayTally", "day_state", "tally_day", "vote_report",
           "day_versions", "board_root", "count_asked"]


# --- the state a day starts from -------------------------------------------------------------

@dataclass(frozen=True)
class DayState:
    """Who may vote on a day and how the random list stands (from the day before)."""

    day: int
    alive: frozenset[str]
    frozen: frozenset[str]                 # R5.4: frozen by the previous night
    order: tuple[str, ...]                 # the random list (R3)
    cursor: int
    last_word_until: dict = field(default_factory=dict)   # dead nick -> end of R8.1 window
    source: str = "game file"              # "game file" | "day N resolution"
    notes: tuple[str, ...] = ()


_STATE_NOTES = {
    "unresolved": {"en": "day {prev} is not resolved yet: the alive list is as of day {last}",
                   "ru": "день {prev} ещё не подведён: список живых — по итогам дня {last}"},
    "no_random_list": {"en": "a tie or no votes, and the game has no random list: draw it "
                             "with `scraper-mod deal` or set game.random_list",
                       "ru": "ничья или нет голосов, а случайного списка у игры нет: "
                             "составьте его командой `scraper-mod deal` или задайте "
                             "game.random_list"},
    "no_cursor": {"en": "day {last}'s stored resolution has no random-list cursor: starting "
                        "from the top",
                  "ru": "в сохранённых итогах дня {last} нет места в случайном списке: "
                        "отсчёт с начала списка"},
}


def _lang(game) -> str:
    return game.language if game.language in ("ru", "en") else "en"


def doubled_voters(ctx: GameContext) -> frozenset[str]:
    """R14: the players whose counted vote counts as two (the Mayor), by their roles."""
    players = effective_players(ctx.game, ctx.store.get("deal"))
    return frozenset(p.nick for p in players
                     if p.role is not None and CATALOGUE[p.role].passive == "mayor")


def day_state(ctx: GameContext, day: int) -> DayState:
    """The state day ``day`` starts from: the last resolved earlier day's state (RESOLVE keeps
    it as ``"state"`` in the stored resolution), else the game file's (players' ``alive``, the
    random list of the game file or of ``scraper-mod deal``, from the top).

    Unlike the resolution, a count never refuses: with day N-1 not resolved yet, it counts
    on the last known state and says so in ``notes``."""

    game = ctx.game
    random_list = tuple(effective_random_list(game, ctx.store.get("deal")) or ())
    hours = game.rules.last_word_hours
    cal = ctx.calendar()
    earlier = {d: v for d, v in ctx.store.resolutions().items() if d < day}
    notes: list[str] = []
    if earlier:
        last = max(earlier)
        if last != day - 1:
            notes.append(_STATE_NOTES["unresolved"][_lang(game)].format(prev=day - 1, last=last))
        data = earlier[last]
        sj = stored_state_json(data)
        if sj is not None:
            st = GameState.from_json(sj)
            windows = last_word_windows(st, cal, hours)
            frozen = st.frozen_today() if last == day - 1 else frozenset()
            return DayState(day=day, alive=frozenset(st.alive), frozen=frozenset(frozen),
                            order=tuple(st.order) or random_list,
                            cursor=st.cursor,
                            last_word_until={n: w[1] for n, w in windows.items()},
                            source=f"day {last} resolution", notes=tuple(notes))
        # A bare CONTRACT resolve JSON: alive and frozen are there, the cursor may not be.
        result = data.get("result", data) if isinstance(data, dict) else {}
        alive = frozenset(result.get("alive") or ())
        frozen = frozenset({result["frozen"]}) if (result.get("frozen") and last == day - 1
                                                   and result["frozen"] in alive) else frozenset()
        cursor = int(data.get("cursor", result.get("cursor", 0)) or 0)
        if "cursor" not in data and "cursor" not in result:
            notes.append(_STATE_NOTES["no_cursor"][_lang(game)].format(last=last))
        until = {}
        for d, v in earlier.items():
            r = v.get("result", v) if isinstance(v, dict) else {}
            dead = ([r["lynched"]["player"]] if r.get("lynched") else []) + \
                   [k["player"] for k in r.get("killed", [])]
            for nick in dead:
                until[nick] = cal.day_start(d + 1) + timedelta(hours=hours)
        return DayState(day=day, alive=alive, frozen=frozen, order=random_list, cursor=cursor,
                        last_word_until=until, source=f"day {last} resolution",
                        notes=tuple(notes))
    return DayState(day=day, alive=frozenset(p.nick for p in game.players if p.alive),
                    frozen=frozenset(), order=random_list, cursor=0,
                    source="game file")


# --- reading the stored topic ----------------------------------------------------------------

def day_versions(ctx: GameContext, topic: str) -> list:
    """Every stored version of the topic's posts with its first sighting (CLIENT's store)."""
    return list(stored_posts(ctx.store, topic))


def _deleted(ctx: GameContext, topic: str) -> dict[int, datetime]:
    """Posts of the topic found deleted by a full scan, with when they were found missing."""
    return dict(ctx.store.deleted_posts(canonical_topic_url(topic)))


def board_root(ctx: GameContext, topic: str | None) -> str:
    """The board's root URL (ending in "/"): ``[forum] url``, else the topic URL's folder."""
    if ctx.game.forum.url:
        url = ctx.game.forum.url
        return url if url.endswith("/") else url + "/"
    if topic:
        return topic_root(topic)
    return ""


# --- the tally -------------------------------------------------------------------------------

@dataclass(frozen=True)
class DayTally:
    """One day's count as of an instant; ``final`` once the deadline has passed."""

    day: int
    topic: str | None
    deadline: datetime
    as_of: datetime
    final: bool
    tally: Tally
    rejected: tuple[Rejection, ...]
    lynch: Lynch | None
    notes: VoteNotes
    state: DayState
    tz: ZoneInfo
    language: str = "ru"
    title: str = ""
    board: str = ""
    lynch_note: str | None = None
    events: tuple[Vote, ...] = ()          # every vote event before the cutoff (the history)
    # R14.1 (1): whom the Judge's pardon spared, once known (``lynch`` is then None)
    spared: str | None = None

    # -- JSON (docs/commands.md) -------------------------------------------------------
    def _t(self, t: datetime) -> str:
        return t.astimezone(self.tz).isoformat()

    def to_json(self) -> dict:
        """docs/commands.md's ``tally --format json``."""
        data: dict[str, Any] = {
            "day": self.day, "topic": self.topic,
            "deadline": self._t(self.deadline), "as_of": self._t(self.as_of),
            "final": self.final,
            "votes": [{"voter": v.voter, "target": v.target, "post_id": v.post_id,
                       "at": self._t(v.at), **({"decided": True} if v.decided else {})}
                      for v in self.tally.votes],
            "counts": [c.to_json() for c in self.tally.counts],
            "not_voting": list(self.tally.not_voting),
            "frozen": sorted(self.state.frozen),
            "rejected": [r.to_json() for r in self.rejected],
        }
        if self.tally.majority is not None:    # R2.15
            m = self.tally.majority
            data["majority"] = {"target": m.target, "post_id": m.post_id, "at": self._t(m.at)}
        if self.final and self.spared is not None:     # R14.1 (1): as ``resolve`` says
            data["lynch"] = None
            data["pardoned"] = True
            data["spared"] = self.spared
        elif self.final:
            data["lynch"] = None if self.lynch is None else {
                "player": self.lynch.player, "by": self.lynch.by,
                **({"tied": list(self.lynch.tied)} if self.lynch.tied else {}),
                **({"earliest": self._t(self.lynch.earliest)} if self.lynch.earliest else {})}
        return data

    # -- host report ---------------------------------------------------------------------
    def report(self, lang: str | None = None) -> dict:
        """The vote section of the host report (R9.4), as plain data: every colored
        fragment not counted and why, every edit that touched a vote, posts per player, who
        has not voted."""
        lang = lang or self.language
        return {
            "day": self.day,
            "rejected": [{**r.to_json(), "why": reason_text(r.reason, lang),
                          "url": post_link(self.board, r.post_id) if self.board else None}
                         for r in self.rejected],
            "edits": [e.to_json() for e in self.notes.edits],
            "posts_per_player": dict(self.notes.posts_per_player),
            "not_voted": list(self.tally.not_voting),
            "frozen": sorted(self.state.frozen),
            "late_posts": list(self.notes.late_posts),
            "deleted_posts": list(self.notes.deleted),
            "notes": list(self.state.notes) + list(self.notes.notes)
                     + ([self.lynch_note] if self.lynch_note else []) + self.house_notes(lang),
        }

    def house_notes(self, lang: str) -> list[str]:
        """R2.12-R2.16 for the host report, each with the post it concerns."""
        return house_lines(self, lang)

    # -- text and BBCode -----------------------------------------------------------------
    def render(self, fmt: str = "text", lang: str | None = None, *, heading: str = "",
               requests: list[dict] | None = None) -> str:
        """The count as a plain-text page (``text``) or a phpBB post (``bbcode``); a count
        posted during the day has its ``heading`` («промежуточные итоги на 13:00 МСК») and
        the ``requests`` it answers (``{"nick", "url"}``)."""
        if fmt not in ("text", "bbcode"):
            raise ConfigError(f"unknown format {fmt!r} (text, bbcode or json)")
        lang = lang or self.language
        return render_text("tally", lang, "bbcode" if fmt == "bbcode" else "txt",
                           **self._template_context(lang), heading=heading,
                           requests=requests or [])

    def _template_context(self, lang: str) -> dict:
        by_voter = {v.voter: v for v in self.tally.votes}
        local = lambda t: t.astimezone(self.tz)  # noqa: E731
        candidates = []
        for c in self.tally.counts:
            voters = []
            for nick in c.voters:
                v = by_voter.get(nick)
                voters.append({"nick": nick, "post_id": v.post_id if v else None,
                               "final": bool(v and v.final),
                               "double": nick in c.doubled,     # R14: the Mayor
                               "at": local(v.at).strftime("%H:%M") if v else "",
                               "url": post_link(self.board, v.post_id) if v and self.board
                               else None})
            candidates.append({"target": c.target, "votes": c.votes, "voters": voters,
                               "penalty": c.penalty})
        left = self.deadline - self.as_of
        return {
            "day": self.day, "title": self.title, "topic": self.topic, "final": self.final,
            "deadline": local(self.deadline).strftime("%d.%m.%Y %H:%M"),
            # R9.6: players read "15.03 в 20:00 МСК": the day and the time apart
            "deadline_day": local(self.deadline).strftime("%d.%m"),
            "deadline_hm": local(self.deadline).strftime("%H:%M"),
            "deadline_zone": _zone(local(self.deadline), lang),
            "as_of": local(self.as_of).strftime("%d.%m.%Y %H:%M"),
            "as_of_day": local(self.as_of).strftime("%d.%m"),
            "as_of_hm": local(self.as_of).strftime("%H:%M"),
            "time_left": "" if self.final else _duration(left, lang),
            "candidates": candidates,
            "not_voting": list(self.tally.not_voting),
            "frozen": sorted(self.state.frozen),
            "rejected": [{"post_id": r.post_id, "author": r.author, "text": r.text,
                          "reason": r.reason, "why": reason_text(r.reason, lang),
                          "url": post_link(self.board, r.post_id) if self.board else None}
                         for r in self.rejected],
            "lynch": None if self.lynch is None else {
                "player": self.lynch.player, "by": self.lynch.by,
                "tied": list(self.lynch.tied),
                "earliest": local(self.lynch.earliest).strftime("%H:%M")
                if self.lynch.earliest else None},
            "lynch_note": self.lynch_note,
            "spared": self.spared,
            "majority": majority_view(self.tally.majority, local, self.board),
            "votes_total": len(self.tally.votes),
            "notes": list(self.state.notes) + list(self.notes.notes),
            "plural": plural_ru,
        }


def _zone(t: datetime, lang: str) -> str:
    name = t.tzname() or ""
    return "МСК" if (lang == "ru" and name == "MSK") else name


def _duration(d: timedelta, lang: str) -> str:
    """"1 сут. 3 ч 05 мин" / "1 d 3 h 05 min" (never negative)."""
    minutes = max(0, int(d.total_seconds()) // 60)
    days, rest = divmod(minutes, 24 * 60)
    h, m = divmod(rest, 60)
    if lang == "ru":
        parts = ([f"{days} сут."] if days else []) + [f"{h} ч", f"{m:02d} мин"]
    else:
        parts = ([f"{days} d"] if days else []) + [f"{h} h", f"{m:02d} min"]
    return " ".join(parts)


def current_day(ctx: GameContext, now: datetime) -> int:
    """The day a bare ``tally`` means: the day whose span holds now (day 1 before the game);
    once the game is over, its last day (no later day has a topic or moves)."""
    over = [d for d, r in ctx.store.resolutions().items() if isinstance(r, dict)
            and r.get("winner")]
    return min([max(1, ctx.calendar().day_at(now)), *over])


def tally_day(ctx: GameContext, day: int, *, as_of: datetime | None = None,
              poll: bool = False, versions: list | None = None) -> DayTally:
    """The count of day ``day`` as of ``as_of`` (default: now), final once the deadline has
    passed. With ``poll`` the day's topic is read from the board first (CLIENT's poller).
    ``versions`` (stored post versions with first sightings) skips the store, for tests."""
    game = ctx.game
    if day < 1:
        raise RulesError(f"there is no day {day}: days are numbered from 1")
    cal = ctx.calendar()
    deadline = cal.deadline(day)
    now = ctx.now()
    as_of = as_of or now.replace(microsecond=0)
    if as_of.tzinfo is None:
        as_of = as_of.replace(tzinfo=game.timezone)
    final = as_of >= deadline
    cutoff = deadline if final else as_of
    topic = ctx.topic_for_day(day)
    if versions is None:
        if not topic:
            raise ConfigError(f"day {day} has no topic yet", path=str(game.path),
                              key="days", hint=f"add [[days]] number = {day} with its topic "
                              f"URL, or run `scraper-mod day open {game.folder} {day} URL`")
        if poll:
            _poll_complete(ctx, day)
        versions = day_versions(ctx, topic)
        deleted = _deleted(ctx, topic)
        at_deadline, read_failed = deadline_posts(ctx.store, topic, deadline)   # R2.11
    else:
        deleted, at_deadline, read_failed = {}, None, None
    st = day_state(ctx, day)
    # R10, R11: the slots and the host's decisions (game/slotbook.py)
    st, index, by_slot = tally_view(ctx, st, day=day, cutoff=cutoff)
    index = index or name_index(game.players, inflect=inflect)
    votes, rejected, notes = extract_votes(
        versions, players=game.players, alive=st.alive, host=game.host, deadline=deadline,
        as_of=cutoff, options=game.rules, deleted=deleted, last_word_until=st.last_word_until,
        frozen=st.frozen, index=index, lang=game.language, deadline_posts=at_deadline,
        deadline_read_failed=read_failed, **by_slot)
    tally = count_votes(votes, alive=st.alive, frozen=st.frozen,
                        self_votes=game.rules.self_votes,
                        house=house_day(game.rules, deadline, game.timezone, final=final),
                        double=doubled_voters(ctx))
    lynch, lynch_note, spared = None, None, None
    if final:
        lynch, lynch_note = _lynch(tally, st, game.rules, _lang(game))
        spared = pardon_spares(ctx, day, lynch)
        if spared is not None:
            lynch = None
    return DayTally(day=day, topic=topic, deadline=deadline, as_of=cutoff, final=final,
                    tally=tally, rejected=tuple(rejected) + tally.rejected, lynch=lynch,
                    notes=notes, state=st, tz=game.timezone, language=game.language,
                    title=game.title, board=board_root(ctx, topic), lynch_note=lynch_note,
                    events=tuple(votes), spared=spared)


def pardon_spares(ctx: GameContext, day: int, lynch: Lynch | None) -> str | None:
    """R14.1 (1): whom the Judge's pardon spares on day ``day`` (the count's lynch), once
    the pardon is known, so the final count says what ``resolve`` says (nobody jailed).

    Known means: the day's stored resolution says ``pardoned``; or, the deadline passed and
    the day not resolved yet, the Judge's pardon is among the day's stored moves and the
    rules let it stand (not frozen, alive, once a game: ``rules.night.resolve_day`` judges it
    exactly as ``resolve`` will). Before the deadline a pardon is a secret move and the count
    is the count. Without a Judge dealt: None, nothing read."""
    if lynch is None:
        return None
    stored = ctx.store.resolution(day)
    if isinstance(stored, dict):
        result = stored.get("result", stored)
        return lynch.player if isinstance(result, dict) and result.get("pardoned") else None
    players = effective_players(ctx.game, ctx.store.get("deal"))
    if not any(p.role is not None and any(m.kind is MoveKind.PARDON
                                           for m in CATALOGUE[p.role].moves)
               for p in players):
        return None

    try:
        before = resolve_view(ctx, state_before_day(ctx, day), day=day,
                              cutoff=ctx.calendar().deadline(day))[0]
        if lynch.player not in before.alive:
            return None
        orders = day_orders(ctx, day, state=before)
        result, _ = resolve_day(day, before, lynch, orders, ctx.game.rules)
    except ScraperModError:      # the count never refuses: the resolution will say why
        return None
    return result.spared


def _lynch(tally: Tally, st: DayState, options, lang: str) -> tuple[Lynch | None, str | None]:
    leaders = [t for t in tally.leaders if t in st.alive]
    if len(leaders) != 1 and not st.order:
        return None, _STATE_NOTES["no_random_list"][lang]
    return decide_lynch(tally, alive=st.alive, order=st.order, cursor=st.cursor,
                        options=options), None


def _poll_complete(ctx: GameContext, day: int) -> PollReport | None:
    """``game.poll.poll_day``, and a page that could not be read is an error: the count
    would be stale without saying so."""
    report = poll_day(ctx, day)
    if report is not None and report.errors:
        first = report.errors[0]
        if report.topic and first.startswith(f"{report.topic}: "):  # the URL once is enough
            first = first[len(report.topic) + 2:]
        raise ForumError(f"the topic could not be read completely: {first}",
                         url=report.topic, hint="try again, or count the stored posts "
                         "with --offline")
    return report


def vote_report(ctx: GameContext, day: int, *, lang: str | None = None,
                tally: DayTally | None = None) -> dict:
    """The vote section of day ``day``'s host report (as of its deadline): see
    ``DayTally.report``. Pass ``tally`` when it is already computed."""
    t = tally or tally_day(ctx, day, as_of=ctx.calendar().deadline(day))
    return t.report(lang)


def count_asked(ctx: GameContext, *, day: int | None = None, at: str | None = None,
                poll: bool = False) -> DayTally:
    """The count ``scraper-mod tally`` shows (and the host's page's ``/api/.../tally``):
    day ``day`` (default: the day holding ``at`` or now) as of ``at`` (ISO 8601, game time
    without an offset; default: now, or the deadline once passed). Refuses a time in the
    future or before the game, and a day below 1, naming ``--at``/``--day``."""
    as_of = parse_time_arg(at, ctx.game.timezone) if at else None
    if as_of is not None and as_of > ctx.now():
        raise ConfigError(f"--at: {as_of.isoformat()} is in the future",
                          hint="give a past time, or leave --at out for the count as of now")
    if as_of is not None and as_of < ctx.calendar().day_start(1):
        start = ctx.calendar().day_start(1).astimezone(ctx.game.timezone).isoformat()
        raise ConfigError(f"--at: {as_of.isoformat()} is before the game starts ({start})",
                          hint="check the date; [game] start in game.toml sets day 1")
    day = day if day is not None else current_day(ctx, as_of or ctx.now())
    if day < 1:
        raise ConfigError(f"--day: must be 1 or more, not {day}")
    return tally_day(ctx, day, as_of=as_of, poll=poll)
