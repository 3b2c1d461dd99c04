"""QA: the board is down or is no phpBB board: one line naming the URL and what to check;
the stored posts stay, and the offline count still works."""

from __future__ import annotations

import socket

import pytest
from qa_game import copy_game, edit

from scraper_mod.cli import main


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
    assert code == 1 and err.startswith("error: ")
    assert err.count(f"{base}viewtopic.php?t=4") == 1
    assert "the topic could not be read completely" in err and "Connection refused" in err
    assert "check that the board is reachable" in err and "--offline" in err
    code = main(["tally", str(game), "--day", "1", "--offline", "--format", "json"])
    assert code == 0 and '"day": 1' in capsys.readouterr().out


def test_the_full_scan_is_never_paced_slower_than_the_days_polls():
    """[forum] full_scan_delay (default 0.5 s) speeds up the deadline's re-scan; with
    min_delay = 0 (a local board, the tests' games) it made the re-scan the slow one."""
    from scraper_mod.forum.client import ForumClient

    assert ForumClient(base_url="http://127.0.0.1/", min_delay=0,
                       full_scan_delay=0.5).full_scan_delay == 0
    assert ForumClient(base_url="http://127.0.0.1/", min_delay=1.0,
                       full_scan_delay=0.5).full_scan_delay == 0.5
    assert ForumClient(base_url="http://127.0.0.1/", min_delay=2.0).full_scan_delay == 2.0
