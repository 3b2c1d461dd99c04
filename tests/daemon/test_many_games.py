"""`run FOLDER` on the fake clock (daemon/many.py, daemon/boards.py): several games on
LocalBoards, every real part (client, poller, parser, count, resolver) but the clock.

- three games on two boards through a simulated week (weekends merged, R1.3; one game's
  deadline moved, R1.4): every day resolved at its own deadline + grace, each board's
  deadline snapshots before its re-scans, the re-scans in deadline order;
- broken games beside good ones (bad game.toml, a state file of another game, a board that is
  down, a bug in one game's day): named, shown by `status FOLDER`, retried, the others go on;
- a game folder added while running is picked up within a minute, at once on rescan (SIGHUP);
- two games on one board (real threads, real clock) never have requests in flight together,
  and the board's pace holds across them (measured where the board answers).
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.cli import main
from scraper_mod.daemon.boards import BoardRegistry, board_key
from scraper_mod.daemon.lock import running_pid
from scraper_mod.daemon.many import Host, find_games
from scraper_mod.daemon.overview import folder_status
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.demo.world import ScriptedClock
from scraper_mod.game.context import open_game
from scraper_mod.game.setup.config import load_game

MSK = ZoneInfo("Europe/Moscow")
# ten players, the civilians first on the random list: no vote -> a civilian jailed a day
PLAYERS = [("Вася", "boss"), ("Игорь", "mafia"), ("Маша", "commissar"), ("Ирина", "doctor"),
           ("Петя", "civilian"), ("Коля", "civilian"), ("Таня", "civilian"),
           ("Оля", "civilian"), ("Дима", "civilian"), ("Лена", "civilian")]
ORDER = ["Петя", "Коля", "Таня", "Оля", "Дима", "Лена", "Маша", "Ирина", "Вася", "Игорь"]


def msk(day: int, hh: int, mm: int = 0, ss: int = 0) -> datetime:
    return datetime(2024, 3, day, hh, mm, ss, tzinfo=MSK)


def make_game(folder: Path, board: LocalBoard, title: str, *, days: int = 6,
              moved: dict[int, datetime] | None = None, votes: bool = True) -> Path:
    """A game starting Monday 2024-03-11 on ``board``, a topic per day in [[days]]; in each
    day's topic Вася votes for the first alive civilian of the random list, so the votes
    decide; ``moved``: day -> moved deadline."""
    uid = {n: 400 + i for i, (n, _) in enumerate(PLAYERS)}
    players = "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\nforum_id = {uid[n]}\n\n'
                      for n, r in PLAYERS)
    specs = []
    for d in range(1, days + 1):
        tid = board.add_topic(f"{title} — День {d}")
        board.add_post("Ведущий", 50, f"День {d}.", msk(10, 12), topic=tid)
        if votes:
            # posted long before: a vote counts from its post time, whichever day it is
            board.add_post("Вася", uid["Вася"], f"[color=red]{ORDER[d - 1]}[/color]",
                           msk(10, 13), topic=tid)
        extra = (f"deadline = {moved[d].isoformat()}\n" if moved and d in moved else "")
        specs.append(f'[[days]]\nnumber = {d}\ntopic = "{board.topic_url(tid)}"\n{extra}')
    folder.mkdir(parents=True, exist_ok=True)
    order = ", ".join(f'"{n}"' for n in ORDER)
    (folder / "game.toml").write_text(f"""[game]
title = "{title}"
start = 2024-03-11
host = "Ведущий"
random_list = [{order}]

[mafia]
duty = "Игорь"

[forum]
url = "{board.url}"
min_delay = 0

[schedule]
poll_minutes = 120
final_poll_minutes = 10
final_window_minutes = 20
grace_seconds = 60

