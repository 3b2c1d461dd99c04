"""Each engine's posts use only the tags it renders (issue 39 item 5), on the real SMF 2.1.4
board: phpBB's ``[size=150]`` and ``[list=1]`` show as raw text there; what
``forum.engine.for_engine`` makes of them renders as a size and an ordered list."""

from __future__ import annotations

from conftest import SMF_GAME_BOARD_ID

from scraper_mod.forum.engine import for_engine

PHPBB = "[size=150][b]Мафия — итоги дня 1[/b][/size]\n[list=1]\n[*]Вася\n[*]Петя\n[/list]"


def test_smf_renders_the_tags_its_posts_get(real_smf_board):
    admin = real_smf_board.player("admin")
    raw = admin.new_topic(SMF_GAME_BOARD_ID, "phpBB", PHPBB)
    fixed = admin.new_topic(SMF_GAME_BOARD_ID, "SMF", for_engine(PHPBB, "smf"))
    [as_phpbb] = admin.topic_posts(raw)
    [as_smf] = admin.topic_posts(fixed)
    assert "[size=150]" in as_phpbb["html"] or "[list=1]" in as_phpbb["html"], as_phpbb["html"]
    html = as_smf["html"]
    assert "[size" not in html and "[list" not in html, html
    assert "font-size" in html, html
    assert "<ol" in html or "decimal" in html, html
