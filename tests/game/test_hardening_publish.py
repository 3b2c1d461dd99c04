"""Issue 26, items 4-6 and the PM half of "Also", on LocalBoard (phpBB's posting, PM and
topic pages):

- item 4(a): the board takes a post, a topic or a PM but its answer is lost (a time-out, a
  reset, a 5xx): the writer looks on the board before sending it again, so it is there once;
- item 5: after a crash, a topic of the same title that a player opened is never adopted as
  the day's topic or the newspaper's;
- item 6: a redirect that names no new post (``302 → index.php``: a session that ended, a
  moderation queue) is no success: nothing is recorded as posted, ``index.php`` is never the
  next day's topic, and publish looks for it on the board next time;
- "Also": two messages of one subject to one player are told apart by their text after a
  crash.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from test_publish import NEWSPAPER, board_posts, day2_topics, publish, world  # noqa: F401

from scraper_mod.errors import FetchError, ScraperModError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.fetched import FetchResult
from scraper_mod.game.context import open_game
from scraper_mod.game.publishing import publish as pub


def answer_lost(monkeypatch, *, when):
    """The board takes the POST for which ``when(url, data)`` holds, then the answer is lost
    (a 502 from a proxy, a reset, a time-out); each such POST once."""
    real = ForumClient.post
    hit = {"n": 0}

    def post(self, url, data):
        result = real(self, url, data)
        if when(url, data) and hit["n"] == 0:
            hit["n"] += 1
            raise FetchError("HTTP 502 after 1 attempts", url=url)
        return result
    monkeypatch.setattr(ForumClient, "post", post)
    return hit


@pytest.mark.parametrize("what", ["reply", "topic", "pm"])
def test_a_post_the_board_took_but_whose_answer_was_lost_is_there_once(world, monkeypatch,
                                                                       what):
    game, board, clock = world
    match = {"reply": lambda url, data: "mode=reply" in url and "post" in data,
             "topic": lambda url, data: "mode=post" in url and "post" in data,
             "pm": lambda url, data: "compose" in url and "post" in data}[what]
    hit = answer_lost(monkeypatch, when=match)
    outcomes = publish(game, clock)
    assert hit["n"] == 1
    assert {o.status for o in outcomes} == {"posted"}, [(o.kind, o.error) for o in outcomes]
    results = [t for t in board.topics.values() if t.title == "Проверка. Итоги"][0]
    assert board_posts(board, results.topic_id).count(NEWSPAPER) == 1
    assert len(day2_topics(board)) == 1
    assert sorted(to for _, _, to, _, _ in board.sent_pms_log) == [59, 60]


def test_a_redirect_naming_no_post_is_no_success(world, monkeypatch):
    game, board, clock = world
    real = ForumClient.post

    def post(self, url, data):
        if "posting.php" in url and "post" in data:     # the session ended: nothing posted
            return FetchResult(url=url, status=302, body=b"",
                               fetched_at=datetime.now(timezone.utc),
                               headers={"Location": self.url("index.php")})
        return real(self, url, data)
    monkeypatch.setattr(ForumClient, "post", post)
    outcomes = {o.kind: o for o in publish(game, clock)}
    assert outcomes["newspaper"].status == "failed"
    assert "index.php" in outcomes["newspaper"].error
    assert outcomes["day-topic"].status == "failed" and day2_topics(board) == []
    ctx = open_game(game, clock=clock)
    try:
        rec = ctx.store.publication(pub.game_id(ctx), 1, "newspaper", "results")
        assert rec["status"] == "intended" and rec["post_id"] is None   # looked for next time
        assert "index.php" not in str(ctx.topic_for_day(2))
    finally:
        ctx.close()
    monkeypatch.setattr(ForumClient, "post", real)
    again = {o.kind: o.status for o in publish(game, clock)}
    assert again["newspaper"] == again["day-topic"] == "posted"
    assert len(day2_topics(board)) == 1
    results = [t for t in board.topics.values() if t.title == "Проверка. Итоги"][0]
    assert board_posts(board, results.topic_id).count(NEWSPAPER) == 1


def test_crash_recovery_never_adopts_a_players_topic_of_the_same_title(world):
    game, board, clock = world
    ctx = open_game(game, clock=clock)
    try:
        item = next(i for i in pub.plan_day(ctx, 1) if i.kind == "day-topic")
        # the host's publish recorded its intent, then crashed before the request ...
        ctx.store.set_publication(pub.game_id(ctx), 1, item.kind, item.key, status="intended",
                                  sha256=item.sha256, at=clock.now())
    finally:
        ctx.close()
    # ... and a player opened a topic of the same title, with the same words
    trap = board.add_topic("Проверка. День 2", forum_id=3)
    board.add_post("Вася", 58, item.text, clock.now(), topic=trap)
    outcomes = {o.kind: o for o in publish(game, clock)}
    assert outcomes["day-topic"].status == "posted"
    ctx = open_game(game, clock=clock)
    try:
        assert ctx.topic_for_day(2) != board.topic_url(trap)
    finally:
        ctx.close()
    assert len(day2_topics(board)) == 2 and board.topics[trap].posts[0].author == "Вася"


def test_crash_recovery_tells_two_messages_of_one_subject_apart_by_their_text(world):
    """Big Joe got a message of this day's subject before (another answer): after a crash
    with today's PM intended, it is sent, not taken for the old one."""
    game, board, clock = world
    subject = "Проверка: день 1"
    board.send_pm("admin", 2, subject, "Другой ответ: ход принят.\n", clock.now(), to_id=60)
    board.sent_pms_log.append((max(board.pms), 2, 60, subject, "Другой ответ"))
    ctx = open_game(game, clock=clock)
    try:
        item = next(i for i in pub.plan_day(ctx, 1) if i.kind == "pm" and i.to == "Big Joe")
        assert item.subject == subject
        ctx.store.set_publication(pub.game_id(ctx), 1, item.kind, item.key, status="intended",
                                  sha256=item.sha256, at=clock.now())
    finally:
        ctx.close()
    outcomes = {(o.kind, o.to): o.status for o in publish(game, clock)}
    assert outcomes[("pm", "Big Joe")] == "posted"
    texts = [m.body for m in board.pms.values() if m.to_id == 60]
    assert any("Маша_2 — мафия" in t for t in texts)


