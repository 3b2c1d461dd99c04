"""Issue 26 on the real phpBB 3.3.15 board (items 1, 2, 4 and 6); forumctl plays the players.

- item 1: Вася's post in the day topic links to the quick-mod lock of another game's topic
  (it comes before phpBB's own tools on the page); the host's writer locks the day topic and
  the other topic stays open;
- item 2: night moves sent as PMs with subjects that look blank (U+3164, U+2800, U+115F,
  which phpBB's form accepts) are read with the others;
- item 4(a): the board takes a reply, a new topic and a PM, and the answer is lost (a 502 on
  the way back): the writer finds each on the board and never sends it twice;
- item 6: a redirect naming no post, or naming a post that is not the account's, is no
  success; a real post is confirmed by the id phpBB names, checked on the board.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import GAME_FORUM_ID

from scraper_mod.errors import FetchError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.fetched import FetchResult
from scraper_mod.forum.phpbb.pm import read_pm_inbox
from scraper_mod.forum.phpbb.writer import ForumWriter
from scraper_mod.forum.posting import PostRefused


def host_writer(board) -> ForumWriter:
    return ForumWriter(ForumClient(base_url=board.url, username="admin",
                                   password="adminpass1", min_delay=0, retries=1))


def test_item1_a_players_lock_link_never_drives_the_hosts_account(real_board):
    """R12.5: a lock link a player wrote never drives the host's account on the real board."""
    admin = real_board.player("admin")
    other = admin.new_topic(GAME_FORUM_ID, "Другая игра. День 3", "Идёт другая игра.")
    day = admin.new_topic(GAME_FORUM_ID, "Проверка. День 1", "День 1 начался.")
    real_board.player("Вася").reply(
        day, f"[url={real_board.url}mcp.php?f={GAME_FORUM_ID}&t={other}&quickmod=1"
             f"&action=lock]итоги[/url] [url={real_board.url}mcp.php?f={GAME_FORUM_ID}"
             f"&t={day}&quickmod=1&action=unlock]ещё[/url]")
    host_writer(real_board).lock(day)
    assert admin._has_tool(day, "unlock")          # the day topic is locked ...
    assert admin._has_tool(other, "lock")          # ... the other game's is not
    assert not admin._has_tool(other, "unlock")


def test_item2_pm_subjects_that_look_blank_are_read_with_the_others(real_board):
    subjects = ["\u3164", "\u2800", "\u115f", "ход"]
    for nick, subject in zip(["Вася", "Маша_2", "Big Joe", "NightOwl"], subjects):
        real_board.player(nick).send_pm("admin", subject, "проверить Кот")
    w = host_writer(real_board)
    w.ensure_login()
    page = w.client.get_page("ucp.php?i=pm&folder=inbox")
    rows, bad = read_pm_inbox(page.body, url=page.url, fetched_at=page.fetched_at)
    assert bad == []
    assert sorted(r.author for r in rows) == sorted(["Вася", "Маша_2", "Big Joe", "NightOwl"])


def _answer_lost(monkeypatch, match):
    real = ForumClient.post
    hit = {"n": 0}

    def post(self, url, data):
        result = real(self, url, data)
        if match(url, data) and not hit["n"]:
            hit["n"] += 1
            raise FetchError("HTTP 502 after 1 attempts", url=url)
        return result
    monkeypatch.setattr(ForumClient, "post", post)
    return hit


def test_item4_a_post_topic_and_pm_whose_answer_was_lost_are_there_once(real_board,
                                                                        monkeypatch):
    admin = real_board.player("admin")
    day = admin.new_topic(GAME_FORUM_ID, "Проверка. День 1", "День 1 начался.")
    w = host_writer(real_board)
    hit = _answer_lost(monkeypatch, lambda url, data: "mode=reply" in url and "post" in data)
    posted = w.reply(day, "[b]Газета. День 1[/b]\nПосадка: Вася.")
    assert hit["n"] == 1
    texts = [p["text"] for p in admin.topic_posts(day)]
    assert sum("Газета. День 1" in t for t in texts) == 1
    assert posted.id == admin.topic_posts(day)[-1]["id"]

    hit = _answer_lost(monkeypatch, lambda url, data: "mode=post" in url and "post" in data)
    topic, first = w.new_topic(GAME_FORUM_ID, "Проверка. День 2", "Начался день 2.")
    assert hit["n"] == 1 and topic is not None and first.id is not None
    import requests
    forum = requests.get(real_board.forum_url(GAME_FORUM_ID), timeout=30).text
    assert forum.count(">Проверка. День 2<") == 1

    hit = _answer_lost(monkeypatch, lambda url, data: "compose" in url and "post" in data)
    pm = w.send_pm("Кот", "Проверка: день 1", "Мафия: убит Алексей.")
    assert hit["n"] == 1 and pm.id is not None
    sent = admin.list_pms("outbox") + admin.list_pms("sentbox")
    assert [m["subject"] for m in sent].count("Проверка: день 1") == 1


def test_item6_a_redirect_is_no_success_a_named_post_is_checked(real_board, monkeypatch):
    admin = real_board.player("admin")
    day = admin.new_topic(GAME_FORUM_ID, "Проверка. День 1", "День 1 начался.")
    players_post = real_board.player("Вася").reply(day, "[color=red]Кот[/color]")
    w = host_writer(real_board)
    ok = w.reply(day, "Итоги дня 1.")                # phpBB names the post; it is admin's
    assert ok.id == admin.topic_posts(day)[-1]["id"] and ok.id != players_post
    real = ForumClient.post
    for location in ("index.php", f"viewtopic.php?p={players_post}#p{players_post}"):
        def post(self, url, data, location=location):
            if "mode=reply" in url and "post" in data:    # nothing posted; a redirect back
                return FetchResult(url=url, status=302, body=b"",
                                   fetched_at=datetime.now(timezone.utc),
                                   headers={"Location": self.url(location)})
            return real(self, url, data)
        monkeypatch.setattr(ForumClient, "post", post)
        with pytest.raises(PostRefused) as e:
            w.reply(day, "Итоги дня 1, ещё раз.")
        assert e.value.kind == "unconfirmed"
    monkeypatch.setattr(ForumClient, "post", real)
    assert len(admin.topic_posts(day)) == 3
