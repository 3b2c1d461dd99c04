"""What the host's page shows, gathered from the services the commands use (no logic of its
own about votes, moves or days): the count (``game.tally``), its history
(``game.history``), the days (``game.days``), the moves (``game.nightmoves``), the daemon's
state (``daemon.scheduler``: its lock; the store: its last read and errors), the
publications (``game.publish``) and the day's posts (``out/day-N/`` through
``posts.preview``).

Secret things — roles, moves, the random list, the host report — are never in ``game_view``:
only ``secret_view`` has them, which the page fetches after the host's click.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable

from scraper_mod.game.day.tally import DayTally, tally_day
from scraper_mod.game.night.intake import day_moves, state_before_day
from scraper_mod.game.night.nightmoves import awaiting_moves, moves_json
from scraper_mod.game.publishing.publish import failures, game_id, plan_day
from scraper_mod.game.results.wording import Formatter

from ..daemon.lock import running_pid
from ..daemon.many import find_games, is_games_folder
from ..daemon.overview import PROBLEM_WINDOW, error_text, recent_errors
from ..errors import ScraperModError
from ..game.context import GameContext
from ..game.history.daychart import vote_history
from ..game.russian import error_in, game_language
from ..posts.bbcode import bbcode_to_html
from ..posts.dayfolder import day_start_file
from ..rules.moves import reason_text as move_reason
from ..rules.votes import reason_text
from .chart import chart_svg
from .i18n import PUBLISH_KIND, named, word

ERROR_WINDOW = timedelta(hours=24)     # the daemon's errors listed on the page (an alert: the
                                       # last PROBLEM_WINDOW's, as `status FOLDER` says)

# rejection reasons (rules/votes.py) -> the alert they raise
ALERT_OF_REASON = {
    "ambiguous_name": "a_nick", "two_players": "a_nick", "not_a_player": "a_nick",
    "dead_voter": "a_dead", "dead_after_last_word": "a_dead",
    "late": "a_late", "late_unclear": "a_late",
    "silent_edit_after_deadline": "a_silent",
}


def games_of(target: Path) -> dict[str, Path]:
    """The games ``serve`` shows: NAME (the folder's name) -> game folder. ``target`` is one
    game (its folder or its game.toml) or a folder of game folders (read again each time, so
    a game added while it runs shows up)."""
    target = Path(target)
    if target.is_file():
        return {target.parent.resolve().name: target.parent}
    if is_games_folder(target):
        return {p.name: p for p in find_games(target)}
    return {target.resolve().name: target}


@dataclass
class Alert:
    kind: str                       # a_nick, a_dead, ... (i18n keys)
    text: str
    url: str | None = None


@dataclass
class GameView:
    """One game's page (no secrets)."""

    name: str
    title: str
    lang: str
    fmt: Formatter
    day: int
    topic: str | None
    day_start: datetime
    deadline: datetime
    moved: bool
    now: datetime
    passed: bool
    winner: str | None
    daemon_pid: int | None
    last_fetch: datetime | None
    errors: list[tuple[datetime, str]]
    tally: DayTally | None
    tally_error: str | None
    chart: str
    alerts: list[Alert]
    posts_day: int | None
    posts: list[tuple[str, str]]            # (title, HTML as the board shows it)
    publish_mode: str
    publish_plan: list[dict]
    days: list = field(default_factory=list)
    resolved: tuple[int, ...] = ()
    told: list[tuple[datetime, str]] = field(default_factory=list)   # alerts (daytime.alert)

    def when(self, t: datetime | None) -> str:
        """"вторник, 9 апреля, 20:00 МСК" for the page."""
        if t is None:
            return word("never", self.lang)
        f = self.fmt
        return f"{f.date(t)}, {f.time(t)} {f.zone(t)}"

    def t(self, key: str, **fields: object) -> str:
        return word(key, self.lang, **fields)

    def count_rows(self) -> list[dict]:
        """The count's candidates, each voter linked to the post of his counted vote; the
        Mayor's vote marked ``double`` (R14: it counts as two, the page shows «×2»)."""
        if self.tally is None:
            return []
        by_voter = {v.voter: v for v in self.tally.tally.votes}
        rows = []
        for c in self.tally.tally.counts:
            voters = []
            for nick in c.voters:
                v = by_voter.get(nick)
                voters.append({"nick": nick, "at": self.fmt.time(v.at) if v else "",
                               "url": self.tally.link(v.post_id) if v else None,
                               "double": nick in c.doubled})     # R14: the Mayor, «×2»
            rows.append({"target": c.target, "votes": c.votes, "voters": voters})
        return rows


def _lang(ctx: GameContext) -> str:
    return ctx.game.language if ctx.game.language in ("ru", "en") else "en"


def page_day(ctx: GameContext) -> tuple[int, bool]:
    """The day the page shows first — the first unresolved day (as ``status``), or the last
    day once the game is over — and whether the game is over."""
    done = ctx.store.resolutions()
    over = [d for d, r in done.items() if isinstance(r, dict) and r.get("winner")]
    if over:
        return min(over), True
    day = 1
    while day in done:
        day += 1
    return day, False


def _winner(ctx: GameContext) -> str | None:
    for _, data in sorted(ctx.store.resolutions().items()):
        r = data.get("result", data) if isinstance(data, dict) else {}
        if isinstance(r, dict) and r.get("winner"):
            return r["winner"]
    return None


def game_view(ctx: GameContext, name: str, *, day: int | None = None,
              summary: bool = False) -> GameView:
    """Everything the game's page shows for day ``day`` (default: ``page_day``); with
    ``summary`` (the games list) no chart, no posts and no publication plan."""
    lang = _lang(ctx)
    g = ctx.game
    fmt = Formatter(lang, g.timezone)
    now = ctx.now()
    first, over = page_day(ctx)
    day = day or first
    cal = ctx.calendar()
    deadline = cal.deadline(day)
    topic = ctx.topic_for_day(day)
    alerts: list[Alert] = []
    tally, tally_error, chart = None, None, ""
    if topic:
        try:
            tally = page_tally(ctx, day)
            chart = "" if summary else tally_chart(ctx, tally)
        except ScraperModError as e:
            tally_error = error_in(e, lang)
            alerts.append(Alert("a_count", tally_error))
    elif not over:
        alerts.append(Alert("a_topic", word("a_topic", lang, day=day)))
    if tally is not None:
        alerts += _tally_alerts(tally, lang)
    done = ctx.store.resolutions()
    if deadline <= now and day not in done and not over:
        alerts.append(Alert("a_due", word("a_due", lang, day=day)))
    try:
        moves = day_moves(ctx, day)
    except ScraperModError as e:
        moves = []
        alerts.append(Alert("a_moves", error_in(e, lang)))
    for m in moves:
        if m.status == "unknown_sender":
            alerts.append(Alert("a_sender", f"{m.player}: {move_reason(m.reason, lang)}"
                                            f" ({fmt.stamp(m.received_at)})"))
    for f in failures(ctx):
        alerts.append(Alert("a_publish", f"{word('day', lang)} {f['day']}, "
                                         f"{named(PUBLISH_KIND, f['kind'], lang)} → "
                                         f"{f['recipient']}: {f['error']}"))
    errors = [(at, error_text(data, lang)) for at, _, data in ctx.store.events("error")
              if at >= now - ERROR_WINDOW and data.get("message")][-5:][::-1]
    for msg in recent_errors(ctx, now - PROBLEM_WINDOW, limit=3, lang=lang):
        alerts.append(Alert("a_daemon", msg))
    posts_day = max((d for d in done if d <= day), default=None)
    return GameView(
        name=name, title=g.title, lang=lang, fmt=fmt, day=day, topic=topic,
        day_start=cal.day_start(day), deadline=deadline, moved=cal.is_moved(day), now=now,
        passed=deadline <= now, winner=_winner(ctx) if over else None,
        daemon_pid=running_pid(g.folder), last_fetch=ctx.store.last_fetched_at(),
        errors=errors, tally=tally, tally_error=tally_error, chart=chart,
        alerts=alerts, posts_day=posts_day,
        posts=[] if summary else day_posts(ctx, posts_day, lang),
        publish_mode=g.publish.mode, publish_plan=[] if summary else publish_plan(ctx, posts_day),
        resolved=tuple(sorted(done)), told=_told(ctx, now))


def _told(ctx: GameContext, now: datetime) -> list[tuple[datetime, str]]:
    """What the host was alerted of (``[publish] alert_host``) in the last day, newest
    first, each with how it went (sent, held back within the hour, failed)."""
    return [(at, f"{d.get('kind')}: {d.get('detail')} [{d.get('status')}]")
            for at, _, d in ctx.store.events("alert") if at >= now - ERROR_WINDOW][-10:][::-1]


def page_tally(ctx: GameContext, day: int) -> DayTally:
    """The day's count as of now (final once the deadline has passed), from the store."""
    deadline = ctx.calendar().deadline(day)
    return tally_day(ctx, day, as_of=min(ctx.now(), deadline).replace(microsecond=0))


def tally_chart(ctx: GameContext, tally: DayTally) -> str:
    """The count's history as the page's SVG chart ("" before the first vote)."""
    return chart_svg(vote_history(tally, self_votes=ctx.game.rules.self_votes), tally,
                     start=ctx.calendar().day_start(tally.day), lang=_lang(ctx))


def _tally_alerts(tally: DayTally, lang: str) -> list[Alert]:
    out = []
    for r in tally.rejected:
        kind = ALERT_OF_REASON.get(r.reason)
        if kind:
            out.append(Alert(kind, f"{r.author}: «{r.text}» — {reason_text(r.reason, lang)}",
                             tally.link(r.post_id)))
    for note in (*tally.state.notes, *tally.notes.notes):
        out.append(Alert("a_note", note))
    if tally.lynch_note:
        out.append(Alert("a_note", tally.lynch_note))
    return out


def day_posts(ctx: GameContext, day: int | None, lang: str) -> list[tuple[str, str]]:
    """The newspaper and the day start of a resolved day as the board will show them (the preview
    BBCode renderer over ``out/day-N/``)."""
    if day is None:
        return []
    folder = ctx.game.out_dir / f"day-{day}"
    out = []
    for key, path in (("newspaper", folder / "newspaper.bbcode"),
                      ("day_start", day_start_file(folder, day))):
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        out.append((word(key, lang), bbcode_to_html(text, lang=lang, inline_scripts=False,
                                                    links=ctx.quote_links())))
    return out


def publish_plan(ctx: GameContext, day: int | None) -> list[dict]:
    """What ``publish`` posts for the day and how each stands (the store's publications)."""
    if day is None or ctx.game.publish.mode == "off":
        return []
    try:
        items = plan_day(ctx, day)
    except ScraperModError as e:
        return [{"kind": "-", "to": "-", "status": "failed",
                 "error": error_in(e, _lang(ctx))}]
    recs = {(r["kind"], r["recipient"]): r for r in ctx.store.publications(game_id(ctx), day)}
    out = []
    for i in items:
        rec = recs.get((i.kind, i.key), {})
        done = rec.get("status") == "done" and (i.kind != "newspaper"
                                                or rec.get("sha256") == i.sha256)
        out.append({"kind": i.kind, "to": i.to, "status": "posted" if done else
                    (rec.get("status") or "waiting"), "error": rec.get("error"),
                    "url": rec.get("url")})
    return out


def secret_view(ctx: GameContext, day: int) -> dict:
    """What the page shows only after the host's click: the day's moves as judged
    (``moves --format json``), whose move is still awaited, the random list's place (in the
    host report) and the host report of the last resolved day."""
    lang = _lang(ctx)
    fmt = Formatter(lang, ctx.game.timezone)
    state = state_before_day(ctx, day)
    moves = day_moves(ctx, day, state=state)
    data = moves_json(ctx, day, moves)
    for m in data["moves"]:
        m["role_name"] = fmt.role(m["role"]) if m["role"] else "?"
        m["why"] = move_reason(m["reason"], lang) if m["reason"] else ""
    done = ctx.store.resolutions()
    # a resolved day waits for no move: the page says nothing of what is awaited
    data["resolved"] = day in done
    data["awaiting"] = [] if day in done else [{**a, "role_name": fmt.role(a["role"])}
                                               for a in awaiting_moves(ctx, day, moves)]
    last = max((d for d in done if d <= day), default=None)
    report = None
    if last is not None:
        try:
            report = (ctx.game.out_dir / f"day-{last}" / "host-report.txt").read_text(
                encoding="utf-8")
        except OSError:
            report = None
    data["report_day"] = last
    data["report"] = report
    return data


def games_overview(games: dict[str, Path],
                   open_one: Callable[[Path], GameContext]) -> list[dict]:
    """One row per game for ``/``: day, leader, time left, and what needs the host.
    ``open_one(path)`` gives the game's context; the caller owns it (it is not closed here)."""
    rows = []
    for name, path in sorted(games.items()):
        row: dict = {"name": name, "folder": str(path)}
        try:
            ctx = open_one(path)
        except ScraperModError as e:
            line = error_in(e, game_language(path) or "ru")
            rows.append({**row, "broken": line, "alerts": [line]})
            continue
        try:
            v = game_view(ctx, name, summary=True)
            leaders = []
            if v.tally is not None and v.tally.tally.counts:
                top = v.tally.tally.counts[0].votes
                leaders = [(c.target, c.votes) for c in v.tally.tally.counts if c.votes == top]
            row.update(view=v, leaders=leaders,
                       alerts=[f"{word(a.kind, v.lang, day=v.day)}: {a.text}"
                               if a.kind not in ("a_due", "a_topic") else a.text
                               for a in v.alerts])
        except ScraperModError as e:
            line = error_in(e, _lang(ctx))
            row.update(broken=line, alerts=[line])
        rows.append(row)
    return rows
