"""The vote count on the real phpBB 3.3.15 topic «День 1 — голосование» (fixtures/phpbb/),
against the ground truth written when the pages were captured (its README.md).

The README's "Vote tally helpers" give the count as of the deadline (Алексей 6, NightOwl 2);
its per-post lines ("time (Moscow)", "vote:") give, independently of our code, who voted for
whom at any moment of the day. Every capture is checked: prosilver and the subSilver2 port,
English and Russian, absolute and relative dates; each through the real parser with the
fetch moment of its fetch_log.tsv, then ``tally_day`` on the game fixtures/games/day1.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from datetime import datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.clock import FakeClock
from scraper_mod.forum.phpbb.parse import parse_topic_page
from scraper_mod.game.day.tally import tally_day

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "fixtures" / "phpbb" / "phpbb-3.3.15"
GAME = ROOT / "fixtures" / "games" / "day1"
MSK = ZoneInfo("Europe/Moscow")
DEADLINE = datetime(2024, 4, 9, 20, 0, tzinfo=MSK)
FOLDERS = ["prosilver-en", "prosilver-ru", "subsilver2-port-gorski-en",
           "subsilver2-port-gorski-ru", "prosilver-ru-relative-dates",
           "subsilver2-port-gorski-ru-relative-dates"]
TOPIC = "http://127.0.0.1/viewtopic.php?t=4"


# --- the ground truth, read from the README (not from our code) ------------------------------

@functools.lru_cache(maxsize=None)
def _readme_posts() -> tuple:
    return tuple(_read_readme_posts())


def readme_posts() -> list[dict]:
    return list(_readme_posts())


def _read_readme_posts() -> list[dict]:
    """Per post: id, author, exact Moscow time, the vote the README states, the edit time."""
    text = (PAGES / "README.md").read_text(encoding="utf-8")
    posts = []
    for block in re.split(r"\n(?=n=\s*\d+\s+post id)", text):
        head = re.match(r"n=\s*\d+\s+post id (\d+).*?author: (.+?) \(user id \d+\)\s+"
                        r"time \(Moscow\): (\S+ \S+)", block)
        if not head:
            continue
        vote = re.search(r"^\s+vote: (.+)$", block, re.M).group(1).strip()
        target = None if vote.startswith("none") else vote.split(" (")[0].strip()
        edit = re.search(r"EDITED: .*? at (\S+ \S+) Moscow", block)
        posts.append({"post_id": int(head.group(1)), "author": head.group(2),
                      "at": datetime.fromisoformat(head.group(3)).replace(tzinfo=MSK),
                      "vote": target,
                      "edited": (datetime.fromisoformat(edit.group(1)).replace(tzinfo=MSK)
                                 if edit else None)})
    assert len(posts) == 40
    return posts


def truth_as_of(at: datetime) -> tuple[dict[str, str], Counter]:
    """Each player's last vote in a post made before ``at`` (the host, admin, never votes)."""
    last: dict[str, str] = {}
    for p in sorted(readme_posts(), key=lambda p: p["at"]):
        if p["at"] < at and p["vote"] and p["author"] != "admin":
            assert not (p["edited"] and p["at"] < at <= p["edited"]), \
                "pick --at times outside an edit's window: the pre-edit page was not captured"
            last[p["author"]] = p["vote"]
    return last, Counter(last.values())


def readme_final_tally() -> dict[str, tuple[int, set[str]]]:
    """The README's own line: «tally: Алексей: 6 (NightOwl, …); NightOwl: 2 (…)»."""
    text = (PAGES / "README.md").read_text(encoding="utf-8")
    line = re.search(r"before 20:00:00 Moscow.*?\n\s+- tally: (.+)", text).group(1)
    out = {}
    for name, n, voters in re.findall(r"([^;:]+): (\d+) \(([^)]*)\)", line):
        out[name.strip()] = (int(n), {v.strip() for v in voters.split(",")})
    return out


# --- the pages, parsed as the poller would have seen them ----------------------------------

