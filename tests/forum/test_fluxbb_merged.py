"""Merged replies (FluxBB_by_Visman's Merge Post) read piece by piece by the vote rules:
each addition counts from the time its «Добавлено спустя …» mark gives (R2.6, R2.7), an
addition after the deadline changes nothing (R2.7, R2.11), two votes in one merged post are
two votes at two times (not R2.4's ambiguous post), and a mark can not date an addition
before a sighting of the post without it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from scraper_mod.forum.fluxbb.parse import parse_fluxbb_topic_page
from scraper_mod.forum.html import MOSCOW
from scraper_mod.forum.merged import merged_at_deadline, merged_versions, real_post_id
from scraper_mod.forum.model import Colored, Part, Post
from scraper_mod.rules.tally import count_votes
from scraper_mod.rules.votes import extract_votes

PLAYERS = [("Вася", ()), ("Маша_2", ()), ("Кот", ()), ("Лиса", ()), ("Big Joe", ()),
           ("Зоя", ())]
NICKS = [p for p, _ in PLAYERS]
T0 = datetime(2026, 12, 5, 20, 0, 0, tzinfo=MOSCOW)
DEADLINE = datetime(2026, 12, 5, 21, 0, 0, tzinfo=MOSCOW)


def _post(pid: int, author: str, pieces: list[tuple[int, str, str]], *, at: datetime = T0,
          edited: datetime | None = None) -> Post:
    parts = tuple(Part(after=after, colored=(Colored("red", nick),) if nick else (),
                       text=text) for after, nick, text in pieces)
    return Post(post_id=pid, author=author, author_id=None, posted_at=at, precision="second",
                earliest=at, latest=at, edited_at=edited, edited_by=author if edited else None,
                edit_count=1 if edited else 0,
                colored=tuple(c for p in parts for c in p.colored),
                text="\n".join(p.text for p in parts), parts=parts if len(parts) > 1 else ())


def _count(versions, **kw):
    kw.setdefault("deadline", DEADLINE)
    at_dl = kw.pop("at_deadline", None)
    vs = merged_versions(versions, at_deadline=at_dl, deadline=kw["deadline"])
    votes, rejected, _ = extract_votes(vs, players=PLAYERS, alive=NICKS, host="admin",
                                       deadline_posts=merged_at_deadline(at_dl), **kw)
    tally = count_votes(votes, alive=NICKS, frozen=(), self_votes=True)
    return votes, rejected, {v.voter: v.target for v in tally.votes}


def test_two_votes_in_one_merged_post_are_two_votes_at_two_times_R2_4():
    post = _post(3, "Вася", [(0, "Кот", "Голосую: Кот"), (1805, "Маша_2", "Перегол: Маша_2")])
    votes, rejected, final = _count([(post, T0 + timedelta(hours=2))])
    assert sorted((v.target, v.at) for v in votes) == [
        ("Кот", T0), ("Маша_2", T0 + timedelta(seconds=1805))]
    assert not [r for r in rejected if r.reason == "two_players"]
    assert final == {"Вася": "Маша_2"}
    assert {real_post_id(v.post_id) for v in votes} == {3}


def test_an_addition_after_the_deadline_changes_nothing_R2_7():
    """R2.7: the vote stands as the post stood before the deadline; the addition 1 h 05 min
    03 s later (21:05:03) is late."""
    post = _post(3, "Вася", [(0, "Кот", "Кот"), (3903, "Маша_2", "Маша_2")],
                 at=DEADLINE - timedelta(minutes=30))
    votes, rejected, final = _count([(post, DEADLINE + timedelta(minutes=40))])
    assert final == {"Вася": "Кот"}
    assert [(r.text, r.reason) for r in rejected] == [("Маша_2", "late")]


def test_an_addition_missing_at_the_deadline_read_is_late_whatever_its_mark_R2_11():
    """R2.11: the read at the deadline showed the post without the addition: a mark
    claiming 10 s (typed [after=10]) does not date it before the deadline."""
    first = _post(3, "Вася", [(0, "Кот", "Кот")], at=DEADLINE - timedelta(minutes=5))
    merged = _post(3, "Вася", [(0, "Кот", "Кот"), (10, "Маша_2", "Маша_2")],
                   at=DEADLINE - timedelta(minutes=5))
    versions = [(first, DEADLINE - timedelta(minutes=4)),
                (merged, DEADLINE + timedelta(minutes=3))]
    _, rejected, final = _count(versions, at_deadline={3: first})
    assert final == {"Вася": "Кот"}
    assert ("Маша_2", "late") in {(r.text, r.reason) for r in rejected}


def test_a_mark_cannot_date_an_addition_before_a_sighting_without_it():
    """The post was seen at 20:50 with one piece; a second piece whose mark says 20:00:10
    was written after 20:50 (it counts from then, still before the deadline)."""
    first = _post(3, "Вася", [(0, "Кот", "Кот")])
    merged = _post(3, "Вася", [(0, "Кот", "Кот"), (10, "Маша_2", "Маша_2")])
    seen0, seen1 = T0 + timedelta(minutes=50), T0 + timedelta(minutes=55)
    votes, _, final = _count([(first, seen0), (merged, seen1)])
    assert final == {"Вася": "Маша_2"}
    assert {v.target: v.at for v in votes}["Маша_2"] >= seen0


def test_an_edit_of_a_merged_post_dates_only_the_piece_it_changed_R2_7():
    """An edit (one notice for the whole post) after the deadline that changed the second
    piece: the first piece's vote is untouched, the second stands as before the deadline."""
    before = _post(3, "Вася", [(0, "Кот", "Кот"), (60, "Лиса", "Лиса")])
    after = _post(3, "Вася", [(0, "Кот", "Кот"), (60, "Маша_2", "Маша_2")],
                  edited=DEADLINE + timedelta(minutes=1))
    votes, rejected, final = _count([(before, T0 + timedelta(minutes=2)),
                                     (after, DEADLINE + timedelta(minutes=2))])
    assert final == {"Вася": "Лиса"}
    assert ("Маша_2", "edited_after_deadline") in {(r.text, r.reason) for r in rejected}
    assert {v.target: v.at for v in votes}["Кот"] == T0


