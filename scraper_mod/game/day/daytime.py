"""During the day, on the board (docs/daytime.md): vote counts on a schedule and on request,
reminders for night moves, alerts for the host.

Everything here posts through ``publish_items`` (the writer and the publication journal,
R12.2), so a crash at any moment and a restart post nothing twice; what is to be posted is
written to ``out/`` first and taken from there until the board has it:

- **a scheduled count** (``[publish] tally_times``): at each of those game times within the
  day (before its deadline), the topic is read fresh from the board and the count is posted
  as a reply in the day topic, headed with its time. A time missed by more than
  ``LATE_MINUTES`` (the daemon was down) is skipped, never posted late.
- **a count on request** (``tally_command``): a post of the day topic whose own words (not a
  quote, spoiler, code or signature) hold the command asks for a count; the next poll posts
  one that links every request it answers. Within ``tally_cooldown_minutes`` of the last
  count on request the requests wait and the next count (on request or scheduled) answers
  them together. The request post is read for votes like any post.
- **reminders** (``remind_moves_at``): once a night, one PM to each living player whose role
  has a night move and who has sent none yet (``awaiting_moves``; the Boss when he has sent
  nothing at all), saying what is missing and until when.
- **alerts** (``alert_host``): what needs the host, as it happens: one PM (or mail) per kind
  per hour, each saying what, where and what to do; every alert, sent or held back, is an
  ``alert`` event the host's page lists.

Nothing is posted after the day's deadline, nor for a day already resolved, nor unless
``[publish] mode = "auto"`` (alerts: whenever ``alert_host`` is on).
"""

from __future__ import annotations

import logging
import re
import smtplib
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urljoin

from scraper_mod.errors import MailboxError, ScraperModError
from scraper_mod.forum.merged import merged_versions, real_post_id
from scraper_mod.forum.model import Post
from scraper_mod.forum.poller import canonical_topic_url, stored_posts
from scraper_mod.game.context import GameContext
from scraper_mod.game.day.tally import tally_day
from scraper_mod.game.night.intake import day_moves, state_before_day
from scraper_mod.game.night.nightmoves import awaiting_moves
from scraper_mod.game.night.smtp import send_mail
from scraper_mod.game.publishing.publish import (
    AUTO_RETRY_SECONDS,
    Item,
    Outcome,
    game_id,
    publish_items,
)
from scraper_mod.game.results.wording import Formatter
from scraper_mod.game.roster.slotbook import load_book
from scraper_mod.posts.bbcode import inert
from scraper_mod.posts.dayfolder import write_atomic
from scraper_mod.posts.limits import part_name, split_post
from scraper_mod.posts.render import render_text
from scraper_mod.rules.calendar import wall_time
from scraper_mod.rules.model import MoveKind
from scraper_mod.rules.slots import removals_before
from scraper_mod.rules.votes import reason_text

log = logging.getLogger(__name__)

__all__ = ["Chore", "scheduled_chores", "next_chore_at", "run_chores", "answer_requests",
           "alert", "alerts", "alert_new_problems", "chores_ahead", "pending_requests",
           "LATE_MINUTES", "ALERT_EVERY"]

LATE_MINUTES = 15                   # a scheduled count or reminder later than this is skipped
ALERT_EVERY = timedelta(hours=1)    # at most one alert of a kind per this long
ALERT_KINDS = ("deadline-read", "rescan", "publish", "login", "vote", "mail", "restart",
               "internal")


@dataclass(frozen=True)
class Chore:
    """A scheduled piece of the day's work: a ``count`` or the ``reminder``, at ``at``."""

    kind: str
    day: int
    at: datetime

    @property
    def key(self) -> str:
        return f"at-{self.at.strftime('%Y-%m-%dT%H:%M')}"


def _lang(ctx: GameContext) -> str:
    return "ru" if ctx.game.language == "ru" else "en"


