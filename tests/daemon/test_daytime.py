"""During the day, on the board (docs/daytime.md): scheduled counts, counts on request,
night-move reminders and the host's alerts, on LocalBoard with the daemon, the real client,
poller, vote count and Maildir intake on a simulated clock. Never twice, also across a
restart; nothing after the deadline; the board's refusal told to the host."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import pytest
from servers.movegame import deliver, mail
from test_schedule_live import MSK, NICKS, msk, vote

from scraper_mod.cli.run import RUNNING_KEY, PublishingOps, _note_start
from scraper_mod.daemon.scheduler import Daemon
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.demo.world import ScriptedClock
from scraper_mod.errors import ConfigError
from scraper_mod.game.context import open_game
from scraper_mod.game.day import daytime
from scraper_mod.game.setup.config import load_game

PASSWORD = "host-pw-1"
HOST_UID = 2      # LocalBoard's admin: the posting account
REFEREE = ("Ведущий", 50)


def write_game(folder: Path, board: LocalBoard | str, topic: int, publish: str) -> Path:
    url = board if isinstance(board, str) else board.url
    topic_url = f"{url}viewtopic.php?t={topic}"
    players = "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\nforum_id = {u}\n'
                      f'contact = "{u}@example.org"\n\n' for n, r, u in NICKS)
    order = ", ".join(f'"{n}"' for n, _, _ in NICKS)
    for sub in ("cur", "new", "tmp"):
        (folder / "moves" / sub).mkdir(parents=True, exist_ok=True)
    (folder / "game.toml").write_text(f"""[game]
title = "Дневная проверка"
start = 2024-03-13
host = "Ведущий"
random_list = [{order}]

[mafia]
duty = "Игорь"

[forum]
url = "{url}"
username = "admin"
min_delay = 0
retries = 1

[moves]
source = "maildir"
path = "moves"

[publish]
mode = "auto"
day_topic = "reply"
private_messages = false
{publish}

