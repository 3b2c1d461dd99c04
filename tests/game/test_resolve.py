"""`resolve`: a whole day from the board and the mailbox to out/day-N/ (issue 6, R6, R9).

A real LocalBoard on 127.0.0.1 serves the day topics (the final full re-scan reads them), a
Maildir holds the night moves, the clock is simulated. Checked: the posts and the stored
state, refusing before the deadline, byte-identical re-runs, a crash at every step of the
write, and a correction of day 1 carried through to day 2.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.cli import main
from scraper_mod.clock import FakeClock
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.errors import RulesError, StorageError
from scraper_mod.game.context import open_game
from scraper_mod.game.day.poll import poll_day
from scraper_mod.game.publishing import outdir
from scraper_mod.game.publishing.outdir import recover_out_dir, write_day_files
from scraper_mod.game.results import resolve as resolving
from scraper_mod.game.results.resolve import resolve_day_files

MSK = ZoneInfo("Europe/Moscow")
PLAYERS = [("Вася", "boss", 201, "vasya@example.org"), ("Игорь", "mafia", 202, "igor@example.org"),
           ("Маша", "commissar", 203, "masha@example.org"),
           ("Ирина", "doctor", 204, "irina@example.org"),
           ("Петя", "sergeant", 205, "petya@example.org"),
           ("Коля", "civilian", 206, "kolya@example.org"),
           ("Таня", "vsb", 207, "tanya@example.org")]
ORDER = ["Таня", "Петя", "Игорь", "Коля", "Вася", "Ирина", "Маша"]


def msk(day: int, hh: int, mm: int = 0, ss: int = 0) -> datetime:
    """April 2024, Moscow time: day 1 runs from Mon 8 21:00 to Tue 9 20:00."""
    return datetime(2024, 4, day, hh, mm, ss, tzinfo=MSK)


@pytest.fixture
def clock():
    return FakeClock(msk(8, 21, 0))


@pytest.fixture
def board(clock):
    with LocalBoard(language="ru", clock=clock) as b:
        for nick, _, uid, _ in PLAYERS:
            b.add_user(nick, uid)
        yield b


def write_game(folder: Path, board: LocalBoard, topics: dict[int, int], *, players=PLAYERS,
               order=ORDER, duty="Игорь") -> Path:
    players = "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\nforum_id = {u}\n'
                      f'contact = "{c}"\n\n' for n, r, u, c in players)
    days = "".join(f'[[days]]\nnumber = {d}\ntopic = "{board.topic_url(t)}"\n\n'
                   for d, t in topics.items())
    order = ", ".join(f'"{n}"' for n in order)
    (folder / "moves" / "new").mkdir(parents=True, exist_ok=True)
    (folder / "moves" / "cur").mkdir(exist_ok=True)
    (folder / "moves" / "tmp").mkdir(exist_ok=True)
    (folder / "game.toml").write_text(f"""[game]
title = "Мафия #7"
start = 2024-04-08
host = "Ведущий"
random_list = [{order}]

[mafia]
duty = "{duty}"

[forum]
url = "{board.url}"
min_delay = 0
retries = 1
timeout = 5

[moves]
source = "maildir"
path = "moves"