def _occurrences(ctx: GameContext, day: int, hhmm: str) -> list[datetime]:
    """Every instant the wall time ``hhmm`` falls within day ``day`` (after its start, before
    its deadline); a merged weekend day may hold two."""
    cal, tz = ctx.calendar(), ctx.game.timezone
    start, end = cal.day_start(day), cal.deadline(day)
    h, m = (int(x) for x in hhmm.split(":"))
    out = []
    d = start.astimezone(tz).date()
    while d <= end.astimezone(tz).date():
        try:
            t = wall_time(datetime(d.year, d.month, d.day, h, m), tz)
        except ScraperModError:      # skipped or doubled by a clock change: not that day
            t = None
        if t is not None and start < t < end:
            out.append(t)
        d += timedelta(days=1)
    return out


def scheduled_chores(ctx: GameContext, day: int) -> list[Chore]:
    """Day ``day``'s scheduled counts and its reminder (the last ``remind_moves_at`` before
    the deadline: once a night), in time order."""
    pub = ctx.game.publish
    chores = [Chore("count", day, t) for hhmm in pub.tally_times
              for t in _occurrences(ctx, day, hhmm)]
    if pub.remind_moves_at:
        times = _occurrences(ctx, day, pub.remind_moves_at)
        if times:
            chores.append(Chore("reminder", day, times[-1]))
    return sorted(chores, key=lambda c: c.at)


def _active(ctx: GameContext, day: int, now: datetime) -> bool:
    """Day ``day`` takes counts and reminders now: autopilot on, not resolved, before its
    deadline, the game not over."""
    return (ctx.game.publish.mode == "auto" and day not in ctx.store.resolved_days()
            and now < ctx.calendar().deadline(day))


def next_chore_at(ctx: GameContext, day: int, now: datetime) -> datetime | None:
    """When the daemon next has scheduled work for day ``day`` (None: nothing more)."""
    if ctx.game.publish.mode != "auto":
        return None
    later = [c.at for c in scheduled_chores(ctx, day) if c.at > now]
    return min(later) if later else None


def _done(ctx: GameContext, day: int, kind: str, key: str) -> bool:
    rec = ctx.store.publication(game_id(ctx), day, kind, key)
    return rec is not None and rec["status"] == "done"


def _due(ctx: GameContext, day: int, now: datetime) -> list[Chore]:
    late = timedelta(minutes=LATE_MINUTES)
    out = []
    for c in scheduled_chores(ctx, day):
        if not c.at <= now:
            continue
        if c.kind == "count" and (_done(ctx, day, "tally", c.key) or now - c.at > late):
            continue
        if c.kind == "reminder" and ctx.store.get(f"reminders/{day}/done"):
            continue
        out.append(c)
    counts = [c for c in out if c.kind == "count"]
    return [c for c in out if c.kind != "count"] + counts[-1:]    # a missed earlier one: gone


def run_chores(ctx: GameContext, day: int) -> list[Outcome]:
    """Do what is due of day ``day`` now: the scheduled count, the reminders, and a count for
    the requests waiting (``answer_requests``). Never raises for the board."""
    now = ctx.now()
    if not _active(ctx, day, now) or not ctx.topic_for_day(day):
        return []
    outcomes: list[Outcome] = []
    for chore in _due(ctx, day, now):
        try:
            if chore.kind == "count":
                outcomes += _count(ctx, day, key=chore.key, at=chore.at)
            else:
                outcomes += _remind(ctx, day)
        except ScraperModError as e:
            log.warning("day %d: the %s of %s failed: %s", day, chore.kind,
                        chore.at.strftime("%H:%M"), e)
            outcomes.append(Outcome(chore.kind, f"day {day}", None, "failed", str(e)))
    outcomes += answer_requests(ctx, day)
    return outcomes


# -- counts -----------------------------------------------------------------------------------

_BATCH = "tally_batch/{day}"         # the count being posted: {"key", "file", "requests"}
_ANSWERED = "tally_answered/{day}"   # the request posts a count has answered
_LAST_REQUEST = "tally_request_last"  # when the last count on request went up


