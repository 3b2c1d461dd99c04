"""QA: a broken game.toml or game folder is one clear error naming the file and the key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from qa_game import copy_game, edit, without_root_powers

from scraper_mod.cli import main
from scraper_mod.errors import ConfigError
from scraper_mod.game.config import load_game

TOPIC = 'topic = "http://127.0.0.1/viewtopic.php?t=4"'


@pytest.fixture
def game(tmp_path) -> Path:
    return copy_game(tmp_path)



@pytest.mark.parametrize("old, new, key, message", [
    (TOPIC, 'topic = "день первый"', "days[1].topic", "not a web address: 'день первый'"),
    (TOPIC, 'topic = "ftp://127.0.0.1/viewtopic.php?t=4"', "days[1].topic",
     "not a web address"),
    (TOPIC, 'topic = "http://127.0.0.1/viewforum.php?f=2"', "days[1].topic",
     "not a phpBB topic address"),
    (TOPIC, 'topic = "http://127.0.0.1/viewtopic.php?t=abc"', "days[1].topic",
     "not a phpBB topic address"),
    ('url = "http://127.0.0.1/"', 'url = "forum.example.org"', "forum.url",
     "not a web address: 'forum.example.org'"),
    ('url = "http://127.0.0.1/"', 'url = "http://127.0.0.1/"\nforum = "viewforum.php?f=3"',
     "forum.forum", "not a web address"),
    ('path = "moves"', 'path = "moves"\nport = 99999', "moves.port", "from 1 to 65535"),
    ('path = "moves"', 'path = "moves"\nsmtp_port = 0', "moves.smtp_port", "from 1 to 65535"),
])
def test_bad_addresses_name_the_key(game, old, new, key, message):
    """A topic that is no URL used to pass the loader and fail later at the poller, without
    naming game.toml; a port out of range reached the socket."""
    edit(game, old, new)
    with pytest.raises(ConfigError) as e:
        load_game(game)
    assert e.value.key == key and e.value.path == str(game / "game.toml")
    assert message in str(e.value)


@pytest.mark.parametrize("url", ["http://127.0.0.1/viewtopic.php?t=4",
                                 "https://forum.example.org/phpBB3/viewtopic.php?f=2&t=123",
                                 "https://forum.example.org/viewtopic.php?t=123&start=25"])
def test_good_topic_addresses_load(game, url):
    edit(game, TOPIC, f'topic = "{url}"')
    assert load_game(game).day(1).topic == url


def test_a_game_path_that_cannot_be_looked_at(tmp_path, capsys):
    """os.stat failing with something other than "no such file" (here a name too long for
    the file system) was a traceback out of Path.exists()."""
    code = main(["tally", str(tmp_path / ("и" * 300)), "--offline"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert "cannot read" in err



def test_a_game_folder_without_permission(game):
    os.chmod(game, 0)
    try:
        p = subprocess.run(without_root_powers(
            [sys.executable, "-m", "scraper_mod", "tally", str(game), "--offline", "--day", "1"]),
            capture_output=True, text=True, timeout=60)
    finally:
        os.chmod(game, 0o755)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stderr.startswith("error: ") and p.stderr.count("\n") == 1
    assert str(game / "game.toml") in p.stderr and "check the folder's permissions" in p.stderr


@pytest.mark.parametrize("old, new, key", [
    ('url = "http://127.0.0.1/"', 'url = "http://127.0.0.1/"\nmin_delay = inf', "forum.min_delay"),
    ('url = "http://127.0.0.1/"', 'url = "http://127.0.0.1/"\nfull_scan_delay = nan',
     "forum.full_scan_delay"),
    ('url = "http://127.0.0.1/"', 'url = "http://127.0.0.1/"\ntimeout = nan', "forum.timeout"),
    ('tie_scope = "all_alive"', 'tie_scope = "all_alive"\n[schedule]\npoll_minutes = nan',
     "schedule.poll_minutes"),
    ('tie_scope = "all_alive"', 'tie_scope = "all_alive"\n[schedule]\ngrace_seconds = inf',
     "schedule.grace_seconds"),
])
def test_nan_and_inf_are_no_durations(game, old, new, key):
    """TOML has inf and nan; they passed the >= 0 checks (nan compares false) and reached
    time.sleep() and the schedule."""
    edit(game, old, new)
    with pytest.raises(ConfigError) as e:
        load_game(game)
    assert e.value.key == key and "finite number" in str(e.value)


def test_a_moved_deadline_before_its_day_starts_names_the_key(game):
    """R1.4: day 2 starts on 9 April at 21:00; a deadline at 20:30 that evening was found only
    by the commands that computed day 2 (`status` said nothing), without naming game.toml."""
    with open(game / "game.toml", "a", encoding="utf-8") as f:
        f.write('\n[[days]]\nnumber = 2\ntopic = "http://127.0.0.1/viewtopic.php?t=5"\n'
                'deadline = 2024-04-09T20:30:00+03:00\n')
    with pytest.raises(ConfigError) as e:
        load_game(game)
    assert e.value.key == "days[2].deadline"
    assert "2024-04-09T20:30:00+03:00 is not after the day's start 2024-04-09T21:00:00" \
        in str(e.value)


def test_a_day_number_past_the_calendar(game):
    with open(game / "game.toml", "a", encoding="utf-8") as f:
        f.write('\n[[days]]\nnumber = 99999\ntopic = "http://127.0.0.1/viewtopic.php?t=5"\n')
    with pytest.raises(ConfigError) as e:
        load_game(game)
    assert e.value.key == "days[2].number" and "from 1 to 2000" in str(e.value)


def test_a_game_file_saved_by_notepad_with_a_byte_order_mark(game):
    text = (game / "game.toml").read_text(encoding="utf-8")
    (game / "game.toml").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert load_game(game).title == "Игра 2"


@pytest.mark.parametrize("encoding", ["cp1251", "utf-16"])
def test_a_game_file_not_in_utf8_says_what_to_do(game, encoding):
    text = (game / "game.toml").read_text(encoding="utf-8")
    (game / "game.toml").write_bytes(text.encode(encoding))
    with pytest.raises(ConfigError) as e:
        load_game(game)
    assert str(e.value).startswith(f"{game / 'game.toml'}: cannot read: not UTF-8 text (byte ")
    assert "save game.toml as UTF-8" in str(e.value)