def fetched_at(folder: str, name: str) -> datetime:
    for row in (PAGES / folder / "fetch_log.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        cols = row.split("\t")
        if cols[0] == name:
            return parsedate_to_datetime(cols[3])
    raise AssertionError(f"{folder}/{name} is not in its fetch_log.tsv")


@functools.lru_cache(maxsize=None)
def _parsed(folder: str) -> tuple:
    out = []
    for name in ("guest_viewtopic_t4_start0.html", "guest_viewtopic_t4_start25.html"):
        when = fetched_at(folder, name)
        page = parse_topic_page((PAGES / folder / name).read_bytes(), url=TOPIC,
                                fetched_at=when, board_tz=MSK)
        out += [(p, when) for p in page.posts]
    assert len(out) == 40
    return tuple(out)


def versions_of(folder: str) -> list:
    """The 40 posts of a capture, each with the moment it was fetched (its first sighting)."""
    return list(_parsed(folder))


@pytest.fixture(scope="module")
def ctx():
    from scraper_mod.game.context import GameContext
    from scraper_mod.game.setup.config import load_game
    from scraper_mod.store import Store
    # the fixture game's folder is never written: no state file is opened there
    c = GameContext(game=load_game(GAME), store=Store(":memory:"), clock=FakeClock(datetime(2024, 4, 9, 21, 0, tzinfo=MSK)))
    yield c
    c.close()


def as_dicts(result) -> tuple[dict, dict]:
    data = result.to_json()
    votes = {v["voter"]: v["target"] for v in data["votes"]}
    counts = {c["target"]: (c["votes"], set(c["voters"])) for c in data["counts"]}
    return votes, counts


# --- the tests -------------------------------------------------------------------------------

@pytest.mark.parametrize("folder", [f for f in FOLDERS if f != "subsilver2-port-gorski-ru-"
                                    "relative-dates"])
def test_final_tally_equals_the_ground_truth(ctx, folder):
    """R2.5, R2.6, R2.7: as of the deadline, Алексей 6, NightOwl 2, on every capture whose
    dates tell each post's side of 20:00 (prosilver's <time datetime>, absolute minutes)."""
    result = tally_day(ctx, 1, versions=versions_of(folder))
    data = result.to_json()
    assert data["final"] is True
    assert data["deadline"] == "2024-04-09T20:00:00+03:00"
    votes, counts = as_dicts(result)
    assert counts == readme_final_tally()
    assert votes == truth_as_of(DEADLINE)[0]
    assert [c["target"] for c in data["counts"]] == ["Алексей", "NightOwl"]
    assert data["lynch"] == {"player": "Алексей", "by": "votes"}
    assert data["not_voting"] == []
    late = {(r["post_id"], r["reason"]) for r in data["rejected"] if r["reason"] == "late"}
    assert late == {(97, "late"), (98, "late")}
    # the edited post counts with its edited text, from the edit (17:05)
    (v85,) = [v for v in data["votes"] if v["post_id"] == 85]
    assert v85["target"] == "Алексей" and v85["at"].startswith("2024-04-09T17:05")


def test_relative_dates_first_seen_after_the_deadline(ctx):
    """R2.6 on the subSilver2 capture with relative dates, fetched at 20:35:06: Маша_2's
    19:59:30 shows «35 минут назад», i.e. 19:59:06..20:00:06: it may be after 20:00 and was
    first seen after it, so it is late (the host is told) and her earlier vote for Алексей
    stands. Everything else is as the ground truth says."""
    result = tally_day(ctx, 1, versions=versions_of("subsilver2-port-gorski-ru-relative-dates"))
    votes, counts = as_dicts(result)
    expected, _ = truth_as_of(DEADLINE)
    expected["Маша_2"] = "Алексей"   # her vote of 18:20:15 (post 89)
    assert votes == expected
    assert counts == {"Алексей": (7, set(expected) - {"Алексей"}), "NightOwl": (1, {"Алексей"})}
    rejected = {(r["post_id"], r["reason"]) for r in result.to_json()["rejected"]
                if r["reason"].startswith("late")}
    assert rejected == {(96, "late_unclear"), (97, "late"), (98, "late")}


def test_relative_dates_seen_before_the_deadline_count(ctx):
    """R2.6: the same capture, plus a poll at 19:59:45 that saw post 96 («менее минуты
    назад»): it was on the board before 20:00, so the count is the ground truth's 6 : 2."""
    import dataclasses
    versions = versions_of("subsilver2-port-gorski-ru-relative-dates")
    (p96,) = [p for p, _ in versions if p.post_id == 96]
    seen = datetime(2024, 4, 9, 19, 59, 45, tzinfo=MSK)
    early = dataclasses.replace(p96, earliest=datetime(2024, 4, 9, 19, 58, 46, tzinfo=MSK),
                                latest=seen, posted_at=datetime(2024, 4, 9, 19, 58, 46,
                                                                tzinfo=MSK))
    result = tally_day(ctx, 1, versions=versions + [(early, seen)])
    _, counts = as_dicts(result)
    assert counts == readme_final_tally()


AT_TIMES = ["2024-04-08T23:59:00", "2024-04-09T09:30:00", "2024-04-09T12:00:00",
            "2024-04-09T16:00:00", "2024-04-09T17:30:00", "2024-04-09T19:00:00",
            "2024-04-09T19:50:00"]


@pytest.mark.parametrize("folder", FOLDERS)
@pytest.mark.parametrize("at", AT_TIMES)
def test_tally_as_of_times_during_the_day(ctx, folder, at):
    """The count as of --at times during the day equals the per-post ground truth."""
    when = datetime.fromisoformat(at).replace(tzinfo=MSK)
    result = tally_day(ctx, 1, as_of=when, versions=versions_of(folder))
    data = result.to_json()
    assert data["final"] is False and "lynch" not in data
    assert data["as_of"] == when.isoformat()
    votes, counts = as_dicts(result)
    expected_votes, expected_counts = truth_as_of(when)
    assert votes == expected_votes
    assert {t: n for t, (n, _) in counts.items()} == dict(expected_counts)
    assert sorted(data["not_voting"]) == sorted(
        {p.nick for p in ctx.game.players} - set(expected_votes))


def test_counts_order_and_voters_in_time_order(ctx):
    """CONTRACT: counts by votes, then who reached the count first; voters in time order."""
    when = datetime(2024, 4, 9, 12, 0, tzinfo=MSK)
    data = tally_day(ctx, 1, as_of=when, versions=versions_of("prosilver-ru")).to_json()
    # Вася 2 (Ёжик 23:48, Алексей 09:25); then 1 each in the order they were reached:
    # NightOwl (Big Joe 21:33), Ёжик в тумане (Вася 10:40), Игрок-7 (Маша_2 11:05),
    # Алексей (NightOwl 11:52)
    assert [(c["target"], c["votes"], c["voters"]) for c in data["counts"]] == [
        ("Вася", 2, ["Ёжик в тумане", "Алексей"]), ("NightOwl", 1, ["Big Joe"]),
        ("Ёжик в тумане", 1, ["Вася"]), ("Игрок-7", 1, ["Маша_2"]),
        ("Алексей", 1, ["NightOwl"])]


@pytest.mark.parametrize("folder", ["prosilver-ru", "subsilver2-port-gorski-ru",
                                    "prosilver-en", "subsilver2-port-gorski-en"])
def test_what_was_not_counted_and_why(ctx, folder):
    """R2.2, R2.8, R9.4: quotes, bold, the host's colored word, the signature's green nick
    and the late posts are reported, each with its reason."""
    data = tally_day(ctx, 1, versions=versions_of(folder)).to_json()
    rejected = {(r["post_id"], r["author"], r["text"], r["reason"]) for r in data["rejected"]}
    assert rejected == {
        (69, "doc_Holiday", "doc_Holiday", "signature"),
        (69, "doc_Holiday", "Алексей", "bold"),
        (70, "Алексей", "Вася", "quoted"),
        (71, "Игрок-7", "Big Joe", "quoted"),
        (75, "admin", "цветом", "host_post"),
        (76, "Big Joe", "Маша_2", "bold"),
        (77, "doc_Holiday", "doc_Holiday", "signature"),
        (81, "Маша_2", "Маша_2", "quoted"),
        (86, "doc_Holiday", "doc_Holiday", "signature"),
        (90, "Ёжик в тумане", "NightOwl", "quoted"),
        (93, "Big Joe", "Алексей", "quoted"),
        (95, "Игрок-7", "Алексей", "bold"),
        (97, "Вася", "NightOwl", "late"),
        (98, "doc_Holiday", "Маша_2", "late"),
    }


def test_host_report_section(ctx):
    """R9.4: the vote section of the host report: rejections with a reason in words, the
    edit that touched a vote, posts per player, who has not voted."""
    result = tally_day(ctx, 1, versions=versions_of("prosilver-en"))
    report = result.report("en")
    assert report["not_voted"] == []
    assert report["posts_per_player"] == dict(Counter(
        p["author"] for p in readme_posts() if p["at"] < DEADLINE and p["author"] != "admin"))
    (edit,) = report["edits"]
    assert (edit["post_id"], edit["author"], edit["after"], edit["counted"]) == (
        85, "Игрок-7", ["Алексей"], True)
    late = [r for r in report["rejected"] if r["reason"] == "late"]
    assert late[0]["why"] == "posted at or after the deadline"
    assert late[0]["url"] == "http://127.0.0.1/viewtopic.php?p=97#p97"
    assert report["late_posts"] == [97, 98, 99, 100, 101, 102]
