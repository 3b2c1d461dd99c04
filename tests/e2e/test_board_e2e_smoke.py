"""The e2e tier's own check: the real board starts, a player posts through its forms and
scraper-mod's reader reads the post back as phpBB rendered it."""

from __future__ import annotations

import requests
from conftest import GAME_FORUM_ID

from scraper_mod.forum.phpbb.parse import parse_topic_page


def test_real_board_serves_a_post_written_through_its_forms(real_board):
    vasya = real_board.player("Вася")
    topic = vasya.new_topic(GAME_FORUM_ID, "День 1", "[color=red]Кот[/color] подозрителен")
    body = requests.get(real_board.topic_url(topic), timeout=30).content
    page = parse_topic_page(body, url=real_board.topic_url(topic))
    assert [p.author for p in page.posts] == ["Вася"]
    assert "Кот" in page.posts[0].text
