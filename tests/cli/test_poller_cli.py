"""`scraper-mod poll GAME`: one poll of the current day's topic on a LocalBoard."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.cli import main
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.forum.poller import stored_posts
from scraper_mod.store import Store

MSK = ZoneInfo("Europe/Moscow")


def write_game(folder, board, *, start, topics=(1, 2, 3), retries=0):
    days = "".join(f'\n[[days]]\nnumber = {n}\ntopic = "{board.topic_url(4)}"\n'
                   for n in topics)
    (folder / "game.toml").write_text(f'''[game]
title = "Тест"
start = {start.isoformat()}
host = "admin"

[forum]
url = "{board.url}"
min_delay = 0
retries = {retries}

[mafia]
duty = "Вася"

[[players]]
nick = "Вася"
role = "boss"

[[players]]
nick = "Маша_2"
role = "civilian"

[[players]]
nick = "Big Joe"
role = "commissar"
{days}''', encoding="utf-8")


@pytest.fixture
def board():
    with LocalBoard(language="ru", per_page=2) as b:
        b.add_topic("День 1 — голосование", topic_id=4)
        yield b


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_poll_stores_new_posts_then_idles(board, tmp_path, capsys):
    today = datetime.now(MSK).date()
    write_game(tmp_path, board, start=today - timedelta(days=1))
    ids = [board.add_post("Вася", 58, f"[color=red]Маша_2[/color] {n}") for n in range(3)]
    code, out, err = run(capsys, "poll", str(tmp_path))
    assert code == 0, err
    # a Russian game: the lines in Russian (issue 39 item 4)
    assert ("форум: день 1: новых постов: 3, правок: 0, удалено: 0, прочитано страниц: 2 из 2, "
            "запросов: 2") in out
    assert "ходы: источник не настроен" in out
    with Store(tmp_path / "state.sqlite3") as store:
        assert sorted({p.post_id for p, _ in stored_posts(store, board.topic_url(4))}) == ids
    code, out, _ = run(capsys, "poll", str(tmp_path))
    assert code == 0 and "новых постов: 0" in out and "запросов: 1" in out
    board.edit_post(ids[0], "[color=red]Big Joe[/color]")
    board.delete_post(ids[1])
    code, out, _ = run(capsys, "poll", str(tmp_path), "--full")
    assert code == 0 and "новых постов: 0, правок: 1, удалено: 1" in out and "полный просмотр" in out


def test_poll_reports_a_missing_topic(board, tmp_path, capsys):
    write_game(tmp_path, board, start=datetime.now(MSK).date() - timedelta(days=1))
    board.topics.clear()
    code, out, err = run(capsys, "poll", str(tmp_path))
    assert code == 1 and "ошибок: 1" in out
    assert err.startswith("ошибка: ") and "такой темы нет" in err     # issue 39: Russian
    code, out, err = run(capsys, "poll", str(tmp_path), "--full")
    assert code == 1 and "НЕ ЗАВЕРШЁН" in out and "такой темы нет" in err


def test_poll_before_the_game_and_without_a_topic(board, tmp_path, capsys):
    write_game(tmp_path, board, start=datetime.now(MSK).date() + timedelta(days=3))
    code, out, _ = run(capsys, "poll", str(tmp_path))
    assert code == 0 and "игра ещё не началась" in out
    write_game(tmp_path, board, start=datetime.now(MSK).date() - timedelta(days=1), topics=())
    code, out, _ = run(capsys, "poll", str(tmp_path))
    assert code == 0 and "ещё нет темы" in out
    assert board.requests == []
