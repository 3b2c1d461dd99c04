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
from typing import Any, Callable, cast
from zoneinfo import ZoneInfo

from scraper_mod.errors import ConfigError, ForumError, RulesError
from scraper_mod.forum.engine import post_id_shape
from scraper_mod.forum.merged import merged_at_deadline, merged_versions, real_post_id
from scraper_mod.forum.poller import PollReport, canonical_topic_url, deadline_posts, stored_posts
from scraper_mod.game.context import GameContext
from scraper_mod.game.day.house import house_lines, majority_view
from scraper_mod.game.day.pardon import pardon_spares
from scraper_mod.game.day.poll import poll_day_topics
from scraper_mod.game.roster.slotbook import tally_view
from scraper_mod.game.setup.timearg import parse_time_arg
from scraper_mod.morphology import inflect
from scraper_mod.posts.plural import plural_ru
from scraper_mod.posts.render import render_text
from scraper_mod.rules.deal import effective_players, effective_random_list
from scraper_mod.rules.house import house_day, majority_needed
from scraper_mod.rules.majority import as_of_majority
from scraper_mod.rules.model import NO_ONE, Vote
from scraper_mod.rules.names import name_index
from scraper_mod.rules.roles import CATALOGUE
from scraper_mod.rules.state import GameState, last_word_windows, stored_state_json
from scraper_mod.rules.tally import Lynch, Rejection, Tally, count_votes, decide_lynch
from scraper_mod.rules.votes import VoteNotes, extract_votes, reason_text

__all__ = ["DayState", "DayTally", "day_state", "tally_day", "vote_report",
           "day_versions", "count_asked"]


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


# --- the tally -------------------------------------------------------------------------------

