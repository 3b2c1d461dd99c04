"""The daemon with everything real but the clock: LocalBoard on 127.0.0.1, the real client,
poller, parser, vote count, Maildir intake and resolver, on a ``ScriptedClock`` (the demo's
simulated clock, which also drives the board's Date header and the script of posts).

The forum goes down at the deadline: the day must be resolved as soon as the board is back,
never on the partial topic it had seen before (a decisive vote posted at 19:59:30 is only on
the board's answer after the outage). `scraper-mod status`, `day open` and `day move` are
checked on the same kind of game.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.cli import main
from scraper_mod.daemon.scheduler import Daemon
from scraper_mod.daemon.work import LiveOps
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.demo.world import ScriptedClock
from scraper_mod.game.context import open_game

MSK = ZoneInfo("Europe/Moscow")
NICKS = [("Вася", "boss", 301), ("Игорь", "mafia", 302), ("Маша", "commissar", 303),
         ("Ирина", "doctor", 304), ("Петя", "civilian", 305), ("Коля", "civilian", 306),
         ("Таня", "civilian", 307)]


def msk(day: int, hh: int, mm: int = 0, ss: int = 0) -> datetime:
    return datetime(2024, 3, day, hh, mm, ss, tzinfo=MSK)


def write_game(folder: Path, board: LocalBoard, topic: str | None, *,
               game_extra: str = "", tail: str = "", day1: str = "") -> Path:
    """A 7-player game on ``board`` with a Maildir, day 1's topic in [[days]] (plus ``day1``
    keys), ``game_extra`` lines under [game] and ``tail`` tables at the end."""
    players = "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\nforum_id = {u}\n'
                      f'contact = "{u}@example.org"\n\n' for n, r, u in NICKS)
    order = ", ".join(f'"{n}"' for n, _, _ in NICKS)
    days = f'[[days]]\nnumber = 1\ntopic = "{topic}"\n{day1}' if topic else ""
    folder.mkdir(parents=True, exist_ok=True)
    for sub in ("cur", "new", "tmp"):
        (folder / "moves" / sub).mkdir(parents=True, exist_ok=True)
    game_extra = game_extra or "start = 2024-03-13\n"
    (folder / "game.toml").write_text(f"""[game]
title = "Живая проверка"
{game_extra}host = "Ведущий"
random_list = [{order}]

[mafia]
duty = "Игорь"

[forum]
url = "{board.url}"
min_delay = 0
retries = 1

[moves]
source = "maildir"
path = "moves"

