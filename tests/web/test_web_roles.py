"""The host's page with R14's roles (issue 37, second pass): the Mayor's vote marked «×2» in
the count, as the count and the newspaper mark it, both in the page the server sends and in
the count the page's script redraws from the tally API; a Judge's pardon shown as the count
and ``resolve`` say it (nobody jailed).

The game is tests/web/test_web.py's (fixtures/games/day1 with its day-1 topic stored from the
real phpBB pages) with Маша_2 dealt the Mayor and Ёжик в тумане the Judge.
"""

from __future__ import annotations

import json
import re
import threading
from datetime import datetime

import pytest
from test_web import MSK, TOKEN, cli, client_for, store_move
from test_web import game as seed_game  # noqa: F401 (a fixture)
from test_web_browser import ARGS, _console_errors, _need_browser

from scraper_mod.clock import FakeClock
from scraper_mod.web import create_app


@pytest.fixture
def game(seed_game):  # noqa: F811
    toml = seed_game / "game.toml"
    text = toml.read_text(encoding="utf-8")
    text = text.replace('nick = "Маша_2"\nrole = "civilian"', 'nick = "Маша_2"\nrole = "mayor"')
    text = text.replace('nick = "Ёжик в тумане"\nrole = "vsb"',
                        'nick = "Ёжик в тумане"\nrole = "judge"')
    toml.write_text(text, encoding="utf-8")
    return seed_game


def _mayor_row(data: dict) -> dict:
    return next(c for c in data["counts"] if "Маша_2" in c["voters"])


def test_R14_mayor_x2_on_the_page_as_in_the_count(game, capsys):
    """R14 Mayor: the page marks the Mayor's vote «×2» next to the nick, and the number of
    votes is the count's (the tally API and ``tally --format json`` agree)."""
    code, out, err = cli(capsys, "tally", game, "--day", 1, "--offline", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    row = _mayor_row(data)
    assert row["doubled"] == ["Маша_2"] and row["votes"] == len(row["voters"]) + 1
    _, c = client_for(game)
    html = c.get("/games/m2").get_data(as_text=True)
    assert c.get("/api/games/m2/tally?day=1").get_json() == data
    li = next(x for x in re.findall(r"<li>.*?</li>", html) if "Маша_2" in x)
    assert re.search(r'Маша_2</a> <span class="double">×2</span>', li), li
    assert f'<span class="votes">{row["votes"]}</span>' in li
    assert html.count("×2") == 1                     # nobody else's vote is doubled


def test_R14_judge_pardon_on_the_page_nobody_jailed(game, capsys):
    """R14 Judge (R14.1 (1)): with the Judge's «помиловать» among the day's moves, the final
    count on the page says nobody is jailed and whom the pardon spared, as ``tally`` does."""
    store_move(game, "ezhik@example.org", "Помиловать!", datetime(2024, 4, 9, 19, 0, tzinfo=MSK),
               "j1")
    code, out, err = cli(capsys, "tally", game, "--day", 1, "--offline", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["lynch"] is None and data["pardoned"] is True and data["spared"] == "Алексей"
    _, c = client_for(game)
    html = c.get("/games/m2").get_data(as_text=True)
    assert "Посадки нет — Судья помиловал: <b>Алексей</b>" in html
    assert "Посадка: <b>" not in html


def test_R14_mayor_x2_redrawn_by_the_script_in_chromium(game):
    """The page's script redraws the count from the API every 5 s: the «×2» stays, as text."""
    chromium = _need_browser()
    from playwright.sync_api import expect, sync_playwright
    from waitress import create_server
    app = create_app(game, token=TOKEN, clock=FakeClock(datetime(2024, 4, 9, 21, 0, tzinfo=MSK)))
    server = create_server(app, host="127.0.0.1", port=0, threads=2)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.effective_port}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(chromium), args=ARGS, headless=True)
            try:
                page = browser.new_page()
                console = _console_errors(page)
                page.goto(f"{base}/?token={TOKEN}")
                page.goto(f"{base}/games/m2")
                count = page.locator("#count")
                expect(count).to_have_attribute("data-refreshed", "1", timeout=10_000)
                li = count.locator("li", has_text="Маша_2")
                expect(li.locator("span.double")).to_have_text("×2")
                assert count.locator("span.double").count() == 1
                assert console == [], console
            finally:
                browser.close()
    finally:
        server.close()
