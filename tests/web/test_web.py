"""The host's page (issue 17, CONTRACT "The host's page") through Flask's test client: the
token and its cookie, CSRF, the pages, the tally API against `tally --format json --offline`,
and each action against its command.

The game is fixtures/games/day1 with its day-1 topic stored from the real phpBB 3.3.15 pages
(as tests/cli/test_tally_cli.py stores it); the clock is the page's own (FakeClock) where the time
of day matters.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from test_publish import NEWSPAPER, world  # noqa: F401 (a fixture)
from test_tally_cli import ROOT, store_topic

from scraper_mod.cli import main
from scraper_mod.clock import FakeClock
from scraper_mod.web import create_app
from scraper_mod.web.actions import ACTIONS

MSK = ZoneInfo("Europe/Moscow")
TOKEN = "test-token-Zq9"
SECRETS = ("boss", "commissar", "Комиссар", "Босс", "Маньяк", "maniac", "random_list",
           "vasya@example.org")


@pytest.fixture
def game(tmp_path) -> Path:
    folder = tmp_path / "m2"
    folder.mkdir()
    (folder / "game.toml").write_text((ROOT / "fixtures" / "games" / "day1" / "game.toml")
                                      .read_text(encoding="utf-8"), encoding="utf-8")
    store_topic(folder)
    return folder


def store_move(folder: Path, sender: str, text: str, at: datetime, key: str) -> None:
    """A move letter as the Maildir source stores it (raw bytes first, CONTRACT: nothing lost)."""
    from email.message import EmailMessage

    from scraper_mod.store import Store
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, "host@example.org", "ход"
    msg["Message-ID"] = f"<{key}@example.org>"
    msg.set_content(text)
    with Store(folder / "state.sqlite3") as store:
        store.add_message("maildir:moves", key, msg.as_bytes(), received_at=at, stored_at=at)


def client_for(target: Path, *, at: datetime | None = None, login: bool = True):
    app = create_app(target, token=TOKEN, clock=FakeClock(at) if at else None)
    c = app.test_client()
    if login:
        assert c.get(f"/?token={TOKEN}").status_code == 303
    return app, c


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


# --- the token ------------------------------------------------------------------------------

def test_without_the_token_nothing_is_shown(game):
    _, c = client_for(game, login=False)
    for url in ("/", "/games/m2", "/api/games/m2/tally?day=1", "/api/games/m2/secret",
                "/api/games/m2/chart", "/static/game.js", "/games/nope"):
        r = c.get(url)
        assert r.status_code == 401, url
        body = r.get_data(as_text=True)
        assert "Алексей" not in body and "Игра 2" not in body and "m2" not in body
        assert not any(s in body for s in SECRETS)
    r = c.get("/games/m2?token=wrong-token")
    assert r.status_code == 403 and "Алексей" not in r.get_data(as_text=True)
    c.set_cookie("scraper_mod_token_80", "guessed")
    assert c.get("/games/m2").status_code == 403
    r = c.post("/games/m2/actions/move-deadline", data={"day": "1", "time": "2024-04-09T21:00"})
    assert r.status_code == 403


def test_the_token_becomes_an_httponly_strict_cookie_and_leaves_the_url(game):
    _, c = client_for(game, login=False)
    r = c.get(f"/games/m2?day=1&token={TOKEN}")
    assert r.status_code == 303
    assert r.headers["Location"] == "/games/m2?day=1"          # the token is gone from it
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith("scraper_mod_token_80=") and TOKEN not in cookie
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    r = c.get("/games/m2?day=1")
    assert r.status_code == 200
    assert r.headers["Cache-Control"] == "no-store" and r.headers["X-Frame-Options"] == "DENY"
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    assert TOKEN not in r.get_data(as_text=True)


# --- the pages ------------------------------------------------------------------------------

def test_the_game_page_after_the_deadline(game):
    """The final count with every vote linked to its post, the lynch, the chart with the
    deadline marked, the late vote as an alert; no role, move or random list in the source."""
    _, c = client_for(game)
    html = c.get("/games/m2").get_data(as_text=True)
    assert "Игра 2: день 1" in html and "Итог голосования" in html
    assert 'href="http://127.0.0.1/viewtopic.php?t=4"' in html
    assert "вторник, 9 апреля, 20:00 МСК" in html and "срок прошёл" in html
    assert re.search(r'<b class="target">Алексей</b> — <span class="votes">6</span>', html)
    assert 'href="http://127.0.0.1/viewtopic.php?p=83#p83"' in html      # NightOwl's vote
    assert "Посадка: <b>Алексей</b>" in html
    assert '<svg class="chart"' in html and 'class="deadline"' in html
    legend = re.findall(r'class="legend"[^>]*>([^<]*)</text>', html)
    assert legend[:2] == ["Алексей — 6", "NightOwl — 2"]      # the final count ...
    assert len(legend) == html.count('class="series"') > 2   # ... and who had votes earlier
    assert all(x.endswith(" — 0") for x in legend[2:])
    assert "Пост после срока" in html and "viewtopic.php?p=97#p97" in html
    assert "не запущен" in html                          # no daemon holds run.lock
    assert not any(s in html for s in SECRETS), [s for s in SECRETS if s in html]
    assert "Показать ходы" in html and 'id="secret" hidden></div>' in html


def test_the_live_page_before_the_deadline(game):
    _, c = client_for(game, at=datetime(2024, 4, 9, 12, 0, tzinfo=MSK))
    html = c.get("/games/m2").get_data(as_text=True)
    assert "Подсчёт голосов" in html and "на 12:00:00" in html
    assert 'data-now="2024-04-09T12:00:00+03:00"' in html
    assert "Не голосуют: doc_Holiday, Игрок-7" in html
    assert 'class="now"' in html and 'class="lynch"' not in html


def test_the_secret_moves_come_only_from_their_own_route(game):
    _, c = client_for(game)
    data = c.get("/api/games/m2/secret?day=1").get_json()
    assert data["day"] == 1 and data["moves"] == []
    assert {(a["player"], a["kind"]) for a in data["awaiting"]} == {
        ("Big Joe", "kill"), ("Игрок-7", "kill"), ("doc_Holiday", "heal"),
        ("Алексей", "check")}
    assert {a["role_name"] for a in data["awaiting"]} >= {"Маньяк", "Доктор", "Комиссар"}
    store_move(game, "doc@example.org", "лечу Машу", datetime(2024, 4, 9, 11, 0, tzinfo=MSK), "1")
    store_move(game, "stranger@example.net", "убиваю Васю",
               datetime(2024, 4, 9, 11, 5, tzinfo=MSK), "2")
    data = c.get("/api/games/m2/secret?day=1").get_json()
    assert [(m["player"], m["kind"], m["target"], m["status"]) for m in data["moves"]] == [
        ("doc_Holiday", "heal", "Маша_2", "counted"),
        ("stranger@example.net", "kill", "Вася", "unknown_sender")]
    assert ("doc_Holiday", "heal") not in {(a["player"], a["kind"]) for a in data["awaiting"]}
    html = c.get("/games/m2").get_data(as_text=True)       # the page: an alert, no move
    assert "Неизвестный отправитель" in html and "stranger@example.net" in html
    assert "лечу" not in html and "Маша_2</td>" not in html


def test_the_games_page_of_a_folder(game, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "game.toml").write_text("[game]\ntitle = 1\n", encoding="utf-8")
    _, c = client_for(tmp_path, at=datetime(2024, 4, 9, 19, 0, tzinfo=MSK))
    html = c.get("/").get_data(as_text=True)
    assert 'href="/games/m2"' in html and "Алексей (6)" in html
    assert "broken" in html and "game.toml" in html
    assert c.get("/games/broken").status_code == 409


# --- the tally API is `tally --format json --offline` --------------------------------------

def test_the_tally_api_equals_the_command(game, capsys):
    _, c = client_for(game)
    code, out, err = cli(capsys, "tally", game, "--day", 1, "--offline", "--format", "json")
    assert code == 0, err
    r = c.get("/api/games/m2/tally?day=1")
    assert r.status_code == 200 and r.mimetype == "application/json"
    assert r.get_json() == json.loads(out)
    code, out, err = cli(capsys, "tally", game, "--offline", "--format", "json",
                         "--at", "2024-04-09T12:00")
    assert code == 0, err
    assert c.get("/api/games/m2/tally?at=2024-04-09T12:00").get_json() == json.loads(out)
    # the same refusal, in the same words
    code, out, err = cli(capsys, "tally", game, "--offline", "--at", "2099-01-01T00:00")
    r = c.get("/api/games/m2/tally?at=2099-01-01T00:00")
    assert code == 1 and r.status_code == 409
    assert err.strip() == "ошибка: " + r.get_json()["ru"]    # issue 39: Russian only


# --- the actions ----------------------------------------------------------------------------

def test_an_action_needs_the_csrf_token(game, capsys):
    _, c = client_for(game, at=datetime(2024, 4, 9, 12, 0, tzinfo=MSK))
    _, before, _ = cli(capsys, "day", "list", game)
    form = {"day": "1", "time": "2024-04-09T21:30"}
    assert c.post("/games/m2/actions/move-deadline", data=form).status_code == 403
    assert c.post("/games/m2/actions/move-deadline",
                  data={**form, "csrf": "not-it"}).status_code == 403
    token = csrf_of(c.get("/games/m2").get_data(as_text=True))
    r = c.post("/games/m2/actions/move-deadline", data={**form, "csrf": token},
               headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    assert c.get("/games/m2/actions/move-deadline").status_code == 405     # never a GET
    _, after, _ = cli(capsys, "day", "list", game)
    assert after == before


def test_move_the_deadline_as_day_move_does(game, capsys):
    _, c = client_for(game, at=datetime(2024, 4, 9, 12, 0, tzinfo=MSK))
    token = csrf_of(c.get("/games/m2").get_data(as_text=True))
    r = c.post("/games/m2/actions/move-deadline",
               data={"day": "1", "time": "2024-04-09T21:30", "csrf": token})
    assert r.status_code == 303 and r.headers["Location"] == "/games/m2"
    html = c.get("/games/m2").get_data(as_text=True)
    assert ("День 1: срок перенесён: вторник, 9 апреля, 20:00:00 МСК → вторник, 9 апреля, "
            "21:30:00 МСК") in html
    assert "вторник, 9 апреля, 21:30 МСК</span> (перенесён)" in html
    code, out, _ = cli(capsys, "day", "list", game)      # (the command's clock is the real one)
    assert "day 1: due      starts Mon 2024-04-08 21:00:00 MSK, deadline Tue 2024-04-09 " \
           "21:30:00 MSK (moved)" in out
    # a refusal is shown, and changes nothing
    r = c.post("/games/m2/actions/move-deadline",
               data={"day": "1", "time": "yesterday", "csrf": token}, follow_redirects=True)
    assert ("Ошибка: time: это не время в формате ISO 8601: &#39;yesterday&#39;"
            in r.get_data(as_text=True))
    assert cli(capsys, "day", "list", game)[1] == out


def test_open_a_days_topic_as_day_open_does(game, capsys):
    _, c = client_for(game, at=datetime(2024, 4, 9, 12, 0, tzinfo=MSK))
    token = csrf_of(c.get("/games/m2").get_data(as_text=True))
    r = c.post("/games/m2/actions/open-day", follow_redirects=True,
               data={"day": "2", "url": "http://127.0.0.1/viewtopic.php?t=9&sid=abc",
                     "csrf": token})
    assert "День 2: тема http://127.0.0.1/viewtopic.php?t=9" in r.get_data(as_text=True)
    code, out, _ = cli(capsys, "day", "list", game)
    assert "; topic http://127.0.0.1/viewtopic.php?t=9\n" in out      # sid= dropped, as the CLI
    r = c.post("/games/m2/actions/open-day", follow_redirects=True,
               data={"day": "3", "url": "http://127.0.0.1/index.php", "csrf": token})
    assert "Ошибка: это не адрес темы phpBB" in r.get_data(as_text=True)


def test_publish_in_review_mode_as_publish_does(world):   # noqa: F811
    game, board, clock = world
    app = create_app(game, token=TOKEN, clock=clock)
    c = app.test_client()
    c.get(f"/?token={TOKEN}")
    token = csrf_of(c.get(f"/games/{game.name}").get_data(as_text=True))
    r = c.post(f"/games/{game.name}/actions/publish", data={"day": "1", "csrf": token},
               follow_redirects=True)
    html = r.get_data(as_text=True)
    assert f"posted: newspaper → {board.url}viewtopic.php?t=2" in html
    assert "posted: pm → Big Joe" in html
    assert board.topics[2].posts[-1].body == NEWSPAPER
    r = c.post(f"/games/{game.name}/actions/publish", data={"day": "1", "csrf": token},
               follow_redirects=True)
    assert "already: newspaper" in r.get_data(as_text=True)
    assert len(board.topics[2].posts) == 2                      # never twice (R12.2)


def test_every_action_has_its_form_and_words():
    assert set(ACTIONS) >= {"move-deadline", "open-day", "publish"}
    from scraper_mod.web.i18n import WORDS
    for a in ACTIONS.values():
        assert a.title in WORDS and all(f.label in WORDS for f in a.fields)


def test_the_history_ends_on_the_count_and_steps_only_on_a_change(game):
    """game/history.py: the rules' count fed vote by vote; its last step is the count."""
    from scraper_mod.game.context import open_game
    from scraper_mod.game.day.tally import tally_day
    from scraper_mod.game.history.daychart import vote_history
    ctx = open_game(game)
    try:
        for at in (datetime(2024, 4, 9, 12, 0, tzinfo=MSK), None):
            t = tally_day(ctx, 1, as_of=at)
            steps = vote_history(t, self_votes=True)
            assert steps[-1].counts == {c.target: c.votes for c in t.tally.counts}
            assert all(a.counts != b.counts and a.at <= b.at for a, b in zip(steps, steps[1:]))
            assert all(s.at <= t.as_of for s in steps)
            assert sum(steps[-1].counts.values()) == len(t.tally.votes)
    finally:
        ctx.close()


