"""`scraper-mod tally GAME [--day N] [--at TIME] [--format text|bbcode|json] [--offline]`
(docs/commands.md) on a game folder whose day-1 topic is the real phpBB 3.3.15 capture.

The topic is stored the way the poller stores it: CLIENT's ``poll_topic`` reads the captured
pages through ``responses`` (no network). ``--offline`` then counts the stored posts; without
it the command reads the board first.
"""

from __future__ import annotations

import json
import socket
from datetime import datetime, timezone
from pathlib import Path

import pytest
import responses
from qa_game import copy_game, edit

from scraper_mod.cli import main
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.poller import poll_topic
from scraper_mod.store import Store

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "fixtures" / "phpbb" / "phpbb-3.3.15" / "prosilver-ru"
TOPIC = "http://127.0.0.1/viewtopic.php?t=4"
DATE = "Wed, 02 Dec 2026 13:13:42 GMT"   # the capture's Date header (fetch_log.tsv)


def serve_topic(rs: responses.RequestsMock) -> None:
    for url, name in ((TOPIC, "guest_viewtopic_t4_start0.html"),
                      (TOPIC + "&start=25", "guest_viewtopic_t4_start25.html")):
        rs.add(responses.GET, url, body=(PAGES / name).read_bytes(), headers={"Date": DATE},
               content_type="text/html; charset=UTF-8")


@pytest.fixture
def game(tmp_path) -> Path:
    """fixtures/games/day1 in a fresh folder (no pauses between requests), topic stored."""
    folder = tmp_path / "game"
    folder.mkdir()
    toml = (ROOT / "fixtures" / "games" / "day1" / "game.toml").read_text(encoding="utf-8")
    toml = toml.replace('[forum]\nurl = "http://127.0.0.1/"',
                        '[forum]\nurl = "http://127.0.0.1/"\nmin_delay = 0')
    assert "min_delay = 0" in toml
    (folder / "game.toml").write_text(toml, encoding="utf-8")
    return folder


