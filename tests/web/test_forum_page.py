"""The forum's page of `serve FOLDER` (RULES R15.3, issue 38 item 4): the games (finished and
running, each linking to its game page; older games listed), the players' table sorted by
rating, games or wins with a rating chart per player; in Russian, and in a real headless
Chromium at a phone's 390 px (like tests/web/test_web_browser.py).

The folder: the demo game played to its end by the daemon (finished, its record written when
it ended), the day-1 game of tests/web/test_web.py (running), an older game's record.toml, and
a season of two more records.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from test_tally_cli import ROOT, store_topic
from test_web import TOKEN, client_for
from test_web_browser import ARGS, _need_browser

from scraper_mod.demo.world import run_demo
from scraper_mod.game.history.record import record_bytes
from scraper_mod.game.history.stats import forum_stats, load_records
from scraper_mod.web import create_app

OLD = """\
[game]
title = "Старая партия"
start = 2023-01-10
end = 2023-01-12
winner = "mafia"
[[players]]
nick = "Петя"
role = "boss"
[[players]]
nick = "Гоша"
role = "commissar"
died = { day = 1, how = "jailed" }
[[players]]
nick = "Коля"
role = "civilian"
died = { day = 1, how = "mafia" }
"""


def _season(n: int, winner: str) -> dict:
    players = [("Петя", "boss", "mafia"), ("Гоша", "commissar", "town"),
               ("Коля", "civilian", "town"), ("Очень_длинный_ник_игрока_2024", "doctor", "town")]
    return {"record": 1, "source": "game", "title": f"Сезон #{n}", "start": f"2023-0{n}-01",
            "end": f"2023-0{n}-03", "language": "ru", "winner": winner, "decided_day": 2,
            "setup": {"boss": 1, "civilian": 1, "commissar": 1, "doctor": 1},
            "players": [{"slot": i + 1, "users": [{"nick": nick, "from_day": 1}], "role": role,
                         "side": side, "died": None if side == winner else {
                             "day": 2, "how": "jailed", "by": "votes"}}
                        for i, (nick, role, side) in enumerate(players)],
            "days": []}


@pytest.fixture(scope="module")
def forum(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("forum")
    result = run_demo(keep=root / "demo", out=lambda line: None)
    assert result.winner == "town"
    running = root / "m2"
    running.mkdir()
    (running / "game.toml").write_text((ROOT / "fixtures" / "games" / "day1" / "game.toml")
                                       .read_text(encoding="utf-8"), encoding="utf-8")
    store_topic(running)
    (root / "archive" / "old-1").mkdir(parents=True)
    (root / "archive" / "old-1" / "record.toml").write_text(OLD, encoding="utf-8")
    for n, winner in ((2, "mafia"), (3, "town")):
        (root / "archive" / f"season-{n}").mkdir()
        (root / "archive" / f"season-{n}" / "record.json").write_bytes(
            record_bytes(_season(n, winner)))
    return root


def _rows(html: str) -> list[tuple[str, float, int, int]]:
    return [(nick, float(r), int(g), int(w)) for nick, r, g, w in re.findall(
        r'<td class="nick">([^<]+)</td>\s*<td class="num rating"[^>]*>([\d.]+)</td>\s*'
        r'<td class="num games">(\d+)</td><td class="num wins">(\d+)</td>', html)]


def test_R15_3_the_forum_page_lists_the_games_and_the_players(forum):
    _, c = client_for(forum)
    assert 'href="/forum"' in c.get("/").get_data(as_text=True)
    r = c.get("/forum")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert '<html lang="ru">' in html and "Игроки" in html and "Рейтинг" in html
    # the games: the running one first, each game of `serve` linking to its page
    assert '<a href="/games/m2">' in html and '<a href="/games/demo">Мафия-демо</a>' in html
    assert html.index("/games/m2") < html.index("/games/demo")
    assert "идёт, день 1" in html and "победа: город, день 5" in html
    assert "Старая партия" in html and "записана ведущим" in html and "Сезон #3" in html
    # the players, best rated first, as stats counts them
    stats = forum_stats(load_records(forum))
    rows = _rows(html)
    assert [n for n, *_ in rows] == [p["nick"] for p in stats.players]
    assert [(g, w) for _, _, g, w in rows] == [(p["games"], p["wins"]) for p in stats.players]
    ratings = [r for _, r, _, _ in rows]
    assert ratings == sorted(ratings, reverse=True)
    petya = next(p for p in stats.players if p["nick"] == "Петя")
    assert petya["games"] == 3 + 1 and html.count("<svg class=\"spark\"") == len(rows)


@pytest.mark.parametrize("sort", ["games", "wins"])
def test_R15_3_the_players_sorted_by_games_and_wins(forum, sort):
    _, c = client_for(forum)
    rows = _rows(c.get(f"/forum?sort={sort}").get_data(as_text=True))
    key = {"games": 2, "wins": 3}[sort]
    assert [r[key] for r in rows] == sorted((r[key] for r in rows), reverse=True)
    by_rating = _rows(c.get("/forum").get_data(as_text=True))
    assert sorted(rows) == sorted(by_rating)          # the same players, in another order
    assert rows != by_rating                          # Петя, Гоша, Коля: 4 games each lead


def test_the_forum_page_needs_the_token_and_a_broken_record_is_one_line(forum, tmp_path):
    _, anon = client_for(forum, login=False)
    r = anon.get("/forum")
    assert r.status_code == 401 and "Петя" not in r.get_data(as_text=True)
    bad = tmp_path / "g"
    bad.mkdir()
    (bad / "record.toml").write_text(OLD.replace('"boss"', '"wizard"'), encoding="utf-8")
    (tmp_path / "m2").mkdir()
    (tmp_path / "m2" / "game.toml").write_text(
        (forum / "m2" / "game.toml").read_text(encoding="utf-8"), encoding="utf-8")
    _, c = client_for(tmp_path)
    r = c.get("/forum")
    html = r.get_data(as_text=True)
    # a Russian record (the default language): its error box is Russian only (issue 39)
    assert r.status_code == 409 and "неизвестная роль &#39;wizard&#39;" in html
    assert "Traceback" not in html


def test_R15_3_the_forum_page_in_chromium_at_390_px(forum, tmp_path):
    chromium = _need_browser()
    from playwright.sync_api import expect, sync_playwright
    from waitress import create_server
    app = create_app(forum, token=TOKEN)
    server = create_server(app, host="127.0.0.1", port=0, threads=2)
    threading.Thread(target=server.run, daemon=True).start()
    base = f"http://127.0.0.1:{server.effective_port}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(chromium), args=ARGS,
                                        headless=True)
            try:
                page = browser.new_page(viewport={"width": 390, "height": 844})
                errors: list[str] = []
                page.on("console", lambda m: errors.append(m.text) if m.type == "error"
                        else None)
                page.goto(f"{base}/?token={TOKEN}")
                page.click("#to-forum")
                assert page.url == f"{base}/forum"
                expect(page.locator("h1")).to_have_text("Форум")
                rows = page.locator("table.players tbody tr")
                expect(rows.first.locator("td.nick")).to_be_visible()
                count = rows.count()
                assert count == len(forum_stats(load_records(forum)).players)
                # nothing wider than the phone: the page does not scroll sideways
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 390, width
                assert page.locator("svg.spark").count() == count
                box = page.locator("svg.spark").first.bounding_box()
                assert box and box["width"] > 20 and box["height"] > 10
                # sort by games: a click on the header, then the numbers go down
                header = page.locator("table.players th a[href$='sort=games']")
                expect(header).to_have_text("Игр")
                header.click()
                expect(page).to_have_url(f"{base}/forum?sort=games")
                games = [int(t) for t in page.locator("td.games").all_inner_texts()]
                assert games == sorted(games, reverse=True) and len(games) == count
                page.click("table.players th a[href$='sort=wins']")
                expect(page).to_have_url(f"{base}/forum?sort=wins")
                wins = [int(t) for t in page.locator("td.wins").all_inner_texts()]
                assert wins == sorted(wins, reverse=True)
                # a game's link opens its page
                page.click("#forum-games >> text=Мафия-демо")
                expect(page).to_have_url(f"{base}/games/demo")
                page.goto(f"{base}/forum")
                page.screenshot(path=str(tmp_path / "forum-390.png"), full_page=True)
                assert errors == []
            finally:
                browser.close()
    finally:
        server.close()