def test_the_page_reads_well_in_russian(game):
    """R9.6 and the editor's rules (tests/russian_text.py) on everything the page says, an
    action's answer and the alerts included."""
    from html import unescape

    from russian_text import check_ru
    store_move(game, "stranger@example.net", "убиваю Васю",
               datetime(2024, 4, 9, 11, 5, tzinfo=MSK), "2")
    _, c = client_for(game, at=datetime(2024, 4, 9, 12, 0, tzinfo=MSK))
    token = csrf_of(c.get("/games/m2").get_data(as_text=True))
    html = c.post("/games/m2/actions/move-deadline", follow_redirects=True,
                  data={"day": "1", "time": "2024-04-09T21:30", "csrf": token}).get_data(
                      as_text=True)
    body = html[html.index("<main>"):html.index("</main>")]
    body = re.sub(r"<svg.*?</svg>", " ", body, flags=re.S)
    text = unescape(re.sub(r"<[^>]+>", " ", body))
    assert "День 2: начало — вторник, 9 апреля" in text
    nicks = ("Вася", "Маша_2", "Big Joe", "Алексей", "NightOwl", "Игрок-7", "Ёжик в тумане",
             "doc_Holiday")
    assert check_ru(text, nicks, players=False) == []


def test_an_english_game_gets_an_english_page(game):
    from html import unescape

    from russian_text import check_en
    toml = game / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('language = "ru"',
                                                             'language = "en"'), encoding="utf-8")
    _, c = client_for(game, at=datetime(2024, 4, 9, 12, 0, tzinfo=MSK))
    html = c.get("/games/m2").get_data(as_text=True)
    assert '<html lang="en">' in html
    assert "The vote count" in html and "Tuesday, 9 April, 20:00 MSK" in html
    assert "Not voting: doc_Holiday, Игрок-7" in html and "Show the moves" in html
    body = unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<svg.*?</svg>", " ",
                                                   html[html.index("<main>"):], flags=re.S)))
    assert not re.search(r"Подсч|Срок|Ночные|Действия", body)
    assert check_en(body, ("Вася", "NightOwl"), players=False) == []


