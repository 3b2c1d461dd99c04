"""Shared fixtures. The end-to-end tier against the real phpBB 3.3.15 board lives here.

The board is found through ``SCRAPER_MOD_PHPBB_BOARD``: the folder holding ``start.sh``,
``stop.sh``, ``board.tar.xz`` and ``forumctl.py`` (``.ci/run`` sets it from
``../shared/phpbb-board``). Without it the e2e tests skip, saying how to run them; under
``CI=true`` a missing board is a failure, never a skip. The project keeps no copy of phpBB.

The real SMF 2.1.4 board is found the same way through ``SCRAPER_MOD_SMF_BOARD`` (``start.sh``,
``stop.sh``, ``board.tar.xz`` and ``smfctl.py``; ``.ci/run`` sets it from
``../shared/smf-board``): the ``real_smf_board`` fixture, with the same accounts; the real
FluxBB_by_Visman 1.5.11 board through ``SCRAPER_MOD_FLUXBB_BOARD``: ``real_fluxbb_board``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Iterator

import pytest

BOARD_ENV = "SCRAPER_MOD_PHPBB_BOARD"
SMF_BOARD_ENV = "SCRAPER_MOD_SMF_BOARD"

#: The board's accounts (its README): nick -> password.
BOARD_ADMIN = ("admin", "adminpass1")
BOARD_PLAYERS = {
    "Вася": "pass-1", "Маша_2": "pass-2", "Big Joe": "pass-3", "Алексей": "pass-4",
    "NightOwl": "pass-5", "Игрок-7": "pass-6", "Ёжик в тумане": "pass-7",
    "doc_Holiday": "pass-8", "Кот": "pass-9", "Лиса": "pass-10", "Pilot": "pass-11",
    "Зоя": "pass-12",
}
GAME_FORUM_ID = 3
RESULTS_FORUM_ID = 4


def _board_dir(env: str = BOARD_ENV, engine: str = "phpBB", shared: str = "phpbb-board",
               tool: str = "forumctl.py") -> Path:
    value = os.environ.get(env, "")
    if not value:
        why = (f"the real {engine} board is not given: set {env} to the folder with start.sh "
               f"(.ci/run sets it from ../shared/{shared})")
        if os.environ.get("CI") == "true":
            pytest.fail(why + "; under CI=true the e2e tier must run", pytrace=False)
        pytest.skip(why)
    folder = Path(value)
    if not (folder / "start.sh").is_file() or not (folder / tool).is_file():
        pytest.fail(f"{env}={value}: no start.sh and {tool} there", pytrace=False)
    return folder


E2E_DIR = Path(__file__).resolve().parent / "e2e"


def pytest_collection_modifyitems(config, items) -> None:
    """Tests marked ``e2e`` outside tests/e2e (the contract suite's real boards) belong to the
    e2e tier: a run that leaves tests/e2e out (the fast tier) leaves them out too."""
    ignored = {Path(p).resolve() for p in config.getoption("ignore") or ()}
    if E2E_DIR not in ignored:
        return
    keep = [item for item in items if item.get_closest_marker("e2e") is None]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class RealBoard:
    """A fresh, running copy of the real board."""

    url: str            # http://127.0.0.1:PORT/
    port: int
    folder: Path        # where start.sh unpacked it
    forumctl: ModuleType

    def player(self, nick: str):
        """A logged-in forumctl.Board for a player (or ``admin``)."""
        password = BOARD_ADMIN[1] if nick == BOARD_ADMIN[0] else BOARD_PLAYERS[nick]
        return self.forumctl.Board(self.url.rstrip("/")).login(nick, password)

    def topic_url(self, topic_id: int) -> str:
        return f"{self.url}viewtopic.php?t={topic_id}"

    def forum_url(self, forum_id: int) -> str:
        return f"{self.url}viewforum.php?f={forum_id}"


def _load_forumctl(folder: Path, name: str = "forumctl") -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def _started(source: Path, tmp_path_factory, name: str) -> Iterator[tuple[int, Path]]:
    """A fresh copy of the board in ``source`` on a free port, stopped afterwards."""
    port = _free_port()
    folder = tmp_path_factory.mktemp(name)
    started = subprocess.run(["bash", str(source / "start.sh"), str(port), str(folder)],
                             capture_output=True, text=True, timeout=600)
    if started.returncode != 0:
        pytest.fail(f"start.sh {port} {folder} failed:\n{started.stdout}\n{started.stderr}",
                    pytrace=False)
    try:
        yield port, folder
    finally:
        subprocess.run(["bash", str(source / "stop.sh"), str(folder)],
                       capture_output=True, timeout=60)


@pytest.fixture
def real_board(tmp_path_factory) -> Iterator[RealBoard]:
    """A clean phpBB 3.3.15 board on a free port of 127.0.0.1, stopped after the test."""
    source = _board_dir()
    with _started(source, tmp_path_factory, "phpbb-board") as (port, folder):
        yield RealBoard(f"http://127.0.0.1:{port}/", port, folder, _load_forumctl(source))


SMF_GAME_BOARD_ID = 2       # «Игра»
SMF_RESULTS_BOARD_ID = 3    # «Итоги»


@dataclass
class RealSmfBoard:
    """A fresh, running copy of the real SMF 2.1.4 board."""

    url: str            # http://127.0.0.1:PORT/
    port: int
    folder: Path
    smfctl: ModuleType

    def player(self, nick: str):
        """A logged-in smfctl.Board for a player (or ``admin``), on a loopback address of
        its own (SMF's per-IP flood limits)."""
        password = BOARD_ADMIN[1] if nick == BOARD_ADMIN[0] else BOARD_PLAYERS[nick]
        return self.smfctl.Board(self.url.rstrip("/")).login(nick, password)

    def topic_url(self, topic_id: int) -> str:
        return f"{self.url}index.php?topic={topic_id}.0"


@pytest.fixture
def real_smf_board(tmp_path_factory) -> Iterator[RealSmfBoard]:
    """A clean SMF 2.1.4 board on a free port of 127.0.0.1, stopped after the test."""
    source = _board_dir(SMF_BOARD_ENV, "SMF", "smf-board", "smfctl.py")
    with _started(source, tmp_path_factory, "smf-board") as (port, folder):
        yield RealSmfBoard(f"http://127.0.0.1:{port}/", port, folder,
                           _load_forumctl(source, "smfctl"))


FLUXBB_BOARD_ENV = "SCRAPER_MOD_FLUXBB_BOARD"
FLUXBB_GAME_FORUM_ID = 2       # «Игра»
FLUXBB_RESULTS_FORUM_ID = 3    # «Итоги»


@dataclass
class RealFluxbbBoard:
    """A fresh, running copy of the real FluxBB_by_Visman 1.5.11 board."""

    url: str            # http://127.0.0.1:PORT/
    port: int
    folder: Path
    fluxctl: ModuleType

    def player(self, nick: str):
        """A logged-in fluxctl.Board for a player (or ``admin``): ~3 s, the board's rule."""
        password = BOARD_ADMIN[1] if nick == BOARD_ADMIN[0] else BOARD_PLAYERS[nick]
        return self.fluxctl.Board(self.url.rstrip("/")).login(nick, password)

    def topic_url(self, topic_id: int) -> str:
        return f"{self.url}viewtopic.php?id={topic_id}"


@pytest.fixture
def real_fluxbb_board(tmp_path_factory) -> Iterator[RealFluxbbBoard]:
    """A clean FluxBB_by_Visman 1.5.11 board on a free port of 127.0.0.1, stopped after."""
    source = _board_dir(FLUXBB_BOARD_ENV, "FluxBB", "fluxbb-board", "fluxctl.py")
    with _started(source, tmp_path_factory, "fluxbb-board") as (port, folder):
        yield RealFluxbbBoard(f"http://127.0.0.1:{port}/", port, folder,
                              _load_forumctl(source, "fluxctl"))
