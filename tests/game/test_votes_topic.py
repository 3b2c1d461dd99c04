"""R2.1: only posts in the day's own topic count."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from test_votes_fixture import versions_of

from scraper_mod.clock import FakeClock
from scraper_mod.forum.poller import canonical_topic_url
from scraper_mod.game.context import open_game
from scraper_mod.game.day.tally import tally_day

ROOT = Path(__file__).resolve().parents[2]
MSK = ZoneInfo("Europe/Moscow")


def _store(ctx, topic: str) -> None:
    key = canonical_topic_url(topic)
    for post, seen in versions_of("prosilver-ru"):
        ctx.store.add_post_version(key, post.post_id, post.to_json(), content=post.content_key(),
                                   fetched_at=seen)


def test_r2_1_votes_in_another_topic_do_not_count(tmp_path):
    """R2.1: the same colored votes posted in the flood topic (t=5) count for nobody; stored
    under the day's own topic (t=4) they give the real count, Алексей 6 : NightOwl 2."""
    shutil.copy(ROOT / "fixtures" / "games" / "day1" / "game.toml", tmp_path / "game.toml")
    ctx = open_game(tmp_path, clock=FakeClock(datetime(2024, 4, 9, 21, 0, tzinfo=MSK)))
    try:
        day_topic = ctx.topic_for_day(1)
        assert canonical_topic_url(day_topic).endswith("t=4")
        _store(ctx, day_topic.replace("t=4", "t=5"))
        elsewhere = tally_day(ctx, 1).to_json()
        assert elsewhere["votes"] == [] and elsewhere["counts"] == []
        assert len(elsewhere["not_voting"]) == 8

        _store(ctx, day_topic)
        own = tally_day(ctx, 1).to_json()
        assert [(c["target"], c["votes"]) for c in own["counts"]] == [("Алексей", 6),
                                                                      ("NightOwl", 2)]
        assert own["lynch"] == {"player": "Алексей", "by": "votes"}
    finally:
        ctx.close()
