"""Issue 40 on the real SMF 2.1.4 board (docs/security.md "Attacks by players"): SMF members
change their display name, and SMF cuts long PM subjects short.

- Item 5 (R12.5): the Boss renames himself through SMF's profile form («Вася» -> «Вася
  Пупкин») and sends his kill by PM: his PMs carry his member id, so the move is his (before,
  a PM was matched by the name it showed: a renamed player was an unknown sender, and a
  member who took a player's shown name was that player). A PM to him goes by member id.
- Item 7 (R12.2): a PM with a subject longer than SMF keeps is found in the sent folder all
  the same, so it is confirmed and never sent again.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from conftest import BOARD_PLAYERS
from test_smf_evening_e2e import PASSWORD, env, write_game

from scraper_mod.game.context import open_game
from scraper_mod.game.publishing.publish import Item, publish_items
from scraper_mod.game.setup.connect import game_board


def rename(board, nick: str, member_id: int, shown: str) -> None:
    """The member changes his display name through SMF's own profile form."""
    me = board.player(nick)
    page = me.get(f"action=profile;area=account;u={member_id}")
    form = me._form(page, "creator")
    form.set("real_name", shown)
    form.set("oldpasswrd", BOARD_PLAYERS[nick])
    me._submit(form, button="save")
    page = me.get(f"action=profile;area=account;u={member_id}")
    assert re.search(r'name="real_name"[^>]*value="' + re.escape(shown) + '"', page.text)


def test_smf_moves_and_pms_go_by_member_id_and_long_subjects_are_confirmed(real_smf_board,
                                                                           tmp_path,
                                                                           monkeypatch):
    board = real_smf_board
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", PASSWORD)
    admin = board.player("admin")
    day1 = admin.new_topic(2, "Проверка. День 1", "День 1 начался.")
    results = admin.new_topic(3, "Проверка. Итоги", "Здесь будут газеты.")
    deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(hours=1)
    game = write_game(tmp_path / "game", board, day1, results, deadline=deadline,
                      mode="review")

    # item 5: the Boss (member 2) renamed, then his kill by PM
    rename(board, "Вася", 2, "Вася Пупкин")
    board.player("Вася").send_pm("admin", "ход", "убить Кот")
    got = subprocess.run([sys.executable, "-m", "scraper_mod", "moves", str(game), "--day",
                          "1", "--format", "json"], capture_output=True, text=True,
                         timeout=180, env=env())
    assert got.returncode == 0, got.stderr
    moves = json.loads(got.stdout)["moves"]
    assert [(m["player"], m["kind"], m["target"], m["status"]) for m in moves] == [
        ("Вася", "kill", "Кот", "counted")], moves

    ctx = open_game(game)
    try:
        host = game_board(ctx)
        # a PM to the renamed Boss goes to member 2, whatever his name shows
        out = publish_items(ctx, [Item(1, "pm", "Вася", "Вася", "Ваш ход принят.",
                                       subject="Проверка: ответ")], board=host)
        assert [o.status for o in out] == ["posted"], out
        inbox = board.player("Вася").list_pms("inbox")
        assert [p["subject"] for p in inbox if p["from"] == "admin"] == ["Проверка: ответ"]

        # item 7: a subject SMF cuts short is still found in the sent folder: sent once
        long = "Проверка: итоги дня 1 и всё, что ведущий хочет сказать игроку " * 3
        card = Item(1, "pm", "Кот", "Кот", "Ваша роль: мирный житель.", subject=long.strip())
        first = publish_items(ctx, [card], board=host)
        assert [o.status for o in first] == ["posted"], first
        again = publish_items(ctx, [card], board=host)
        assert [o.status for o in again] == ["already"]
        kot = [p for p in board.player("Кот").list_pms("inbox") if p["from"] == "admin"]
        assert len(kot) == 1 and long.strip().startswith(kot[0]["subject"].rstrip(". …"))
    finally:
        ctx.close()


def test_a_smf_sign_up_seconds_after_the_close_is_late(real_smf_board, tmp_path):
    """Item 11 (docs/signup.md): SMF's pages show the minute only. Pilot's «+» comes two
    seconds after ``--close``, in the same minute: it is late (the feed's second, else the
    end of the shown minute), where the minute's start made it on time."""
    import time as _time
    board = real_smf_board
    admin = board.player("admin")
    topic = admin.new_topic(2, "Запись на игру", "Пишите «+».")
    deadline = datetime.now(timezone.utc) + timedelta(days=2)
    game = write_game(tmp_path / "game", board, topic, topic, deadline=deadline, mode="review")
    board.player("Вася").reply(topic, "+")
    while not 3 <= datetime.now(timezone.utc).second <= 45:     # the close and the late «+»
        _time.sleep(1)                                           # in one shown minute
    close = datetime.now(timezone.utc).replace(microsecond=0)
    _time.sleep(2)
    board.player("Pilot").reply(topic, "+")
    msk = close.astimezone(ZoneInfo("Europe/Moscow")).strftime("%Y-%m-%dT%H:%M:%S")
    got = subprocess.run([sys.executable, "-m", "scraper_mod", "signup", str(game),
                          board.topic_url(topic), "--players", "5", "--close", msk,
                          "--format", "json"], capture_output=True, text=True, timeout=180,
                         env=env())
    assert got.returncode == 0, got.stderr
    data = json.loads(got.stdout)
    assert data["players"] == ["Вася"] and data["late"] == ["Pilot"], data
