"""forum/engine.py: ``[forum] engine``, telling the engine from a board's front page, and the
adapters behind the ``Board`` protocol (the real pages of fixtures/smf and fixtures/phpbb)."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
import responses

from scraper_mod.errors import ConfigError, ForumError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.engine import Board, detect_engine, engine_of, open_board
from scraper_mod.forum.phpbb.board import PhpbbBoard
from scraper_mod.forum.smf.board import SmfBoard
from scraper_mod.game.setup.config import load_game

ROOT = Path(__file__).resolve().parents[2]
BASE = "http://board.example/"
SMF_FRONT = (ROOT / "fixtures" / "smf" / "front.html").read_bytes()
PHPBB_PAGE = next((ROOT / "fixtures" / "phpbb" / "phpbb-3.3.15" / "prosilver-en")
                  .glob("*.html")).read_bytes()


def _client() -> ForumClient:
    return ForumClient(requests.Session(), base_url=BASE, min_delay=0, sleep=lambda s: None,
                       retries=0)


@responses.activate
@pytest.mark.parametrize("front, engine", [(SMF_FRONT, "smf"), (PHPBB_PAGE, "phpbb")])
def test_the_engine_is_told_from_the_front_page(front, engine):
    responses.add(responses.GET, BASE, body=front)
    client = _client()
    assert engine_of(client) == engine
    board = open_board(client, engine)
    assert isinstance(board, Board) and board.engine == engine
    assert isinstance(board, SmfBoard if engine == "smf" else PhpbbBoard)
    assert len(responses.calls) == 1


@responses.activate
def test_a_configured_engine_asks_the_board_nothing():
    assert engine_of(_client(), "smf") == "smf" and engine_of(_client(), "phpbb") == "phpbb"
    assert len(responses.calls) == 0
    with pytest.raises(ForumError, match="not an engine"):
        engine_of(_client(), "vbulletin")


@responses.activate
def test_a_board_of_neither_engine_is_one_clear_line():
    responses.add(responses.GET, BASE, body=b"<html><body><h1>502 Bad Gateway</h1></body></html>",
                  status=200)
    with pytest.raises(ForumError) as got:
        engine_of(_client())
    assert "cannot tell the board's engine" in str(got.value) and BASE in str(got.value)
    assert 'engine = "phpbb" or "smf"' in got.value.hint
    with pytest.raises(ForumError, match="no adapter"):
        open_board(_client(), "mybb")


def test_detect_engine_on_every_captured_page():
    for page in (ROOT / "fixtures" / "smf").glob("*.html"):
        assert detect_engine(page.read_bytes()) == "smf", page.name
    for page in (ROOT / "fixtures" / "phpbb" / "phpbb-3.3.15" / "prosilver-ru").glob("*.html"):
        assert detect_engine(page.read_bytes()) == "phpbb", page.name


def test_forum_engine_in_the_game_file(tmp_path):
    base = '[game]\nstart = 2024-04-08\n[forum]\nurl = "http://127.0.0.1:8190/"\n'
    (tmp_path / "game.toml").write_text(base, encoding="utf-8")
    assert load_game(tmp_path).forum.engine is None
    (tmp_path / "game.toml").write_text(base + 'engine = "smf"\n', encoding="utf-8")
    assert load_game(tmp_path).forum.engine == "smf"
    (tmp_path / "game.toml").write_text(base + 'engine = "vbulletin"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as got:
        load_game(tmp_path)
    assert "forum.engine" in str(got.value) and "phpbb or smf" in str(got.value)