def test_after_the_resolution_the_posts_as_phpbb_shows_them(game, capsys):
    """Day 1 resolved (`resolve --offline`): the page turns to day 2, shows day 1's newspaper
    and day start through the preview renderer; the host report only via the secret route."""
    code, out, err = cli(capsys, "resolve", game, "--day", 1, "--offline")
    assert code == 0, err
    report = (game / "out" / "day-1" / "host-report.txt").read_text(encoding="utf-8")
    _, c = client_for(game)
    html = c.get("/games/m2").get_data(as_text=True)
    assert "Игра 2: день 2" in html and "У дня 2 нет темы" in html
    assert "Посты дня 1" in html
    assert ('<span style="font-size:150%;line-height:116%"><strong class="text-strong">'
            'Игра 2 — итоги дня 1</strong></span>') in html        # phpBB 3.3's own markup
    assert 'По итогам голосования садится <strong class="text-strong">Алексей</strong>' in html
    assert "[b]" not in html
    assert report.splitlines()[0] not in html
    secret = c.get("/api/games/m2/secret").get_json()
    assert secret["day"] == 2 and secret["report_day"] == 1 and secret["report"] == report
    day1 = c.get("/games/m2?day=1").get_data(as_text=True)     # any day by its number
    assert "Итог голосования" in day1 and "Посадка: <b>Алексей</b>" in day1