def _norm(text: str) -> str:
    """Case and ё folded, for finding the command in a post."""
    return unicodedata.normalize("NFC", text).casefold().replace("ё", "е")


def _request_rx(command: str) -> re.Pattern:
    """The command as a word of its own («!голоса», not «!голосами»)."""
    return re.compile(r"(?<![\w!/#])" + re.escape(_norm(command)) + r"(?!\w)")


def pending_requests(ctx: GameContext, day: int) -> list[tuple[int, str]]:
    """(post id, author) of the day topic's count requests not answered yet, in order (the
    voting topic's too, R2.17)."""
    return [(pid, a) for pid, a, _t in _pending(ctx, day)]


def _pending(ctx: GameContext, day: int) -> list[tuple[int, str, str]]:
    """(post id, author, topic) of the requests waiting, the day topic's first, then the
    voting topic's (R2.17): each is answered in the topic it was asked in."""
    out = []
    for topic in (ctx.topic_for_day(day), ctx.vote_topic_for_day(day)):
        if topic:
            out += [(pid, a, topic) for pid, a in _pending_in(ctx, day, topic)]
    return out


def _pending_in(ctx: GameContext, day: int, topic: str) -> list[tuple[int, str]]:
    pub = ctx.game.publish
    if not pub.tally_command:
        return []
    rx = _request_rx(pub.tally_command)
    cal = ctx.calendar()
    start, end = cal.day_start(day), cal.deadline(day)
    answered = set(ctx.store.get(_ANSWERED.format(day=day), []))
    allowed = _requesters(ctx, day)
    latest: dict[int, Post] = {}
    # a request merged into the author's earlier post (a board's «merge post») is a piece of its own
    for post, _seen in merged_versions(stored_posts(ctx.store, topic)):
        latest[post.post_id] = post          # the latest version: as it stands now
    deleted = set(ctx.store.deleted_posts(canonical_topic_url(topic)))
    deleted |= {pid for pid in latest if real_post_id(pid) in deleted}
    own = _own_accounts(ctx)
    names = {a.author for a in latest.values()} | {x.nick for x in ctx.game.players}
    return [(pid, p.author) for pid, p in sorted(latest.items())
            if pid not in answered and pid not in deleted and start <= p.posted_at < end
            and _norm(p.author) not in own
            and (allowed is None or p.author in allowed)
            and rx.search(_own_words(p.text, names, rx))]


def _own_accounts(ctx: GameContext) -> set[str]:
    """The host's and scraper-mod's accounts: their posts (counts, notices) never request
    anything (R12.5: a count lists the requesters' names, and a name may hold the command)."""
    g = ctx.game
    return {_norm(x) for x in (g.host, g.forum.username) if x}


def _own_words(text: str, names: set[str], rx: re.Pattern) -> str:
    """A post's own text (quotes, spoilers, code and signatures are set aside by the parser)
    with the names of board users that hold the command taken out: a request is what a player
    wrote, never a name (a username «x !голоса» mentioned in a post requests nothing)."""
    out = _norm(text)
    for name in sorted({_norm(n) for n in names if n and rx.search(_norm(n))}, key=len,
                       reverse=True):
        out = out.replace(name, " ")
    return out


def _requesters(ctx: GameContext, day: int) -> set[str] | None:
    """Whose request counts (``tally_requests_from``); None: anyone's."""
    who = ctx.game.publish.tally_requests_from
    if who == "anyone":
        return None
    if who == "players":
        return {p.nick for p in ctx.game.players}
    return set(state_before_day(ctx, day).alive)


