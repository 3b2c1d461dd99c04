"""Issue 35 on the real SMF 2.1.4 board: with ``[forum] url`` set, every vote link in a
posted count and in a posted newspaper is an SMF address (``index.php?msg=N``) that opens the
voter's post. Before, the services built phpBB's ``viewtopic.php?p=N#pN`` under the board's
root for every link, an address SMF answers with its front page.

The count is one on request (a player's «!голоса» during the day, answered through the
game's Board); the newspaper is day 1's, posted by ``publish`` after the deadline.
"""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta, timezone

import requests
from test_smf_evening_e2e import PASSWORD, play_day_one, scraper_mod, write_game

MSG_LINK = re.compile(r'<a href="([^"]+)"[^>]*>([^<]+)</a>')


def vote_links(board, post_html: str) -> list[tuple[str, str]]:
    """(address, the linked name) of each link in a post as SMF shows it."""
    return [(html.unescape(url), html.unescape(name)) for url, name in
            MSG_LINK.findall(post_html) if url.startswith(board.url)]


def opens_the_post(board, url: str, nick: str) -> bool:
    """The address shows the post ``msg=N`` written by ``nick`` (read as a guest)."""
    msg = int(re.fullmatch(rf"{re.escape(board.url)}index\.php\?msg=(\d+)", url).group(1))
    page = requests.get(url, timeout=30).text
    posts = board.player("admin")._parse_posts(page)
    return any(p["id"] == msg and p["author"] == nick for p in posts)


def test_smf_vote_links_in_a_count_and_a_newspaper_open_the_voters_posts(real_smf_board,
                                                                          tmp_path,
                                                                          monkeypatch):
    board = real_smf_board
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", PASSWORD)
    t0 = datetime.now(timezone.utc).replace(microsecond=0)
    day1, results, _ = play_day_one(board)
    board.player("Алексей").reply(day1, "а сколько у кого? !голоса")
    # the count on request, during the day, through the game's one Board
    # the day starts 3 minutes before its deadline (write_game): before every post above
    live = write_game(tmp_path / "live", board, day1, results, deadline=t0 + timedelta(
        seconds=150))
    toml = live / "game.toml"
    toml.write_text(toml.read_text("utf-8").replace(
        "lock_day_topic = true", 'lock_day_topic = true\ntally_command = "!голоса"'), "utf-8")
    from scraper_mod.game.context import open_game
    from scraper_mod.game.day.daytime import answer_requests
    from scraper_mod.game.day.poll import poll_day
    with open_game(live) as ctx:
        poll_day(ctx, 1)
        outcomes = answer_requests(ctx, 1)
    assert [o.status for o in outcomes] == ["posted"], outcomes
    admin = board.player("admin")
    (count,) = [p for p in admin.topic_posts(day1) if p["author"] == "admin"
                and "по запросу" in p["text"]]
    links = vote_links(board, count["html"])
    voters = {"Вася", "Маша_2", "Big Joe", "Кот"}
    assert {name for _, name in links} >= voters | {"Алексей"}, links   # + the request
    for url, name in links:
        assert re.fullmatch(rf"{re.escape(board.url)}index\.php\?msg=\d+", url), url
        assert opens_the_post(board, url, name), (url, name)

    # the newspaper after the deadline
    past = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(seconds=1)
    game = write_game(tmp_path / "game", board, day1, results, deadline=past, mode="review")
    for args in (("poll", str(game)), ("resolve", str(game), "--day", "1"),
                 ("publish", str(game))):
        r = scraper_mod(*args)
        assert r.returncode == 0, r.stdout + r.stderr
    (paper,) = [p for p in admin.topic_posts(results)[1:] if p["author"] == "admin"]
    links = vote_links(board, paper["html"])
    assert {name for _, name in links} >= voters, links
    for url, name in links:
        assert "viewtopic" not in url
        assert re.fullmatch(rf"{re.escape(board.url)}index\.php\?msg=\d+", url), url
        assert opens_the_post(board, url, name), (url, name)
