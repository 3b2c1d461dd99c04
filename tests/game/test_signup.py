"""Sign-ups (issue 29) over a sign-up topic captured from the real phpBB 3.3.15 board
(fixtures/phpbb/signup/, written by its capture.py; README.md there says what each post is):
a quote of another's «+», a signature «+», «+ к сказанному», the host's «+», an edit that
turns a post into a sign-up, a withdrawal and a return, a withdrawal by «не смогу», a late
post, a Latin/Cyrillic look-alike nick, a nick with U+202E, three pages.

The pages are served as the board sent them (``responses``), snapshot "a" (half-way, before
the edit) then "b" (the end), through the real forum reader into the game's state.
"""

from __future__ import annotations

import json
import re
import tomllib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from scraper_mod.cli import main
from scraper_mod.game.context import open_game
from scraper_mod.game.setup.config import load_game

# imported before any mock of requests (forum/direct.py reads HTTPAdapter.send at import)
from scraper_mod.game.setup.signup import SIGNUP_FILE
from scraper_mod.rules.signup import Marks, Sighting, count_signups, fold_mark
from scraper_mod.store import Store

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb" / "signup"
TRUTH = json.loads((FIXTURE / "truth.json").read_text(encoding="utf-8"))
URL = TRUTH["url"]
BASE = URL.split("viewtopic.php")[0]
CLOSE = TRUTH["close"]
ZOYA = "Зоя\u202e"

GAME = f"""# the host's own notes: kept by --write
[game]
title = "Проверка"   # the title as announced
start = 2026-12-10
host = "admin"

[forum]
url = "{BASE}"
min_delay = 0
retries = 0

[signup]
topic = "{URL}"
players = 6

[rules]
freeze_public = true   # a key after [signup], kept in place
"""


class Board:
    """The captured pages of snapshot ``tag``, by their ``start``."""

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def __call__(self, request):
        q = parse_qs(urlsplit(request.url).query)
        page = int((q.get("start") or ["0"])[0]) // 10 + 1
        path = FIXTURE / f"{self.tag}-page{page}.html"
        if not path.exists():
            return 404, {}, b""
        return 200, {"Content-Type": "text/html; charset=UTF-8"}, path.read_bytes()


@pytest.fixture
def board():
    b = Board("b")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.add_callback(responses.GET, re.compile(re.escape(BASE) + r"viewtopic\.php.*"),
                          callback=b)
        yield b


@pytest.fixture
def game(tmp_path) -> Path:
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "game.toml").write_text(GAME, encoding="utf-8")
    return folder


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


PLAYERS = ["Вася", "NightOwl", "Игрок-7", "doc_Holiday", "Кот", "Kот"]
# Ёжик's edit shows «20:45» (the minute): it counts from the minute's end, after Маша_2's
# «Записываюсь!» at 20:45:14
RESERVE = [ZOYA, "Pilot", "Маша_2", "Ёжик в тумане"]


