"""A count request («!голоса») a player's reply merged into his earlier post on a FluxBB
board (Merge Post) is a request of its own, answered once, at its own time."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from scraper_mod.forum.merged import part_post_id
from scraper_mod.forum.model import Part, Post
from scraper_mod.forum.poller import canonical_topic_url
from scraper_mod.game.context import open_game
from scraper_mod.game.day import daytime

NICKS = [("Вася", "boss", 301), ("Игорь", "mafia", 302), ("Маша", "commissar", 303),
         ("Ирина", "doctor", 304), ("Петя", "civilian", 305)]


def write_game(folder: Path, topic_url: str) -> Path:
    players = "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\nforum_id = {u}\n\n'
                      for n, r, u in NICKS)
    order = ", ".join(f'"{n}"' for n, _, _ in NICKS)
    for sub in ("cur", "new", "tmp"):
        (folder / "moves" / sub).mkdir(parents=True, exist_ok=True)
    (folder / "game.toml").write_text(f"""[game]
title = "Проверка"
start = 2024-03-13
host = "admin"
random_list = [{order}]

[mafia]
duty = "Игорь"

[forum]
url = "http://127.0.0.1:9/"
engine = "fluxbb"
username = "admin"

[moves]
source = "maildir"
path = "moves"

[publish]
mode = "auto"
day_topic = "reply"
tally_command = "!голоса"

{players}[[days]]
number = 1
topic = "{topic_url}"
""", encoding="utf-8")
    return folder


def _post(pid: int, parts: list[tuple[int, str]], at: datetime) -> Post:
    pieces = tuple(Part(after=a, text=t) for a, t in parts)
    return Post(post_id=pid, author="Маша", author_id=303, posted_at=at, precision="second",
                earliest=at, latest=at, text="\n".join(t for _, t in parts),
                parts=pieces if len(pieces) > 1 else ())


def test_a_request_merged_into_an_earlier_post_is_pending_once(tmp_path):
    folder = write_game(tmp_path, "http://127.0.0.1:9/viewtopic.php?id=7")
    ctx = open_game(folder)
    try:
        key = canonical_topic_url(ctx.topic_for_day(1))
        start = ctx.calendar().day_start(1)
        at = start + timedelta(hours=1)
        first = _post(40, [(0, "привет всем")], at)
        merged = _post(40, [(0, "привет всем"), (600, "!голоса")], at)
        for post, seen in ((first, at + timedelta(seconds=5)),
                           (merged, at + timedelta(minutes=11))):
            ctx.store.add_post_versions(key, [(post.post_id, post.content_key(), post.to_json)],
                                        fetched_at=seen)
        assert daytime.pending_requests(ctx, 1) == [(part_post_id(40, 1), "Маша")]
    finally:
        ctx.close()
