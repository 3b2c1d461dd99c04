"""Publishing on LocalBoard (phpBB's posting, PM and quick-mod forms): never twice (R12.2),
a crash at every step, refusals as one line each with the posts kept in out/day-1/ (R12.3),
the password nowhere, a corrected newspaper edited."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from scraper_mod.clock import FakeClock
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.game.context import open_game
from scraper_mod.game.publishing import publish as pub

PASSWORD = "s3cret-host-pw"
PLAYERS = [("Вася", 58), ("Маша_2", 59), ("Big Joe", 60), ("Алексей", 61)]
NEWSPAPER = ("[size=150][b]Газета. День 1[/b][/size]\n\nПосадка: [b]Вася[/b] (босс мафии).\n"
             "Ночью убит [b]Алексей[/b] (сержант).\n")
DAY_START = "[b]Проверка — день 2[/b]\n\nНачался день 2. Итоги дня 1 — в газете.\n"
PMS = {"Big Joe": "Проверка: Маша_2 — мафия.\n", "Маша_2": "Мафия: убит Алексей.\n"}


@pytest.fixture
def world(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", PASSWORD)
    clock = FakeClock(datetime(2026, 12, 2, 17, 5, tzinfo=timezone.utc))
    board = LocalBoard(language="ru", username="admin", password=PASSWORD, clock=clock)
    board.forums[4] = "Итоги"
    for nick, uid in PLAYERS:
        board.add_user(nick, uid)
    day1 = board.add_topic("Проверка. День 1")
    board.add_post("admin", 2, "День 1 начался.", clock.now() - timedelta(hours=20))
    results = board.add_topic("Проверка. Итоги", forum_id=4)
    board.add_post("admin", 2, "Здесь будут газеты.", clock.now() - timedelta(hours=20))
    board.start()
    yield make_game(tmp_path, board, day1, results), board, clock
    board.stop()


def make_game(tmp_path: Path, board: LocalBoard, day1: int, results: int, *,
              publish_extra: str = "") -> Path:
    folder = tmp_path / "game"
    (folder / "out" / "day-1" / "pm").mkdir(parents=True, exist_ok=True)
    players = "".join(f'[[players]]\nnick = "{n}"\nforum_id = {u}\n\n' for n, u in PLAYERS)
    (folder / "game.toml").write_text(f"""[game]
title = "Проверка"
start = 2026-12-01
host = "admin"

[forum]
url = "{board.url}"
username = "admin"
forum = "{board.url}viewforum.php?f=3"
min_delay = 0
retries = 0

