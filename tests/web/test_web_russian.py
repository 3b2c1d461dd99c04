"""Issue 27 item 2: the page of a game in Russian has no English sentence. Every state of the
page is rendered in `ru` — the live day with alerts and a daemon error, the moves as the host's
click shows them, the day after its deadline, each resolved day of a whole game and the game
over, the games list, the publishing plan — and its text is searched for the English phrases
the code itself can produce (the page's words, move and vote reasons, publishing kinds and
statuses, the winner, the daemon's own error sentences).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from html import unescape
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from test_demo import played  # noqa: F401 (a fixture: the demo's whole game, kept)
from test_russian_errors import latin_words
from test_web import TOKEN, client_for, game, store_move  # noqa: F401 (game is a fixture)

from scraper_mod.clock import FakeClock
from scraper_mod.daemon.scheduler import Daemon
from scraper_mod.errors import ForumError
from scraper_mod.game.context import open_game
from scraper_mod.rules import votes
from scraper_mod.rules.moves import REASONS as MOVE_REASONS
from scraper_mod.web import create_app
from scraper_mod.web.i18n import MOVE_STATUS, PUBLISH_KIND, PUBLISH_STATUS, ROLE_KIND, WORDS

MSK = ZoneInfo("Europe/Moscow")
ROOT = Path(__file__).resolve().parents[2]

# the daemon's own English sentences around an error (daemon/scheduler.py), and those of the
# services the page's actions call (game/day/days.py, game/roster/host.py, game/setup/timearg.py)
DAEMON_PHRASES = ("failed", "will try again", "trying again", "cannot be resolved",
                  "the host report will say so", "check [moves]", "has no topic",
                  "changed but cannot be used", "is NOT resolved", "is already resolved",
                  "cannot move now", "not an ISO 8601 time", "unknown player",
                  "is out of the game", "does not play at", "there is no decision",
                  "not a phpBB topic address", "not a forum address", "error:")


def _english_phrases() -> set[str]:
    """The English phrases the code can put on the page: every English text of the page's
    tables and of the reasons, cut at placeholders, two words or more; and the winners."""
    texts = [t["en"] for table in (WORDS, MOVE_STATUS, ROLE_KIND, PUBLISH_KIND,
                                   PUBLISH_STATUS, votes.REASONS) for t in table.values()]
    texts += list(MOVE_REASONS.values()) + list(DAEMON_PHRASES)
    phrases = set()
    for text in texts:
        for piece in re.split(r"\{[^}]*\}|[:;()]", text):
            piece = piece.strip(" .,—-")
            piece = piece.replace("scraper-mod run", "").replace("scraper-mod serve", "").strip()
            if len(piece.split()) >= 2 and re.search(r"[a-z]{3}", piece):   # commands stay
                phrases.add(piece)
    phrases |= {"town wins", "mafia wins", "maniac wins", "победа: town", "победа: mafia"}
    return phrases


PHRASES = _english_phrases()


def visible(html: str) -> str:
    """What a reader sees: the text outside tags and scripts; the chart's SVG kept (its
    labels are read too)."""
    html = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    attrs = " ".join(unescape(a) for a in re.findall(r'data-l-[a-z-]+="([^"]*)"', html))
    return unescape(re.sub(r"<[^>]+>", " ", html)) + " " + attrs


def english_in(text: str) -> list[str]:
    return sorted(p for p in PHRASES if p.lower() in text.lower())


def test_the_phrase_list_is_real():
    """The search finds what it must: the old page's «победа: town» and an English reason."""
    assert len(PHRASES) > 150
    assert english_in("Игра окончена, победа: town") == ["победа: town"]
    assert "the target is the ВСБ, whom the mafia cannot kill" in PHRASES
    assert english_in("не засчитано: received at or after the deadline (R5.1)")


def _client(target: Path, at: datetime | None):
    app = create_app(target, token=TOKEN, clock=FakeClock(at) if at else None)
    c = app.test_client()
    assert c.get(f"/?token={TOKEN}").status_code == 303
    return c


class _DownBoard:
    """The daemon's operations with the board down: its poll fails as a real one does."""

    def poll(self, ctx, day, *, full):
        raise ForumError("HTTP 503", url="http://127.0.0.1/viewtopic.php?t=4")


def test_the_live_day_its_alerts_a_daemon_error_and_the_moves_in_russian(game):  # noqa: F811
    noon = datetime(2024, 4, 9, 12, 0, tzinfo=MSK)
    store_move(game, "doc@example.org", "лечу Машу", noon - timedelta(hours=1), "1")
    store_move(game, "stranger@example.net", "убиваю Васю", noon - timedelta(minutes=55), "2")
    store_move(game, "doc@example.org", "лечу себя", noon + timedelta(hours=9), "3")   # late
    ctx = open_game(game, clock=FakeClock(noon))
    try:
        Daemon(ctx, ops=_DownBoard()).poll_job()                 # logs the daemon's error
    finally:
        ctx.close()
    for at in (noon, datetime(2024, 4, 9, 21, 0, tzinfo=MSK)):   # before and after the deadline
        c = _client(game, at)
        html = c.get("/games/m2").get_data(as_text=True)
        text = visible(html)
        assert "Ошибки демона" in text and "тему не прочитать" in text
        assert "Неизвестный отправитель" in text
        assert english_in(text) == [], at
        secret = c.get("/api/games/m2/secret?day=1").get_json()
        shown = " ".join(f"{m['role_name']} {m['why']}" for m in secret["moves"])
        shown += " ".join(a["role_name"] for a in secret["awaiting"])
        assert "адрес не принадлежит игроку" in shown
        assert english_in(shown) == []
        assert english_in(visible(c.get("/").get_data(as_text=True))) == []