{players}[[days]]
number = 1
topic = "{topic_url}"
""", encoding="utf-8")
    return folder


@pytest.fixture
def world(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", PASSWORD)
    clock = ScriptedClock(msk(14, 12))
    board = LocalBoard(language="ru", clock=clock, username="admin", password=PASSWORD)
    board.add_user(*REFEREE)
    for n, _, u in NICKS:
        board.add_user(n, u)
    t = board.add_topic("Дневная проверка — День 1")
    board.add_post("Ведущий", 50, "День 1.", msk(13, 21), topic=t)
    for i, (who, target) in enumerate([("Вася", "Петя"), ("Игорь", "Петю"), ("Маша", "Колю")]):
        vote(board, t, who, target, msk(14, 9 + i))
    board.start()
    yield clock, board, t, tmp_path / "game"
    board.stop()


def run(folder: Path, clock, until: datetime) -> Daemon:
    ctx = open_game(folder, clock=clock)
    try:
        d = Daemon(ctx, ops=PublishingOps())
        d.run(until=until)
        return d
    finally:
        ctx.close()


def host_posts(board: LocalBoard, topic: int) -> list[str]:
    """The counts the posting account put in the topic (not the next day's start)."""
    return [p.body for p in board.topics[topic].posts if p.author_id == HOST_UID
            and ("итоги на" in p.body or "по запросу" in p.body)]


def pms_to(board: LocalBoard, uid: int) -> list[tuple[str, str]]:
    return [(subject, body) for _, frm, to, subject, body in board.sent_pms_log if to == uid]


def test_scheduled_counts_go_up_at_their_times_with_the_numbers_then_and_never_twice(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_times = ["13:00", "19:00"]')
    clock.schedule(msk(14, 15), lambda: vote(board, t, "Ирина", "Петя", msk(14, 15)))
    run(folder, clock, msk(14, 18))
    [first] = host_posts(board, t)
    assert first.startswith("[b]Дневная проверка — день 1: промежуточные итоги на 13:00 МСК[/b]")
    assert "[i]На 14.03, 13:00 МСК." in first
    assert re.search(r"\[b\]Петя\[/b\] — 2 голоса: \[url=[^\]]+p=\d+#p\d+\]Вася\[/url\], "
                     r"\[url=[^\]]+\]Игорь\[/url\]", first)
    assert "[b]Коля[/b] — 1 голос" in first
    assert "Не голосуют: Ирина, Коля, Петя, Таня." in first     # Ирина votes at 15:00
    # a restart (the journal is in the state file): the 13:00 count is not posted again
    run(folder, clock, msk(14, 19, 30))
    posts = host_posts(board, t)
    assert len(posts) == 2 and "промежуточные итоги на 19:00 МСК" in posts[1]
    assert "[b]Петя[/b] — 3 голоса" in posts[1]                 # the count of 19:00
    run(folder, clock, msk(14, 20, 30))                          # the deadline, resolved
    assert len(host_posts(board, t)) == 2                        # nothing after the deadline
    ctx = open_game(folder, clock=clock)
    try:
        assert daytime.chores_ahead(ctx, 2)[0]["at"].startswith("2024-03-15T13:00")
    finally:
        ctx.close()


def test_a_missed_count_is_skipped_not_posted_late(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_times = ["11:00"]')       # the daemon starts at 12:00
    run(folder, clock, msk(14, 13))
    assert host_posts(board, t) == []


def test_a_request_is_answered_once_and_a_second_inside_the_cooldown_waits(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_command = "!голоса"\ntally_cooldown_minutes = 30')
    # a quoted «!голоса» asks for nothing; the real request by a player who also votes
    quote = board.add_post("Таня", 307, '[quote="Петя"]!голоса[/quote] интересно', msk(14, 11, 51),
                           topic=t)
    ask = board.add_post("Петя", 305, "[color=red]Коля[/color] !Голоса пожалуйста", msk(14, 11, 52),
                         topic=t)
    clock.schedule(msk(14, 12, 10), lambda: board.add_post("Коля", 306, "!голоса", msk(14, 12, 10),
                                                           topic=t))
    run(folder, clock, msk(14, 12, 25))
    posts = host_posts(board, t)
    assert len(posts) == 1                                  # the second waits for the cooldown
    assert "подсчёт голосов по запросу, 12:00 МСК" in posts[0]
    assert f"Подсчёт просили: [url={board.url}viewtopic.php?p={ask}#p{ask}]Петя[/url]." in posts[0]
    assert f"p={quote}" not in posts[0].split("[list]")[0]
    assert "[b]Коля[/b] — 2 голоса" in posts[0]             # the request's own vote counts
    run(folder, clock, msk(14, 12, 50))                    # the cooldown is over at 12:30
    posts = host_posts(board, t)
    assert len(posts) == 2 and "Подсчёт просили:" in posts[1] and ">Коля" not in posts[1]
    assert "]Коля[/url]." in posts[1]
    run(folder, clock, msk(14, 13, 30))
    assert len(host_posts(board, t)) == 2                   # each request answered once


def test_requests_from_alive_players_only_when_configured(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_command = "!голоса"\ntally_requests_from = "alive"')
    board.add_post("Гость", 999, "!голоса", msk(14, 12, 1), topic=t)
    run(folder, clock, msk(14, 12, 30))
    assert host_posts(board, t) == []


def test_reminders_go_to_the_roles_without_a_move_once(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'remind_moves_at = "18:00"')
    # the Commissar has sent her check; the Doctor, the duty mafioso and the Boss have not
    deliver(folder / "moves", mail("303@example.org", "проверяю Васю"), msk(14, 16))
    run(folder, clock, msk(14, 18, 30))
    got = {to: [s for s, _ in pms_to(board, to)] for _, _, to, _, _ in board.sent_pms_log}
    assert sorted(got) == [301, 302, 304]                  # Вася, Игорь, Ирина; not Маша
    assert all(subjects == ["Дневная проверка: напоминание о ходе, день 1"]
               for subjects in got.values())
    [(_, doctor)] = pms_to(board, 304)
    assert "Ход от вас ещё не получен: лечение." in doctor
    assert "Ходы принимаются до четверга, 14 марта, 20:00 МСК." in doctor
    [(_, duty)] = pms_to(board, 302)
    assert "убийство" in duty
    run(folder, clock, msk(14, 19, 30))                   # a restart: none twice
    assert len(board.sent_pms_log) == 3


def test_a_refused_count_alerts_the_host_once_an_hour_and_is_listed(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_times = ["13:00", "13:30"]\nalert_host = "pm"')
    board.moderators = frozenset()                          # the account may not post in a
    board.lock(t)                                           # locked topic: refused
    run(folder, clock, msk(14, 14))
    assert host_posts(board, t) == []
    alerts = pms_to(board, REFEREE[1])
    assert len(alerts) == 1                                  # the 13:30 one is held back
    subject, text = alerts[0]
    assert subject == "Дневная проверка: нужен ведущий (14.03 13:00)"
    assert "Что: публикация на форуме не удалась." in text
    assert "Что делать: Текст лежит в папке out/" in text
    # the detail is Russian too, the board's English reason only in run.log (issue 39)
    assert "не отправлено: подсчёт голосов для " in text and "(причина — в run.log)" in text
    ctx = open_game(folder, clock=clock)
    try:
        listed = daytime.alerts(ctx)
        assert [a["status"] for a in listed][-1] == "sent" and "held" in {a["status"] for a in listed}
        assert all(a["kind"] == "publish" for a in listed)
    finally:
        ctx.close()
    # the host's page lists them
    from test_web import client_for
    _, c = client_for(folder, at=msk(14, 14))
    html = c.get(f"/games/{folder.name}").get_data(as_text=True)
    assert re.search(r"Оповещения ведущему \(\d+\)", html)
    assert "publish: tally to " in html and "[sent]" in html and "[held]" in html


def test_a_restart_after_a_crash_alerts_the_host_and_a_clean_stop_does_not(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'alert_host = "pm"')
    ctx = open_game(folder, clock=clock)
    try:
        ops = PublishingOps()
        _note_start(ctx, ops)                        # a run that never stopped cleanly...
        assert pms_to(board, REFEREE[1]) == []
        _note_start(ctx, ops)                        # ...is found at the next start
        [(_, text)] = pms_to(board, REFEREE[1])
        assert "scraper-mod перезапущен после сбоя" in text
        assert re.search(r"прошлый запуск \(процесс \d+, запущен четверг, 14 марта в "
                         r"\d\d:\d\d МСК\) не завершился штатно", text), text
        assert "(pid " not in text and "restarted after a crash" not in text
        ctx.store.put(RUNNING_KEY, None)             # what a clean stop writes
        clock.advance(hours=2)
        _note_start(ctx, ops)
        assert len(pms_to(board, REFEREE[1])) == 1
    finally:
        ctx.close()


def test_an_unreadable_vote_in_the_last_hour_alerts_once(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'alert_host = "pm"')
    clock.schedule(msk(14, 19, 10), lambda: board.add_post(
        "Таня", 307, "[color=red]Петя[/color] или [color=red]Коля[/color]", msk(14, 19, 10),
        topic=t))
    run(folder, clock, msk(14, 19, 40))
    [(_, text)] = pms_to(board, REFEREE[1])
    assert "Что: в последний час перед сроком есть голос, который не удалось прочитать." in text
    assert "Где: " + board.url + "viewtopic.php?p=" in text


@pytest.mark.parametrize("publish, key", [
    ('tally_times = ["25:00"]', "publish.tally_times"),
    ('tally_times = "13:00"', "publish.tally_times"),
    ('remind_moves_at = "6pm"', "publish.remind_moves_at"),
    ('alert_host = "sms"', "publish.alert_host"),
    ('alert_host = "mail"', "publish.alert_to"),
    ('tally_command = "!"', "publish.tally_command"),
    ('tally_requests_from = "friends"', "publish.tally_requests_from"),
])
def test_bad_daytime_keys_name_the_key(tmp_path, publish, key):
    folder = write_game(tmp_path, "http://127.0.0.1:9/", 1, publish)
    with pytest.raises(ConfigError) as e:
        load_game(folder / "game.toml")
    assert key in str(e.value)


def test_tally_command_true_takes_the_languages_word(tmp_path):
    folder = write_game(tmp_path, "http://127.0.0.1:9/", 1, "tally_command = true")
    assert load_game(folder / "game.toml").publish.tally_command == "!голоса"
    text = (folder / "game.toml").read_text("utf-8").replace("[game]\n", '[game]\nlanguage = "en"\n')
    (folder / "game.toml").write_text(text, "utf-8")
    assert load_game(folder / "game.toml").publish.tally_command == "!votecount"


def test_a_merged_weekend_day_has_each_time_on_both_dates(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_times = ["13:00"]')
    ctx = open_game(folder, clock=clock)
    try:
        cal = ctx.calendar()
        day = next(d for d in range(1, 10)
                   if (cal.deadline(d) - cal.day_start(d)).days >= 1)   # Fri 21:00 -> Sun 20:00
        times = [c.at for c in daytime.scheduled_chores(ctx, day)]
        assert [x.astimezone(MSK).strftime("%a %H:%M") for x in times] == ["Sat 13:00",
                                                                            "Sun 13:00"]
    finally:
        ctx.close()


def test_status_and_publish_dry_run_say_what_is_scheduled_next(world, capsys, monkeypatch):
    clock, board, t, folder = world
    write_game(folder, board, t, 'tally_times = ["13:00", "19:00"]\nremind_moves_at = "18:00"\n'
                                 'tally_command = "!голоса"\ntally_cooldown_minutes = 600')
    board.add_post("Петя", 305, "!голоса", msk(14, 11, 55), topic=t)
    run(folder, clock, msk(14, 13, 30))            # a count on request, then the 13:00 one
    assert len(host_posts(board, t)) == 2
    board.add_post("Коля", 306, "!голоса", msk(14, 13, 31), topic=t)
    run(folder, clock, msk(14, 13, 40))            # seen; the cooldown holds it back
    import scraper_mod.game.context as context
    real_open = context.open_game
    for mod in ("status", "publish"):
        monkeypatch.setattr(f"scraper_mod.cli.{mod}.open_game",
                            lambda arg, **kw: real_open(arg, clock=clock, **kw))
    from scraper_mod.cli import main
    assert main(["status", str(folder)]) == 0
    out = capsys.readouterr().out
    # a Russian game's status is Russian (issue 39 item 4)
    assert "дальше: напоминание о ходах — четверг, 14 марта, 18:00 МСК" in out
    assert "дальше: подсчёт голосов — четверг, 14 марта, 19:00 МСК" in out
    assert "дальше: подсчёт голосов — четверг, 14 марта, 13:00" not in out        # done
    assert "дальше: подсчёт голосов по просьбе в постах" in out
    assert main(["status", str(folder), "--format", "json"]) == 0
    import json
    scheduled = json.loads(capsys.readouterr().out)["scheduled"]
    assert [(c["kind"], c["done"]) for c in scheduled] == [
        ("count", True), ("reminder", False), ("count", False), ("requests", False)]
    main(["publish", str(folder), "--dry-run"])
    out = capsys.readouterr()
    assert "=== scheduled: reminder at 2024-03-14T18:00:00+03:00" in out.out