def answer_requests(ctx: GameContext, day: int) -> list[Outcome]:
    """Post one count for the requests waiting, unless the last count on request went up
    less than ``tally_cooldown_minutes`` ago (then the next count answers them)."""
    now = ctx.now()
    if not _active(ctx, day, now):
        return []
    batch = ctx.store.get(_BATCH.format(day=day))
    if batch is None:
        waiting = pending_requests(ctx, day)
        if not waiting:
            return []
        last = ctx.store.get(_LAST_REQUEST)
        cooldown = timedelta(minutes=ctx.game.publish.tally_cooldown_minutes)
        if last and now - datetime.fromisoformat(last) < cooldown:
            return []
    try:
        return _count(ctx, day, key=None, at=now)
    except ScraperModError as e:
        log.warning("day %d: the count on request failed: %s", day, e)
        return [Outcome("tally", f"day {day}", None, "failed", str(e))]


def _count(ctx: GameContext, day: int, *, key: str | None, at: datetime) -> list[Outcome]:
    """Post a count (scheduled: ``key``; on request: None) and answer the waiting requests.
    The count being posted is kept (its file and requests) until the board has it."""
    store, batch_key = ctx.store, _BATCH.format(day=day)
    batch = store.get(batch_key)
    if batch is not None and key is not None and batch["key"] != key:
        # a count on request is still on its way: it goes first, this one right after; one
        # the board still refuses is dropped (its requests wait for this count): a refused
        # count never blocks the next (issue 40)
        out = _post_batch(ctx, day, batch)
        if store.get(batch_key) is not None:
            store.put(batch_key, None)
            log.warning("day %d: the count %s was refused again: dropped for the next one",
                        day, batch["key"])
        batch = None
    else:
        out = []
    if batch is None:
        t = tally_day(ctx, day, poll=True, full=True)   # R12.4: a full read of the topic
        pending = _pending(ctx, day)                # as the read left them
        # R2.17: a scheduled count goes in the votes' topic, a count on request where asked
        # (one topic per count: the other topic's requests wait for the next one)
        where = (ctx.votes_topic_for_day(day) if key is not None else
                 pending[0][2] if pending else None) or ctx.topic_for_day(day) or ""
        waiting = [(pid, a) for pid, a, tp in pending if tp == where]
        if key is None and not waiting:
            return out
        # one entry per requester (his first request), however many posts he wrote
        first: dict[str, int] = {}
        for pid, a in waiting:
            first.setdefault(a, pid)
        requests = [{"nick": a, "url": t.link(pid) or ""} for a, pid in first.items()]
        zone = _zone(ctx, at)
        hm = at.astimezone(ctx.game.timezone).strftime("%H:%M")
        lang = _lang(ctx)
        heading = ((f"промежуточные итоги на {hm} {zone}" if lang == "ru"
                    else f"interim count as of {hm} {zone}") if key is not None else
                   (f"подсчёт голосов по запросу, {hm} {zone}" if lang == "ru"
                    else f"vote count on request, {hm} {zone}"))
        text = t.render("bbcode", lang, heading=heading, requests=requests)
        name = key or f"request-{waiting[-1][0]}"
        folder = ctx.game.out_dir / f"day-{day}" / "counts"
        folder.mkdir(parents=True, exist_ok=True)
        files = []
        # split under the board's limit as the newspaper is (posts/limits.py)
        for i, part in enumerate(split_post(text, ctx.game.forum.max_post_chars), start=1):
            path = folder / part_name(name, "bbcode", i)
            write_atomic(path, part)
            files.append(str(path))
        batch = {"key": name, "file": files[0], "files": files,
                 "requests": [pid for pid, _ in waiting],
                 "on_request": key is None, "at": at.isoformat(), "topic": where}
        store.put(batch_key, batch)
    return out + _post_batch(ctx, day, batch)