def test_two_publishers_at_once_never_post_twice(world, capsys):
    """Item 4(b): while one process publishes the game (here: a child holding the game's
    publish lock, as ``run`` on autopilot does while it posts), ``publish``, the autopilot
    and the page's publish button are refused in one line and post nothing."""
    import subprocess
    import sys

    from scraper_mod.cli import main
    from scraper_mod.web import create_app

    game, board, clock = world
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom pathlib import Path\n"
         "from scraper_mod.game.publishing.publock import publishing\n"
         "with publishing(Path(sys.argv[1])):\n    print('held', flush=True)\n"
         "    time.sleep(60)\n", str(game)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(["publish", str(game), "--day", "1"]) != 0
        err = capsys.readouterr().err
        assert "another publisher" in err and f"pid {holder.pid}" in err
        assert err.count("\n") == 1
        ctx = open_game(game, clock=clock)
        try:       # what the autopilot calls for each day to publish
            with pytest.raises(ScraperModError, match="another publisher"):
                pub.publish_day(ctx, 1, retry_after=pub.AUTO_RETRY_SECONDS)
        finally:
            ctx.close()
        app = create_app(game, token="t0ken", csrf="c5rf")
        c = app.test_client()
        c.get("/?token=t0ken")
        r = c.post("/games/game/actions/publish", data={"csrf": "c5rf", "day": "1"},
                   follow_redirects=True)
        assert "another publisher" in r.get_data(as_text=True)
        results = [t for t in board.topics.values() if t.title == "Проверка. Итоги"][0]
        assert board_posts(board, results.topic_id).count(NEWSPAPER) == 0
        assert day2_topics(board) == [] and board.sent_pms_log == []
    finally:
        holder.kill()
        holder.wait()
    assert {o.status for o in publish(game, clock)} == {"posted"}   # the lock went with it
    assert len(day2_topics(board)) == 1