{players}{days}""", encoding="utf-8")
    return folder


def mail(folder: Path, name: str, sender: str, body: str, at: datetime) -> None:
    """Deliver a night move into the Maildir, received at ``at`` (the file's mtime)."""
    path = folder / "moves" / "new" / name
    path.write_text(f"From: {sender}\nTo: host@example.org\nSubject: ход\n"
                    f"Message-ID: <{name}@example.org>\n"
                    f"Content-Type: text/plain; charset=utf-8\n\n{body}\n", encoding="utf-8")
    ts = at.timestamp()
    os.utime(path, (ts, ts))


@pytest.fixture
def game(tmp_path, board, clock):
    """Day 1: Коля is jailed by 4 votes to 3; at night the mafia kills Маша (the Commissar),
    who checked Игорь; Петя (the Sergeant) is promoted. Day 2's topic is open too."""
    t1 = board.add_topic("День 1")
    board.add_post("Ведущий", 2, "[b]День 1.[/b] Голосуем цветом.", msk(8, 21, 0))
    votes1 = [("Вася", "Коля", msk(9, 10, 0)), ("Маша", "Игорь", msk(9, 11, 0)),
              ("Игорь", "Коля", msk(9, 12, 0)), ("Петя", "Игорь", msk(9, 13, 0)),
              ("Ирина", "Коля", msk(9, 14, 0)), ("Коля", "Игорь", msk(9, 15, 0)),
              ("Таня", "Коля", msk(9, 19, 59, 59))]
    ids = {}
    for voter, target, at in votes1:
        uid = next(u for n, _, u, _ in PLAYERS if n == voter)
        ids[voter] = board.add_post(voter, uid, f"Голосую: [color=red]{target}[/color]", at)
    # too late: 20:00:00 does not count (R2.6)
    board.add_post("Петя", 205, "[color=red]Коля[/color]", msk(9, 20, 0, 0))
    t2 = board.add_topic("День 2")
    board.add_post("Ведущий", 2, "[b]День 2.[/b]", msk(9, 21, 0))
    folder = write_game(tmp_path / "m7", board, {1: t1, 2: t2})
    mail(folder, "m1", "igor@example.org",
         "убить Маша\nистория: Машу нашли в [b]библиотеке[/b] с подсвечником.", msk(9, 9, 0))
    mail(folder, "m2", "masha@example.org", "проверить Игорь", msk(9, 9, 30))
    mail(folder, "m3", "stranger@example.org", "убить Вася", msk(9, 9, 40))
    return folder, ids


def ctx_at(folder: Path, clock: FakeClock, t: datetime):
    clock.set(t)
    return open_game(folder, clock=clock)


def read_tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file()}


def test_resolve_day_1_writes_every_post(game, clock):
    folder, ids = game
    ctx = ctx_at(folder, clock, msk(9, 20, 5))
    out = resolve_day_files(ctx, 1)
    r = out.result
    assert r.lynched.player == "Коля" and r.lynched.by == "votes"
    assert [(d.player, d.by) for d in r.killed] == [("Маша", "mafia")]
    assert r.promoted == "Петя" and r.winner is None
    assert [(c.by, c.target, c.result) for c in r.checks] == [("Маша", "Игорь", "mafia")]
    day = folder / "out" / "day-1"
    files = read_tree(day)
    assert sorted(files) == ["day-2-start.bbcode", "day-start.bbcode", "host-report.txt",
                             "newspaper.bbcode",
                             "pm/Вася.txt", "pm/Игорь.txt", "pm/Маша.txt", "pm/Петя.txt",
                             "result.json"]
    paper = files["newspaper.bbcode"].decode()
    assert "садится [b]Коля[/b] (4 голоса из 7). Роль: [b]мирный житель[/b]" in paper
    # voters in time order, each linked to his post (R9.1)
    line = next(ln for ln in paper.splitlines() if ln.startswith("[*][b]Коля — 4:"))
    assert line.index("Вася") < line.index("Игорь") < line.index("Ирина") < line.index("Таня")
    assert f"[url={ctx.game.forum.url}viewtopic.php?p={ids['Таня']}#p{ids['Таня']}]Таня[/url]" \
           " (19:59)" in line
    # the story is the mafia's own words, inert
    assert "[quote]Машу нашли в [\u200bb]библиотеке[\u200b/b] с подсвечником.[/quote]" in paper
    assert "Жертва мафии: [b]Маша[/b] ([i]Комиссар[/i])" in paper
    assert "Петя" not in paper.split("[b]Ночь[/b]")[1].split("[b]Живы")[0]  # promotion secret
    assert "до [b]среды, 10 апреля, 20:00 МСК[/b]" in paper
    assert files["pm/Петя.txt"].decode().count("Игорь — мафиози.") == 1
    assert "Теперь Комиссар — вы" in files["pm/Петя.txt"].decode()
    report = files["host-report.txt"].decode()
    assert "stranger@example.org" in report and "неизвестный отправитель" in report
    assert "Петя: «Коля» — пост после срока" in report
    assert "Петя <petya@example.org>: проверка/повышение" in report
    assert json.loads(files["result.json"]) == r.to_json()
    assert list(json.loads(files["result.json"])) == ["day", "lynched", "killed", "saved",
                                                      "frozen", "checks", "promoted", "alive",
                                                      "winner", "host_kills", "replacements"]
    stored = ctx.store.resolution(1)
    assert stored["state"]["commissar"] == "Петя" and "Маша" not in stored["state"]["alive"]
    assert stored["alive"] == list(r.alive)


