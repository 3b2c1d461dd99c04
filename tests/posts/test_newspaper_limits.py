"""Issue 18 item 9: a newspaper longer than the board takes.

A whole day on LocalBoard (phpBB's posting form, which refuses a post over the board's
``max_post_chars`` as phpBB does) with the moves by mail: the mafia's 200,000-character murder
story is capped in the newspaper and the host report says so; a vote table of 40 players with
a link per vote, under a board limit of 5,000 characters, is split into newspaper.bbcode,
newspaper-2.bbcode … that publishing posts once each, in order.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.clock import FakeClock
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.game.context import open_game
from scraper_mod.game.publishing import publish as pub
from scraper_mod.game.results.resolve import resolve_day_files
from scraper_mod.posts.limits import cap_text, split_post

MSK = ZoneInfo("Europe/Moscow")
PASSWORD = "host-pw-9"
SENTENCE = "Его нашли утром у реки, и никто в городе не знал, что было ночью. "
STORY = (SENTENCE * (200_000 // len(SENTENCE) + 1))[:200_000]


def msk(day: int, hh: int, mm: int = 0, ss: int = 0) -> datetime:
    return datetime(2024, 4, day, hh, mm, ss, tzinfo=MSK)


def players(n: int) -> list[tuple[str, str, int]]:
    """``n`` players: the Boss, a mafioso, a Commissar, civilians (nick, role, user id)."""
    roles = ["boss", "mafia", "commissar"] + ["civilian"] * (n - 3)
    return [(f"Житель_{i:02d}" if i > 2 else ("Дон", "Игорь", "Маша")[i], roles[i], 300 + i)
            for i in range(n)]


def make_world(tmp_path: Path, clock: FakeClock, board: LocalBoard, cast, *, limits: str = "",
               results: int | None = None) -> Path:
    """Day 1 (8-9 April 2024): every player votes for the last one with a coloured nick; the
    mafioso mails the kill of the Commissar with the long story."""
    t1 = board.add_topic("День 1")
    board.add_post("Ведущий", 2, "[b]День 1.[/b]", msk(8, 21, 0))
    for i, (nick, _, uid) in enumerate(cast):
        board.add_post(nick, uid, f"Голосую: [color=red]{cast[-1][0]}[/color]",
                       msk(9, 10) + timedelta(minutes=i))
    folder = tmp_path / "game"
    for sub in ("new", "cur", "tmp"):
        (folder / "moves" / sub).mkdir(parents=True)
    toml = "".join(f'[[players]]\nnick = "{n}"\nrole = "{r}"\nforum_id = {u}\n'
                   f'contact = "p{u}@example.org"\n\n' for n, r, u in cast)
    order = ", ".join(f'"{n}"' for n, _, _ in cast)
    publish = (f'[publish]\nmode = "review"\nresults_topic = "{board.topic_url(results)}"\n'
               f'day_topic = "reply"\nprivate_messages = false\n' if results else "")
    (folder / "game.toml").write_text(f"""[game]
title = "Мафия #9"
start = 2024-04-08
host = "Ведущий"
random_list = [{order}]

[mafia]
duty = "Игорь"

[forum]
url = "{board.url}"
username = "admin"
min_delay = 0
retries = 0
{limits}

[moves]
source = "maildir"
path = "moves"

