"""`scraper-mod day open N URL` / `day move N TIME` / `day list`: the host's hand on the
calendar while a game runs (the daemon reads both from the state file at its next step).

- ``open``: day N's topic is URL (stored; overrides ``[[days]]``).
- ``move``: day N's deadline is TIME (R1.4; stored in the state file's ``moved_deadlines``,
  which the calendar reads; the days after follow on from it).
- ``list``: every day so far with its topic, start, deadline and whether it is resolved.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from ..errors import ConfigError, RulesError, ScraperModError
from ..game.context import open_game
from .common import add_game_argument, parse_time_arg


def register(sub) -> None:
    p = sub.add_parser("day", help="open a day's topic, move a deadline (R1.4), list the days")
    dsub = p.add_subparsers(dest="day_command", metavar="ACTION", required=True)

    o = dsub.add_parser("open", help="set day N's topic: scraper-mod day open GAME N URL")
    add_game_argument(o)
    o.add_argument("number", metavar="N", type=int, help="the day number")
    o.add_argument("url", metavar="URL", help="the day's topic (viewtopic.php?t=...)")
    o.set_defaults(func=run_open)

    m = dsub.add_parser("move", help="move day N's deadline (R1.4): "
                                     "scraper-mod day move GAME N TIME")
    add_game_argument(m)
    m.add_argument("number", metavar="N", type=int, help="the day number")
    m.add_argument("time", metavar="TIME",
                   help="the new deadline, ISO 8601, in game time when it has no offset "
                        "(e.g. 2024-03-18T20:00); 'default' undoes a move made here")
    m.set_defaults(func=run_move)

    ls = dsub.add_parser("list", help="the days so far (to the first unresolved one and each "
                                     "day with a topic): topic, start, deadline, resolved")
    add_game_argument(ls)
    ls.set_defaults(func=run_list)


def _check_day(n: int) -> None:
    if n < 1:
        raise ConfigError(f"day {n}: days are numbered from 1")


def _check_topic_url(url: str) -> None:
    parts = urlsplit(url)
    q = parse_qs(parts.query)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"not a forum address: {url!r}",
                          hint="give the topic's full URL, e.g. "
                               "https://forum.example.org/viewtopic.php?t=123")
    if "viewtopic.php" not in parts.path or not "".join(q.get("t", [])).isdigit():
        raise ConfigError(f"not a phpBB topic address: {url!r}",
                          hint="copy the topic's link: .../viewtopic.php?t=123 "
                               "(or ?f=2&t=123)")


def run_open(args) -> int:
    _check_day(args.number)
    _check_topic_url(args.url)
    from ..forum.poller import canonical_topic_url
    url = canonical_topic_url(args.url)      # without a session id or a page
    ctx = open_game(args.game)
    try:
        n = args.number
        if n in ctx.store.resolutions():
            raise ScraperModError(f"day {n} is already resolved; its topic cannot change now",
                                  hint="resolve it again by hand with 'scraper-mod resolve' "
                                       "if its topic was wrong")
        old = ctx.topic_for_day(n)
        ctx.set_topic_for_day(n, url)
        ctx.store.log_event("day_opened", {"day": n, "topic": url, "how": "day open",
                                           "previous": old}, at=ctx.now())
        if old and old != url:
            print(f"day {n}: topic changed from {old} to {url}")
        else:
            print(f"day {n}: topic {url}")
    finally:
        ctx.close()
    return 0


def _stamp(t, tz) -> str:
    return t.astimezone(tz).strftime("%a %Y-%m-%d %H:%M:%S %Z")


def run_move(args) -> int:
    _check_day(args.number)
    ctx = open_game(args.game)
    try:
        n, g = args.number, ctx.game
        if n in ctx.store.resolutions():
            raise ScraperModError(f"day {n} is already resolved; its deadline cannot move now")
        before = ctx.calendar().deadline(n)
        moved = dict(ctx.store.get("moved_deadlines", {}))
        if args.time.strip().lower() == "default":
            if str(n) not in moved:
                raise ConfigError(f"day {n}'s deadline was not moved with 'day move'")
            del moved[str(n)]
            new = None
        else:
            new = parse_time_arg(args.time, g.timezone, name="TIME")
            moved[str(n)] = new.isoformat()
        previous = ctx.store.get("moved_deadlines", {})
        ctx.store.put("moved_deadlines", moved)
        try:
            after = ctx.calendar().deadline(n)
            if n > 1:
                ctx.calendar().deadline(n - 1)
        except RulesError as e:
            ctx.store.put("moved_deadlines", previous)
            raise ConfigError(f"cannot move the deadline there: {e.message}",
                              hint=f"give a time after day {n}'s start") from None
        ctx.store.log_event("deadline_moved", {"day": n, "from": before.isoformat(),
                                               "to": after.isoformat()}, at=ctx.now())
        cal = ctx.calendar()
        print(f"day {n}: deadline {_stamp(before, g.timezone)} -> {_stamp(after, g.timezone)}"
              f"{' (back to the schedule)' if new is None else ''}")
        print(f"day {n + 1} now runs from {_stamp(cal.day_start(n + 1), g.timezone)} to "
              f"{_stamp(cal.deadline(n + 1), g.timezone)}; the days after follow on from it")
        if after <= ctx.now():
            print(f"note: that is in the past: a running 'scraper-mod run' resolves day {n} "
                  "at its next step")
    finally:
        ctx.close()
    return 0


def run_list(args) -> int:
    ctx = open_game(args.game)
    try:
        cal, tz = ctx.calendar(), ctx.game.timezone
        done = ctx.store.resolutions()
        now = ctx.now()
        # up to the first unresolved day and every day with a topic (not the whole calendar:
        # an old game's clock would run on for hundreds of days)
        topics = [int(k) for k in ctx.store.get("day_topics", {})]
        first_open = 1
        while first_open in done:
            first_open += 1
        last = max([first_open, *topics, *(d.number for d in ctx.game.days)])
        over = [n for n, r in done.items() if isinstance(r, dict) and r.get("winner")]
        if over:
            last = min(over)       # the game ended that day: no day after it
        for n in range(1, last + 1):
            state = "resolved" if n in done else ("due" if cal.deadline(n) <= now else "open")
            moved = " (moved)" if cal.is_moved(n) else ""
            print(f"day {n}: {state:8} starts {_stamp(cal.day_start(n), tz)}, deadline "
                  f"{_stamp(cal.deadline(n), tz)}{moved}; topic {ctx.topic_for_day(n) or '-'}")
    finally:
        ctx.close()
    return 0