[publish]
mode = "review"
results_topic = "{board.url}viewtopic.php?t={results}"
{publish_extra}
{players}[[days]]
number = 1
topic = "{board.topic_url(day1)}"
""", encoding="utf-8")
    out = folder / "out" / "day-1"
    (out / "newspaper.bbcode").write_text(NEWSPAPER, encoding="utf-8")
    (out / "day-start.bbcode").write_text(DAY_START, encoding="utf-8")
    (out / "result.json").write_text('{"day": 1, "winner": null}\n', encoding="utf-8")
    for nick, text in PMS.items():
        (out / "pm" / f"{nick}.txt").write_text(text, encoding="utf-8")
    return folder


def publish(game: Path, clock) -> list[pub.Outcome]:
    ctx = open_game(game, clock=clock)
    try:
        return pub.publish_day(ctx, 1)
    finally:
        ctx.close()


def board_posts(board: LocalBoard, topic: int) -> list[str]:
    return [p.body for p in board.topics[topic].posts]


def day2_topics(board: LocalBoard) -> list[int]:
    return [t.topic_id for t in board.topics.values() if t.title == "Проверка. День 2"]


def test_publish_posts_each_thing_once_and_then_says_already(world):
    game, board, clock = world
    first = publish(game, clock)
    assert [(o.kind, o.to, o.status) for o in first] == [
        ("newspaper", f"{board.url}viewtopic.php?t=2", "posted"),
        ("day-topic", f"{board.url}viewforum.php?f=3", "posted"),
        ("pm", "Big Joe", "posted"), ("pm", "Маша_2", "posted")]
    assert board_posts(board, 2)[-1] == NEWSPAPER
    [t2] = day2_topics(board)
    assert board.topics[t2].forum_id == 3 and board_posts(board, t2) == [DAY_START]
    assert sorted((to, body) for _, frm, to, _, body in board.sent_pms_log) == [
        (59, PMS["Маша_2"]), (60, PMS["Big Joe"])]
    ctx = open_game(game, clock=clock)
    try:
        assert ctx.topic_for_day(2) == f"{board.url}viewtopic.php?t={t2}"   # the daemon polls it
    finally:
        ctx.close()
    # the newspaper's URL is its post
    assert first[0].url.endswith(f"viewtopic.php?p={board.topics[2].posts[-1].post_id}"
                                 f"#p{board.topics[2].posts[-1].post_id}")
    second = publish(game, clock)
    assert {o.status for o in second} == {"already"}
    assert len(board_posts(board, 2)) == 2 and len(day2_topics(board)) == 1
    assert len(board.sent_pms_log) == 2
    assert "posted   newspaper" in (game / "out" / "day-1" / "publish.txt").read_text("utf-8") \
        or "already  newspaper" in (game / "out" / "day-1" / "publish.txt").read_text("utf-8")


class Crash(BaseException):
    """kill -9: nothing after it runs (not even except ScraperModError)."""


@pytest.mark.parametrize("phase", ["before-request", "after-request"])
@pytest.mark.parametrize("step", [0, 1, 2, 3])
def test_a_crash_at_every_step_then_publish_again_posts_nothing_twice(world, monkeypatch,
                                                                      step, phase):
    game, board, clock = world
    real_post = pub._post
    calls = {"n": 0}

    def crashing(ctx, writer, item):
        n = calls["n"]
        calls["n"] += 1
        if n == step and phase == "before-request":
            raise Crash()
        result = real_post(ctx, writer, item)
        if n == step:
            raise Crash()        # posted, but never recorded as done
        return result
    monkeypatch.setattr(pub, "_post", crashing)
    with pytest.raises(Crash):
        publish(game, clock)
    monkeypatch.setattr(pub, "_post", real_post)
    again = publish(game, clock)
    assert {o.status for o in again} <= {"posted", "already"}
    if phase == "after-request":
        assert again[step].status == "already"      # found on the board, not posted again
    third = publish(game, clock)
    assert {o.status for o in third} == {"already"}
    assert board_posts(board, 2).count(NEWSPAPER) == 1
    assert len(day2_topics(board)) == 1
    assert sorted(to for _, _, to, _, _ in board.sent_pms_log) == [59, 60]


def test_the_password_is_never_in_the_log_store_errors_or_dry_run(world, caplog, capsys,
                                                                  monkeypatch):
    game, board, clock = world
    from scraper_mod.cli import main
    caplog.set_level(logging.DEBUG)
    assert main(["publish", str(game), "--day", "1", "--dry-run"]) == 0
    dry = capsys.readouterr().out
    assert f"=== newspaper -> {board.url}viewtopic.php?t=2" in dry and NEWSPAPER.strip() in dry
    assert "=== pm -> Big Joe" in dry
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", "wrong-" + PASSWORD)
    failed = publish(game, clock)
    assert {o.status for o in failed} == {"failed"}
    assert "refused the login as 'admin'" in failed[0].error
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", PASSWORD)
    publish(game, clock)
    state = (game / "state.sqlite3").read_bytes() + b"".join(
        p.read_bytes() for p in game.glob("state.sqlite3*"))
    everything = dry + caplog.text + "".join(o.error or "" for o in failed)
    assert PASSWORD not in everything and PASSWORD.encode() not in state


def test_refusals_are_one_line_each_and_the_posts_stay_in_out(world):
    game, board, clock = world
    board.lock(2)                          # the results topic is locked ...
    board.moderators = frozenset()         # ... and the account is no moderator there
    locked = publish(game, clock)
    assert locked[0].status == "failed" and "This topic is locked" in locked[0].error
    assert "unlock it" in locked[0].error and "\n" not in locked[0].error
    assert [o.status for o in locked[1:]] == ["posted"] * 3   # the game goes on
    board.no_post_users.add(2)             # now the account may not post anywhere
    out = publish(game, clock)
    assert [(o.kind, o.status) for o in out] == [("newspaper", "failed"), ("day-topic", "already"),
                                                 ("pm", "already"), ("pm", "already")]
    assert "You are not authorised to post" in out[0].error
    assert "check [forum] username and its permissions" in out[0].error
    out = [out[0]]
    for o in out:
        assert o.error.count("\n") == 0 and board.url in o.error
    assert (game / "out" / "day-1" / "newspaper.bbcode").read_text("utf-8") == NEWSPAPER
    assert "failed   newspaper" in (game / "out" / "day-1" / "publish.txt").read_text("utf-8")
    # fixed on the board: the next publish posts everything, once
    board.lock(2, locked=False)
    board.no_post_users.clear()
    assert [o.status for o in publish(game, clock)] == ["posted"] + ["already"] * 3
    assert board_posts(board, 2).count(NEWSPAPER) == 1


def test_a_results_topic_that_is_no_topic_is_one_clear_line(world):
    game, board, clock = world
    del board.topics[2]
    out = publish(game, clock)
    assert out[0].status == "failed" and "The requested topic does not exist" in out[0].error
    assert out[1].status == "posted"   # the game goes on: the day topic is opened


def test_a_corrected_day_edits_the_posted_newspaper_saying_what_changed(world):
    game, board, clock = world
    publish(game, clock)
    first_id = board.topics[2].posts[-1].post_id
    fixed = NEWSPAPER.replace("Ночью убит [b]Алексей[/b] (сержант).", "Ночь прошла спокойно.")
    (game / "out" / "day-1" / "newspaper.bbcode").write_text(fixed, encoding="utf-8")
    out = publish(game, clock)
    assert out[0].status == "posted" and [o.status for o in out[1:]] == ["already"] * 3
    paper = board.topics[2].posts[-1]
    # edited in place; the host's edit of the topic's last post leaves no notice (phpBB)
    assert len(board.topics[2].posts) == 2 and paper.post_id == first_id
    assert paper.body.startswith(fixed)
    assert paper.body.rstrip().endswith("[i]Исправлено ведущим: Ночь прошла спокойно..[/i]") \
        or "Исправлено ведущим: Ночь прошла спокойно" in paper.body
    assert {o.status for o in publish(game, clock)} == {"already"}


def test_flood_and_same_second_forms_are_retried_with_a_fresh_form(world):
    game, board, clock = world
    board.post_flood_seconds = 10
    out = publish(game, clock)
    assert [o.status for o in out] == ["posted"] * 4   # the day topic waited out the flood
    assert len(day2_topics(board)) == 1


def test_publish_json_and_role_cards(world, capsys):
    game, board, clock = world
    from scraper_mod.cli import main
    cards = game / "out" / "role-cards"
    cards.mkdir()
    (cards / "Вася.txt").write_text("Ваша роль: босс мафии.\n", encoding="utf-8")
    ctx = open_game(game, clock=clock)
    try:
        out = pub.publish_items(ctx, pub.plan_role_cards(ctx))
    finally:
        ctx.close()
    assert [(o.kind, o.to, o.status) for o in out] == [("role-card", "Вася", "posted")]
    assert board.sent_pms_log[-1][2:] == (58, "Проверка: ваша роль", "Ваша роль: босс мафии.\n")
    assert main(["publish", str(game), "--role-cards", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["posted"][0]["status"] == "already" and data["posted"][0]["kind"] == "role-card"


def test_status_shows_what_could_not_be_posted(world, capsys):
    game, board, clock = world
    from scraper_mod.cli import main
    board.no_post_users.add(2)
    publish(game, clock)
    assert main(["status", str(game)]) == 0
    text = capsys.readouterr().out
    # a Russian game's status is Russian: the board's English reason is not in it (issue 39)
    assert "не опубликовано: день 1, газета для results (лежит в out/day-1/" in text
    assert "You are not authorised to post" not in text


def test_move_answers_go_as_the_boards_pms_when_moves_come_by_pm(world):
    game, board, clock = world
    toml = game / "game.toml"
    toml.write_text(toml.read_text("utf-8").replace(
        "[publish]", '[moves]\nsource = "phpbb_pm"\n\n[publish]'), encoding="utf-8")
    answers = game / "outbox" / "day-1"
    answers.mkdir(parents=True)
    (answers / "000007.txt").write_text("To: Big Joe\nSubject: Re: ход\n\nПринято: проверка "
                                        "Маша_2.\n", encoding="utf-8")
    (answers / "000008.txt").write_text("To: stranger@example.org\nSubject: Re: x\n\n?\n",
                                        encoding="utf-8")
    out = publish(game, clock)
    assert [(o.kind, o.to) for o in out][-1] == ("pm", "Big Joe")
    assert board.sent_pms_log[-1][2:] == (60, "Re: ход", "Принято: проверка Маша_2.\n")
    assert len(out) == 5 and {o.status for o in publish(game, clock)} == {"already"}


def test_run_in_mode_auto_retries_a_failure_later_not_on_every_poll(world):
    game, board, clock = world
    toml = game / "game.toml"
    toml.write_text(toml.read_text("utf-8").replace('mode = "review"', 'mode = "auto"'),
                    encoding="utf-8")
    ctx = open_game(game, clock=clock)
    try:
        ctx.store.save_resolution(1, {"day": 1}, resolved_at=clock.now())
        board.no_post_users.add(2)
        first = pub.auto_publish(ctx)
        assert [o.status for o in first] == ["failed"] * 4
        posts_before = board.request_count("/posting.php")
        clock.advance(seconds=30)
        again = pub.auto_publish(ctx)          # a poll 30 s later: not tried yet
        assert [o.fresh for o in again] == [False] * 4
        assert board.request_count("/posting.php") == posts_before
        board.no_post_users.clear()
        clock.advance(seconds=pub.AUTO_RETRY_SECONDS)
        assert [o.status for o in pub.auto_publish(ctx)] == ["posted"] * 4
        assert pub.auto_publish(ctx) == [] and pub.pending_days(ctx) == []
    finally:
        ctx.close()