def _post_batch(ctx: GameContext, day: int, batch: dict) -> list[Outcome]:
    """Post the count being posted (a failure is tried again after ``AUTO_RETRY_SECONDS``;
    a scheduled count the board has not taken within ``LATE_MINUTES`` is dropped: its
    numbers are old by then, and its requests wait for the next count)."""
    store = ctx.store
    at = datetime.fromisoformat(batch.get("at") or ctx.now().isoformat())
    if ctx.now() - at > timedelta(minutes=LATE_MINUTES):
        # scheduled or on request: a count the board has not taken in time is dropped (its
        # requests wait for the next count); it never blocks the next (issue 40)
        store.put(_BATCH.format(day=day), None)
        log.warning("day %d: the count of %s was not taken by the board in time; dropped",
                    day, at.astimezone(ctx.game.timezone).strftime("%H:%M"))
        return [Outcome("tally", ctx.topic_for_day(day) or "", None, "skipped",
                        "not taken by the board in time")]
    topic = batch.get("topic") or ctx.topic_for_day(day) or ""
    items = []
    for i, name in enumerate(batch.get("files") or [batch["file"]], start=1):
        path = Path(name)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            store.put(_BATCH.format(day=day), None)
            raise ScraperModError(f"{path}: the count to post cannot be read: {e}",
                                  hint="it is made again at the next count") from None
        items.append(Item(day, "tally", batch["key"] if i == 1 else f"{batch['key']}-{i}",
                          topic, text, source=str(path)))
    outcomes: list[Outcome] = []
    for item in items:                  # the parts in order, each after the one before
        got = publish_items(ctx, [item], retry_after=AUTO_RETRY_SECONDS)
        outcomes += got
        if not got or got[0].status not in ("posted", "already"):
            return outcomes
    if outcomes and all(o.status in ("posted", "already") for o in outcomes):
        answered = set(store.get(_ANSWERED.format(day=day), [])) | set(batch["requests"])
        with store.transaction():
            store.put(_ANSWERED.format(day=day), sorted(answered))
            if batch.get("on_request"):
                store.put(_LAST_REQUEST, ctx.now().isoformat())
            store.put(_BATCH.format(day=day), None)
    return outcomes


def _fmt(ctx: GameContext) -> Formatter:
    return Formatter(_lang(ctx), ctx.game.timezone)


def _zone(ctx: GameContext, at: datetime) -> str:
    return _fmt(ctx).zone(at)


# -- reminders --------------------------------------------------------------------------------

def _missing(ctx: GameContext, day: int) -> dict[str, list[str]]:
    """Nick -> the kinds of night move he has not sent yet (R5): the awaited moves, and the
    Boss when he has sent none at all (his freeze is his choice, his kill may be the duty's)."""
    state = state_before_day(ctx, day)
    moves = day_moves(ctx, day, state=state)     # as awaiting_moves judges them
    out: dict[str, list[str]] = {}
    for w in awaiting_moves(ctx, day, moves):
        out.setdefault(w["player"], []).append(w["kind"])
    sent = {m.player for m in moves if m.status in ("counted", "replaced")}
    boss = state.boss
    if boss and boss in state.alive and boss not in sent and boss not in out:
        out[boss] = [MoveKind.FREEZE.value]
    # the day's replacements and removals so far (R10, R11.2): a slot's reminder goes to
    # whoever holds it now, none to a player the host removed (issue 40)
    book = load_book(ctx)
    if not book.empty:
        now = ctx.now()
        names = book.rename_at(now)
        gone = {nick for nick, _ in removals_before(book, now)}
        out = {names.get(n, n): k for n, k in out.items()}
        out = {n: k for n, k in out.items() if n not in gone}
    return out


