"""Issue 16's reuse between polls changes no result: posts taken from the previous parse
(forum/parse/reuse.py) and a page's versions stored with one query (store.py) give exactly
what reading and storing post by post gives."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from test_poll_unchanged import _board, _client  # the same three players and topic

from scraper_mod.clock import FakeClock
from scraper_mod.forum import pagecache, poller
from scraper_mod.forum.fetched import FetchResult, find_login_form, page_error
from scraper_mod.forum.parse import parse_topic_page
from scraper_mod.forum.parse import topic as topic_mod
from scraper_mod.forum.parse.doc import PageDoc
from scraper_mod.forum.parse.reuse import PostMemo, hollow
from scraper_mod.store import Store

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "phpbb" / "phpbb-3.3.15"
PAGES = sorted(FIXTURES.glob("prosilver-*/guest_viewtopic_t4_start*.html"))
T0 = datetime(2024, 4, 9, 12, 0, tzinfo=timezone.utc)
MSK = ZoneInfo("Europe/Moscow")


class Walks:
    """Which posts the parser read from their trees."""

    def __init__(self, monkeypatch) -> None:
        self.ids: list[int] = []
        real = topic_mod._prosilver_post

        def walk(div, pid, **kw):
            self.ids.append(pid)
            return real(div, pid, **kw)
        monkeypatch.setattr(topic_mod, "_prosilver_post", walk)


def _parse(body: bytes, memo: PostMemo | None = None, *, url: str = "p.html",
           at: datetime = T0):
    return parse_topic_page(body, url=url, fetched_at=at, board_tz=MSK, memo=memo)


def _timeless(post) -> bool:
    return (post.precision == "second" and post.edited_at is None and not post.edit_count
            and post.edited_by is None)


def _post_span(body: bytes, pid: int) -> tuple[int, int]:
    start = body.index(f'<div id="p{pid}" class="post'.encode())
    nxt = re.compile(rb'<div id="p\d+" class="post[ "]').search(body, start + 10)
    return start, nxt.start() if nxt else len(body)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name + "/" + p.name)
def test_posts_of_a_changed_page_read_as_a_fresh_parse_reads_them(page, monkeypatch):
    body = page.read_bytes()
    memo = PostMemo()
    first = _parse(body, memo)
    assert first.posts
    walks = Walks(monkeypatch)
    # the same bytes a minute later: every post read without the fetch's time is taken again
    later = datetime(2024, 4, 9, 12, 1, tzinfo=timezone.utc)
    again = _parse(body, memo, at=later)
    assert sorted(walks.ids) == sorted(p.post_id for p in first.posts if not _timeless(p))
    assert again == _parse(body, at=later)
    # one post's words changed, every author's post count grown, a post's author online,
    # the header's clock moved: only the changed post (and those read with the fetch's
    # time) are read from their trees, and the page reads as a fresh parse reads it
    target = first.posts[len(first.posts) // 2]
    s, e = _post_span(body, target.post_id)
    post_bytes = body[s:e]
    changed = re.sub(rb'(<div class="content">)', rb"\1P.S. ", post_bytes, count=1)
    assert changed != post_bytes
    edited = body[:s] + changed + body[e:]
    edited = re.sub(rb'(search\.php\?author_id=\d+&amp;sr=posts">)(\d+)',
                    lambda m: m.group(1) + str(int(m.group(2)) + 1).encode(), edited)
    online = edited.replace(b'class="post has-profile bg2', b'class="post has-profile bg2 online',
                            1)
    assert online != edited
    edited = online
    walks.ids.clear()
    got = _parse(edited, memo, at=later)
    want_walks = {target.post_id} | {p.post_id for p in first.posts if not _timeless(p)}
    assert set(walks.ids) == want_walks
    assert got == _parse(edited, at=later)
    assert "P.S." in next(p for p in got.posts if p.post_id == target.post_id).text
    # another URL (the post moved to another page): read afresh
    walks.ids.clear()
    assert _parse(edited, memo, url="other.html", at=later) == _parse(
        edited, url="other.html", at=later)
    assert len(walks.ids) == 2 * len(first.posts)


def test_the_fixture_pages_have_posts_to_take_and_posts_to_read_again():
    """The pages above hold posts read to the second and posts with edit notices."""
    posts = [p for page in PAGES for p in _parse(page.read_bytes()).posts]
    assert any(_timeless(p) for p in posts) and any(p.edit_count for p in posts)


# -- a whole day on a board -----------------------------------------------------------------

def _steps(board, clock):
    people = [("Вася", 58), ("Маша_2", 59), ("Big Joe", 60)]

    def say(i):
        nick, uid = people[i % 3]
        target = people[(i + 1) % 3][0]
        text = (f"Голосую за [color=red]{target}[/color]" if i % 2 else
                f"[quote={people[(i + 2) % 3][0]}]старое[/quote] [b]{target}[/b]?")
        return lambda: board.add_post(nick, uid, text, clock.now(), topic=4)

    steps = []
    for i in range(16):
        steps.append(say(i))
        if i % 4 == 1:
            steps.append(lambda: None)
        if i == 7:
            steps.append(lambda: board.edit_post(69, "Голосую за [color=red]Вася[/color]",
                                                 reason="передумал"))
        if i == 9:
            steps.append(lambda: board.delete_post(70))
    return steps


def _whole_day(monkeypatch, *, reuse: bool):
    clock = FakeClock(datetime(2024, 4, 9, 9, 0, tzinfo=timezone.utc))
    walks = Walks(monkeypatch)
    if not reuse:      # every page parsed afresh, no memo, no post left out of a tree
        monkeypatch.setattr(poller, "read_page", lambda store, key, res, tz: parse_topic_page(
            res.body, url=res.url, fetched_at=res.fetched_at, board_tz=tz))
        monkeypatch.setattr(poller, "expect_page", lambda *a: None)
    with _board(clock) as board:
        client = _client(board, clock)
        store = Store(":memory:")
        reports = []
        for step in _steps(board, clock):
            clock.advance(minutes=5)
            step()
            reports.append(poller.poll_topic(client, store, board.topic_url(4),
                                             now=clock.now).summary())
        base = board.url
        key = poller.canonical_topic_url(board.topic_url(4))
    monkeypatch.undo()
    versions = [(v.post_id, v.fetched_at, {k: (x.replace(base, "") if isinstance(x, str)
                                               else x) for k, x in v.data.items()})
                for v in store.post_versions()]
    return len(walks.ids), reports, versions, store.deleted_posts(key)


def test_a_whole_day_stores_what_parsing_every_page_afresh_stores(monkeypatch):
    pagecache._POSTS.clear()
    walked, *reused = _whole_day(monkeypatch, reuse=True)
    walked_fresh, *fresh = _whole_day(monkeypatch, reuse=False)
    assert reused == fresh
    assert len(reused[1]) >= 16 and reused[2]           # versions, an edit, a deletion
    assert any(v[2]["edit_count"] for v in reused[1])
    assert walked < walked_fresh / 2                    # most posts were taken, not walked


# -- posts left out of the tree (parse/reuse.py hollow) ------------------------------------

def _hollow_parse(body: bytes, memo: PostMemo, *, at: datetime = T0, url: str = "p.html",
                  known=None):
    page = PageDoc(body, url)
    page.reuse(known or (lambda pid, d: memo.get(pid, url, MSK, d) is not None))
    # the client's checks read the page first, from the same (hollow) tree
    checks = (find_login_form(body, url=url, page=page), page_error(
        FetchResult(url=url, status=200, body=body, fetched_at=at)))
    return parse_topic_page(body, url=url, fetched_at=at, board_tz=MSK, page=page,
                            memo=memo), page, checks


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name + "/" + p.name)
def test_a_page_parsed_without_the_posts_the_memo_holds_reads_as_a_fresh_parse(page,
                                                                             monkeypatch):
    body = page.read_bytes()
    memo = PostMemo()
    first = _parse(body, memo)
    later = datetime(2024, 4, 9, 12, 1, tzinfo=timezone.utc)
    timeless = [p.post_id for p in first.posts[:-1] if _timeless(p)]
    # one post's words changed: every other post the memo holds is left out of the tree
    target = first.posts[len(first.posts) // 2]
    s, e = _post_span(body, target.post_id)
    edited = body[:s] + re.sub(rb'(<div class="content">)', rb"\1P.S. ", body[s:e],
                               count=1) + body[e:]
    walks = Walks(monkeypatch)
    got, doc, checks = _hollow_parse(edited, memo, at=later)
    assert doc.hollowed == frozenset(timeless) - {target.post_id}
    assert len(doc.hollowed) >= 3
    assert target.post_id in walks.ids and not doc.hollowed & set(walks.ids)
    assert got == _parse(edited, at=later)
    assert checks == (None, None)
    assert "P.S." in next(p for p in got.posts if p.post_id == target.post_id).text


def test_a_post_left_out_but_not_in_the_memo_is_read_from_a_whole_tree(monkeypatch):
    """``known`` said yes for every post, but the memo holds none of them (a lying lookup,
    or a memo changed in between): the parser reads the page again with every post."""
    body = PAGES[0].read_bytes()
    fresh = _parse(body)
    walks = Walks(monkeypatch)
    got, doc, _ = _hollow_parse(body, PostMemo(), known=lambda pid, d: True)
    assert got == fresh
    assert doc.hollowed == frozenset()
    assert sorted(walks.ids) == sorted(p.post_id for p in fresh.posts)


def test_a_page_without_a_declared_utf8_charset_is_never_hollowed():
    body = PAGES[0].read_bytes()
    latin = re.sub(rb'charset=["\']?utf-8', b'charset="windows-1251"', body, count=1,
                   flags=re.I)
    assert latin != body
    assert hollow(latin, lambda pid, d: True) == (latin, frozenset())
    out, gone = hollow(body, lambda pid, d: True)
    assert len(gone) == len(_parse(body).posts) - 1 and len(out) < len(body) / 2


# -- one store query per page ---------------------------------------------------------------

def test_a_page_of_versions_at_once_stores_what_one_at_a_time_stores():
    """``Store.add_post_versions`` against ``add_post_version`` post by post: new posts,
    unchanged ones, changed ones, a post marked deleted that shows again, a post twice."""
    one, batch = Store(":memory:"), Store(":memory:")
    topic = "http://127.0.0.1/viewtopic.php?t=4"
    pages = [
        [(63, {"text": "а"}), (64, {"text": "б"})],
        [(63, {"text": "а"}), (64, {"text": "б2"}), (65, {"text": "в"})],
        [(64, {"text": "б2"}), (65, {"text": "в"}), (66, {"text": "г"})],
        [(63, {"text": "а"}), (66, {"text": "г2"}), (66, {"text": "г3"})],
        [],
    ]
    for n, page in enumerate(pages):
        at = T0.replace(minute=n)
        if n == 2:
            for s in (one, batch):
                s.mark_deleted(topic, 63, detected_at=at)
        got_one = [one.add_post_version(topic, pid, {"post_id": pid, **c}, content=c,
                                        fetched_at=at) for pid, c in page]
        made = []
        got_batch = batch.add_post_versions(
            topic, [(pid, c, lambda pid=pid, c=c: made.append(pid) or {"post_id": pid, **c})
                    for pid, c in page], fetched_at=at)
        assert got_batch == got_one
        if len({pid for pid, _ in page}) == len(page):   # the data made only when stored
            assert sorted(made) == sorted(pid for (pid, _), new in zip(page, got_one) if new)
    assert batch.post_versions() == one.post_versions() and len(one.post_versions()) == 7
    assert batch.deleted_posts(topic) == one.deleted_posts(topic) == {}


def test_a_post_known_to_the_second_is_hashed_once_as_its_content_is():
    from scraper_mod.store import ContentHash, content_hash
    post = next(p for p in _parse(PAGES[0].read_bytes()).posts if _timeless(p))
    got, sharper = poller._content(post, {})
    assert isinstance(got, ContentHash) and not sharper
    assert got == content_hash(post.content_key()) and content_hash(got) == got
    assert poller._content(post, {})[0] is got                   # kept with the post
    assert poller._content(dataclasses.replace(post, text="другое"), {})[0] != got


@pytest.mark.parametrize("page", PAGES[:2], ids=lambda p: p.parent.name + "/" + p.name)
def test_a_post_digest_is_the_hash_of_its_bytes_without_the_post_count(page):
    """Hashed in pieces (parse/reuse.py): the digest of the bytes with the count cut out."""
    import hashlib

    from scraper_mod.forum.parse import reuse
    body = page.read_bytes()
    starts = list(reuse._RE_POST_START.finditer(body))
    assert len(starts) >= 2
    for a, b in zip(starts, starts[1:]):
        nxt = body.rfind(b"<div", 0, b.end())
        inside, digest = reuse._span_digest(body, a.end(), nxt)
        span = body[inside:nxt]
        assert reuse._RE_POST_COUNT.search(span)          # the count is there to leave out
        assert digest == hashlib.sha256(reuse._RE_POST_COUNT.sub(rb"\1\2", span)).digest()
        grown = reuse._RE_POST_COUNT.sub(rb"\g<1>99999\2", span)
        assert hashlib.sha256(reuse._RE_POST_COUNT.sub(rb"\1\2", grown)).digest() == digest


def test_a_failure_while_leaving_posts_out_reads_the_page_with_every_post(monkeypatch,
                                                                          caplog):
    from scraper_mod.forum.parse import doc as doc_mod

    def broken(*a, **k):
        raise IndexError("a bug")
    monkeypatch.setattr(doc_mod, "hollow", broken)
    body = PAGES[0].read_bytes()
    memo = PostMemo()
    first = _parse(body, memo)
    got, page, checks = _hollow_parse(body, memo)
    assert got == first == _parse(body) and page.hollowed == frozenset()
    assert checks == (None, None)
    assert "read with every post" in caplog.text


def test_every_stored_page_is_filed_under_the_hash_of_its_stored_bytes(monkeypatch):
    """The poller hands the store the fetch's own SHA-256 when the stored bytes are the
    fetched ones (no session id scrubbed out), and lets it hash them otherwise."""
    import hashlib
    clock = FakeClock(datetime(2024, 4, 9, 9, 0, tzinfo=timezone.utc))
    with _board(clock) as board:
        client = _client(board, clock)
        store = Store(":memory:")
        for step in _steps(board, clock)[:6]:
            clock.advance(minutes=5)
            step()
            poller.poll_topic(client, store, board.topic_url(4), now=clock.now)
        # a page carrying a session id in a link: stored without it, under its own hash
        real = poller.scrub_body
        monkeypatch.setattr(poller, "scrub_body",
                            lambda b: real(b + b"?sid=" + b"a" * 32))
        clock.advance(minutes=5)
        poller.poll_topic(client, store, board.topic_url(4), now=clock.now)
    rows = store.db.execute("SELECT sha256, body FROM bodies").fetchall()
    assert len(rows) >= 6
    assert all(h == hashlib.sha256(b).hexdigest() for h, b in rows)
    assert any(b.endswith(b"?sid=") for _, b in rows)


def test_the_deadlines_rescan_takes_each_pages_unchanged_posts_from_the_memo(monkeypatch):
    """Every page was the last page once, and read so: the full re-scan at the deadline
    reads none of their unchanged posts from a tree, and stores what a fresh read stores; an
    edited post (its notice depends on the fetch's time) is read from its tree."""
    pagecache._POSTS.clear()
    clock = FakeClock(datetime(2024, 4, 9, 9, 0, tzinfo=timezone.utc))
    with _board(clock) as board:
        client = _client(board, clock)
        store = Store(":memory:")
        ids = []
        for n in range(13):                               # three pages of five, polled
            clock.advance(minutes=5)
            ids.append(board.add_post("Вася" if n % 2 else "Маша_2", 59 - n % 2,
                                      f"пост {n}: [color=red]Big Joe[/color]", clock.now(),
                                      topic=4))
            poller.poll_topic(client, store, board.topic_url(4), now=clock.now)
        walks = Walks(monkeypatch)
        clock.advance(minutes=5)
        full = poller.poll_topic(client, store, board.topic_url(4), now=clock.now, full=True)
        assert full.complete and full.pages == (1, 2, 3) and full.new_versions == ()
        assert walks.ids == []
        board.edit_post(ids[1], "пост 1: [color=red]Маша_2[/color]", edited_at=clock.now())
        clock.advance(minutes=5)
        full = poller.poll_topic(client, store, board.topic_url(4), now=clock.now, full=True)
        assert walks.ids == [ids[1]] and full.new_versions == (ids[1],)
        latest = [v for v in store.post_versions() if v.post_id == ids[1]][-1]
        assert latest.data["edit_count"] == 1
        memo = pagecache._POSTS[store][poller.canonical_topic_url(board.topic_url(4))]
        assert len(memo.posts) == 12                      # every timeless post; not the edit
