"""Issue 26, items 3, 7 and 8: a nick, a game folder or another local web app must never turn
the host's files or page against the game.

- item 3: two nicks that a file name would merge («Маша?2», «Маша_2») get two files, and what
  is sent to a player is looked up by the player, never by a file's name;
- item 7: ``run.lock`` and ``state.sqlite3`` are opened without following links (a link to
  another game's state is refused), a huge game.toml is refused in one line before it is read;
- item 8: the page's cookie is named per server (its port), HttpOnly and SameSite=Strict, and
  holds no token another local web app could use elsewhere.
"""

from __future__ import annotations

import os
import re

import pytest
from qa_game import copy_game, edit
from test_web import TOKEN

from scraper_mod.cli import main
from scraper_mod.daemon.lock import GameLock
from scraper_mod.errors import ScraperModError
from scraper_mod.game.context import open_game
from scraper_mod.game.publishing import publish
from scraper_mod.game.setup.config import load_game
from scraper_mod.rules.deal import safe_filename
from scraper_mod.web import create_app

# -- item 8 ----------------------------------------------------------------------------------

def _login(app, host: str):
    c = app.test_client()
    r = c.get(f"/?token={TOKEN}", base_url=f"http://{host}")
    assert r.status_code == 303
    return c, r.headers["Set-Cookie"]


def test_the_cookie_is_named_per_port_and_carries_no_token(tmp_path):
    game = copy_game(tmp_path)
    app = create_app(game, token=TOKEN)
    _, cookie_a = _login(app, "127.0.0.1:8081")
    _, cookie_b = _login(app, "127.0.0.1:8082")
    name_a, name_b = cookie_a.split("=", 1)[0], cookie_b.split("=", 1)[0]
    assert name_a != name_b and "8081" in name_a and "8082" in name_b
    assert TOKEN not in cookie_a and TOKEN not in cookie_b
    for c in (cookie_a, cookie_b):
        assert "HttpOnly" in c and "SameSite=Strict" in c
    # each server's cookie opens its own port only
    c = app.test_client()
    value_a = cookie_a.split("=", 1)[1].split(";", 1)[0]
    c.set_cookie(name_a, value_a, domain="127.0.0.1")
    assert c.get("/", base_url="http://127.0.0.1:8081").status_code == 200
    assert c.get("/", base_url="http://127.0.0.1:8082").status_code == 401
    c.set_cookie(name_b, value_a, domain="127.0.0.1")
    assert c.get("/", base_url="http://127.0.0.1:8082").status_code == 403


# -- item 7 ----------------------------------------------------------------------------------

def test_run_lock_is_never_followed_into_another_games_file(tmp_path):
    other = tmp_path / "a"
    other.mkdir()
    victim = other / "state.sqlite3"
    victim.write_bytes(b"another game's state")
    game = tmp_path / "b"
    game.mkdir()
    os.symlink("../a/state.sqlite3", game / "run.lock")
    with pytest.raises(ScraperModError) as e:
        GameLock(game).acquire()
    assert "run.lock" in str(e.value) and "link" in str(e.value)
    assert victim.read_bytes() == b"another game's state"


def test_a_state_that_links_to_another_games_state_is_refused(tmp_path):
    a = copy_game(tmp_path / "x")
    b = copy_game(tmp_path / "y")
    ctx = open_game(a)
    ctx.close()
    os.symlink(a / "state.sqlite3", b / "state.sqlite3")
    with pytest.raises(ScraperModError) as e:
        open_game(b)
    assert "state.sqlite3" in str(e.value) and "link" in str(e.value)
    os.unlink(b / "state.sqlite3")
    os.link(a / "state.sqlite3", b / "state.sqlite3")       # a second name, not a link
    with pytest.raises(ScraperModError) as e:
        open_game(b)
    assert "state.sqlite3" in str(e.value) and "hard link" in str(e.value)