{tail}
{players}{days}""", encoding="utf-8")
    return folder


def vote(board: LocalBoard, topic: int, author: str, target: str, when: datetime) -> int:
    uid = next(u for n, _, u in NICKS if n == author)
    return board.add_post(author, uid, f"[color=red]{target}[/color]", when, topic=topic)


@pytest.fixture
def world(tmp_path):
    clock = ScriptedClock(msk(14, 18))
    board = LocalBoard(language="ru", clock=clock, per_page=4).start()
    t = board.add_topic("Живая проверка — День 1")
    board.add_post("Ведущий", 50, "День 1.", msk(13, 21), topic=t)
    # 3:3 between Петя and Коля until a last vote; 2 pages of 4 posts
    for i, (who, target) in enumerate([("Вася", "Петя"), ("Игорь", "Петю"), ("Маша", "Колю"),
                                       ("Ирина", "Коля"), ("Петя", "Колю"), ("Коля", "Петя")]):
        vote(board, t, who, target, msk(14, 9 + i))
    folder = write_game(tmp_path / "game", board, board.topic_url(t))
    yield clock, board, t, folder
    board.stop()


def test_forum_down_at_the_deadline_resolves_when_back_never_on_a_partial_topic(world, caplog):
    clock, board, t, folder = world
    # Таня's decisive vote lands at 19:59:30, while the board is down (19:58 to 20:10)
    clock.schedule(msk(14, 19, 58), lambda: setattr(board, "disabled", True))
    clock.schedule(msk(14, 19, 59, 30), lambda: vote(board, t, "Таня", "Колю",
                                                     msk(14, 19, 59, 30)))
    clock.schedule(msk(14, 20, 10), lambda: setattr(board, "disabled", False))
    ctx = open_game(folder, clock=clock)
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    report = Daemon(ctx, ops=LiveOps()).run(until=msk(14, 20, 30))
    assert report.resolved == [1]
    resolved_at = ctx.store.events("resolved")[0][0]
    assert resolved_at == msk(14, 20, 10)            # the first minute the board answered
    result = json.loads((folder / "out" / "day-1" / "result.json").read_text("utf-8"))
    assert result["lynched"] == {"player": "Коля", "role": "civilian", "by": "votes"}
    failed = [e for e in report.errors if "final re-scan" in e]
    assert len(failed) == 9                          # 20:01 ... 20:09, once a minute
    assert "unavailable" in failed[0] or "disabled" in failed[0]
    assert "NOT resolved on a partial topic" in caplog.text
    ctx.close()


def test_status_and_day_commands_on_a_live_game(world, capsys, monkeypatch):
    clock, board, t, folder = world
    ctx = open_game(folder, clock=clock)
    Daemon(ctx, ops=LiveOps()).run(until=msk(14, 18, 30))   # one poll: 6 votes stored
    ctx.close()

    import scraper_mod.game.context as context
    real_open = context.open_game
    monkeypatch.setattr("scraper_mod.cli.status.open_game",
                        lambda arg, **kw: real_open(arg, clock=clock, **kw))
    assert main(["status", str(folder)]) == 0
    out = capsys.readouterr().out
    # a Russian game's status is Russian (issue 39 item 4)
    assert "день 1: срок — до четверга, 14 марта, 20:00 МСК, осталось 1 ч 30 мин" in out
    assert "лидеры (поровну): Коля (3), Петя (3); учтено голосов: 6" in out
    assert "демон: не запущен" in out
    assert "последнее чтение форума: четверг, 14 марта, 18:25 МСК (5 мин назад)" in out
    assert main(["status", str(folder), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["day"] == 1 and data["seconds_left"] == 5400
    assert {x["target"] for x in data["leaders"]} == {"Петя", "Коля"}

    # day move: the days after follow on from the moved deadline, weekend included (R1.3,
    # R1.4): day 1 ends at 19:00 instead, day 2 still starts at 21:00
    assert main(["day", "move", str(folder), "1", "2024-03-14T19:00", "--force"]) == 0
    out = capsys.readouterr().out
    assert "day 1: deadline Thu 2024-03-14 20:00:00 MSK -> Thu 2024-03-14 19:00:00 MSK" in out
    assert ("day 2 now runs from Thu 2024-03-14 21:00:00 MSK to Fri 2024-03-15 20:00:00 MSK"
            in out)
    ctx = open_game(folder)
    assert ctx.calendar().deadline(1) == msk(14, 19)
    assert ctx.calendar().deadline(3) == msk(17, 20)
    assert ctx.store.events("deadline_moved")[0][2]["to"] == msk(14, 19).isoformat()
    ctx.close()
    assert main(["day", "move", str(folder), "1", "2024-03-12T20:00"]) == 1
    assert "не после начала дня" in capsys.readouterr().err    # issue 39: Russian only
    assert main(["day", "move", str(folder), "1", "default", "--force"]) == 0
    capsys.readouterr()

    # day open: a bad URL is one clear line; a good one is stored for the daemon
    assert main(["day", "open", str(folder), "2", "http://127.0.0.1/forum/"]) == 1
    assert "это не адрес темы phpBB" in capsys.readouterr().err    # issue 39: Russian only
    url = f"{board.url}viewtopic.php?t=99"
    assert main(["day", "open", str(folder), "2", f"{board.url}viewtopic.php?f=3&t=99"
                 "&start=25&sid=0123456789abcdef"]) == 0
    assert capsys.readouterr().out.strip() == f"day 2: topic {url}"
    ctx = open_game(folder)
    assert ctx.topic_for_day(2) == url
    ctx.close()
    assert main(["day", "list", str(folder)]) == 0
    listing = capsys.readouterr().out
    assert len(listing.splitlines()) == 2
    assert listing.startswith("day 1: due ") and "day 2: due " in listing and url in listing


def test_the_next_day_is_found_in_the_forum_by_its_title(world):
    """open_next_day: the newest topic of [forum] forum whose title matches title_pattern for
    that day («День 2», not «День 12»), never a topic already used by another day; since
    issue 40 (R12.5) only one the host's account opened at or after the day's start."""
    clock, board, t, folder = world
    from scraper_mod.daemon.work import open_next_day
    text = (folder / "game.toml").read_text(encoding="utf-8")
    text = text.replace("retries = 1\n", f'retries = 1\nforum = "{board.url}viewforum.php?f=3"\n')
    (folder / "game.toml").write_text(text, encoding="utf-8")
    ctx = open_game(folder, clock=clock)
    try:
        assert open_next_day(ctx, 2) is None                    # nothing posted yet
        t12 = board.add_topic("Живая проверка — День 12")
        board.add_post("Ведущий", 50, "x", clock.now(), topic=t12)
        assert open_next_day(ctx, 2) is None
        # R12.5 (issue 40 item 4): a player's topic, or the host's before the day's start
        # (Wed 14 21:00), is not the day's
        mine = board.add_topic("Живая проверка — День 2")
        board.add_post("Вася", 301, "День 2 — кто мафия?", msk(14, 21, 1), topic=mine)
        early = board.add_topic("Живая проверка — День 2 (черновик)")
        board.add_post("Ведущий", 50, "x", clock.now(), topic=early)
        assert open_next_day(ctx, 2) is None
        t2 = board.add_topic("Живая проверка — день 2: голосование")
        board.add_post("Ведущий", 50, "День 2.", msk(14, 21, 0), topic=t2)
        # the host's other game on the same forum, opened later: its title is not this game's
        other = board.add_topic("Живая проверка 2 — День 2")
        board.add_post("Ведущий", 50, "День 2 другой игры.", msk(14, 21, 2), topic=other)
        assert open_next_day(ctx, 2) == f"{board.url}viewtopic.php?t={t2}"
        assert ctx.topic_for_day(2) == f"{board.url}viewtopic.php?t={t2}"
        assert ctx.store.events("day_opened")[-1][2]["how"] == "forum"
        # day 1's own topic is never taken for another day, even if its title matches
        board.topics[t].title = "Живая проверка — День 3 (бывший день 1)"
        assert open_next_day(ctx, 3) is None
    finally:
        ctx.close()


def test_restart_after_missed_deadlines_catches_up_in_order_with_the_real_resolver(world,
                                                                                    caplog):
    """Stopped on Thursday noon, started again on Saturday: days 1 and 2 are resolved at
    once, in order, day 2 from the state day 1 left (the jailed Вася's vote no longer
    counts, R2.8), and the daemon stops at the victory."""
    clock, board, t, folder = world
    t2 = board.add_topic("Живая проверка — День 2")
    board.add_post("Ведущий", 50, "День 2.", msk(14, 21), topic=t2)
    vote(board, t2, "Вася", "Машу", msk(15, 9))           # dead by then: not a vote
    vote(board, t2, "Игорь", "Маша", msk(15, 10))
    vote(board, t2, "Маша", "Игоря", msk(15, 11))
    vote(board, t2, "Ирина", "Игорь", msk(15, 12))
    ctx = open_game(folder, clock=clock)
    ctx.set_topic_for_day(2, board.topic_url(t2))
    first = Daemon(ctx, ops=LiveOps()).run(until=msk(14, 19))
    assert first.resolved == []
    ctx.close()

    clock.set(msk(16, 10))                                  # Saturday morning
    ctx = open_game(folder, clock=clock)
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    report = Daemon(ctx, ops=LiveOps()).run(until=msk(20, 0))
    assert report.caught_up == [1, 2] and report.resolved == [1, 2]
    assert report.stopped_by == "game over" and report.winner == "town"
    assert "catching up: the deadlines of days 1, 2 passed" in caplog.text
    r1 = json.loads((folder / "out" / "day-1" / "result.json").read_text("utf-8"))
    r2 = json.loads((folder / "out" / "day-2" / "result.json").read_text("utf-8"))
    # day 1: 3:3, the random list from the top: Вася, alive (R3.2)
    assert r1["lynched"] == {"player": "Вася", "role": "boss", "by": "random"}
    assert r2["lynched"] == {"player": "Игорь", "role": "mafia", "by": "votes"}
    assert r2["winner"] == "town"
    times = [at for at, _, data in ctx.store.events("resolved")]
    assert times == [msk(16, 10), msk(16, 10)]
    ctx.close()