def test_refuses_before_the_deadline_unless_forced(game, clock):
    folder, _ = game
    ctx = ctx_at(folder, clock, msk(9, 19, 59, 59))
    with pytest.raises(RulesError, match="deadline has not passed yet"):
        resolve_day_files(ctx, 1)
    assert not (folder / "out" / "day-1").exists() and ctx.store.resolution(1) is None
    out = resolve_day_files(ctx, 1, force=True)
    assert (folder / "out" / "day-1" / "newspaper.bbcode").is_file()
    assert out.result.lynched.player == "Коля"


def test_a_later_day_needs_the_earlier_one(game, clock):
    folder, _ = game
    ctx = ctx_at(folder, clock, msk(10, 20, 5))
    with pytest.raises(RulesError, match="day 1 is not resolved yet"):
        resolve_day_files(ctx, 2, offline=True)


def test_second_run_is_byte_identical(game, clock):
    folder, _ = game
    ctx = ctx_at(folder, clock, msk(9, 20, 5))
    resolve_day_files(ctx, 1, preview=True)
    first = read_tree(folder / "out" / "day-1")
    assert "preview/newspaper.html" in first
    clock.set(msk(9, 20, 40))  # later, and online again: the same data, the same bytes
    resolve_day_files(ctx, 1)
    assert read_tree(folder / "out" / "day-1") == first
    resolve_day_files(open_game(folder, clock=clock), 1, offline=True)
    assert read_tree(folder / "out" / "day-1") == first


def test_correction_of_day_1_rewrites_day_2(game, clock, board):
    """A heal that reached the mailbox before the deadline but was missed: resolving day 1
    again saves Маша, and day 2, already resolved, is recomputed from the new state."""
    folder, _ = game
    ctx = ctx_at(folder, clock, msk(9, 20, 5))
    resolve_day_files(ctx, 1)
    # day 2: the town jails Игорь; the Boss kills Ирина
    for voter, at in (("Петя", msk(10, 10, 0)), ("Ирина", msk(10, 11, 0)),
                      ("Таня", msk(10, 12, 0))):
        uid = next(u for n, _, u, _ in PLAYERS if n == voter)
        board.add_post(voter, uid, "[color=blue]Игорь[/color]", at, topic=2)
    board.add_post("Маша", 203, "[color=blue]Вася[/color] — последнее слово", msk(10, 8, 0),
                   topic=2)
    mail(folder, "m4", "vasya@example.org", "убить Ирина", msk(10, 9, 0))
    clock.set(msk(10, 20, 5))
    day2 = resolve_day_files(ctx, 2)
    assert day2.result.lynched.player == "Игорь"
    assert "Маша" not in day2.result.alive
    before = json.loads((folder / "out" / "day-2" / "result.json").read_text())
    assert "Маша" not in before["alive"]

    # the missed heal: received on day 1 at 15:00, found now
    mail(folder, "m5", "irina@example.org", "лечить Маша", msk(9, 15, 0))
    clock.set(msk(10, 20, 30))
    out = resolve_day_files(ctx, 1)
    assert out.result.saved and out.result.killed == () and out.result.promoted is None
    assert out.rewritten == (2,)
    after = json.loads((folder / "out" / "day-2" / "result.json").read_text())
    assert "Маша" in after["alive"]                       # she lives on into day 2
    assert after["lynched"]["player"] == "Игорь"
    assert ctx.store.resolution(2)["state"]["commissar"] == "Маша"
    game_order = [n for n, *_ in PLAYERS]
    assert after["alive"] == [n for n in game_order if n in after["alive"]]
    paper2 = (folder / "out" / "day-2" / "newspaper.bbcode").read_text()
    assert "Маша" in paper2.split("[b]Живы")[1]
    # and a second run over the corrected data changes nothing
    snapshot = {d: read_tree(folder / "out" / f"day-{d}") for d in (1, 2)}
    resolve_day_files(ctx, 1, offline=True)
    assert {d: read_tree(folder / "out" / f"day-{d}") for d in (1, 2)} == snapshot


