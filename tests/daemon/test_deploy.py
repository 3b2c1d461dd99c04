"""Issue 27 item 7: a daemon that runs for weeks. run.log is rotated (the standard library's
RotatingFileHandler, owner-only files), and the systemd unit in contrib/ is valid for
`systemd-analyze verify` (the password from an owner-only EnvironmentFile, restart on failure).
"""

from __future__ import annotations

import configparser
import logging
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "contrib" / "scraper-mod@.service"


def test_run_log_is_rotated_and_every_file_stays_owner_only(tmp_path):
    from scraper_mod.cli.run import LOG_BACKUPS, _file_handler
    log = logging.getLogger("scraper_mod.test_rotation")
    log.propagate = False
    handler = _file_handler(tmp_path / "run.log", max_bytes=2000)
    log.addHandler(handler)
    try:
        for i in range(400):
            log.warning("poll %d: 3 new posts in https://forum.example.org/viewtopic.php?t=2", i)
    finally:
        log.removeHandler(handler)
        handler.close()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["run.log"] + [f"run.log.{n}" for n in range(1, LOG_BACKUPS + 1)]
    for name in files:
        p = tmp_path / name
        assert p.stat().st_size <= 2000, name
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, name
    assert "poll 399:" in (tmp_path / "run.log").read_text(encoding="utf-8")   # the newest
    assert "poll 0:" not in "".join((tmp_path / n).read_text("utf-8") for n in files)


def _unit() -> configparser.ConfigParser:
    cp = configparser.ConfigParser(strict=False, interpolation=None)
    cp.optionxform = str      # type: ignore[assignment,method-assign]
    cp.read_string(UNIT.read_text(encoding="utf-8"))
    return cp


def test_the_unit_restarts_on_failure_and_reads_the_password_from_an_env_file():
    s = _unit()["Service"]
    assert s["Restart"] == "on-failure"
    assert s["EnvironmentFile"].startswith("/etc/scraper-mod/")
    assert " run " in s["ExecStart"] and "%i" in s["ExecStart"]
    assert "PASSWORD" not in s.get("Environment", "")     # never in the unit itself
    assert s["UMask"] == "0077"
    docs = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    assert "chmod 600" in docs and "scraper-mod@.service" in docs


@pytest.mark.skipif(shutil.which("systemd-analyze") is None and not os.environ.get("CI"),
                    reason="systemd-analyze is not installed here (.ci/run installs it)")
def test_systemd_analyze_verifies_the_unit(tmp_path):
    """The unit as the host installs it, for a game `mafia7`, with ExecStart pointing at this
    install's scraper-mod (the one thing the host adjusts)."""
    exe = Path(sys.executable).with_name("scraper-mod")
    assert exe.exists()
    text = UNIT.read_text(encoding="utf-8").replace("/opt/scraper-mod/.venv/bin/scraper-mod",
                                                    str(exe))
    unit = tmp_path / "scraper-mod@mafia7.service"
    unit.write_text(text, encoding="utf-8")
    r = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == "", r.stderr                    # unknown keys are warnings