def _remind(ctx: GameContext, day: int) -> list[Outcome]:
    """The night's reminders: written to ``out/day-N/reminders/`` once, then posted."""
    g = ctx.game
    folder = g.out_dir / f"day-{day}" / "reminders"
    planned = ctx.store.get(f"reminders/{day}")
    if planned is None:
        deadline = ctx.calendar().deadline(day)
        slots = {p.nick: i for i, p in enumerate(g.players, 1)}
        book = load_book(ctx)
        if not book.empty:                  # a newcomer writes in his slot's file
            now_names = book.rename_at(ctx.now())
            slots.update({now_names.get(p.nick, p.nick): i
                          for i, p in enumerate(g.players, 1)})
        planned = []
        folder.mkdir(parents=True, exist_ok=True)
        for nick, kinds in sorted(_missing(ctx, day).items(), key=lambda x: slots.get(x[0], 0)):
            text = render_text("reminder", _lang(ctx), "txt", title=g.title, day=day,
                               player=nick, kinds=kinds, deadline=deadline, fmt=_fmt(ctx))
            path = folder / f"slot-{slots.get(nick, 0):02d}.txt"
            write_atomic(path, text)
            planned.append({"nick": nick, "file": str(path)})
        ctx.store.put(f"reminders/{day}", planned)
    subject = (f"{g.title}: напоминание о ходе, день {day}" if _lang(ctx) == "ru"
               else f"{g.title}: night move reminder, day {day}")
    items = [Item(day, "reminder", r["nick"], r["nick"],
                  Path(r["file"]).read_text(encoding="utf-8"), subject=subject,
                  source=r["file"]) for r in planned]
    outcomes = publish_items(ctx, items, retry_after=AUTO_RETRY_SECONDS)
    if all(o.status in ("posted", "already") for o in outcomes):
        ctx.store.put(f"reminders/{day}/done", True)
    return outcomes


# -- alerts -----------------------------------------------------------------------------------

def alert(ctx: GameContext, kind: str, detail: str, *, link: str | None = None,
          day: int | None = None, detail_ru: str | None = None,
          post_id: int | None = None) -> str:
    """Tell the host ``detail`` (one line) at once: a PM to ``alert_to`` (default: the host's
    nick) or a mail; at most one per ``kind`` per hour. Returns "sent", "held" (within the
    hour), "failed" or "off". Never raises: an alert is never why the game stops."""
    pub, now = ctx.game.publish, ctx.now()
    if pub.alert_host == "off":
        return "off"
    last = ctx.store.get(f"alert_last/{kind}")
    held = bool(last) and now - datetime.fromisoformat(last) < ALERT_EVERY
    status = "held" if held else "failed"
    if not held:
        try:
            status = _send_alert(ctx, kind, detail, link=link, day=day,
                                 detail_ru=detail_ru, post_id=post_id)
        except ScraperModError as e:
            log.warning("the alert (%s) could not be sent: %s", kind, e)
        if status == "sent":
            ctx.store.put(f"alert_last/{kind}", now.isoformat())
    ctx.store.log_event("alert", {"kind": kind, "detail": detail, "link": link,
                                  "status": status}, at=now)
    return status


def _send_alert(ctx: GameContext, kind: str, detail: str, *, link: str | None,
                day: int | None, detail_ru: str | None = None,
                post_id: int | None = None) -> str:
    g, pub, now = ctx.game, ctx.game.publish, ctx.now()
    local = now.astimezone(g.timezone)
    stamp = local.strftime("%d.%m %H:%M")
    lang = _lang(ctx)
    if link and not re.match(r"https?://", link) and g.forum.url:   # issue 39: absolute
        link = urljoin(g.forum.url if g.forum.url.endswith("/") else g.forum.url + "/",
                       link.removeprefix("./"))
    # issue 39: a Russian alert is Russian only: the English detail goes to the log
    if lang == "ru" and detail_ru is None:
        log.info("alert (%s): %s", kind, detail)
    text = render_text("alert", lang, "txt", title=g.title, kind=kind,
                       detail=(detail_ru or "") if lang == "ru" else detail,
                       link=link, folder=str(g.folder.resolve()), when=stamp,
                       zone=_zone(ctx, now), post_id=post_id)
    subject = (f"{g.title}: нужен ведущий ({stamp})" if lang == "ru"
               else f"{g.title}: the host is needed ({stamp})")
    key = f"{kind}@{local.strftime('%Y-%m-%dT%H:%M')}"
    path = g.out_dir / "alerts" / f"{key.replace(':', '-')}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    d = day or 0
    if pub.alert_host == "mail":
        if _done(ctx, d, "alert", key):
            return "sent"
        try:
            send_mail(g.moves, pub.alert_to, subject, text)
        except (OSError, smtplib.SMTPException) as e:
            raise MailboxError(f"the alert mail to {pub.alert_to} was not sent: {e}",
                               source=f"smtp:{g.moves.smtp_host}") from None
        ctx.store.set_publication(game_id(ctx), d, "alert", key, status="done",
                                  sha256="", at=now, url=f"mailto:{pub.alert_to}")
        return "sent"
    to = pub.alert_to or g.host
    if not to:
        raise ScraperModError("alerts by PM need the host's nick",
                              hint="set [game] host or [publish] alert_to in game.toml")
    out = publish_items(ctx, [Item(d, "alert", key, to, text, subject=subject,
                                   source=str(path))])
    return "sent" if out and out[0].status in ("posted", "already") else "failed"


