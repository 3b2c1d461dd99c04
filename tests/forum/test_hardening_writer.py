"""Issue 26, items 1, 4(a) and 6: the writer against the real phpBB 3.3.15 pages (saved from
the real board into fixtures/phpbb/answers/) served by ``responses``.

- item 1: a player's ``[url=…/mcp.php?…t=OTHER…&action=lock]`` in the day topic, which comes
  before phpBB's own quick-mod tools on the page, is never followed; the lock goes to the day
  topic through a URL the writer builds, and a confirm form about another topic or action is
  never sent;
- item 4(a): after a time-out or a 5xx answer to a POST the writer looks on the board (the
  topic's last page, the sentbox) before it posts again;
- item 6: a redirect that names no new post (``302 → index.php``) is no success.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import responses

from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.phpbb.writer import ForumWriter
from scraper_mod.forum.posting import PostRefused

ANSWERS = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb" / "answers"
BOARD = "http://127.0.0.1:18926/"      # the address the saved topic page was served from
DATE = {"Date": "Wed, 02 Dec 2026 20:00:00 GMT"}


def answer(name: str) -> bytes:
    return (ANSWERS / name).read_bytes()


def writer() -> ForumWriter:
    w = ForumWriter(ForumClient(base_url=BOARD, username="admin", password="adminpass1",
                                min_delay=0, retries=0, sleep=lambda s: None), form_age=0)
    w._logged_in = True
    return w


# -- item 1 ----------------------------------------------------------------------------------

def test_a_players_lock_link_in_the_day_topic_is_never_followed():
    """R12.5: the saved page: Вася's post in topic 2 links to mcp.php?f=3&t=1&quickmod=1&action=lock
    (line-wise before the board's own tool). The writer locks topic 2 and nothing else."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.add(responses.GET, BOARD + "viewtopic.php?t=2",
                 body=answer("viewtopic_player_lock_link.html"), headers=DATE)
        rsps.add(responses.GET, BOARD + "mcp.php?t=2&quickmod=1&action=lock",
                 body=answer("lock_confirm.html"), headers=DATE)
        rsps.add(responses.POST, BOARD + "mcp.php", body=answer("lock_done.html"),
                 headers=DATE)
        writer().lock(2)
        asked = [(c.request.method, c.request.url) for c in rsps.calls]
    assert not any("t=1" in url for _, url in asked), asked
    assert asked[-1][0] == "POST" and "t=2" in asked[-1][1]


def test_a_confirm_form_about_another_topic_is_never_sent():
    other = answer("lock_confirm.html").replace(b'name="topic_id_list[0]" value="2"',
                                                b'name="topic_id_list[0]" value="1"')
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.add(responses.GET, BOARD + "viewtopic.php?t=2",
                 body=answer("viewtopic_player_lock_link.html"), headers=DATE)
        rsps.add(responses.GET, BOARD + "mcp.php?t=2&quickmod=1&action=lock", body=other,
                 headers=DATE)
        with pytest.raises(PostRefused) as e:
            writer().lock(2)
        assert not any(c.request.method == "POST" for c in rsps.calls)
    assert "not about locking topic 2" in str(e.value)


def test_a_players_unlock_link_does_not_pass_for_a_locked_topic():
    """A post linking to action=unlock must not make the writer think the topic is locked
    already: without the board's own tools it says the account cannot lock."""
    page = answer("viewtopic_player_lock_link.html").decode("utf-8")
    start = page.index('<div class="quickmod')
    end = page.index("</ul>", start)
    page = page[:start] + page[end:]                 # the board shows no tools (no moderator)
    page = page.replace("action=lock\" class=\"postlink\"", "action=unlock\" class=\"postlink\"")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        rsps.add(responses.GET, BOARD + "viewtopic.php?t=2", body=page.encode(), headers=DATE)
        with pytest.raises(PostRefused) as e:
            writer().lock(2)
    assert e.value.kind == "no-permission"