{publish}
{toml}[[days]]
number = 1
topic = "{board.topic_url(t1)}"
""", encoding="utf-8")
    mail = folder / "moves" / "new" / "1712642400.m1.host"
    mail.write_text("From: p301@example.org\nTo: host@example.org\nSubject: ход\n"
                    "Message-ID: <m1@example.org>\nContent-Type: text/plain; charset=utf-8\n\n"
                    f"убить Маша\nистория: {STORY}\n", encoding="utf-8")
    ts = msk(9, 12).timestamp()
    os.utime(mail, (ts, ts))
    return folder


@pytest.fixture
def clock():
    return FakeClock(msk(8, 21, 0))


def test_a_200000_character_story_is_capped_and_the_host_told(tmp_path, clock):
    with LocalBoard(language="ru", clock=clock) as board:
        cast = players(7)
        for nick, _, uid in cast:
            board.add_user(nick, uid)
        folder = make_world(tmp_path, clock, board, cast)
        clock.set(msk(9, 20, 5))
        ctx = open_game(folder, clock=clock)
        try:
            out = resolve_day_files(ctx, 1)
        finally:
            ctx.close()
    assert [d.player for d in out.result.killed] == ["Маша"]
    assert out.result.story == STORY.strip()              # the move keeps it whole
    day = folder / "out" / "day-1"
    paper = (day / "newspaper.bbcode").read_text(encoding="utf-8")
    assert sorted(p.name for p in day.glob("newspaper*")) == ["newspaper.bbcode"]
    assert len(paper) < 6000
    quoted = re.search(r"\[quote\](.*?)\[/quote\]", paper, re.S).group(1)
    assert quoted.startswith(SENTENCE) and quoted.endswith("…") and len(quoted) <= 3000
    report = (day / "host-report.txt").read_text(encoding="utf-8")
    assert ("История убийства длиннее предела ([moves] max_story_chars): в газете первые "
            "3000 знаков из 200000.") in report


def blocks_balanced(text: str) -> bool:
    for tag in ("list", "quote", "code", "table"):
        opened = len(re.findall(rf"\[{tag}(=[^\]]*)?\]", text))
        if opened != text.count(f"[/{tag}]"):
            return False
    return True


def test_a_long_vote_table_is_split_under_the_limit_and_posted_once_in_order(tmp_path, clock,
                                                                           monkeypatch):
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", PASSWORD)
    cast = players(40)
    with LocalBoard(language="ru", clock=clock, username="admin", password=PASSWORD) as board:
        board.max_post_chars = 5000
        for nick, _, uid in cast:
            board.add_user(nick, uid)
        results = board.add_topic("Мафия #9. Итоги", forum_id=4)
        board.add_post("admin", 2, "Здесь будут газеты.", msk(8, 20))
        folder = make_world(tmp_path, clock, board, cast, limits="max_post_chars = 5000",
                            results=results)
        clock.set(msk(9, 20, 5))
        ctx = open_game(folder, clock=clock)
        try:
            resolve_day_files(ctx, 1)
            day = folder / "out" / "day-1"
            names = sorted(p.name for p in day.glob("newspaper*"))
            parts = [(day / n).read_text(encoding="utf-8") for n in
                     ["newspaper.bbcode"] + [f"newspaper-{i}.bbcode"
                                             for i in range(2, len(names) + 1)]]
            assert len(parts) >= 2 and len(names) == len(parts)
            for i, text in enumerate(parts, start=1):
                assert len(text) <= 5000 and blocks_balanced(text), (i, len(text))
                if i > 1:
                    assert text.startswith(f"[b]Мафия #9 — итоги дня 1, продолжение (часть {i} "
                                           f"из {len(parts)})[/b]\n")
                if i < len(parts):
                    assert text.rstrip().endswith("[/i]")
            # every vote is in exactly one part, in the table's order
            whole = "\n".join(parts)
            for nick, _, _ in cast:
                assert len(re.findall(rf"\]{nick}\[/url\] \(", whole)) == 1, nick
            report = (day / "host-report.txt").read_text(encoding="utf-8")
            assert f"{len(parts)} поста — newspaper.bbcode (" in report or \
                f"{len(parts)} постов — newspaper.bbcode (" in report
            # publishing: each part once, in order, each under the board's limit
            before = len(board.topics[results].posts)
            first = pub.publish_day(ctx, 1)
            assert [(o.kind, o.status) for o in first] == \
                [("newspaper", "posted")] * len(parts) + [("day-start", "posted")]
            posted = [p.body for p in board.topics[results].posts[before:]]
            assert posted == [p for p in parts]
            again = pub.publish_day(ctx, 1)
            assert {o.status for o in again} == {"already"}
            assert len(board.topics[results].posts) == before + len(parts)
        finally:
            ctx.close()


def test_split_post_reopens_the_blocks_it_closes():
    text = ("[b]Итоги[/b]\n[list]\n" + "".join(f"[*]строка {i}\n" for i in range(300))
            + "[/list]\n[code]\n" + "".join(f"{i:>5} [b]не тег в коде\n" for i in range(300))
            + "[/code]\nКонец.\n")
    parts = split_post(text, 5000, mark=lambda where, i, n: f"<{where} {i}/{n}>")
    assert len(parts) >= 2 and all(len(p) <= 5000 and blocks_balanced(p) for p in parts)
    assert parts[1].startswith(f"<head 2/{len(parts)}>\n")
    assert parts[0].endswith(f"<foot 1/{len(parts)}>\n")
    lines = [ln for p in parts for ln in p.splitlines()
             if ln.startswith(("[*]строка", "    ")) or "не тег" in ln]
    assert [ln for ln in text.splitlines() if ln.startswith("[*]") or "не тег" in ln] == lines
    assert split_post("short\n", 5000) == ["short\n"] and split_post(text, 0) == [text]


def test_cap_text_cuts_at_a_word_and_says_how_long_it_was():
    assert cap_text("коротко", 3000) == ("коротко", None)
    text, full = cap_text(STORY, 3000)
    assert full == 200_000 and len(text) <= 3000 and text.endswith("…")
    assert STORY.startswith(text[:-1]) and not text[:-1].endswith(" ")
    assert cap_text(STORY, 0) == (None, 200_000)
