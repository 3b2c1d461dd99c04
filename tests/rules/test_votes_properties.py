"""Property tests of the vote count (RULES R2.5-R2.8): invariants over random days of posts.

- R2.6: adding a post after the deadline never changes the final tally;
- the order in which pages (post versions) were fetched never changes it;
- R2.5/R2.8: each alive voter counts at most once, only alive players are counted, and the
  counts add up to the counted votes.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from scraper_mod.forum.model import Colored, Hidden, Post
from scraper_mod.rules.model import RuleOptions
from scraper_mod.rules.tally import count_votes
from scraper_mod.rules.votes import extract_votes

MSK = ZoneInfo("Europe/Moscow")
START = datetime(2024, 4, 8, 21, 0, tzinfo=MSK)
DEADLINE = datetime(2024, 4, 9, 20, 0, tzinfo=MSK)
NICKS = ["Вася", "Маша_2", "Big Joe", "Алексей", "NightOwl", "Игрок-7", "Ёжик в тумане",
         "doc_Holiday"]
PLAYERS = [(n, ()) for n in NICKS]
AUTHORS = NICKS + ["admin", "Зритель"]
# what people write in color: nicks, inflected forms, typos, prefixes, words, two-name lists
WRITTEN = NICKS + ["Васю", "Алексея", "Маше_2", "Ёжика в тумане", "NightOwl'а", "Алесей",
                   "Night", "цветом", "всех", "Вася, Маша_2", "Маш", "big joe"]
COLORS = ["#FF0000", "red", "darkred", "#0000FF", "#333333", "black", "#008000"]

# strategies built once (building them inside the draws is what makes hypothesis slow)
seconds = st.integers(min_value=0, max_value=int((DEADLINE - START).total_seconds()) + 3600)
authors = st.sampled_from(AUTHORS)
precisions = st.sampled_from(["second", "second", "minute", "relative"])
colors = st.sampled_from(COLORS)
written = st.sampled_from(WRITTEN)
nicks = st.sampled_from(NICKS)
late_seconds = st.integers(0, 3600)
minute_seconds = st.integers(0, 59)
seen_delay = st.integers(0, 7200)
edit_delay = st.integers(1, 20000)
seen_after_edit = st.integers(0, 600)
zero_to_two = st.integers(0, 2)
zero_to_one = st.integers(0, 1)


@st.composite
def post_versions(draw, post_id: int, *, after_deadline: bool = False):
    """One post and its stored versions (with first sightings) as a poller would have them."""
    author = draw(authors)
    if after_deadline:
        at = DEADLINE + timedelta(seconds=draw(late_seconds))
    else:
        at = START + timedelta(seconds=draw(seconds))
    precision = draw(precisions)
    if precision == "second":
        earliest = latest = at
    elif precision == "minute":
        earliest = at.replace(second=0)
        latest = earliest + timedelta(seconds=59)
    else:
        earliest = at - timedelta(seconds=draw(minute_seconds))
        latest = earliest + timedelta(seconds=59)
    first_seen = at + timedelta(seconds=draw(seen_delay))

    def body():
        colored = tuple(Colored(draw(colors), draw(written))
                        for _ in range(draw(zero_to_two)))
        hidden = tuple(Hidden("#FF0000", draw(nicks), "quote")
                       for _ in range(draw(zero_to_one)))
        return colored, hidden

    colored, hidden = body()
    versions = [(Post(post_id=post_id, author=author, author_id=None, posted_at=earliest,
                      precision=precision, earliest=earliest, latest=latest,
                      colored=colored, hidden=hidden), first_seen)]
    seen = first_seen
    for n in range(draw(zero_to_two)):       # edits
        edited = max(at, seen) + timedelta(seconds=draw(edit_delay))
        edited = edited.replace(second=0)         # edit notices show minutes
        seen = max(edited, seen) + timedelta(seconds=draw(seen_after_edit))
        colored, hidden = body()
        versions.append((Post(post_id=post_id, author=author, author_id=None,
                              posted_at=earliest, precision=precision, earliest=earliest,
                              latest=latest, edited_at=edited, edit_count=n + 1,
                              colored=colored, hidden=hidden), seen))
    if draw(st.booleans()) and len(versions) > 1:
        versions = versions[1:]                   # the original was never seen
    return versions


@st.composite
def days(draw):
    n = draw(st.integers(0, 16))
    out = []
    for i in range(n):
        out += draw(post_versions(100 + i))
    alive = draw(st.lists(st.sampled_from(NICKS), min_size=2, unique=True))
    frozen = draw(st.lists(st.sampled_from(alive), max_size=1))
    options = RuleOptions(ambiguous_post=draw(st.sampled_from(["none", "last"])),
                          self_votes=draw(st.booleans()),
                          bold_votes=draw(st.booleans()))
    return out, alive, frozen, options


def final_tally(versions, alive, frozen, options):
    votes, rejected, _ = extract_votes(versions, players=PLAYERS, alive=alive, host="admin",
                                       deadline=DEADLINE, options=options, frozen=frozen)
    tally = count_votes(votes, alive=alive, frozen=frozen, self_votes=options.self_votes)
    return tally, votes, rejected


def counts_of(tally):
    return [(c.target, c.votes, c.voters) for c in tally.counts]


@settings(max_examples=35, deadline=None)
@given(days(), st.data())
def test_r2_6_a_post_after_the_deadline_never_changes_the_final_tally(day, data):
    versions, alive, frozen, options = day
    before, _, _ = final_tally(versions, alive, frozen, options)
    late = data.draw(st.lists(post_versions(500, after_deadline=True), min_size=1, max_size=3))
    extra = []
    for i, vs in enumerate(late):
        extra += [(p.__class__(**{**p.__dict__, "post_id": 500 + i}), s) for p, s in vs]
    after, _, _ = final_tally(versions + extra, alive, frozen, options)
    assert counts_of(after) == counts_of(before)
    assert after.votes == before.votes
    assert after.not_voting == before.not_voting


@settings(max_examples=35, deadline=None)
@given(days(), st.randoms(use_true_random=False))
def test_fetch_order_never_changes_the_tally(day, rnd):
    versions, alive, frozen, options = day
    tally, votes, rejected = final_tally(versions, alive, frozen, options)
    shuffled = list(versions)
    rnd.shuffle(shuffled)
    tally2, votes2, rejected2 = final_tally(shuffled, alive, frozen, options)
    assert counts_of(tally2) == counts_of(tally)
    assert tally2.votes == tally.votes
    assert sorted(votes2, key=repr) == sorted(votes, key=repr)
    assert sorted(rejected2, key=repr) == sorted(rejected, key=repr)


@settings(max_examples=35, deadline=None)
@given(days())
def test_r2_8_each_alive_voter_counts_at_most_once(day):
    versions, alive, frozen, options = day
    tally, votes, _ = final_tally(versions, alive, frozen, options)
    voters = [v.voter for v in tally.votes]
    assert len(voters) == len(set(voters))
    assert set(voters) <= set(alive) - set(frozen)
    assert all(v.target in alive for v in tally.votes)
    assert sum(c.votes for c in tally.counts) == len(tally.votes)
    assert all(c.votes == len(c.voters) for c in tally.counts)
    assert all(v.at < DEADLINE for v in votes)
    assert set(tally.not_voting) == set(alive) - set(frozen) - set(voters)