def test_the_whole_topic_gives_the_players_reserve_withdrawn_and_late(board, game, capsys):
    """R13.2: the first N are the players, the rest the reserve in order; sign-ups after the close are late."""
    code, out, err = run(capsys, "signup", str(game), "--close", CLOSE, "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    assert got["players"] == PLAYERS
    # Зоя: the «+» of post 16; Pilot: «в игре» after a «+» in literal [spoiler] words;
    # Маша_2: withdrew, then «+ снова» (a sentence) and «Передумала.\nЗаписываюсь!» (a line
    # of its own); Ёжик: the post edited into «+» (its place: the edit's time)
    assert got["reserve"] == RESERVE
    assert got["withdrawn"] == ["Лиса"]          # «не смогу» on a line of its own
    assert got["late"] == ["Big Joe"]            # his «+» after --close
    assert {"post": TRUTH["posts"]["host"], "why": "the host's post"} in got["ignored"]
    warned = {w["post"]: w["why"] for w in got["warnings"]}
    assert "looks like 'Кот'" in warned[TRUTH["posts"]["kot_latin"]]
    assert "U+202E" in warned[TRUTH["posts"]["zoya"]]
    # Big Joe's quote of Вася's «+» and his signature «+» never made him a player
    assert "Big Joe" not in got["players"] + got["reserve"]
    bb = (game / "out" / SIGNUP_FILE).read_text(encoding="utf-8")
    assert "[b]Список игроков (6)[/b]\n1. Вася\n2. NightOwl\n" in bb
    assert "[b]Запас (4)[/b]\n1. Зоя\n2. Pilot\n3. Маша_2\n4. Ёжик в тумане\n" in bb
    assert "\u202e" not in bb                     # no direction control reaches a post


def test_every_page_is_stored_before_it_is_read(board, game, capsys):
    assert run(capsys, "signup", str(game))[0] == 0
    with Store(game / "state.sqlite3") as store:
        urls = [u for _, u, *_ in store.fetches()]
    assert len(urls) == 3 and all("viewtopic.php?t=2" in u for u in urls)


def test_late_sign_ups_go_to_the_reserve_when_the_host_wants(board, game, capsys):
    code, out, _ = run(capsys, "signup", str(game), "--close", CLOSE, "--late-to-reserve",
                       "--format", "json")
    assert json.loads(out)["reserve"] == RESERVE + ["Big Joe"]
    code, out, _ = run(capsys, "signup", str(game), "--format", "json")   # no close
    assert json.loads(out)["reserve"] == RESERVE + ["Big Joe"]
    assert json.loads(out)["late"] == []


def test_an_edit_counts_from_its_time_seen_over_two_reads(board, game, capsys):
    board.tag = "a"    # half-way: Ёжик's post is «Ещё не знаю, смогу ли.»
    code, out, _ = run(capsys, "signup", str(game), "--format", "json")
    half = json.loads(out)
    assert half["players"] == ["Вася", "Маша_2", "NightOwl", "Игрок-7", "doc_Holiday", "Кот"]
    assert half["reserve"] == [] and half["late"] == []
    board.tag = "b"
    code, out, _ = run(capsys, "signup", str(game), "--close", CLOSE, "--format", "json")
    assert json.loads(out)["reserve"] == RESERVE
    ctx = open_game(game)
    try:      # both versions of Ёжик's post are kept, the first never a sign-up
        versions = [v.data["text"] for v in ctx.store.post_versions(URL)
                    if v.post_id == TRUTH["posts"]["ezhik"]]
    finally:
        ctx.close()
    assert versions == ["Ещё не знаю, смогу ли.", "+"]


def test_write_round_trips_game_toml_and_refuses_after_deal(board, game, capsys):
    code, out, err = run(capsys, "signup", str(game), "--close", CLOSE, "--write",
                         "--skip", ZOYA, "--skip", "Kот")
    assert code == 0, err
    text = (game / "game.toml").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln]
    assert lines[:3] == ["# the host's own notes: kept by --write",
                         'reserve = ["Pilot", "Маша_2", "Ёжик в тумане"] # written by '
                         "scraper-mod signup; replace --from-reserve takes from it", "[game]"]
    assert 'title = "Проверка"   # the title as announced' in text
    assert "freeze_public = true   # a key after [signup], kept in place" in text
    data = tomllib.loads(text)
    assert [p["nick"] for p in data["players"]] == [n for n in PLAYERS if n != "Kот"]
    assert data["players"][0]["forum_id"] == 58
    assert data["reserve"] == ["Pilot", "Маша_2", "Ёжик в тумане"]
    assert load_game(game).reserve == ("Pilot", "Маша_2", "Ёжик в тумане")
    with Store(game / "state.sqlite3") as store:
        store.put("deal", {"roles": {}})
    code, out, err = run(capsys, "signup", str(game), "--close", CLOSE, "--write")
    assert code != 0 and "dealt already" in err and len(err.strip().splitlines()) == 1
    assert (game / "game.toml").read_text(encoding="utf-8") == text


