"""What a new host met, tried as a new user would (issue 39 item 5), each fixed and kept so:

- a wrong topic number's hint says where the address came from: the command line (``day
  open``) or game.toml, and how to fix it there;
- a past ``start`` is refused with a hint that says what makes ``run`` catch up (a first read
  of the board), not that ``run`` would (it refuses);
- each engine's posts use only the tags it renders: SMF shows phpBB's ``[size=150]`` and
  ``[list=1]`` as raw text;
- the phone and laptop layout of the host's page (the games table's labels, the chart's
  legend and «срок» label, «День» on one line) is in the page's CSS (the chart's HTML legend:
  tests/web/test_web.py).

The alert PMs (Russian, full links, no placeholders) are in tests/daemon/test_new_host_alerts.py.
"""

from __future__ import annotations

import re
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.cli import main
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.forum.engine import for_engine
from scraper_mod.posts.bbcode import bbcode_to_html

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "game"))
from test_resolve import ORDER, PLAYERS, write_game  # noqa: E402

MSK = ZoneInfo("Europe/Moscow")


def run(capsys, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_wrong_topic_number_says_where_its_address_came_from(tmp_path, capsys):
    with LocalBoard(language="ru", clock=lambda: datetime(2024, 4, 11, 9, tzinfo=MSK)) as b:
        for nick, _, uid, _ in PLAYERS:
            b.add_user(nick, uid)
        real = b.add_topic("День 1")
        folder = write_game(tmp_path / "g", b, {1: real}, players=PLAYERS, order=ORDER)
        wrong = f"{b.url}viewtopic.php?t={real + 40}"
        # from game.toml: the hint points at game.toml
        toml = folder / "game.toml"
        toml.write_text(toml.read_text(encoding="utf-8").replace(b.topic_url(real), wrong),
                        encoding="utf-8")
        code, _, err = run(capsys, "poll", folder, "--day", "1")
        assert code == 1 and "game.toml ([[days]] topic)" in err, err
        # from the command line: the hint says so, and how to give the right one
        toml.write_text(toml.read_text(encoding="utf-8").replace(wrong, b.topic_url(real)),
                        encoding="utf-8")
        code, _, err = run(capsys, "day", "open", folder, "1", wrong)
        assert code == 0, err
        code, _, err = run(capsys, "poll", folder, "--day", "1")
        # a Russian game: the same hint in Russian (issue 39 item 4)
        assert code == 1 and "из командной строки (`scraper-mod day open`)" in err, err
        assert f"`scraper-mod day open {folder} 1 URL`" in err
        assert "game.toml ([[days]] topic)" not in err


def test_a_past_start_is_refused_saying_what_lets_run_catch_up(tmp_path, capsys):
    from scraper_mod.game.context import open_game
    from scraper_mod.game.setup.newgame import setup_problems
    with LocalBoard(language="ru") as b:
        folder = write_game(tmp_path / "g", b, {}, players=PLAYERS, order=ORDER)
        ctx = open_game(folder)
        try:
            [p] = [x for x in setup_problems(ctx) if x.key == "game.start"]
        finally:
            ctx.close()
    assert "is in the past" in p.message
    assert f"`scraper-mod poll {folder}`" in p.hint and "`run` catches up" in p.hint


@pytest.mark.parametrize("phpbb, smf", [
    ("[size=150][b]Итоги[/b][/size]", "[size=15pt][b]Итоги[/b][/size]"),
    ("[size=85]мелко[/size]", "[size=8pt]мелко[/size]"),
    ("[size=5]x[/size]", "[size=5]x[/size]"),
    ("[list=1]\n[*]Вася\n[/list]", "[list type=decimal]\n[*]Вася\n[/list]"),
    ("[list=a][*]x[/list]", "[list type=lower-alpha][*]x[/list]"),
    ("[list]\n[*]x\n[/list]", "[list]\n[*]x\n[/list]"),
])
def test_each_engine_gets_the_tags_it_renders(phpbb, smf):
    assert for_engine(phpbb, "smf") == smf
    assert for_engine(phpbb, "phpbb") == phpbb       # phpBB renders its own
    assert "[size=150]" not in for_engine(phpbb, "smf")


def test_the_newspaper_for_smf_has_no_tag_smf_shows_raw():
    paper = (ROOT / "tests" / "golden" / "votes-lynch").rglob("newspaper*.bbcode")
    text = next(iter(sorted(paper))).read_text(encoding="utf-8")
    assert "[size=150]" in text                       # as the templates write it
    smf = for_engine(text, "smf")
    assert not re.search(r"\[size=\d{2,}\]|\[list=", smf)
    # the phpBB renderer still reads the text (the tags SMF's post keeps are stock ones)
    assert "<strong" in bbcode_to_html(smf)


def test_the_page_keeps_its_labels_on_a_phone_and_day_on_one_line():
    css = "\n".join(p.read_text(encoding="utf-8")
                    for p in (ROOT / "scraper_mod" / "web" / "static").glob("*.css"))
    phone = css.split("@media", 1)[1] if "@media" in css else ""
    assert "data-label" in phone or "attr(data-label)" in css, "the table's labels on a phone"
    assert re.search(r"\.legend[^}]*\}", phone), "the chart's legend on a phone"
    assert re.search(r"table\.games th \{ white-space: nowrap", css), "«День» on one line"
    games = (ROOT / "scraper_mod" / "web" / "templates" / "games.html").read_text("utf-8")
    assert games.count("data-label=") == 5

