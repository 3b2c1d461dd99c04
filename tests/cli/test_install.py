"""Issue 2: a non-editable install works from another folder, templates included.

The wheel is built by the build backend of the environment running the tests (hatchling, in
the test extra), so these tests run under the README's test command and fail, not skip, when
the wheel lacks its templates (issue 12)."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from this checkout by the build backend of the running interpreter's
    environment (hatchling is in the test extra), without build isolation, so nothing is
    fetched."""
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                        "--no-build-isolation", "--no-index", "-w", str(out), str(ROOT)],
                       capture_output=True, text=True)
    assert r.returncode == 0, ("building the wheel failed (is the test extra installed? "
                               "pip install -e '.[test]'):\n" + r.stderr)
    wheels = list(out.glob("scraper_mod-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def installed(tmp_path_factory, wheel):
    """A fresh virtualenv with the wheel installed (not editable). Its dependencies come from
    the running interpreter's environment: a path line appended to the new venv's
    ``site-packages`` (after the venv's own, and without running that environment's ``.pth``
    files, so the editable install of this checkout stays out of sight)."""
    base = tmp_path_factory.mktemp("install")
    env_dir = base / "venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                        str(wheel)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                       capture_output=True, text=True, check=True)
    own = Path(r.stdout.strip())
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (own / "zz_test_dependencies.pth").write_text("".join(p + "\n" for p in deps))
    return env_dir, base


def test_wheel_holds_every_template(wheel):
    """Read apart from the install: a wheel whose ``force-include`` broke fails here."""
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    shipped = sorted(p.name for p in (ROOT / "templates").iterdir()
                     if p.suffix in (".j2", ".toml"))
    assert "night-notes.toml" in shipped and len(shipped) > 10
    missing = [n for n in shipped if f"scraper_mod/templates/{n}" not in names]
    assert not missing, f"the wheel lacks templates: {missing}"


def test_console_script_runs_from_another_folder(installed):
    env_dir, base = installed
    r = subprocess.run([str(env_dir / "bin" / "scraper-mod"), "--help"], cwd=base,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for command in ("demo", "deal", "posts", "poll", "tally", "moves", "resolve", "run"):
        assert command in r.stdout


def test_installed_package_ships_its_templates(installed):
    env_dir, base = installed
    code = ("import scraper_mod.posts.render as r, pathlib; d = r.templates_dir(); "
            "print(d); print(len(list(d.glob('*.j2'))))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([str(env_dir / "bin" / "python"), "-c", code], cwd=base,
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    where, count = r.stdout.split()
    assert "site-packages" in where and str(ROOT) not in where
    assert int(count) >= len(list((ROOT / "templates").glob("*.j2")))
    assert int(count) > 0


def test_installed_demo_plays_a_whole_game(installed):
    """The README's first quick-start command: the demo runs from a non-editable install."""
    env_dir, base = installed
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([str(env_dir / "bin" / "scraper-mod"), "demo"], cwd=base,
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "winner: town" in r.stdout
    assert "[b]" in r.stdout  # the newspapers are printed as BBCode


def test_wheel_holds_the_host_page_assets(wheel):
    """Issue 17: the host's page has no CDN: its templates, CSS and script ship in the wheel."""
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    web = ROOT / "scraper_mod" / "web"
    assets = sorted(str(p.relative_to(ROOT)) for p in web.rglob("*")
                    if p.is_file() and p.suffix in (".html", ".css", ".js"))
    assert {"scraper_mod/web/static/game.js", "scraper_mod/web/static/page.css",
            "scraper_mod/web/templates/game.html"} <= set(assets)
    missing = [a for a in assets if a not in names]
    assert not missing, f"the wheel lacks the page's assets: {missing}"


def test_installed_page_renders_from_its_own_assets(installed, tmp_path):
    """The installed package serves its page from site-packages (the test client; no server)."""
    env_dir, base = installed
    game = tmp_path / "g"
    game.mkdir()
    (game / "game.toml").write_text((ROOT / "fixtures" / "games" / "day1" / "game.toml")
                                    .read_text(encoding="utf-8"), encoding="utf-8")
    code = ("import sys, scraper_mod.web as w; app = w.create_app(sys.argv[1], token='t'); "
            "c = app.test_client(); c.get('/?token=t'); r = c.get('/static/game.js'); "
            "print(r.status_code, 'startCountdowns' in r.get_data(as_text=True)); "
            "print(w.__file__)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([str(env_dir / "bin" / "python"), "-c", code, str(game)], cwd=base,
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    first, where = r.stdout.splitlines()
    assert first == "200 True"
    assert "site-packages" in where and str(ROOT) not in where