def test_every_day_of_a_whole_game_and_the_game_over_in_russian(played):  # noqa: F811
    _, _, folder = played
    c = _client(folder, None)
    page = c.get(f"/games/{folder.name}").get_data(as_text=True)
    text = visible(page)
    assert "Игра окончена: победил город" in text and "победа: town" not in text
    assert "не запущен" not in text and "не нужен: игра окончена" in text
    assert english_in(text) == []
    for day in range(1, 6):
        text = visible(c.get(f"/games/{folder.name}?day={day}").get_data(as_text=True))
        assert english_in(text) == [], day
        secret = c.get(f"/api/games/{folder.name}/secret?day={day}").get_json()
        assert secret["resolved"] and secret["awaiting"] == []     # no «Ещё нет хода»
        shown = " ".join(f"{m['role_name']} {m['why']}" for m in secret["moves"])
        assert english_in(shown) == [], day
    whys = {m["why"] for d in range(1, 6) for m in
            c.get(f"/api/games/{folder.name}/secret?day={d}").get_json()["moves"]}
    assert any("ВСБ" in w or "после срока" in w or "адрес" in w for w in whys), whys
    assert english_in(visible(c.get("/").get_data(as_text=True))) == []


def test_the_publishing_plan_in_russian(played, tmp_path):  # noqa: F811
    """A game in review mode: the plan's kinds and statuses are words, not codes."""
    import shutil
    _, _, folder = played
    copy = tmp_path / "g"
    shutil.copytree(folder, copy)
    toml = copy / "game.toml"
    text = toml.read_text(encoding="utf-8")
    text = re.sub(r"\[publish\][^\[]*", "", text) + '\n[publish]\nmode = "review"\n'
    toml.write_text(text, encoding="utf-8")
    page = visible(_client(copy, None).get("/games/g?day=4").get_data(as_text=True))
    assert "ждёт публикации: газета" in page or "опубликовано: газета" in page
    assert english_in(page) == []


@pytest.mark.parametrize("code", sorted(MOVE_REASONS))
def test_every_move_reason_has_russian_words(code):
    from scraper_mod.rules.moves import reason_text
    assert reason_text(code, "ru") != code or code == ""
    assert not english_in(reason_text(code, "ru"))


def test_the_page_actions_errors_in_russian(game):  # noqa: F811
    """The services' errors an action meets (a bad time, an unknown player, no such
    decision, a day already resolved) reach the page in Russian."""
    from test_web import csrf_of
    c = _client(game, datetime(2024, 4, 9, 12, 0, tzinfo=MSK))
    token = csrf_of(c.get("/games/m2").get_data(as_text=True))
    tries = [("move-deadline", {"day": "1", "time": "завтра вечером"}, "это не время"),
             ("decide-kill", {"nick": "Незнакомец", "why": "тест", "at": ""},
              "такого игрока нет"),
             ("undo-decision", {"k": "7"}, "решения №7 нет"),
             ("open-day", {"day": "1", "url": "https://forum.example.org/index.php"},
              "это не адрес темы phpBB")]
    for act, form, expected in tries:
        html = c.post(f"/games/m2/actions/{act}", follow_redirects=True,
                      data={**form, "csrf": token}).get_data(as_text=True)
        failed = re.findall(r'<p class="result failed">([^<]*)</p>', html)
        assert failed and failed[0].startswith("Ошибка: "), (act, failed)
        assert expected in unescape(failed[0]), (act, failed)
        assert english_in(unescape(failed[0])) == [], (act, failed)


# --- issue 39 item 4: the page's error box of a Russian game is Russian only ----------------

def _box(html: str) -> str:
    m = re.search(r'<p class="alert">(.*?)</p>', html, re.S)
    assert m, html
    return unescape(m.group(1))


@pytest.mark.parametrize("old, new, russian", [
    ('host = "admin"', 'host = "Вася"', "ведущий 'Вася' указан и среди игроков"),
    ('role = "civilian"', 'role = "крестьянин"', "неизвестная роль 'крестьянин'"),
    ('[game]\n', '[game]\nzz_unknown = 1\n', "game.zz_unknown: неизвестный ключ"),
])
def test_a_russian_games_error_box_is_russian_only(tmp_path, old, new, russian):
    """A game file that does not load: the page's box (409) says what to fix in Russian only,
    no Latin word but the file, keys and role names (the CLI's check, one rule for both)."""
    folder = tmp_path / "m2"
    folder.mkdir()
    text = (ROOT / "fixtures" / "games" / "day1" / "game.toml").read_text(encoding="utf-8")
    assert old in text
    (folder / "game.toml").write_text(text.replace(old, new, 1), encoding="utf-8")
    _, c = client_for(tmp_path)
    r = c.get("/games/m2")
    assert r.status_code == 409
    box = _box(r.get_data(as_text=True))
    assert russian in box and "Traceback" not in box
    assert latin_words(box) == [], box
    # the games list shows the same line
    assert russian in unescape(c.get("/").get_data(as_text=True))


def test_an_english_games_error_box_stays_english(tmp_path):
    folder = tmp_path / "m2"
    folder.mkdir()
    text = (ROOT / "fixtures" / "games" / "day1" / "game.toml").read_text(encoding="utf-8")
    text = text.replace('language = "ru"', 'language = "en"').replace(
        'host = "admin"', 'host = "Вася"')
    (folder / "game.toml").write_text(text, encoding="utf-8")
    _, c = client_for(tmp_path)
    box = _box(c.get("/games/m2").get_data(as_text=True))
    assert "the host 'Вася' is also a player" in box and "ведущий" not in box