def test_the_final_rescan_picks_up_a_post_made_before_the_deadline(game, clock, board):
    """The final full re-scan (not --offline) reads what the board shows at resolve time."""
    folder, _ = game
    ctx = ctx_at(folder, clock, msk(9, 20, 1))
    # offline, a topic never read is refused (issue 18 item 6), naming the topic ...
    with pytest.raises(RulesError) as e:
        resolve_day_files(ctx, 1, offline=True)
    assert f"day 1's topic {ctx.topic_for_day(1)} was never read" in str(e.value)
    assert ctx.store.resolution(1) is None and not (folder / "out").exists()
    # ... unless forced: no stored posts, nobody voted, the random list decides
    resolve_day_files(ctx, 1, offline=True, force=True)
    assert not ctx.store.post_versions()                    # nothing was ever polled
    assert ctx.store.resolution(1)["lynched"]["by"] == "random"
    resolve_day_files(ctx, 1)
    assert ctx.store.resolution(1)["lynched"] == {"player": "Коля", "role": "civilian",
                                                  "by": "votes"}


# -- atomic writing ---------------------------------------------------------------------------

OLD = {"newspaper.bbcode": "old paper\n", "pm/Вася.txt": "old pm\n", "result.json": "{}\n",
       "pm/Гоша.txt": "only in old\n"}
NEW = {"newspaper.bbcode": "new paper\n", "pm/Вася.txt": "new pm\n",
       "result.json": '{"day": 1}\n', "host-report.txt": "only in new\n"}
STEPS = ["file:newspaper.bbcode", "file:pm/Вася.txt", "file:result.json", "built",
         "exchanged", "old-moved", "swapped"]


def tree(day_dir: Path) -> dict[str, str]:
    return {k: v.decode() for k, v in read_tree(day_dir).items()}


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two-renames"])
@pytest.mark.parametrize("step", STEPS)
def test_a_crash_at_any_step_leaves_the_old_files_or_the_new(tmp_path, monkeypatch, step,
                                                              exchange):
    out = tmp_path / "out"
    write_day_files(out, 1, OLD)
    assert tree(out / "day-1") == OLD
    if not exchange:
        monkeypatch.setattr(outdir, "_exchange", lambda a, b: False)

    class Crash(BaseException):
        pass

    def crash(at):
        if at == step:
            raise Crash(at)

    monkeypatch.setattr(outdir, "_crash_point", crash)
    crashed = False
    try:
        write_day_files(out, 1, NEW)
    except Crash:
        crashed = True
    monkeypatch.setattr(outdir, "_crash_point", lambda at: None)
    seen = tree(out / "day-1") if (out / "day-1").exists() else None
    # a reader right after the crash sees the old folder or the new one, whole; the only
    # window without one is between the two renames of the fallback, which recovery closes
    assert seen in (OLD, NEW) or (step == "old-moved" and seen is None and crashed)
    recover_out_dir(out)
    assert tree(out / "day-1") in (OLD, NEW)
    assert [p.name for p in out.iterdir()] == ["day-1"]     # no leftovers
    write_day_files(out, 1, NEW)
    assert tree(out / "day-1") == NEW


def test_a_crashed_resolution_is_finished_by_the_next_run(game, clock, monkeypatch):
    folder, _ = game
    ctx = ctx_at(folder, clock, msk(9, 20, 5))
    resolve_day_files(ctx, 1, offline=True, force=True)   # nothing polled: the random list
    old = read_tree(folder / "out" / "day-1")

    class Crash(BaseException):
        pass

    def crash(at):
        if at == "built":
            raise Crash(at)

    monkeypatch.setattr(outdir, "_crash_point", crash)
    with pytest.raises(Crash):
        resolve_day_files(ctx, 1)                       # with the posts now: by votes
    assert read_tree(folder / "out" / "day-1") == old    # untouched
    monkeypatch.setattr(outdir, "_crash_point", lambda at: None)
    resolve_day_files(ctx, 1)
    new = read_tree(folder / "out" / "day-1")
    assert new != old and b"(4 \xd0\xb3\xd0\xbe\xd0\xbb" in new["newspaper.bbcode"]
    assert sorted(p.name for p in (folder / "out").iterdir()) == ["day-1"]


