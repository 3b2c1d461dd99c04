"""Issue 35: every link to a post comes from the game's ``Board.post_url``.

The defect it fixes: on SMF with ``[forum] url`` set, the count and the newspaper linked every
vote to phpBB's ``…/viewtopic.php?p=N#pN`` under the board's root, an address SMF does not
have. The real capture «День 1 — голосование» is counted as a day whose topic is on an SMF
board (the same posts: the count does not depend on the engine), then on a phpBB board.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from test_votes_fixture import versions_of

from scraper_mod.clock import FakeClock
from scraper_mod.game.context import open_game
from scraper_mod.game.day.tally import tally_day

ROOT = Path(__file__).resolve().parents[2]
MSK = ZoneInfo("Europe/Moscow")
SMF_TOPIC = "http://127.0.0.1/index.php?topic=4.0"
PHPBB_TOPIC = "http://127.0.0.1/viewtopic.php?t=4"


def game_on(tmp_path: Path, topic: str, *, url: bool = True):
    toml = (ROOT / "fixtures" / "games" / "day1" / "game.toml").read_text(encoding="utf-8")
    toml = toml.replace(f'topic = "{PHPBB_TOPIC}"', f'topic = "{topic}"')
    if not url:
        toml = toml.replace('[forum]\nurl = "http://127.0.0.1/"\n', "[forum]\n")
    (tmp_path / "game.toml").write_text(toml, encoding="utf-8")
    return open_game(tmp_path, clock=FakeClock(datetime(2024, 4, 9, 21, 0, tzinfo=MSK)))


@pytest.mark.parametrize("url", [True, False], ids=["forum url", "topic only"])
def test_R2_on_smf_every_vote_link_is_the_smf_post_address(tmp_path, url):
    """R2 count on SMF: each vote's link, in the JSON and the posted count, is SMF's
    ``index.php?msg=N`` of the voter's post, with or without ``[forum] url``."""
    with game_on(tmp_path, SMF_TOPIC, url=url) as ctx:
        t = tally_day(ctx, 1, versions=versions_of("prosilver-ru"))
    data = t.to_json()
    assert len(data["votes"]) > 3
    for v in data["votes"]:
        assert v["url"] == f"http://127.0.0.1/index.php?msg={v['post_id']}"
    post = t.render("bbcode")
    links = re.findall(r"\[url=([^\]]+)\]", post)
    counted = {f"http://127.0.0.1/index.php?msg={v['post_id']}" for v in data["votes"]}
    assert links and set(links) <= counted | {
        f"http://127.0.0.1/index.php?msg={r.post_id}" for r in t.rejected}
    assert "viewtopic" not in post and "#p" not in post
    assert all(r["url"] == f"http://127.0.0.1/index.php?msg={r['post_id']}"
               for r in t.report()["rejected"])


def test_R2_on_phpbb_the_vote_links_stay_phpbbs(tmp_path):
    with game_on(tmp_path, PHPBB_TOPIC) as ctx:
        t = tally_day(ctx, 1, versions=versions_of("prosilver-ru"))
    for v in t.to_json()["votes"]:
        pid = v["post_id"]
        assert v["url"] == f"http://127.0.0.1/viewtopic.php?p={pid}#p{pid}"


def test_a_game_with_no_board_address_links_nothing(tmp_path):
    with game_on(tmp_path, PHPBB_TOPIC, url=False) as ctx:
        assert ctx.post_links(None) is None
        assert ctx.post_links(SMF_TOPIC)(7) == "http://127.0.0.1/index.php?msg=7"


def test_the_context_opens_the_board_once_and_closes_the_game(tmp_path):
    with game_on(tmp_path, SMF_TOPIC) as ctx:
        board = ctx.board
        assert board.engine == "smf" and ctx.board is board      # no request: the topic tells
        assert board.post_url(12) == "http://127.0.0.1/index.php?msg=12"
    with pytest.raises(Exception):
        ctx.store.get("day_topics")                              # closed by ``with``
