"""`scraper-mod serve GAME` as a process (issue 17's acceptance): on the game polled from the
real phpBB 3.3.15 pages, the URL it prints opens the page; without the token nothing is shown;
`/api/games/NAME/tally` equals `tally --format json`; it stops cleanly on SIGTERM; another
address than 127.0.0.1 only with --host, and then a warning."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import requests
from test_web import SECRETS, cli, game  # noqa: F401 (game is a fixture)


def start(*argv: str) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "scraper_mod", "serve", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    m = re.search(r"(http://\S+/\?token=(\S+))", line)
    assert m, (line, proc.stderr.read() if proc.poll() is not None else "")
    assert line.startswith("страница ведущего: "), line    # a Russian game (issue 39)
    return proc, m.group(1)


def stop(proc: subprocess.Popen) -> tuple[int, str, str]:
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=20)
    return proc.returncode, out, err


def test_serve_prints_a_url_that_opens_the_page(game, capsys):  # noqa: F811
    proc, url = start(str(game), "--port", "0")
    try:
        assert url.startswith("http://127.0.0.1:")
        base = url.split("/?", 1)[0]
        r = requests.get(f"{base}/games/m2", timeout=10, allow_redirects=False)
        assert r.status_code == 401 and "Алексей" not in r.text
        assert not any(s in r.text for s in SECRETS)
        s = requests.Session()
        r = s.get(url, timeout=10)
        assert r.status_code == 200 and r.url == f"{base}/"     # the token left the address
        assert "Игра 2" in r.text and "Алексей (6)" in r.text
        r = s.get(f"{base}/games/m2", timeout=10)
        assert r.status_code == 200 and "Посадка: <b>Алексей</b>" in r.text
        assert r.headers["Server"] == "scraper-mod"               # waitress, not a dev server
        api = s.get(f"{base}/api/games/m2/tally?day=1", timeout=10).json()
        code, out, err = cli(capsys, "tally", game, "--day", 1, "--format", "json", "--offline")
        assert code == 0, err
        assert api == json.loads(out)
    finally:
        code, out, err = stop(proc)
    # a Russian game: the lines in Russian (issue 39 item 4)
    assert code == 0 and "остановлено" in out
    assert "Traceback" not in err


def test_another_address_only_when_asked_and_with_a_warning(game):  # noqa: F811
    proc, url = start(str(game), "--port", "0", "--host", "127.0.0.2")
    try:
        assert url.startswith("http://127.0.0.2:")
        assert requests.get(url, timeout=10).status_code == 200
    finally:
        code, out, err = stop(proc)
    assert code == 0
    [warning] = [line for line in err.splitlines() if line.startswith("предупреждение:")]
    assert "слушает 127.0.0.2, а не 127.0.0.1" in warning and "ssh -L" in warning


def test_serve_a_broken_game_is_one_error_line(tmp_path, capsys):
    (tmp_path / "game.toml").write_text("[game]\ntitle = 1\n", encoding="utf-8")
    code, out, err = cli(capsys, "serve", tmp_path)
    assert code == 1 and err.startswith(("error: ", "ошибка: "))   # issue 39
    assert len(err.strip().splitlines()) == 1
    assert "game.toml" in err
