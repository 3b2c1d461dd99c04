"""Issue 18 item 5 on the real phpBB 3.3.15 board (the e2e tier): a logged-in `poll` of the
day's topic and of the host's PM inbox keeps no session id in state.sqlite3.

The account's session id is taken from the client's own cookie when the command logs out at
its end; neither it nor any ``sid=<32 hex>`` may be found in the state file's bytes (its
pages, URLs, PMs, the -wal), and the session has been ended on the board."""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from conftest import BOARD_ADMIN, GAME_FORUM_ID

from scraper_mod.cli import main
from scraper_mod.forum import client as client_module
from scraper_mod.forum.session import session_id

MSK = ZoneInfo("Europe/Moscow")


def write_game(folder: Path, url: str, topic: str) -> Path:
    now = datetime.now(timezone.utc).astimezone(MSK)
    begin = now - timedelta(minutes=3)
    if begin.date() != now.date():
        begin = now.replace(hour=0, minute=0, second=0, microsecond=0)
    deadline = now + timedelta(hours=2)
    folder.mkdir(parents=True)
    (folder / "game.toml").write_text(f"""[game]
title = "Сессия"
start = {begin:%Y-%m-%d}
day_start = "{begin:%H:%M}"
host = "admin"
random_list = ["Вася", "Маша_2", "Кот"]

[forum]
url = "{url}"
username = "admin"
min_delay = 0.2

[moves]
source = "phpbb_pm"

[[players]]
nick = "Вася"
role = "boss"
forum_id = 58

[[players]]
nick = "Маша_2"
role = "commissar"
forum_id = 59

[[players]]
nick = "Кот"
role = "civilian"
forum_id = 66

[[days]]
number = 1
topic = "{topic}"
deadline = {deadline.replace(microsecond=0).isoformat()}
""", encoding="utf-8")
    return folder


def test_a_logged_in_poll_stores_no_session_id(real_board, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", BOARD_ADMIN[1])
    host = real_board.player("admin")
    topic = host.new_topic(GAME_FORUM_ID, "Сессия — День 1", "День 1 начался.")
    real_board.player("Вася").reply(topic, "Голосую: [color=red]Кот[/color]")
    real_board.player("Вася").send_pm("admin", "ход", "убить Кот")
    folder = write_game(tmp_path / "game", real_board.url, real_board.topic_url(topic))
    sids: list[str] = []
    real_logout = client_module.ForumClient.logout

    def logout(self) -> bool:
        sids.append(session_id(self) or "")
        return real_logout(self)

    monkeypatch.setattr(client_module.ForumClient, "logout", logout)
    assert main(["poll", str(folder)]) == 0, capsys.readouterr().err
    [sid] = sids
    assert re.fullmatch(r"[0-9a-f]{32}", sid), "the poll was logged in"
    db = sqlite3.connect(folder / "state.sqlite3")
    assert db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 1     # the PM
    assert db.execute("SELECT COUNT(*) FROM post_versions").fetchone()[0] == 2
    urls = [r[0] for r in db.execute("SELECT url FROM fetches")]
    assert any("viewtopic.php" in u for u in urls)        # the PM is kept in messages
    db.close()
    stored = b"".join(p.read_bytes() for p in sorted(folder.glob("state.sqlite3*")))
    assert sid.encode() not in stored
    assert not re.search(rb"sid=[0-9a-f]{32}", stored)
    assert not re.search(rb"""name=["']sid["'][^>]*value=["'][0-9a-f]{32}""", stored)
    assert b"Set-Cookie" not in stored