{players}{''.join(specs)}""", encoding="utf-8")
    return folder


@pytest.fixture
def boards():
    clock = ScriptedClock(msk(11, 18))
    made = [LocalBoard(language="ru", clock=clock, per_page=10).start() for _ in range(2)]
    yield clock, made
    for b in made:
        b.stop()


def resolved_at(folder: Path) -> dict[int, datetime]:
    ctx = open_game(folder)
    try:
        return {e[2]["day"]: e[0] for e in ctx.store.events("resolved")}
    finally:
        ctx.close()


def test_three_games_on_two_boards_through_a_week(boards, tmp_path, caplog):
    clock, (b1, b2) = boards
    root = tmp_path / "games"
    moved = {3: msk(14, 18, 30)}            # day 3 of "beta" ends Thursday 18:30
    make_game(root / "alpha", b1, "Альфа")
    make_game(root / "beta", b1, "Бета", moved=moved)
    make_game(root / "gamma", b2, "Гамма")
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    host = Host(root, clock=clock)
    assert host.threaded is False
    host.run(until=msk(19, 12))             # Monday 18:00 to the next Tuesday 12:00
    assert sorted(host.lanes) == sorted({board_key(b1.url), board_key(b2.url)})

    for name in ("alpha", "beta", "gamma"):
        folder = root / name
        ctx = open_game(folder)
        cal = ctx.calendar()
        ctx.close()
        at = resolved_at(folder)
        # days ending Tue, Wed, Thu, Fri, Sun (Saturday merged in, R1.3) and Mon
        assert sorted(at) == [1, 2, 3, 4, 5, 6], name
        assert cal.deadline(5) == msk(17, 20) and cal.day_start(5) == msk(15, 21)
        for day, when in at.items():
            assert when == cal.deadline(day) + timedelta(seconds=60), (name, day)
        result = json.loads((folder / "out" / "day-3" / "result.json").read_text("utf-8"))
        assert result["lynched"] == {"player": "Таня", "role": "civilian", "by": "votes"}
        assert running_pid(folder) is None          # let go at the end
    assert resolved_at(root / "beta")[3] == msk(14, 18, 31)
    assert resolved_at(root / "alpha")[3] == msk(14, 20, 1)
    assert "[beta]" in caplog.text and "[gamma]" in caplog.text

    # each board: at every deadline, the snapshots of its games before their re-scans, and
    # the re-scans in deadline order
    lane = host.lanes[board_key(b1.url)]
    jobs = [(w, g, j) for w, g, j, *_ in lane.jobs_run if j != "poll"]
    for day_end in (msk(12, 20), msk(13, 20), msk(15, 20), msk(17, 20), msk(18, 20)):
        window = [(g, j) for w, g, j in jobs if day_end <= w < day_end + timedelta(minutes=5)]
        kinds = [j for _, j in window]
        assert kinds == ["deadline snapshot"] * 2 + ["deadline"] * 2, window
    thu = [(w, g, j) for w, g, j in jobs if msk(14, 18) <= w < msk(14, 21)]
    assert [(g, j) for _, g, j in thu] == [("beta", "deadline snapshot"), ("beta", "deadline"),
                                           ("alpha", "deadline snapshot"),
                                           ("alpha", "deadline")]


def test_a_broken_game_beside_good_ones(boards, tmp_path, caplog, monkeypatch, capsys):
    clock, (b1, b2) = boards
    root = tmp_path / "games"
    make_game(root / "good", b1, "Хорошая")
    make_game(root / "down", b2, "Лежит")
    make_game(root / "buggy", b1, "С ошибкой")
    bad = make_game(root / "badtoml", b1, "Плохая")
    good_toml = (bad / "game.toml").read_text("utf-8")
    (bad / "game.toml").write_text(good_toml.replace("[mafia]", "[mafia"), encoding="utf-8")
    # a state file copied from another game (another title, start and players)
    other = make_game(tmp_path / "other", b1, "Другая", days=1)
    t = (other / "game.toml").read_text("utf-8")
    (other / "game.toml").write_text(t.replace("start = 2024-03-11", "start = 2024-03-04")
                                     .replace('"Лена"', '"Лёля"'), encoding="utf-8")
    open_game(other).close()
    make_game(root / "stolen", b1, "Краденая", days=1)
    shutil.copy(other / "state.sqlite3", root / "stolen" / "state.sqlite3")
    # the board of "down" is down from Tuesday 19:00 to Wednesday 12:00
    clock.schedule(msk(12, 19), lambda: setattr(b2, "disabled", True))
    clock.schedule(msk(13, 12), lambda: setattr(b2, "disabled", False))
    # a bug in one game's day: its resolution raises (not a ScraperModError) twice
    import scraper_mod.daemon.work as schedule
    real = schedule.resolve_due
    calls = {"n": 0}

    def resolve(ctx, day):
        if ctx.game.folder.name == "buggy" and calls["n"] < 2:
            calls["n"] += 1
            raise ZeroDivisionError("a bug in this day")
        return real(ctx, day)

    monkeypatch.setattr(schedule, "resolve_due", resolve)
    caplog.set_level(logging.INFO, logger="scraper_mod.run")
    host = Host(root, clock=clock)
    host.run(until=msk(12, 20, 30))
    assert sorted(resolved_at(root / "good")) == [1]
    # the bug struck twice (20:01, 20:11); retried every final_poll_minutes, then resolved
    assert resolved_at(root / "buggy") == {1: msk(12, 20, 21)}
    assert resolved_at(root / "down") == {}
    assert "badtoml" in host.problems and "stolen" in host.problems
    assert "[badtoml] cannot be started" in caplog.text and "not valid TOML" in caplog.text
    assert "[stolen] cannot be started" in caplog.text and "belongs to" in caplog.text
    assert "[buggy]" in caplog.text and "internal error in the deadline job" in caplog.text
    assert "[down]" in caplog.text and "final re-scan at the deadline failed" in caplog.text

    data = folder_status(root)
    games = {g["name"]: g for g in data["games"]}
    assert games["badtoml"]["ok"] is False and "TOML" in games["badtoml"]["problems"][0]
    assert games["stolen"]["ok"] is False and "belongs to" in games["stolen"]["problems"][0]
    assert games["good"]["resolved"] == [1] and games["good"]["ok"] is True

    # fixed and back: the game file repaired, the board up, the bug gone
    (bad / "game.toml").write_text(good_toml, encoding="utf-8")
    host2 = Host(root, clock=clock)
    host2.run(until=msk(13, 20, 30))
    assert sorted(resolved_at(root / "buggy")) == [1, 2]
    assert sorted(resolved_at(root / "down")) == [1, 2]
    assert msk(13, 12) <= resolved_at(root / "down")[1] <= msk(13, 12, 11)
    assert sorted(resolved_at(root / "badtoml")) == [1, 2]
    assert sorted(resolved_at(root / "good")) == [1, 2]
    assert "stolen" in host2.problems

    assert main(["status", str(root)]) == 0
    out = capsys.readouterr().out
    # Russian games: Russian lines (issue 39 item 4); an error with no Russian line yet
    # keeps its English one (game/russian.py)
    assert "stolen: НЕ ЗАПУЩЕНА" in out and "belongs to" in out
    assert "good (Хорошая): день 3" in out


def test_a_game_added_while_running_is_picked_up(boards, tmp_path):
    clock, (b1, b2) = boards
    root = tmp_path / "games"
    make_game(root / "first", b1, "Первая")
    host = Host(root, clock=clock)
    added = msk(11, 18, 10, 5)
    clock.schedule(added, lambda: make_game(root / "second", b2, "Вторая"))
    opened = {}

    def watch():
        for lane in host.lanes.values():
            if "second" in lane.slots and "second" not in opened:
                opened["second"] = clock.now()
    for minute in range(1, 30):
        clock.schedule(msk(11, 18, 10) + timedelta(seconds=5 * minute), watch)
    host.run(until=msk(11, 18, 20))
    assert 0 < (opened["second"] - added).total_seconds() <= 60
    # (at once on SIGHUP: tests/e2e/test_run_many_real.py, on the real process)
    # removed: its folder goes away, the game is let go (its lock free)
    host4 = Host(root, clock=clock)
    clock.schedule(msk(11, 18, 31), lambda: shutil.rmtree(root / "first"))
    gone = {}
    clock.schedule(msk(11, 18, 33), lambda: gone.setdefault(
        "first", any("first" in lane.slots for lane in host4.lanes.values())))
    host4.run(until=msk(11, 18, 34))
    assert gone["first"] is False
    assert sorted(p.name for p in find_games(root)) == ["second"]


def test_two_games_on_one_board_never_overlap(tmp_path):
    """Real threads and the real clock: two accounts' clients on one board, each in its own
    thread, through one gate. The board itself records when each request was in flight."""
    board = LocalBoard(language="ru").start()
    try:
        tid = board.add_topic("День 1")
        board.add_post("Ведущий", 50, "День 1.")
        spans: list[tuple[float, float]] = []
        lock = threading.Lock()
        real_handle = board.handle

        def handle(*a, **kw):
            start = time.monotonic()
            try:
                return real_handle(*a, **kw)
            finally:
                with lock:
                    spans.append((start, time.monotonic()))

        board.handle = handle
        reg = BoardRegistry(record=True)
        games = []
        for i, user in enumerate(("bot1", "bot2")):
            folder = make_game(tmp_path / f"g{i}", board, f"Игра {i}", days=1, votes=False)
            text = (folder / "game.toml").read_text("utf-8").replace(
                "min_delay = 0", f'min_delay = 0.05\nusername = "{user}"')
            (folder / "game.toml").write_text(text, encoding="utf-8")
            games.append(load_game(folder))
        clients = [reg.client(g) for g in games]
        assert clients[0] is not clients[1] and clients[0].gate is clients[1].gate
        # the same account on the same board: one client, one session (one login)
        assert reg.client(games[0]) is clients[0]

        def hammer(c):
            for _ in range(15):
                c.get_page(board.topic_url(tid))
        threads = [threading.Thread(target=hammer, args=(c,)) for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(spans) == 30
        spans.sort()
        for (s1, e1), (s2, e2) in zip(spans, spans[1:]):
            assert s2 >= e1, "two requests on one board in flight at once"
            assert s2 - e1 >= 0.05 - 0.005    # the pace held across both games
        gate = clients[0].gate
        assert gate.figures.requests == 30 and gate.figures.max_in_flight == 1
    finally:
        board.stop()


def test_a_deadline_moved_from_another_process_is_taken_within_30_s(boards, tmp_path,
                                                                    monkeypatch):
    """``scraper-mod day move`` writes the state file through a connection of its own (another
    process): the lane sees it (SQLite's data_version) at its next 30 s refresh and resolves
    the day at the moved deadline; a game nobody else wrote to is not refreshed in between
    (its own jobs refresh it after each run)."""
    from scraper_mod.daemon import many
    clock, (b1, _) = boards
    root = tmp_path / "games"
    make_game(root / "alpha", b1, "Альфа", days=2)
    refreshed: list[datetime] = []
    real = many.Lane._refresh
    monkeypatch.setattr(many.Lane, "_refresh", lambda self, slot, *a: refreshed.append(
        clock.now()) or real(self, slot, *a))
    moved_at = msk(12, 14, 7)                # day 1 runs Monday 21:00 to Tuesday 20:00

    def move() -> None:
        assert main(["day", "move", str(root / "alpha"), "1", "2024-03-12T15:00", "--force"]) == 0
    clock.schedule(moved_at, move)
    # the lane on a thread and a clock of its own, as in 'run FOLDER' (the board's clock)
    host = Host(root, clock=ScriptedClock(clock.now()), lane_clock=lambda key: clock,
                record=True)
    host.run(until=msk(12, 15, 30))
    jobs = sum(len(lane.jobs_run) for lane in host.lanes.values())
    # 20 hours of 30 s refresh ticks (2,400): only the jobs' own refreshes, and the move's
    assert jobs <= len(refreshed) <= jobs + 3 and len(refreshed) < 60
    seen = [t for t in refreshed if t >= moved_at]
    assert seen and (seen[0] - moved_at).total_seconds() <= 30
    done = resolved_at(root / "alpha")
    assert msk(12, 15, 1) <= done[1] < msk(12, 15, 5)