# colored text that was never a player's vote: not listed among the votes that did not count
_NEVER_A_VOTE = frozenset({"quoted", "spoiler", "code", "signature", "bold", "host_post",
                           "not_in_game", "not_a_player"})

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
    post_url: Callable[[int], str] | None = None   # the game's ``Board.post_url``
    lynch_note: str | None = None
    events: tuple[Vote, ...] = ()          # every vote event before the cutoff (the history)
    # R14.1 (1): whom the Judge's pardon spared, once known (``lynch`` is then None)
    spared: str | None = None
    majority_at: int = 0                   # R2.15: votes that make a majority (0: off)
    opens: datetime | None = None          # R2.18: the voting window's opening
    posts: tuple[tuple[str, int], ...] = ()   # living player -> posts that day (both topics)

    # -- what a count shows besides the votes (issue 39) ---------------------------------
    def needs(self) -> dict[str, int]:
        """R2.15: the votes each leader still needs for a majority (empty when the house
        does not end the day on one, once it is reached, or after the deadline)."""
        if not self.majority_at or self.tally.majority is not None or self.final:
            return {}
        top = self.tally.counts[0].votes if self.tally.counts else 0
        return {c.target: self.majority_at - c.votes for c in self.tally.counts
                if c.votes == top}

    def not_open(self) -> bool:
        """R2.18: a count before the voting window opened."""
        return self.opens is not None and not self.final and self.as_of < self.opens

    def no_one_jailed(self) -> bool:
        """R2.19: the final count jails no one (pass votes lead, or a tie that jails no
        one) — not a lynch left undecided."""
        return self.final and self.lynch is None and self.lynch_note is None \
            and self.spared is None

    def rejected_votes(self, lang: str) -> list[dict]:
        """The votes that did not count, each with its reason and its post's link, once
        per post and reason: a player's vote refused, not colored text that was never one
        (a quote, a signature, bold, a name of no player, the host's or an outsider's post:
        those are in the host's report)."""
        seen: set[tuple[int, str]] = set()
        out = []
        for r in self.rejected:
            if r.reason in _NEVER_A_VOTE or (r.post_id, r.reason) in seen:
                continue
            seen.add((r.post_id, r.reason))
            out.append({"post_id": r.post_id, "author": r.author, "text": r.text,
                        "reason": r.reason, "why": reason_text(r.reason, lang),
                        "url": self.link(r.post_id)})
        return out

    def link(self, post_id: int | None) -> str | None:
        """A post's permanent link on the game's board (``Board.post_url``), else None."""
        if self.post_url is None or post_id is None:
            return None
        return self.post_url(post_id)

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
                       "at": self._t(v.at), "url": self.link(v.post_id),
                       **({"decided": True} if v.decided else {})}
                      for v in self.tally.votes],
            "counts": [c.to_json() for c in self.tally.counts],
            "not_voting": list(self.tally.not_voting),
            "frozen": sorted(self.state.frozen),
            "rejected": [r.to_json() for r in self.rejected],
        }
        if self.needs():                       # R2.15: what each leader still needs
            data["majority_needs"] = self.needs()
        if self.not_open():                    # R2.18
            data["voting_opens"] = self._t(cast(datetime, self.opens))
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
                          "url": self.link(r.post_id)}
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
        """The count as a plain-text page (``text``) or a board's post (``bbcode``); a count
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
                               "url": self.link(v.post_id) if v else None})
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
                          "url": self.link(r.post_id)}
                         for r in self.rejected],
            "lynch": None if self.lynch is None else {
                "player": self.lynch.player, "by": self.lynch.by,
                "tied": list(self.lynch.tied),
                "earliest": local(self.lynch.earliest).strftime("%H:%M")
                if self.lynch.earliest else None},
            "lynch_note": self.lynch_note,
            "spared": self.spared,
            "majority": majority_view(self.tally.majority, local, self.link),
            "votes_total": len(self.tally.votes),
            "notes": list(self.state.notes) + list(self.notes.notes),
            "plural": plural_ru,
            "no_one": NO_ONE, "no_one_shown": "никто" if lang == "ru" else "no one",
            "needs": self.needs(), "majority_at": self.majority_at,
            "not_open": self.not_open(),
            "opens_hm": local(self.opens).strftime("%H:%M") if self.opens else "",
            "no_one_jailed": self.no_one_jailed(),
            "posts": [{"nick": n, "n": k} for n, k in self.posts],
            "silent": [n for n, k in self.posts if not k],
            "rejected_votes": self.rejected_votes(lang),
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
              poll: bool = False, versions: list | None = None,
              full: bool = False) -> DayTally:
    """The count of day ``day`` as of ``as_of`` (default: now), final once the deadline has
    passed. With ``poll`` the day's topic is read from the board first (CLIENT's poller).
    ``versions`` (stored post versions with first sightings) skips the store, for tests.
    ``full`` (with ``poll``): every page is read, not the last page only (R2.15, R12.4: what
    is posted on the board comes from a full read)."""
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
    topic = ctx.votes_topic_for_day(day)    # R2.17: the voting topic, when the house has one
    if versions is None:
        if not topic:
            raise ConfigError(f"day {day} has no topic yet", path=str(game.path),
                              key="days", hint=f"add [[days]] number = {day} with its topic "
                              f"URL, or run `scraper-mod day open {game.folder} {day} URL`",
                              ru=f"у дня {day} ещё нет темы (добавьте [[days]] number = {day} "
                                 f"с адресом темы или выполните `scraper-mod day open "
                                 f"{game.folder} {day} URL`)")
        if poll:
            _poll_complete(ctx, day, full=full)
        versions = day_versions(ctx, topic)
        deleted = _deleted(ctx, topic)
        at_deadline, read_failed = deadline_posts(ctx.store, topic, deadline)   # R2.11
    else:
        deleted, at_deadline, read_failed = {}, None, None
    # merged replies (a board's «merge post») read piece by piece, each at its own time
    versions = merged_versions(versions, at_deadline=at_deadline, deadline=deadline)
    at_deadline = merged_at_deadline(at_deadline)
    if deleted:
        deleted = {p.post_id: deleted[real_post_id(p.post_id)] for p, _ in versions
                   if real_post_id(p.post_id) in deleted}
    st = day_state(ctx, day)
    # R10, R11: the slots and the host's decisions (game/roster/slotbook.py)
    st, index, by_slot = tally_view(ctx, st, day=day, cutoff=cutoff)
    index = index or name_index(game.players, inflect=inflect)
    house = house_day(game.rules, deadline, game.timezone, final=final)
    double = doubled_voters(ctx)          # R14: the Mayor's vote counts twice

    def count(standing: dict) -> tuple[tuple, Tally]:
        found = extract_votes(
            versions, players=game.players, alive=st.alive, host=game.host,
            deadline=deadline, as_of=cutoff, options=game.rules, deleted=standing,
            last_word_until=st.last_word_until, frozen=st.frozen, index=index,
            lang=game.language, deadline_posts=at_deadline, deadline_read_failed=read_failed,
            **by_slot)
        return found, count_votes(found[0], alive=st.alive, frozen=st.frozen,
                                  self_votes=game.rules.self_votes, house=house,
                                  double=double)

    if game.rules.majority_ends_day:    # R2.15: deletions after the majority change nothing
        (votes, rejected, notes), tally = as_of_majority(deleted, count)
    else:
        (votes, rejected, notes), tally = count(deleted)
    lynch, lynch_note, spared = None, None, None
    if final:
        lynch, lynch_note = _lynch(tally, st, game.rules, _lang(game))
        spared = pardon_spares(ctx, day, lynch)
        if spared is not None:
            lynch = None
    return DayTally(day=day, topic=topic, deadline=deadline, as_of=cutoff, final=final,
                    tally=tally, rejected=tuple(rejected) + tally.rejected, lynch=lynch,
                    notes=notes, state=st, tz=game.timezone, language=game.language,
                    title=game.title, post_url=ctx.post_links(topic), lynch_note=lynch_note,
                    events=tuple(votes), spared=spared,
                    majority_at=majority_needed(len(st.alive - st.frozen))
                    if game.rules.majority_ends_day else 0,
                    opens=house.opens,
                    posts=_posts_that_day(ctx, day, st, notes, cutoff,
                                          with_day_topic=topic != ctx.topic_for_day(day)))


def _posts_that_day(ctx: GameContext, day: int, st: DayState, notes: VoteNotes,
                    cutoff: datetime, *, with_day_topic: bool) -> tuple[tuple[str, int], ...]:
    """Posts each living player wrote in the day's topics before ``cutoff``: the votes'
    topic as the vote reading counted them, and the discussion topic when the votes are in
    a voting topic of its own (R2.17); in the game's order of players."""
    per = dict(notes.posts_per_player)
    topic = ctx.topic_for_day(day)
    if with_day_topic and topic:
        by_key = {p.nick.casefold(): p.nick for p in ctx.game.players}
        latest = {post.post_id: post for post, _ in stored_posts(ctx.store, topic)}
        gone = set(ctx.store.deleted_posts(canonical_topic_url(topic)))
        for pid, post in latest.items():
            nick = by_key.get(post.author.casefold())
            if nick and pid not in gone and post.posted_at < cutoff:
                per[nick] = per.get(nick, 0) + 1
    living = [p.nick for p in ctx.game.players if p.nick in st.alive]
    living += sorted(n for n in st.alive if n not in living)
    return tuple((n, per.get(n, 0)) for n in living)



