"""Issue 35: the host's page links each vote to its post with the address the server gives
(the game's ``Board.post_url``), never one its script builds from the board's root."""

from __future__ import annotations

import re
from pathlib import Path

from test_web import client_for, game  # noqa: F401 (a fixture)

import scraper_mod.web

SCRIPT = Path(scraper_mod.web.__file__).parent / "static" / "game.js"


def test_the_page_links_votes_with_the_servers_addresses(game):  # noqa: F811
    app, c = client_for(game)
    data = c.get("/api/games/m2/tally?day=1").get_json()
    urls = {v["post_id"]: v["url"] for v in data["votes"]}
    assert len(urls) > 3
    assert all(u == f"http://127.0.0.1/viewtopic.php?p={p}#p{p}" for p, u in urls.items())
    page = c.get("/games/m2?day=1").get_data(as_text=True)
    hrefs = set(re.findall(r'href="(http://127\.0\.0\.1/[^"]*)"', page.replace("&amp;", "&")))
    # every vote of the count is linked with the server's address, and only with it
    assert set(urls.values()) <= hrefs, hrefs
    assert "data-board" not in page
    # the script links a vote with its ``url`` only (an http(s) address), builds none
    script = SCRIPT.read_text(encoding="utf-8")
    assert "postLink(byVoter[nick])" in script and "v.url" in script
    assert "dataset.board" not in script