def test_a_huge_game_toml_is_refused_in_one_line_without_reading_it(tmp_path):
    game = copy_game(tmp_path)
    toml = game / "game.toml"
    with toml.open("a", encoding="utf-8") as f:
        f.write("\n# " + "x" * (2 << 20) + "\n")
    with pytest.raises(ScraperModError) as e:
        load_game(game)
    msg = str(e.value)
    assert "game.toml" in msg and "MiB" in msg and "\n" not in msg


# -- item 3 ----------------------------------------------------------------------------------

def test_nicks_a_file_name_would_merge_get_two_names():
    names = {safe_filename(n) for n in ("Маша?2", "Маша_2", "Маша:2", "Маша*2")}
    assert len(names) == 4
    assert safe_filename("Маша_2") == "Маша_2"          # a plain nick keeps its name
    assert safe_filename("Вася") == "Вася"


def test_two_nicks_sharing_a_file_name_are_refused_at_load_naming_both(tmp_path,
                                                                      monkeypatch):
    """Whatever the file name does (here: a name that drops everything but letters), two
    players never share one: the game file is refused, naming both."""
    import scraper_mod.game.setup.nickfiles as config
    monkeypatch.setattr(config, "safe_filename", lambda nick: re.sub(r"[\W_]", "", nick))
    game = copy_game(tmp_path)
    edit(game, '"Вася"', '"Маша?2"')
    edit(game, '"Вася"', '"Маша?2"')
    with pytest.raises(ScraperModError) as e:
        load_game(game)
    assert "'Маша?2'" in str(e.value) and "'Маша_2'" in str(e.value)


def test_deal_writes_one_card_per_player_and_publish_sends_each_its_own(tmp_path, capsys):
    game = copy_game(tmp_path)
    edit(game, '"Вася"', '"Маша?2"')
    edit(game, '"Вася"', '"Маша?2"')
    assert main(["deal", str(game)]) == 0
    cards = sorted((game / "out" / "role-cards").glob("*.txt"))
    assert len(cards) == 8
    ctx = open_game(game)
    try:
        items = {i.to: i.text for i in publish.plan_role_cards(ctx)}
    finally:
        ctx.close()
    assert len(items) == 8
    assert "Маша?2" in items["Маша?2"] and "Маша_2" not in items["Маша?2"]
    assert "Маша_2" in items["Маша_2"] and "Маша?2" not in items["Маша_2"]
    # a stray file in the folder is never sent to a "nick" made of its name
    (game / "out" / "role-cards" / "admin.txt").write_text("stray", encoding="utf-8")
    ctx = open_game(game)
    try:
        assert "admin" not in {i.to for i in publish.plan_role_cards(ctx)}
    finally:
        ctx.close()


def test_a_nick_shaped_like_anothers_hashed_name_gets_its_own(tmp_path):
    hashed = safe_filename("Маша?2")
    assert hashed != "Маша_2"
    assert safe_filename(hashed) != hashed or hashed == safe_filename("Маша?2")
    assert len({safe_filename("Маша?2"), safe_filename(hashed)}) == 2


def test_a_newcomer_whose_file_would_be_a_players_is_refused(tmp_path, monkeypatch):
    """R10: a newcomer's role card goes to ``out/role-cards/`` beside the players'; a name
    that would share a player's file is refused, naming both, and no card is written."""
    from datetime import datetime, timezone

    import scraper_mod.game.setup.nickfiles as config
    from scraper_mod.clock import FakeClock
    from scraper_mod.game.roster.host import replace_player
    monkeypatch.setattr(config, "safe_filename", lambda nick: re.sub(r"[\W_]", "", nick))
    game = copy_game(tmp_path)
    ctx = open_game(game, clock=FakeClock(datetime(2024, 4, 9, 9, 0, tzinfo=timezone.utc)))
    try:
        with pytest.raises(ScraperModError) as e:
            replace_player(ctx, "Вася", "Маша2")
    finally:
        ctx.close()
    assert "'Маша_2'" in str(e.value) and "'Маша2'" in str(e.value)