def _lynch(tally: Tally, st: DayState, options, lang: str) -> tuple[Lynch | None, str | None]:
    leaders = [t for t in tally.leaders if t in st.alive]
    if len(leaders) != 1 and not st.order:
        return None, _STATE_NOTES["no_random_list"][lang]
    return decide_lynch(tally, alive=st.alive, order=st.order, cursor=st.cursor,
                        options=options), None


def _poll_complete(ctx: GameContext, day: int, *, full: bool = False) -> PollReport | None:
    """``game.poll.poll_day``, and a page that could not be read is an error: the count
    would be stale without saying so."""
    reports = poll_day_topics(ctx, day, full=full)     # R2.17: the voting topic too
    for report in reports:
        if not report.errors:
            continue
        first = report.errors[0]
        if report.topic and first.startswith(f"{report.topic}: "):  # the URL once is enough
            first = first[len(report.topic) + 2:]
        e = ForumError(f"the topic could not be read completely: {first}",
                       url=report.topic, hint="try again, or count the stored posts "
                       "with --offline")
        e.ru = (f"тему {report.topic} не удалось прочитать целиком: форум не ответил "
                "(повторите позже или посчитайте сохранённые посты с --offline)")
        raise e
    return reports[-1] if reports else None


def vote_report(ctx: GameContext, day: int, *, lang: str | None = None,
                tally: DayTally | None = None) -> dict:
    """The vote section of day ``day``'s host report (as of its deadline): see
    ``DayTally.report``. Pass ``tally`` when it is already computed."""
    t = tally or tally_day(ctx, day, as_of=ctx.calendar().deadline(day))
    return t.report(lang)