def store_topic(folder: Path) -> None:
    with responses.RequestsMock() as rs:
        serve_topic(rs)
        client = ForumClient(None, base_url="http://127.0.0.1/", min_delay=0,
                             sleep=lambda s: None)
        with Store(folder / "state.sqlite3") as store:
            report = poll_topic(client, store, TOPIC, now=datetime.now(timezone.utc),
                                full=True)
    assert len(report.new_posts) == 40


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["tally", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_final_offline(game, capsys):
    """The day's deadline has passed: the final count with the lynch (CONTRACT JSON)."""
    store_topic(game)
    with responses.RequestsMock() as rs:          # --offline: no request at all
        code, out, err = run(capsys, game, "--day", 1, "--offline", "--format", "json")
        assert len(rs.calls) == 0
    assert code == 0, err
    data = json.loads(out)
    assert set(data) >= {"day", "topic", "deadline", "as_of", "final", "votes", "counts",
                         "not_voting", "rejected", "lynch"}
    assert (data["day"], data["topic"], data["final"]) == (1, TOPIC, True)
    assert data["deadline"] == data["as_of"] == "2024-04-09T20:00:00+03:00"
    assert [(c["target"], c["votes"]) for c in data["counts"]] == [("Алексей", 6),
                                                                  ("NightOwl", 2)]
    assert data["lynch"] == {"player": "Алексей", "by": "votes"}
    assert {"post_id": 97, "author": "Вася", "text": "NightOwl", "reason": "late"} in \
        data["rejected"]
    assert all(set(v) == {"voter", "target", "post_id", "at", "url"} for v in data["votes"])
    # issue 35: each vote's link is the post's address on the game's board
    assert all(v["url"] == f"http://127.0.0.1/viewtopic.php?p={v['post_id']}#p{v['post_id']}"
               for v in data["votes"])


def test_json_at_a_time_in_game_time(game, capsys):
    """--at without an offset is game time; the count is not final and has no lynch."""
    store_topic(game)
    code, out, err = run(capsys, game, "--offline", "--at", "2024-04-09T12:00",
                         "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["day"] == 1                       # the day holding --at
    assert data["as_of"] == "2024-04-09T12:00:00+03:00" and data["final"] is False
    assert "lynch" not in data
    assert data["counts"][0] == {"target": "Вася", "votes": 2,
                                 "voters": ["Ёжик в тумане", "Алексей"]}
    assert data["not_voting"] == ["doc_Holiday", "Игрок-7"]


def test_bbcode_is_a_pasteable_post(game, capsys):
    """R9.5: candidates with counts and voters linked to their posts, non-voters, time left."""
    store_topic(game)
    code, out, err = run(capsys, game, "--offline", "--at", "2024-04-09T19:00+03:00",
                         "--format", "bbcode")
    assert code == 0, err
    assert out.startswith("[b]Игра 2 — день 1: подсчёт голосов[/b]\n")
    assert "осталось 1 ч 00 мин" in out
    assert ("[*][b]Алексей[/b] — 6 голосов: [url=http://127.0.0.1/viewtopic.php?p=83#p83]"
            "NightOwl[/url], ") in out
    assert "[*][b]NightOwl[/b] — 1 голос: [url=http://127.0.0.1/viewtopic.php?p=87#p87]" \
           "Алексей[/url]\n" in out
    assert out.count("[list]") == out.count("[/list]") == 1
    # 8 counted votes and, since issue 39, each vote that did not count, linked with its reason
    # (as of 19:00 none: quotes, signatures and bold were never votes, and are not listed)
    not_counted = [ln for ln in out.splitlines() if ln.startswith("Не засчитано: [url=")]
    assert all(" — " in ln for ln in not_counted)
    assert out.count("[url=") == out.count("[/url]") == 8 + len(not_counted)
    code, out, _ = run(capsys, game, "--day", "1", "--offline", "--format", "bbcode",
                       "--lang", "en")
    assert "Voting closed on 09.04 at 20:00 MSK." in out
    assert "The town jails [b]Алексей[/b]." in out


FINAL_POST = """\
[b]Игра 2 — день 1: итоги голосования[/b]
[i]Голосование закрыто 09.04 в 20:00 МСК.[/i]

[list]
[*][b]Алексей[/b] — 6 голосов: {p83}NightOwl[/url], {p84}Big Joe[/url], {p85}Игрок-7[/url], \
{p86}doc_Holiday[/url], {p90}Ёжик в тумане[/url], {p91}Вася[/url]
[*][b]NightOwl[/b] — 2 голоса: {p94}Алексей[/url], {p96}Маша_2[/url]
[/list]
Не засчитано: {p97}пост игрока Вася[/url] — пост после срока.
Не засчитано: {p98}пост игрока doc_Holiday[/url] — пост после срока.
Постов за день: Вася — 4, Маша_2 — 5, Big Joe — 4, Алексей — 4, NightOwl — 4, Игрок-7 — 4, Ёжик в тумане — 3, doc_Holiday — 3.

По итогам голосования садится [b]Алексей[/b].
""".format(**{f"p{n}": f"[url=http://127.0.0.1/viewtopic.php?p={n}#p{n}]"
              for n in (83, 84, 85, 86, 90, 91, 94, 96, 97, 98)})


def test_final_bbcode_post_whole(game, capsys):
    """The whole final post, byte for byte: voters in the order they voted, linked."""
    store_topic(game)
    code, out, err = run(capsys, game, "--day", "1", "--offline", "--format", "bbcode")
    assert code == 0, err
    assert out == FINAL_POST


def test_text_for_the_host(game, capsys):
    store_topic(game)
    code, out, err = run(capsys, game, "--day", "1", "--offline")
    assert code == 0, err
    assert "Алексей — 6 голосов: NightOwl (16:02, пост 83)" in out
    assert "Посадка: Алексей (по голосам)" in out
    assert "пост 97, Вася: «NightOwl» — пост после срока" in out


def test_polls_the_board_first(game, capsys):
    """Without --offline the topic is read from the board, then counted."""
    with responses.RequestsMock() as rs:
        serve_topic(rs)
        code, out, err = run(capsys, game, "--day", "1", "--format", "json")
        assert len(rs.calls) >= 2
    assert code == 0, err
    assert [(c["target"], c["votes"]) for c in json.loads(out)["counts"]] == [
        ("Алексей", 6), ("NightOwl", 2)]


@pytest.mark.parametrize("argv, message", [
    # issue 39: a line with a Russian text is Russian only in this Russian game
    (["--at", "вчера"], "ошибка: --at: это не время в формате ISO 8601: 'вчера'"),
    (["--day", "2"], "days: у дня 2 ещё нет темы"),
    (["--day", "0"], "ошибка: --day: нужен номер дня от 1"),
    (["--at", "2999-01-01T00:00"], "ошибка: --at: 01.01.2999 00:00 — это ещё не наступило"),
])
def test_errors_are_one_line(game, capsys, argv, message):
    code, out, err = run(capsys, game, "--offline", *argv)
    assert code == 1
    assert message in err and err.startswith(("error: ", "ошибка: ")) and err.count("\n") == 1
    assert "Traceback" not in err and out == ""


def test_missing_game_folder(tmp_path, capsys):
    code, _, err = run(capsys, tmp_path / "nope", "--offline")
    assert code == 1 and "нет такого файла игры" in err      # issue 39: Russian only


def test_help(capsys):
    with pytest.raises(SystemExit) as e:
        main(["tally", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--day", "--at", "--format", "--offline"):
        assert flag in out


# -- the QA pass: the board down ------------------------------------------------------------------
# QA: the board is down: one line naming the URL and what to check; the stored posts stay,
# and the offline count still works.


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_tally_with_the_board_down_names_the_url_once(tmp_path, capsys, closed_port):
    game = copy_game(tmp_path)
    base = f"http://127.0.0.1:{closed_port}/"
    edit(game, 'url = "http://127.0.0.1/"', f'url = "{base}"\nmin_delay = 0\nretries = 0')
    edit(game, 'topic = "http://127.0.0.1/viewtopic.php?t=4"',
         f'topic = "{base}viewtopic.php?t=4"')
    code = main(["tally", str(game), "--day", "1"])
    err = capsys.readouterr().err.splitlines()[-1]
    assert code == 1 and err.startswith("ошибка: ")        # issue 39: Russian only
    assert err.count(f"{base}viewtopic.php?t=4") == 1
    assert "не удалось прочитать целиком" in err and "Connection refused" not in err
    assert "повторите позже" in err and "--offline" in err
    code = main(["tally", str(game), "--day", "1", "--offline", "--format", "json"])
    assert code == 0 and '"day": 1' in capsys.readouterr().out