def test_writing_outside_the_day_folder_is_refused(tmp_path):
    with pytest.raises(StorageError, match="outside the day folder"):
        write_day_files(tmp_path / "out", 1, {"../evil.txt": "x"})


# -- the command ------------------------------------------------------------------------------

def test_cli_resolve_json_and_text(game, clock, capsys):
    folder, _ = game
    ctx = ctx_at(folder, clock, msk(9, 20, 5))
    resolve_day_files(ctx, 1)                    # poll the board once, as the daemon would
    poll_day(ctx, 2)                             # and day 2's topic: only the host's post
    ctx.close()
    assert main(["resolve", str(folder), "--day", "1", "--offline", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["lynched"] == {"player": "Коля", "role": "civilian", "by": "votes"}
    assert data["promoted"] == "Петя"
    assert main(["resolve", str(folder), "--offline", "--preview"]) == 0
    text = capsys.readouterr().out
    # the default day: the first due day not resolved yet (day 2: nobody voted -> random)
    assert text.startswith("day 2 resolved")
    assert "jailed:" in text and "preview:" in text
    assert (folder / "out" / "day-2" / "preview" / "newspaper.html").is_file()


def test_cli_errors_are_one_line(game, capsys):
    folder, _ = game
    assert main(["resolve", str(folder), "--day", "3", "--offline"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: day 1 is not resolved yet") and "\n" == err[-1]
    assert err.count("\n") == 1


def test_a_game_can_carry_its_own_wording(game, clock):
    """A host's copy of a template in GAME/templates/ is used instead of the built-in one."""
    from scraper_mod.errors import ConfigError
    folder, _ = game
    own = folder / "templates"
    own.mkdir()
    (own / "newspaper.ru.bbcode.j2").write_text(
        "[b]Вечерние новости, день {{ day }}[/b]\nВ тюрьме: {{ lynched.player|bb }}\n",
        encoding="utf-8")
    ctx = ctx_at(folder, clock, msk(9, 20, 5))
    resolve_day_files(ctx, 1)
    day = folder / "out" / "day-1"
    assert (day / "newspaper.bbcode").read_text() == \
        "[b]Вечерние новости, день 1[/b]\nВ тюрьме: Коля\n"
    assert "[b]Живы" in (day / "day-start.bbcode").read_text()      # the others as built in
    (own / "newspaper.ru.bbcode.j2").write_text("{% if %}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="newspaper.ru.bbcode.j2"):
        resolve_day_files(ctx, 1, offline=True)
    assert (day / "newspaper.bbcode").read_text().startswith("[b]Вечерние новости")


def test_the_default_day(game, clock):
    """CONTRACT: --day defaults to the day whose deadline has passed (the first one not yet
    resolved, so a missed evening is caught up in order); --force alone means today."""
    from scraper_mod.cli.resolve import choose_day
    folder, _ = game
    ctx = ctx_at(folder, clock, msk(9, 12, 0))
    with pytest.raises(RulesError, match="no day's deadline has passed yet"):
        choose_day(ctx)
    assert choose_day(ctx, force=True) == 1
    clock.set(msk(10, 20, 30))                      # days 1 and 2 are due, none resolved
    assert choose_day(ctx) == 1
    poll_day(ctx, 1)
    poll_day(ctx, 2)
    resolve_day_files(ctx, 1, offline=True)
    assert choose_day(ctx) == 2
    resolve_day_files(ctx, 2, offline=True)
    assert choose_day(ctx) == 2                     # all done: the last one, again
    clock.set(msk(11, 10, 0))
    assert choose_day(ctx, force=True) == 3


def test_no_day_after_the_end(game, clock, monkeypatch):
    folder, _ = game
    ctx = ctx_at(folder, clock, msk(10, 20, 30))
    poll_day(ctx, 1)
    resolve_day_files(ctx, 1, offline=True)
    data = ctx.store.resolution(1)
    ctx.store.save_resolution(1, {**data, "winner": "town"}, resolved_at=clock.now())
    monkeypatch.setattr(resolving, "final_scan", lambda *a: pytest.fail("no re-scan"))
    with pytest.raises(RulesError, match="the game ended on day 1"):
        resolve_day_files(ctx, 2)


def test_a_correction_that_ends_the_game_withdraws_the_later_days(tmp_path, board, clock):
    """Days 1 and 2 were resolved from the store alone (nothing polled: the random list
    jailed two civilians). The final re-scan of day 1 finds the votes that jail the Boss, the
    only mafioso: the town won on day 1, so day 2 is withdrawn from the store and from out/."""
    players = [("Вася", "boss", 201, "vasya@example.org"),
               ("Коля", "civilian", 206, "kolya@example.org"),
               ("Маша", "doctor", 203, "masha@example.org"),
               ("Петя", "civilian", 205, "petya@example.org"),
               ("Таня", "commissar", 207, "tanya@example.org")]
    t1 = board.add_topic("День 1")
    for voter, uid, at in (("Коля", 206, msk(9, 10)), ("Маша", 203, msk(9, 11)),
                           ("Петя", 205, msk(9, 12))):
        board.add_post(voter, uid, "[color=red]Вася[/color]", at)
    t2 = board.add_topic("День 2")
    folder = write_game(tmp_path / "g", board, {1: t1, 2: t2}, players=players,
                        order=["Коля", "Петя", "Вася", "Маша", "Таня"], duty="Вася")
    ctx = ctx_at(folder, clock, msk(10, 20, 30))
    # resolved on purpose without reading the topics (--force): the random list
    assert resolve_day_files(ctx, 1, offline=True, force=True).result.lynched.player == "Коля"
    assert resolve_day_files(ctx, 2, offline=True, force=True).result.lynched.player == "Петя"
    assert (folder / "out" / "day-2").is_dir()
    out = resolve_day_files(ctx, 1)
    assert out.result.lynched.player == "Вася" and out.result.winner == "town"
    assert out.withdrawn == (2,) and out.rewritten == ()
    assert ctx.store.resolution(2) is None
    assert sorted(p.name for p in (folder / "out").iterdir()) == ["day-1"]
    assert "победил город" in (folder / "out" / "day-1" / "newspaper.bbcode").read_text()


def test_a_killed_process_mid_swap_is_recovered(tmp_path):
    """A real process dies (os._exit, no clean-up of any kind) between the two renames of
    the fallback swap; the next write (or recover_out_dir) finishes it: the new folder."""
    import subprocess
    import sys
    out = tmp_path / "out"
    write_day_files(out, 1, OLD)
    script = f"""
import os, sys
from pathlib import Path
from scraper_mod.game.publishing import outdir
outdir._exchange = lambda a, b: False
def die(step):
    if step == "old-moved":
        os._exit(9)
outdir._crash_point = die
outdir.write_day_files(Path({str(out)!r}), 1, {NEW!r})
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert proc.returncode == 9, proc.stderr
    assert not (out / "day-1").exists() and (out / ".day-1.old").is_dir()
    assert recover_out_dir(out) == ["finished writing day-1"]
    assert tree(out / "day-1") == NEW
    assert [p.name for p in out.iterdir()] == ["day-1"]


def test_the_day_start_file_says_which_day_it_opens(tmp_path):
    """Issue 27 item 4: out/day-1/ holds day 2's start as day-2-start.bbcode; the contract's
    day-start.bbcode stays for a deprecation period with the same text, and what reads the
    folder (publish, the page) finds either."""
    from scraper_mod.posts.dayfolder import day_start_file
    folder = tmp_path / "day-1"
    folder.mkdir()
    assert day_start_file(folder, 1) == folder / "day-2-start.bbcode"
    (folder / "day-start.bbcode").write_text("[b]День 2[/b]", encoding="utf-8")
    assert day_start_file(folder, 1) == folder / "day-start.bbcode"   # an older out/ folder
    (folder / "day-2-start.bbcode").write_text("[b]День 2[/b]", encoding="utf-8")
    assert day_start_file(folder, 1) == folder / "day-2-start.bbcode"