def test_write_refuses_look_alike_nicks_without_a_choice(board, game, capsys):
    before = (game / "game.toml").read_text(encoding="utf-8")
    code, out, err = run(capsys, "signup", str(game), "--close", CLOSE, "--write")
    assert code != 0 and "players[6].nick" in err and "Kот" in err
    assert (game / "game.toml").read_text(encoding="utf-8") == before


def test_replace_from_reserve_takes_the_first_and_the_reserve_shrinks(board, game, capsys):
    """R13.3: a replacement takes the first reserve player who is not playing; the reserve shrinks."""
    assert run(capsys, "signup", str(game), "--close", CLOSE, "--write",
               "--skip", ZOYA, "--skip", "Kот")[0] == 0
    code, out, err = run(capsys, "deal", str(game))
    assert code == 0, err
    code, out, err = run(capsys, "replace", str(game), "Кот", "--from-reserve",
                              "--at", "2026-12-11T12:00")
    assert code == 0, err
    assert "Pilot takes Кот's slot" in out
    assert load_game(game).reserve == ("Маша_2", "Ёжик в тумане")
    code, out, err = run(capsys, "replace", str(game), "Вася", "--from-reserve",
                              "--at", "2026-12-11T12:30")
    assert code == 0, err
    assert "Маша_2 takes Вася's slot" in out
    assert load_game(game).reserve == ("Ёжик в тумане",)


# -- the pure rules ------------------------------------------------------------------------

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def s(pid: int, nick: str, text: str, minute: int, **kw) -> Sighting:
    return Sighting(pid, nick, nick, T0 + timedelta(minutes=minute), text, **kw)


@pytest.mark.parametrize("text, mark", [
    ("+", "join"), ("Я В ИГРЕ!!!", "join"), ("участвую :)", "join"), ("  /in ", "join"),
    ("Всем привет\n+\nдо встречи", "join"), ("+ к сказанному", None), ("я за", None),
    ("Записываюсь снова", None), ("—", "leave"), ("не смогу.", "leave"), ("Минус", "leave"),
    ("OUT", "leave"), ("+\n-", "leave"), ("", None), ("ёжик +", None),
])
def test_marks_are_whole_lines_folded(text, mark):
    assert Marks.of().read(text) == mark


def test_fold_mark_keeps_signs_and_drops_punctuation():
    assert fold_mark("  Я   в игрё!») ") == "я в игре"
    assert fold_mark("+1 👍") == "+1"


def test_configured_marks_replace_the_defaults():
    marks = Marks.of(["беру"], ["пас"])
    assert marks.read("Беру!") == "join" and marks.read("+") is None
    assert marks.read("ПАС") == "leave"


def test_a_second_plus_keeps_the_first_place_and_a_return_goes_to_the_end():
    """R13.2: one place each, the sign-up that still stands; withdrawing and returning goes to the end."""
    got = count_signups([s(1, "A", "+", 0), s(2, "B", "+", 1), s(3, "A", "+", 2),
                         s(4, "C", "+", 3), s(5, "B", "-", 4), s(6, "B", "в игре", 5)], 2)
    assert got.players == ("A", "C") and got.reserve == ("B",) and got.withdrawn == ()


def test_a_mark_edited_away_or_deleted_takes_the_sign_up_back():
    """R13.1: an edited post counts as it stood at its edit time; a deleted one is no sign-up."""
    got = count_signups([s(1, "A", "+", 0), s(2, "B", "+", 1), s(1, "A", "передумал", 2),
                         s(2, "B", "", 3, deleted=True), s(3, "C", "+", 4)], 5)
    assert got.players == ("C",) and got.withdrawn == ()
    assert [n.post for n in got.ignored] == [1, 2]