def test_the_real_boards_merged_post_reads_as_two_votes():
    """The page saved from the real board: Вася's «Голосую: Кот» and, merged 2 s later,
    «Перегол: Маша_2»: the later vote stands."""
    page = parse_fluxbb_topic_page(
        (Path(__file__).resolve().parents[2] / "fixtures/fluxbb/topic-guest.html").read_bytes(),
        url="http://127.0.0.1:8391/viewtopic.php?id=2",
        fetched_at=datetime(2026, 12, 5, 7, 29, 57, tzinfo=timezone.utc), board_tz=MOSCOW)
    seen = datetime(2026, 12, 5, 10, 29, 57, tzinfo=MOSCOW)
    post = {p.post_id: p for p in page.posts}[3]
    votes, _, final = _count([(post, seen)], deadline=seen + timedelta(hours=1))
    assert final == {"Вася": "Маша_2"}
    assert sorted(v.at - post.posted_at for v in votes) == [timedelta(0), timedelta(seconds=2)]


def test_a_typed_mark_cannot_date_a_piece_after_it_was_seen_R2_6():
    """Anyone can type the grey «Добавлено спустя 2 ч:» line: a piece seen 10 minutes after
    the post was written was written by then, whatever its mark says (R2.6 reads the range:
    first seen before the deadline, it counts)."""
    post = _post(3, "Вася", [(0, "Кот", "Кот"), (7200, "Маша_2", "Маша_2")],
                 at=DEADLINE - timedelta(minutes=30))
    seen = DEADLINE - timedelta(minutes=20)
    votes, rejected, final = _count([(post, seen)])
    assert final == {"Вася": "Маша_2"}
    assert not [r for r in rejected if r.reason in ("late", "late_unclear")]
    assert all(v.at <= seen for v in votes)


def test_the_read_at_the_deadline_of_a_merged_post_R2_11():
    """The read at the deadline showed a merged post (two pieces); a third piece merged
    after it, whose mark says it came before the deadline, is late all the same."""
    two = _post(3, "Вася", [(0, "Кот", "Кот"), (60, "Лиса", "Лиса")],
                at=DEADLINE - timedelta(minutes=10))
    three = _post(3, "Вася", [(0, "Кот", "Кот"), (60, "Лиса", "Лиса"), (120, "Маша_2", "Маша_2")],
                  at=DEADLINE - timedelta(minutes=10))
    versions = [(two, DEADLINE - timedelta(minutes=5)), (three, DEADLINE + timedelta(minutes=1))]
    assert set(merged_at_deadline({3: two})) == {3, real_post_id(3) + 10_000_000_000}
    _, rejected, final = _count(versions, at_deadline={3: two})
    assert final == {"Вася": "Лиса"}
    assert ("Маша_2", "late") in {(r.text, r.reason) for r in rejected}


def test_a_re_vote_merged_in_the_same_second_is_the_later_vote_R2_4():
    """Saved from the real board: Зоя's «Кот» and «нет, Лиса» merged in one second (no
    mark): two votes at one time, the later piece (written after) stands."""
    fix = Path(__file__).resolve().parents[2] / "fixtures/fluxbb/merged-same-second.html"
    page = parse_fluxbb_topic_page(fix.read_bytes(), url="http://127.0.0.1:8391/viewtopic.php?id=2",
                                   fetched_at=datetime(2026, 12, 5, 7, 50, tzinfo=timezone.utc),
                                   board_tz=MOSCOW)
    post = next(p for p in page.posts if p.author == "Зоя")
    seen = post.posted_at + timedelta(seconds=30)
    votes, rejected, final = _count([(post, seen)], deadline=seen + timedelta(hours=1))
    assert final == {"Зоя": "Лиса"}
    assert len({v.at for v in votes}) == 1 and not [r for r in rejected
                                                    if r.reason == "two_players"]