# --- the host's decisions (R10, R11) from the page: the services of `decide` and `replace` ---

def _tally(c) -> dict:
    return c.get("/api/games/m2/tally?day=1").get_json()


def test_R11_decide_a_post_and_undo_it_from_the_page_as_decide_does(game, capsys):
    _, c = client_for(game, at=datetime(2024, 4, 9, 19, 0, tzinfo=MSK))
    token = csrf_of(c.get("/games/m2").get_data(as_text=True))
    before = _tally(c)
    assert {"voter": "Вася", "target": "Алексей", "post_id": 91,
            "at": "2024-04-09T19:05:06+03:00"} not in before["votes"]      # 19:00: not yet
    c2 = client_for(game, at=datetime(2024, 4, 9, 21, 0, tzinfo=MSK))[1]
    token = csrf_of(c2.get("/games/m2").get_data(as_text=True))
    final = _tally(c2)
    assert [c["votes"] for c in final["counts"] if c["target"] == "Алексей"] == [6]
    # R11.1: Вася's post 91 read as no vote
    r = c2.post("/games/m2/actions/decide-vote", follow_redirects=True,
                data={"post": "91", "nick": "none", "why": "шутка", "csrf": token})
    html = r.get_data(as_text=True)
    assert "Решение №1: post 91 (day 1) reads as no vote" in html
    decided = _tally(c2)
    assert [c["votes"] for c in decided["counts"] if c["target"] == "Алексей"] == [5]
    assert all(v["post_id"] != 91 for v in decided["votes"])
    assert decided == json.loads(cli(capsys, "tally", game, "--offline", "--format", "json",
                                     "--day", "1")[1])             # the page counts as the CLI
    code, listing, _ = cli(capsys, "decide", game, "list")
    assert code == 0 and "шутка" in listing and "post 91" in listing
    # R11.3: taken back from the page, the count is the original again
    r = c2.post("/games/m2/actions/undo-decision", follow_redirects=True,
                data={"k": "1", "csrf": token})
    assert "Решение №1:" in r.get_data(as_text=True)
    assert _tally(c2) == final
    # a post in no day's topic: one line, nothing changed
    r = c2.post("/games/m2/actions/decide-vote", follow_redirects=True,
                data={"post": "999999", "nick": "none", "why": "x", "csrf": token})
    assert "Ошибка: поста 999999 нет ни в одной теме дня" in r.get_data(as_text=True)
    assert _tally(c2) == final