def post_instant(ctx: GameContext, post_id: int, day: int | None = None
                 ) -> tuple[int, datetime]:
    """``tally --at-post``: the day whose topics (the day's, the voting topic) hold the post,
    and the instant just after it (the count as of that post, the post included)."""
    days = sorted({d.number for d in ctx.game.days} | {int(k) for k in
                   {**ctx.store.get("day_topics", {}), **ctx.store.get("vote_topics", {})}})
    for d in ([day] if day is not None else days):
        for topic in (ctx.vote_topic_for_day(d), ctx.topic_for_day(d)):
            if not topic:
                continue
            for post, _seen in stored_posts(ctx.store, topic):
                if post.post_id == post_id:
                    return d, post.latest.replace(microsecond=0) + timedelta(seconds=1)
    raise ConfigError(f"--at-post: post {post_id} is in no day's topic of this game (as "
                      "stored)", hint=f"check the post's number ({post_id_shape()}), or read the "
                      f"topics first: scraper-mod poll {ctx.game.folder}",
                      ru=f"--at-post: поста {post_id} нет ни в одной теме дня этой игры "
                         f"(проверьте номер: {post_id_shape('ru')}, или сначала прочитайте темы: "
                         f"`scraper-mod poll {ctx.game.folder}`)")


def count_asked(ctx: GameContext, *, day: int | None = None, at: str | None = None,
                poll: bool = False, at_post: int | None = None) -> DayTally:
    """The count ``scraper-mod tally`` shows (and the host's page's ``/api/.../tally``):
    day ``day`` (default: the day holding ``at`` or now) as of ``at`` (ISO 8601, game time
    without an offset; default: now, or the deadline once passed). Refuses a time in the
    future or before the game, and a day below 1, naming ``--at``/``--day``."""
    if at_post is not None:          # the count as of a post of the day (a dispute)
        if at:
            raise ConfigError("give --at or --at-post, not both",
                              ru="укажите --at или --at-post, не оба сразу")
        post_day, post_at = post_instant(ctx, at_post, day)
        return tally_day(ctx, post_day, as_of=post_at, poll=poll)
    as_of = parse_time_arg(at, ctx.game.timezone) if at else None
    if as_of is not None and as_of > ctx.now():
        raise ConfigError(f"--at: {as_of.isoformat()} is in the future",
                          hint="give a past time, or leave --at out for the count as of now",
                          ru=f"--at: {as_of:%d.%m.%Y %H:%M} — это ещё не наступило (укажите "
                             "прошедшее время или уберите --at: подсчёт на сейчас)")
    if as_of is not None and as_of < ctx.calendar().day_start(1):
        start = ctx.calendar().day_start(1).astimezone(ctx.game.timezone).isoformat()
        raise ConfigError(f"--at: {as_of.isoformat()} is before the game starts ({start})",
                          hint="check the date; [game] start in game.toml sets day 1",
                          ru=f"--at: {as_of:%d.%m.%Y %H:%M} — до начала игры (проверьте дату; "
                             "день 1 задаёт [game] start в game.toml)")
    day = day if day is not None else current_day(ctx, as_of or ctx.now())
    if day < 1:
        raise ConfigError(f"--day: must be 1 or more, not {day}",
                          ru=f"--day: нужен номер дня от 1, а не {day}")
    return tally_day(ctx, day, as_of=as_of, poll=poll)