def alerts(ctx: GameContext) -> list[dict]:
    """Every alert, newest first: ``{"at", "kind", "detail", "link", "status"}``."""
    return [{"at": at.isoformat(), **data} for at, _kind, data
            in reversed(ctx.store.events("alert"))]


def alert_new_problems(ctx: GameContext, day: int) -> None:
    """Alerts for what the day's last poll found and the host must look at: a vote in the
    last hour that could not be read (two players, an unknown or ambiguous name), and a
    move letter from an unknown sender. Each post or letter is told once."""
    if ctx.game.publish.alert_host == "off":
        return
    now, cal = ctx.now(), ctx.calendar()
    deadline = cal.deadline(day)
    told = set(ctx.store.get("alerted", []))
    new: list[str] = []
    if ctx.topic_for_day(day) and deadline - timedelta(hours=1) <= now < deadline:
        t = tally_day(ctx, day)
        for r in t.rejected:
            if r.reason not in ("ambiguous_name", "not_a_player", "two_players"):
                continue
            if f"post/{r.post_id}" in told:
                continue
            new.append(f"post/{r.post_id}")
            # what the player wrote reaches the host's PM inert (no live BBCode)
            alert(ctx, "vote", f"day {day}: post {r.post_id} by {inert(r.author)}: "
                  f"{r.reason.replace('_', ' ')}: {inert(r.text[:80])!r}",
                  link=t.link(r.post_id), day=day,
                  detail_ru=f"день {day}, пост {r.post_id} ({inert(r.author)}): "
                            f"{reason_text(r.reason, 'ru')}: «{inert(r.text[:80])}»",
                  post_id=r.post_id)
    own = {x.casefold() for x in (ctx.game.host, ctx.game.forum.username,
                                  ctx.game.publish.alert_to) if x}
    for m in day_moves(ctx, day):
        if m.status == "unknown_sender" and m.message_id is not None \
                and f"mail/{m.message_id}" not in told \
                and (m.player or "").casefold() not in own:   # the host's own, or an alert
            new.append(f"mail/{m.message_id}")
            alert(ctx, "mail", f"day {day}: a move message from an unknown sender "
                  f"(message {m.message_id})", day=day,
                  detail_ru=f"день {day}: ход от неизвестного отправителя (письмо "
                            f"{m.message_id})")
    if new:
        ctx.store.put("alerted", sorted(told | set(new)))


def chores_ahead(ctx: GameContext, day: int) -> list[dict]:
    """What day ``day`` has scheduled next (``status``, ``publish --dry-run``): each
    ``{"kind": "count"|"reminder", "at": ISO, "done": bool}``, and the requests waiting."""
    now = ctx.now()
    out = []
    for c in scheduled_chores(ctx, day):
        done = (_done(ctx, day, "tally", c.key) if c.kind == "count"
                else bool(ctx.store.get(f"reminders/{day}/done")))
        if c.at > now or done:
            out.append({"kind": c.kind, "at": c.at.isoformat(), "done": done})
    waiting = pending_requests(ctx, day)
    if waiting:
        out.append({"kind": "requests", "at": now.isoformat(), "done": False,
                    "posts": [pid for pid, _ in waiting]})
    return out

