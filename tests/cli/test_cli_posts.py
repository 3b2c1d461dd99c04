"""`scraper-mod posts`: saved real pages (fixtures/phpbb) and a live LocalBoard topic.

Expected values come from fixtures/phpbb/truth.json (the ground truth written when the real
pages were captured), not from the parser.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from scraper_mod.cli import main
from scraper_mod.demo.localboard import LocalBoard

PHPBB = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb"
PAGES = PHPBB / "phpbb-3.3.15"
CONTRACT_KEYS = {"post_id", "author", "author_id", "posted_at", "edited_at", "edit_count",
                 "page_url", "colored", "quotes", "text"}


def truth() -> list[dict]:
    path = PHPBB / "truth.json"
    if not path.exists():
        pytest.skip("fixtures/phpbb/truth.json is not there yet")
    return json.loads(path.read_text(encoding="utf-8"))["topic"]["posts"]


def page(folder: str, start: int) -> str:
    p = PAGES / folder / f"guest_viewtopic_t4_start{start}.html"
    if not p.exists():
        pytest.skip(f"{p} is not there yet")
    return str(p)


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("folder", ["prosilver-ru", "prosilver-en"])
def test_json_of_both_pages_matches_the_ground_truth(capsys, folder):
    first, second = page(folder, 0), page(folder, 25)
    code, out, err = run(capsys, "posts", first, second, "--json")
    assert code == 0 and err == ""
    got = json.loads(out)
    want = truth()
    assert [p["post_id"] for p in got] == [p["post_id"] for p in want]
    for g, w in zip(got, want):
        assert CONTRACT_KEYS <= set(g)
        assert (g["author"], g["author_id"]) == (w["author"], w["author_id"])
        assert g["posted_at"] == w["time_moscow"].replace(" ", "T") + "+03:00"
        assert [[c["color"], c["text"]] for c in g["colored"]] == w["colored"]
        assert g["quotes"] == w["quotes"]
        assert g["text"] == w["text"]
        assert g["page_url"] == (first if w["start"] == 0 else second)
        if w["edit"]:
            assert g["edit_count"] == w["edit"]["count"]
            # the edit notice shows minutes only
            assert g["edited_at"] == w["edit"]["at_moscow"][:16].replace(" ", "T") + ":00+03:00"
            assert g["edit_reason"] == w["edit"]["reason"]
        else:
            assert (g["edited_at"], g["edit_count"]) == (None, 0)


def test_json_times_in_the_requested_zone(capsys):
    code, out, _ = run(capsys, "posts", page("prosilver-ru", 25), "--json", "--tz", "UTC")
    assert code == 0
    last = json.loads(out)[-1]
    assert last["post_id"] == 102 and last["posted_at"] == "2024-04-09T17:31:15+00:00"


def test_text_output(capsys):
    code, out, _ = run(capsys, "posts", page("prosilver-ru", 0))
    assert code == 0
    assert out.startswith("== День 1 — голосование t=4: page 1 of 2, 25 post(s)\n")
    assert "#85  Игрок-7 [63]  2024-04-09 16:51:37 +0300\n" \
           "    edited 1x by Игрок-7 at 2024-04-09 17:05: перепутал ник\n" \
           "    colored: Алексей (#FF0000)\n" \
           "    Хм. Алексей\n" in out
    assert "#70  Алексей [61]  2024-04-09 09:25:00 +0300\n" \
           "    colored: Вася (#FF0000)\n    quotes: #68\n" in out


def test_minute_precision_pages_say_so(capsys):
    code, out, _ = run(capsys, "posts", page("subsilver2-port-gorski-ru", 25))
    assert code == 0
    assert "#96  Маша_2 [59]  2024-04-09 19:59 +0300 (minute)" in out


def test_relative_dates_need_the_fetch_time(capsys):
    path = page("subsilver2-port-gorski-ru-relative-dates", 25)
    code, _, err = run(capsys, "posts", path)
    assert code == 1 and "needs the board's clock" in err and "give --fetched-at" in err
    code, out, _ = run(capsys, "posts", path, "--json", "--fetched-at", "2024-04-09T20:35:06")
    assert code == 0
    p96 = next(p for p in json.loads(out) if p["post_id"] == 96)   # «35 минут назад»
    assert p96["precision"] == "relative"
    t = datetime.fromisoformat(p96["posted_at"])
    real = datetime(2024, 4, 9, 19, 59, 30, tzinfo=timezone(timedelta(hours=3)))
    assert abs((t - real).total_seconds()) <= 62


@pytest.mark.parametrize("name,message", [
    ("prosilver-ru/guest_viewtopic_t9999_not_found.html", "does not exist"),
    ("prosilver-en/guest_viewtopic_t4_board_disabled.html", "disabled"),
    ("prosilver-ru/guest_viewtopic_t7_login_required.html", "login"),
])
def test_error_pages_give_one_clear_line(capsys, name, message):
    path = PAGES / name
    if not path.exists():
        pytest.skip(f"{path} is not there yet")
    code, out, err = run(capsys, "posts", str(path))
    assert code == 1 and out == ""
    assert err.startswith("error: ") and message in err and str(path) in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_missing_file_and_bad_arguments(capsys, tmp_path):
    code, _, err = run(capsys, "posts", str(tmp_path / "nope.html"))
    assert code == 1 and "no such file, and not an http(s) URL" in err
    code, _, err = run(capsys, "posts", page("prosilver-ru", 0), "--tz", "Mars/Base")
    assert code == 1 and "unknown time zone" in err
    garbage = tmp_path / "garbage.html"
    garbage.write_bytes(b"\x00\xff<html><body>hello</body></html>")
    code, _, err = run(capsys, "posts", str(garbage))
    assert code == 1 and str(garbage) in err and "Traceback" not in err


def test_a_url_reads_every_page(capsys):
    t0 = datetime(2024, 4, 9, 12, 0, tzinfo=timezone.utc)
    with LocalBoard(language="ru", per_page=2, clock=lambda: t0) as board:
        board.add_topic("День 2", topic_id=11)
        ids = [board.add_post("Вася", 58, f"[color=red]Маша_{n}[/color]",
                              t0 - timedelta(minutes=10 - n)) for n in range(5)]
        code, out, err = run(capsys, "posts", board.topic_url(), "--json", "--min-delay", "0")
        assert code == 0, err
        got = json.loads(out)
        assert [p["post_id"] for p in got] == ids
        assert got[-1]["page_url"] == board.topic_url(start=4)
        assert [c["text"] for c in got[2]["colored"]] == ["Маша_2"]
        code, out, _ = run(capsys, "posts", board.topic_url(start=2), "--single-page",
                           "--min-delay", "0")
        assert code == 0 and "page 2 of 3, 2 post(s)" in out and "page 3" not in out
        code, out, err = run(capsys, "posts", f"{board.url}viewtopic.php?t=99",
                             "--min-delay", "0")
        assert code == 1 and "does not exist" in err


def test_help(capsys):
    with pytest.raises(SystemExit) as ei:
        main(["posts", "--help"])
    assert ei.value.code == 0
    assert "URL_OR_FILE" in capsys.readouterr().out