def test_host_posts_never_count_and_late_withdrawals_do():
    """R13.1: the host's posts never count."""
    got = count_signups([s(1, "H", "+", 0, host=True), s(2, "A", "+", 1), s(3, "B", "+", 2),
                         s(4, "A", "-", 30), s(5, "C", "+", 31)], 1,
                        close=T0 + timedelta(minutes=10))
    assert got.players == ("B",) and got.late == ("C",) and got.withdrawn == ("A",)


def test_an_empty_forum_is_no_topic_not_an_unreadable_page():
    """Day 1's forum at the game's start holds no topic yet (phpBB 3.3.15, prosilver): the
    daemon looks for day 1's topic there before opening it."""
    from scraper_mod.forum.phpbb.parse import parse_forum_page
    body = (FIXTURE / "empty-forum.html").read_bytes()
    assert parse_forum_page(body, url=BASE + "viewforum.php?f=3") == []
    with pytest.raises(Exception, match="truncated|no posts"):
        parse_forum_page(body[: len(body) // 2], url=BASE + "viewforum.php?f=3")


@pytest.mark.parametrize("extra, key", [
    ('reserve = ["Pilot", "Pilot"]\n', "reserve: lists a nick twice"),
    ('reserve = "Pilot"\n', "reserve: must be a list"),
    ('[signup]\nclose = "завтра"\n', "signup.close: must be a date and time"),
    ('[signup]\njoin = ["!!!"]\n', "signup.join: no mark is left"),
    ('[signup]\nplayers = 0\n', "signup.players: must be from 1 to 200"),
    ('[signup]\nopen = true\n', "signup.open: unknown key"),
])
def test_bad_signup_settings_are_one_line_naming_the_key(tmp_path, extra, key):
    path = tmp_path / "game.toml"
    head, tail = (extra, "") if extra.startswith("reserve") else ("", extra)
    path.write_text(f'{head}[game]\nstart = 2026-12-10\n{tail}', encoding="utf-8")
    with pytest.raises(Exception) as e:
        load_game(path)
    assert key in str(e.value) and "\n" not in str(e.value)


def test_signup_settings_are_read_with_game_time_for_a_close_without_offset(tmp_path):
    path = tmp_path / "game.toml"
    path.write_text('reserve = ["Pilot"]\n[game]\nstart = 2026-12-10\n[signup]\n'
                    'close = 2026-12-09T20:00:00\njoin = ["беру"]\nlate_to_reserve = true\n',
                    encoding="utf-8")
    g = load_game(path)
    assert g.reserve == ("Pilot",) and g.signup.late_to_reserve
    assert g.signup.close.isoformat() == "2026-12-09T20:00:00+03:00"
    assert g.signup.marks.read("Беру") == "join" and g.signup.marks.read("+") is None


# -- issue 40, item 11 (docs/security.md "Attacks by players") -------------------------------

def test_a_standing_plus_survives_an_earlier_plus_edited_away():
    """A's first «+» (place 1) is edited away; his second «+» still stands: he stays in,
    from the second one's time (before: he vanished from the list)."""
    got = count_signups([s(1, "A", "+", 0), s(2, "B", "+", 1), s(3, "A", "+", 2),
                         s(1, "A", "уже не актуально", 3)], 5)
    assert got.players == ("B", "A") and [n.post for n in got.ignored] == [1]


@pytest.mark.parametrize("text", ["+ если ещё можно", "Простите, не смогу", "Записываюсь снова",
                                  "- сорян, занят"])
def test_a_post_like_a_mark_is_listed_for_the_host(text):
    got = count_signups([s(1, "A", "+", 0), s(2, "B", text, 1)], 5)
    assert got.players == ("A",) and got.withdrawn == ()
    assert [n.post for n in got.unclear] == [2] and "B:" in got.unclear[0].why
    assert got.to_json()["unclear"][0]["post"] == 2


@pytest.mark.parametrize("text", ["Удачи всем!", "ёжик +", "я за", "+", "не смогу"])
def test_plain_posts_and_marks_are_not_listed_as_unclear(text):
    assert count_signups([s(1, "A", text, 0)], 5).unclear == ()