def test_R10_R11_replace_and_remove_from_the_page(game, capsys):
    _, c = client_for(game, at=datetime(2024, 4, 9, 21, 0, tzinfo=MSK))
    token = csrf_of(c.get("/games/m2").get_data(as_text=True))
    # R10: Новичок takes Маша_2's slot from 18:00; her 19:59:30 vote is no longer the slot's
    r = c.post("/games/m2/actions/replace", follow_redirects=True,
               data={"old": "Маша_2", "new": "Новичок", "at": "2024-04-09T18:00",
                     "why": "ушла", "csrf": token})
    assert "Новичок takes Маша_2&#39;s slot" in r.get_data(as_text=True)
    t = _tally(c)
    assert all(v["voter"] != "Маша_2" and v["post_id"] != 96 for v in t["votes"])
    # R11.2: the host removes NightOwl at 17:00: his 16:02 vote stops counting
    r = c.post("/games/m2/actions/decide-kill", follow_redirects=True,
               data={"nick": "NightOwl", "at": "2024-04-09T17:00", "why": "неактивность",
                     "csrf": token})
    assert "NightOwl is removed from the game" in r.get_data(as_text=True)
    t = _tally(c)
    assert all(v["voter"] != "NightOwl" for v in t["votes"])
    assert [c["votes"] for c in t["counts"] if c["target"] == "Алексей"] == [5]
    code, listing, _ = cli(capsys, "decide", game, "list")
    assert "неактивность" in listing and "Новичок" in listing


def test_the_page_shows_what_a_count_shows(game):
    """Issue 39 item 3 on the host's page: the votes that did not count, each with its reason
    and its post's link, and the posts of each living player that day."""
    _, c = client_for(game)
    html = c.get("/games/m2").get_data(as_text=True)
    more = html.split('class="count-more"', 1)[1].split("</div>", 1)[0]
    assert 'href="http://127.0.0.1/viewtopic.php?p=97#p97"' in more and "пост после срока" in more
    assert "Постов за день: Вася — 4, Маша_2 — 5" in more
    # issue 39 item 5: on a phone the chart scrolls: its legend and «срок» in HTML too
    assert '<p class="chart-deadline">срок 20:00</p>' in html
    assert re.search(r'<ul class="chart-legend"><li><span class="swatch" [^>]*></span>'
                     r'Алексей — 6</li>', html)
