"""Where a game stands (``scraper-mod status``): the day, its deadline, the leaders of the
count, the moves received, the resolved days, the daemon's pid and the last fetch.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from scraper_mod.game.day.daytime import chores_ahead
from scraper_mod.game.day.tally import tally_day
from scraper_mod.game.night.intake import read_letter

from ..errors import ScraperModError
from ..game.context import GameContext
from ..game.results.wording import Formatter
from ..game.russian import error_in
from .lock import running_pid
from .work import summarize_result, winner_ru

_UNITS = {"en": ("d", "h", "m", "s"), "ru": (" сут.", " ч", " мин", " с")}


def fmt_delta(d: timedelta, lang: str = "en") -> str:
    """A duration for the log: ``2d 3h``, ``1h 05m``, ``4m 30s``, ``-10m`` (past); in
    Russian ``2 сут. 3 ч``, ``1 ч 05 мин``."""
    ud, uh, um, us = _UNITS.get(lang, _UNITS["en"])
    s = int(round(d.total_seconds()))
    sign = "-" if s < 0 else ""
    s = abs(s)
    days, rem = divmod(s, 86400)
    h, rem = divmod(rem, 3600)
    m, sec = divmod(rem, 60)
    if days:
        return f"{sign}{days}{ud} {h}{uh}"
    if h:
        return f"{sign}{h}{uh} {m:02d}{um}"
    if m:
        return f"{sign}{m}{um}" + (f" {sec:02d}{us}" if sec else "")
    return f"{sign}{sec}{us}"


# ---------------------------------------------------------------------------------------------
# `scraper-mod status`
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GameStatus:
    """Where a game stands (``scraper-mod status``)."""

    title: str
    timezone: str
    now: datetime
    day: int
    topic: str | None
    day_start: datetime
    deadline: datetime
    moved: bool
    leaders: tuple[tuple[str, int], ...]   # the top of the count: (nick, votes), ties included
    votes_counted: int | None
    tally_note: str | None                 # why there is no count
    moves_received: int
    movers: tuple[str, ...]                # senders of this day's move messages, when known
    resolved: tuple[int, ...]
    last_result: str
    winner: str | None
    daemon_pid: int | None
    last_fetch: datetime | None
    ahead: tuple[dict, ...] = ()           # the day's counts and reminder to come (daytime)
    # a Russian game's text (issue 39 item 4); not in the JSON
    folder: str = ""
    tally_note_ru: str | None = None
    last_result_ru: str = ""

    def to_json(self) -> dict:
        left = (self.deadline - self.now).total_seconds()
        return {
            "title": self.title, "now": self.now.isoformat(), "day": self.day,
            "topic": self.topic, "day_start": self.day_start.isoformat(),
            "deadline": self.deadline.isoformat(), "deadline_moved": self.moved,
            "seconds_left": max(0, int(left)),
            "leaders": [{"target": t, "votes": v} for t, v in self.leaders],
            "votes_counted": self.votes_counted, "tally_note": self.tally_note,
            "moves_received": self.moves_received, "movers": list(self.movers),
            "resolved": list(self.resolved), "winner": self.winner,
            "daemon_pid": self.daemon_pid,
            "last_fetch": self.last_fetch.isoformat() if self.last_fetch else None,
            "scheduled": list(self.ahead),
        }

    def to_text(self, lang: str = "en") -> str:
        """The status as the host reads it; ``lang="ru"``: in Russian only (issue 39)."""
        if lang == "ru":
            return self._text_ru()
        tz = self.deadline.tzinfo

        def t(x: datetime) -> str:
            return x.astimezone(tz).strftime("%a %Y-%m-%d %H:%M %Z")

        lines = [self.title]
        if self.winner:
            lines.append(f"the game is over: {self.winner} wins (resolved days "
                         f"{', '.join(map(str, self.resolved))})")
            if self.last_result:
                lines.append(f"last day: {self.last_result}")
            return "\n".join(lines)
        left = self.deadline - self.now
        lines.append(f"day {self.day}: deadline {t(self.deadline)}"
                     f"{' (moved)' if self.moved else ''}, "
                     + (f"{fmt_delta(left)} left" if left.total_seconds() > 0
                        else f"passed {fmt_delta(-left)} ago, not resolved yet"))
        lines.append(f"topic: {self.topic or '(none yet: scraper-mod day open GAME DAY URL)'}")
        if self.leaders:
            lead = ", ".join(f"{n} ({v})" for n, v in self.leaders)
            word = "leaders (tied)" if len(self.leaders) > 1 else "leader"
            lines.append(f"{word}: {lead}; {self.votes_counted} vote"
                         f"{'' if self.votes_counted == 1 else 's'} counted")
        else:
            lines.append(f"leader: none{f' ({self.tally_note})' if self.tally_note else ''}")
        who = f" from {', '.join(self.movers)}" if self.movers else ""
        lines.append(f"moves received this day: {self.moves_received}{who}")
        if self.resolved:
            lines.append(f"resolved days: {', '.join(map(str, self.resolved))}"
                         + (f"; day {self.resolved[-1]}: {self.last_result}"
                            if self.last_result else ""))
        lines.append("daemon: " + (f"running (pid {self.daemon_pid})" if self.daemon_pid
                                   else "not running (start it with 'scraper-mod run GAME')"))
        for c in self.ahead:
            what = {"count": "vote count", "reminder": "move reminders",
                    "requests": "a vote count asked for in"}.get(c["kind"], c["kind"])
            if c["kind"] == "requests":
                lines.append(f"next: {what} posts {', '.join(map(str, c['posts']))}")
            elif not c["done"]:
                lines.append(f"next: {what} at {t(datetime.fromisoformat(c['at']))}")
        if self.last_fetch:
            ago = self.now - self.last_fetch
            lines.append(f"last forum fetch: {t(self.last_fetch)}"
                         + (f" ({fmt_delta(ago)} ago)" if ago.total_seconds() >= 60 else ""))
        return "\n".join(lines)


    def _text_ru(self) -> str:
        """The status in Russian only: dates as «до пятницы, 15 марта, 20:00 МСК»."""
        fmt = Formatter("ru", ZoneInfo(self.timezone))

        def at(x: datetime) -> str:
            return f"{fmt.date(x)}, {fmt.time(x)} {fmt.zone(x)}"

        days = ", ".join(map(str, self.resolved))
        lines = [self.title]
        if self.winner:
            lines.append(f"игра окончена, победа: {winner_ru(self.winner)} (подведены дни: "
                         f"{days})")
            if self.last_result_ru:
                lines.append(f"последний день: {self.last_result_ru}")
            return "\n".join(lines)
        left = self.deadline - self.now
        lines.append(f"день {self.day}: срок — до {fmt.when(self.deadline)}"
                     f"{' (перенесён ведущим)' if self.moved else ''}, "
                     + (f"осталось {fmt_delta(left, 'ru')}" if left.total_seconds() > 0
                        else f"прошёл {fmt_delta(-left, 'ru')} назад, итоги ещё не подведены"))
        lines.append("тема: " + (self.topic or f"пока нет (`scraper-mod day open {self.folder} "
                                                f"{self.day} АДРЕС_ТЕМЫ`)"))
        if self.leaders:
            lead = ", ".join(f"{n} ({v})" for n, v in self.leaders)
            word = "лидеры (поровну)" if len(self.leaders) > 1 else "лидер"
            lines.append(f"{word}: {lead}; учтено голосов: {self.votes_counted}")
        else:
            note = self.tally_note_ru or self.tally_note
            lines.append(f"лидера нет{f' ({note})' if note else ''}")
        who = f" (от {', '.join(self.movers)})" if self.movers else ""
        lines.append(f"ходов получено за этот день: {self.moves_received}{who}")
        if self.resolved:
            lines.append(f"подведены дни: {days}"
                         + (f"; день {self.resolved[-1]}: {self.last_result_ru}"
                            if self.last_result_ru else ""))
        lines.append("демон: " + (f"работает (процесс {self.daemon_pid})" if self.daemon_pid
                                  else f"не запущен (запустите `scraper-mod run {self.folder}`)"))
        for c in self.ahead:
            if c["kind"] == "requests":
                lines.append("дальше: подсчёт голосов по просьбе в постах "
                             + ", ".join(map(str, c["posts"])))
            elif not c["done"]:
                what = {"count": "подсчёт голосов", "reminder": "напоминание о ходах"}.get(
                    c["kind"], c["kind"])
                lines.append(f"дальше: {what} — {at(datetime.fromisoformat(c['at']))}")
        if self.last_fetch:
            ago = self.now - self.last_fetch
            lines.append(f"последнее чтение форума: {at(self.last_fetch)}"
                         + (f" ({fmt_delta(ago, 'ru')} назад)" if ago.total_seconds() >= 60
                            else ""))
        return "\n".join(lines)


_NOTES_RU = {"no topic yet": "темы дня пока нет", "no votes yet": "голосов пока нет",
             "the vote count is not available in this build":
                 "подсчёт голосов недоступен в этой сборке"}


def _leaders(ctx: GameContext, day: int,
             now: datetime) -> tuple[tuple, int | None, str | None, str | None]:
    """The top of the day's count as of now, from the stored posts (no polling); why there
    is none, in English and in Russian."""
    if not ctx.topic_for_day(day):
        return (), None, "no topic yet", _NOTES_RU["no topic yet"]
    try:
        tally = tally_day(ctx, day, as_of=now)
    except ImportError:
        note = "the vote count is not available in this build"
        return (), None, note, _NOTES_RU[note]
    except ScraperModError as e:
        return (), None, str(e), error_in(e, "ru")
    data = tally.to_json() if hasattr(tally, "to_json") else tally
    counts = data.get("counts", []) if isinstance(data, dict) else []
    votes = data.get("votes", []) if isinstance(data, dict) else []
    if not counts:
        return (), len(votes), "no votes yet", _NOTES_RU["no votes yet"]
    top = counts[0]["votes"]
    return (tuple((c["target"], c["votes"]) for c in counts if c["votes"] == top),
            len(votes), None, None)


def _moves_received(ctx: GameContext, day: int) -> tuple[int, tuple[str, ...]]:
    """Move messages received for day ``day``: after the previous deadline, by this one."""
    cal = ctx.calendar()
    lo = cal.deadline(day - 1) if day > 1 else None
    hi = cal.deadline(day)
    msgs = [m for m in ctx.store.messages()
            if (lo is None or m.received_at > lo) and m.received_at <= hi]
    senders: list[str] = []
    for m in msgs:
        s = read_letter(m).sender        # mail, queue file or board PM; None if unreadable
        if s and s not in senders:
            senders.append(s)
    nick_of = {(p.contact or "").lower(): p.nick for p in ctx.game.players if p.contact}
    return len(msgs), tuple(nick_of.get(s.lower(), s) for s in senders)


def game_status(ctx: GameContext) -> GameStatus:
    """The game's status as of ``ctx.now()`` (reads the store; never polls)."""
    now = ctx.now()
    cal = ctx.calendar()
    done = ctx.store.resolutions()
    day = 1
    while day in done:
        day += 1
    winner = None
    last = last_ru = ""
    for n in sorted(done):
        data = done[n]
        if isinstance(data, dict) and isinstance(data.get("result"), dict):
            data = data["result"]
        winner = winner or (data.get("winner") if isinstance(data, dict) else None)
        last = summarize_result(data if isinstance(data, dict) else None)
        last_ru = summarize_result(data if isinstance(data, dict) else None, "ru")
    leaders, counted, note, note_ru = ((), None, None, None) if winner \
        else _leaders(ctx, day, now)
    received, movers = (0, ()) if winner else _moves_received(ctx, day)
    return GameStatus(
        title=ctx.game.title, timezone=ctx.game.timezone.key, now=now, day=day,
        topic=ctx.topic_for_day(day), day_start=cal.day_start(day), deadline=cal.deadline(day),
        moved=cal.is_moved(day), leaders=leaders, votes_counted=counted, tally_note=note,
        moves_received=received, movers=movers, resolved=tuple(sorted(done)), last_result=last,
        winner=winner, daemon_pid=running_pid(ctx.game.folder),
        last_fetch=ctx.store.last_fetch_at(),
        ahead=() if winner else tuple(chores_ahead(ctx, day)),
        folder=str(ctx.game.folder), tally_note_ru=note_ru,
        last_result_ru=last_ru)
