"""Incremental polling of a phpBB topic into the store: every post version kept.

``poll_topic`` is cheap when nothing happens and thorough when asked:

- the raw body of every response is stored (``Store.record_fetch``) *before* it is parsed, so
  any day can be recomputed from what the board really sent;
- each post is appended as a version (``Store.add_post_version``) only when its content
  changed (``Post.content_key()``), with the board's clock at the fetch as its first-seen time;
- the topic's state (``Store.topic_state``: pages seen, last page URL, page count, last post
  id) lets an idle poll fetch only the last known page — one request — and follow the next
  pages when that page filled up;
- ``full=True`` re-reads every page: edits anywhere in the topic are recorded, and posts known
  but absent from the complete scan are marked deleted (``Store.mark_deleted``). A full scan
  that cannot read every page raises, so a day is never resolved on a partial topic;
- a failed request or an unreadable (e.g. truncated) page never corrupts the state: its body is
  stored, the error is reported in ``PollReport.errors`` and the next poll starts again from
  the last page that was read;
- boards that show post times to the minute or as «35 минут назад» (subsilver2, phpBB
  3.0–3.2 styles, Russian relative dates) leave a post near the deadline on both sides of it
  (RULES R2.6). When such posts are known and have not been refined yet, the poll reads the
  topic's Atom feed once (the URL the page advertises, else ``app.php/feed/topic/N`` or 3.0's
  ``feed.php?t=N``), stores its raw body like a page, and stores a refined version of each
  of those posts the feed lists, with its ``<published>`` time to the second. Posts the feed
  does not list (it holds the newest 15 by default) keep their ranges and are not asked
  about again. A board without a feed is remembered for a day (``topic_state["feed"]``);
  idle polls and boards with ``<time datetime>`` never ask for it, nor does a prosilver page
  that links no topic feed (prosilver links it whenever it is on).

The topic key is the canonical topic URL ``…/viewtopic.php?t=N`` (no ``start``, ``sid``...).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Callable, cast
from urllib.parse import urljoin
from zoneinfo import ZoneInfo

from ..errors import FetchError, ForumError, ParseError, TopicNotFoundError
from ..store import Store
from .client import FetchResult, ForumClient
from .engine import Board, board_for_url, topic_key
from .model import Post, TopicPage, post_from_json
from .session import scrub_body, scrub_url

log = logging.getLogger(__name__)

MAX_PAGES = 2000  # a topic longer than this is not a game day; stops a link loop
FEED_MISSING_RETRY = timedelta(days=1)     # a board without a topic feed is asked once a day
FEED_FAILED_RETRY = timedelta(minutes=5)   # a feed request that failed (network, 5xx)


@dataclass(frozen=True)
class PollReport:
    """What one poll did.

    ``new_posts``: ids seen for the first time; ``new_versions``: ids of already known posts
    whose content changed (edits); ``refined``: ids of posts stored again because the board
    now shows their time more precisely («35 минут назад» became «Сегодня, 19:59»);
    ``deleted``: ids newly marked deleted; ``pages``: the page numbers read; ``requests``:
    HTTP requests sent (retries and login steps included). ``feed``: what the topic's Atom
    feed gave this poll: "" (not asked), "read", "missing" (no feed on this board: not
    asked again for a day) or "failed" (asked again later); ids it sharpened to the second
    are in ``refined``.
    """

    topic: str
    requests: int
    new_posts: tuple[int, ...] = ()
    new_versions: tuple[int, ...] = ()
    deleted: tuple[int, ...] = ()
    pages: tuple[int, ...] = ()
    page_count: int = 0
    errors: tuple[str, ...] = ()
    full: bool = False
    complete: bool = False     # the last page of the topic was reached without an error
    refined: tuple[int, ...] = ()
    feed: str = ""

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        """One line for logs and the CLI."""
        parts = [f"{len(self.new_posts)} new post(s)", f"{len(self.new_versions)} edited",
                 f"{len(self.deleted)} deleted",
                 *([f"{len(self.refined)} with a sharper time"] if self.refined else []),
                 f"{len(self.pages)} page(s) read of {self.page_count}",
                 f"{self.requests} request(s)"]
        if self.feed:
            parts.append(f"feed {self.feed}")
        if self.full:
            parts.append("full scan" + ("" if self.complete else " INCOMPLETE"))
        if self.errors:
            parts.append(f"{len(self.errors)} error(s)")
        return ", ".join(parts)

    def summary_ru(self) -> str:
        """The same line in Russian, for a Russian game's host (issue 39 item 4)."""
        parts = [f"новых постов: {len(self.new_posts)}", f"правок: {len(self.new_versions)}",
                 f"удалено: {len(self.deleted)}",
                 *([f"с уточнённым временем: {len(self.refined)}"] if self.refined else []),
                 f"прочитано страниц: {len(self.pages)} из {self.page_count}",
                 f"запросов: {self.requests}"]
        if self.feed:
            parts.append("лента: " + _FEED_RU.get(self.feed, self.feed))
        if self.full:
            parts.append("полный просмотр" + ("" if self.complete else " НЕ ЗАВЕРШЁН"))
        if self.errors:
            parts.append(f"ошибок: {len(self.errors)}")
        return ", ".join(parts)


_FEED_RU = {"read": "прочитана", "missing": "нет", "failed": "не прочиталась",
            "skipped": "не запрашивалась"}


def _board(client: ForumClient, topic_url: str, board_tz, board: Board | None) -> Board:
    """The engine's adapter that reads the topic (forum/engine.py): ``board`` when given,
    else the one the topic address names (``index.php?topic=`` SMF, else phpBB)."""
    return board if board is not None else board_for_url(client, topic_url, board_tz=board_tz)


def canonical_topic_url(url: str) -> str:
    """The topic key: phpBB's ``scheme://host/path/viewtopic.php?t=N`` (no start, sid, f,
    p...), SMF's ``…/index.php?topic=T`` (no page, no PHPSESSID)."""
    return topic_key(url)


def _now_fn(now: datetime | Callable[[], datetime]) -> Callable[[], datetime]:
    return now if callable(now) else (lambda: now)


_PRECISION_RANK = {"second": 0, "minute": 1, "relative": 2}


def _content(post: Post, best: dict[str, str]) -> tuple[dict, bool]:
    """What decides whether a sighting is a new version: ``Post.content_key()``, plus, for a
    post ever seen without its exact second, the best time precision seen so far.

    Boards without ``<time datetime>`` show a recent post as «35 минут назад» (a range) and
    later as «Сегодня, 19:59» (a minute): the sharper sighting is stored as a version too, so
    the vote count can narrow the post's time (RULES R2.6). ``best`` (post id -> precision)
    is updated in place; returns (content, whether the precision just improved).
    """
    pid = str(post.post_id)
    prev = best.get(pid)
    content = post.content_key()
    if prev is None and post.precision == "second":
        return content, False
    sharper = prev is not None and _PRECISION_RANK.get(post.precision, 3) < \
        _PRECISION_RANK.get(prev, 3)
    if prev is None or sharper:
        best[pid] = post.precision
    return {**content, "precision": best[pid]}, sharper


def _confirm_deleted(board: Board, post_id: int, tid: int, key: str, *, record,
                     ) -> tuple[bool, TopicPage | None, FetchResult | None]:
    """Ask the board for the post's page (``viewtopic.php?p=N``, SMF's ``?msg=N``): is the
    post really gone from the topic?

    A full scan can miss a post that moved to an earlier page while the scan ran (a post
    before it was deleted in between), so each post a scan did not see is looked up once.
    Returns (gone, the page that shows it, its fetch) — gone is False with no page when the
    board could not be asked.
    """

    try:
        res, page = board.fetch_topic_page(board.post_page_url(key, post_id), on_fetch=record)
    except TopicNotFoundError:
        return True, None, None
    except ForumError as e:
        log.warning("could not check whether post %s was deleted: %s", post_id, e)
        return False, None, None
    if page.topic_id not in (None, tid) or post_id not in {p.post_id for p in page.posts}:
        return True, None, None          # moved to another topic, or gone
    return False, page, res


def _incremental_deletions(prev_order: list[int], cur: list[int], known: set[int]) -> list[int]:
    """Known posts that vanished from the middle of a page (conservative).

    A post x that was between two posts still on the page (or before a post that is new) and
    is gone now has been deleted: posts only move forward in a topic when others are
    deleted before them, never past a post that stays. Deletions the page cannot prove are
    left to the next full scan.
    """
    pos = {pid: i for i, pid in enumerate(prev_order)}
    cur_set = set(cur)
    present = [pos[p] for p in cur if p in pos]
    has_new = any(p not in known for p in cur)
    if not present:
        return []
    lo, hi = min(present), max(present)
    out = []
    for x in prev_order:
        if x in cur_set:
            continue
        px = pos[x]
        if lo < px and (px < hi or has_new):
            out.append(x)
    return out


def poll_topic(client: ForumClient, store: Store, topic_url: str, *,
               now: datetime | Callable[[], datetime],
               full: bool = False, board_tz: ZoneInfo = ZoneInfo("Europe/Moscow"),
               board: Board | None = None) -> PollReport:
    """Poll one topic into ``store`` (see the module docstring); returns a PollReport.

    ``now`` is the local clock: an aware datetime or a function returning one; it dates the
    stored fetches. Post versions are dated by the board's clock (the ``Date`` header).
    Raises only for a bad URL, and for a full scan that could not read every page. A full
    scan is paced by the client's ``full_scan_delay`` ([forum] full_scan_delay). ``board``:
    the engine's adapter (forum/engine.py), else the one the topic address names.
    """
    with _paced_for(client, full):
        return _poll_topic(client, store, topic_url, now=now, full=full, board_tz=board_tz,
                           board=_board(client, topic_url, board_tz, board))


@dataclass(frozen=True)
class DeadlineRead:
    """The read of a topic at its deadline (RULES R2.11): ``status`` "read" or "failed",
    ``delay`` seconds from the deadline to the answer of its last page, the post ids shown."""

    topic: str
    deadline: datetime
    status: str
    delay: float | None
    posts: tuple[int, ...] = ()
    requests: int = 0
    error: str = ""

    def summary(self) -> str:
        if self.status != "read":
            return f"read at the deadline FAILED: {self.error}"
        return (f"read at the deadline: {len(self.posts)} post(s) kept, {self.delay:.2f} s "
                f"after it, {self.requests} request(s)")


def read_at_deadline(client: ForumClient, store: Store, topic_url: str, *,
                     deadline: datetime, now: datetime | Callable[[], datetime],
                     board_tz: ZoneInfo = ZoneInfo("Europe/Moscow"),
                     board: Board | None = None) -> DeadlineRead:
    """RULES R2.11: read the topic's last known page (and any page after it) at the deadline,
    store its versions as any poll does, and keep the version of every post it shows as the
    deadline's (``Store.save_deadline_read``). Call it at the deadline itself: the board can
    hide a silent edit made in the time between. A failed read is kept as failed (the host
    report says so); never raises for the board's failures."""
    reader = _board(client, topic_url, board_tz, board)
    key = reader.topic_key(topic_url)
    clock = _now_fn(now)
    seen: dict = {}
    report = _poll_topic(client, store, topic_url, now=now, full=False, board_tz=board_tz,
                         board=reader, observe=seen)
    answered = clock()
    delay = (answered - deadline).total_seconds()
    sightings: dict[int, Post] = seen.get("sightings", {})
    status = "read" if report.ok and report.complete and sightings else "failed"
    error = "; ".join(report.errors) or ("" if sightings else "no post on the page read")
    if not report.complete and not report.errors:
        error = "the last page was not reached"
    with store.transaction():
        store.save_deadline_read(key, deadline, status=status,
                                 posts={pid: p.to_json() for pid, p in sightings.items()}
                                 if status == "read" else {},
                                 read_at=answered, delay=delay, error=error or None)
    return DeadlineRead(topic=key, deadline=deadline, status=status, delay=delay,
                        posts=tuple(sorted(sightings)) if status == "read" else (),
                        requests=report.requests, error=error)


def deadline_posts(store: Store, topic_url: str, deadline: datetime
                   ) -> tuple[dict[int, Post] | None, str | None]:
    """What the read at ``deadline`` showed, for the vote count (rules/votes.py R2.11):
    (post id -> Post, or None without a good read; why the read failed, if it did)."""
    got = store.deadline_read(canonical_topic_url(topic_url), deadline)
    if got is None:
        return None, None
    if got["status"] != "read":
        return None, got.get("error") or "failed"
    return {pid: post_from_json(d) for pid, d in got["posts"].items()}, None


def _poll_topic(client: ForumClient, store: Store, topic_url: str, *, now,
                full: bool, board_tz: ZoneInfo, board: Board,
                observe: dict | None = None) -> PollReport:
    # long: one poll's steps in order (pages, deletions, feed, state) sharing its counters
    key = board.topic_key(topic_url)
    tid = cast(int, board.topic_id_of(key))
    clock = _now_fn(now)
    state = store.topic_state(key)
    known = store.known_post_ids(key)
    already_deleted = set(store.deleted_posts(key))
    requests_before = client.requests

    per_page = int(state.get("per_page") or 0)
    if full or not state.get("last_page_url"):
        url: str | None = board.page_url(topic_url, 0)
        old_pages: dict = {}
    else:
        url = state["last_page_url"]
        old_pages = dict(state.get("pages", {}))
    pages_state: dict = dict(state.get("pages", {})) if not full else {}
    new_posts: list[int] = []
    new_versions: list[int] = []
    refined: list[int] = []
    precision: dict[str, str] = dict(state.get("precision", {}))
    deleted: list[int] = []
    pages_read: list[int] = []
    errors: list[str] = []
    failure: ForumError | None = None
    seen: set[int] = set()
    visited: set[str] = set()
    complete = False
    last_fetch_time: datetime | None = None
    last_page: tuple[bytes, str, str] | None = None    # the last page read: body, URL, style
    sightings: dict[int, Post] = {}                # each post as this poll last saw it
    page_count = int(state.get("page_count") or 0)

    def record(res: FetchResult) -> None:
        # stored before it is read, without the session id (forum/session.py)
        body = scrub_body(res.body)
        fid = store.record_fetch(scrub_url(res.url), fetched_at=clock(), status=res.status,
                                 body=body, board_date=res.board_date)
        fetch_ids[id(res)] = fid

    fetch_ids: dict[int, int] = {}
    while url is not None:
        if url in visited or len(visited) >= MAX_PAGES:
            failure = ParseError("the topic's pages link in a loop or never end", url=url)
            errors.append(str(failure))
            break
        visited.add(url)
        try:
            res, page = board.fetch_topic_page(url, on_fetch=record)
            if page.topic_id is not None and page.topic_id != tid:
                raise ParseError(f"the page shows topic {page.topic_id}, not topic {tid}",
                                 url=res.url)
        except ForumError as e:
            failure = e
            errors.append(str(e))
            # returned in the report (and raised for a full scan): the caller says it once
            log.debug("poll of %s: %s", key, e)
            break
        fid = fetch_ids.get(id(res))
        last_fetch_time = res.fetched_at
        last_page = (res.body, res.url, page.style)
        ids = [p.post_id for p in page.posts]
        with store.transaction():
            judged = [(post, *_content(post, precision)) for post in page.posts]
            stored = store.add_post_versions(key, [(p.post_id, c, p.to_json) for p, c, _ in judged],
                                             fetched_at=res.fetched_at, fetch_id=fid)
            for (post, content, sharper), changed in zip(judged, stored):
                sightings[post.post_id] = post
                was_known = post.post_id in known
                if not was_known:
                    known.add(post.post_id)
                    new_posts.append(post.post_id)
                elif changed:
                    (refined if sharper else new_versions).append(post.post_id)
            if not full:
                prev_order = [pid for n in sorted(old_pages, key=int)
                              for pid in old_pages[n].get("post_ids", [])]
                for x in _incremental_deletions(prev_order, ids, known - set(new_posts)):
                    if x not in already_deleted and x not in seen and x not in deleted:
                        store.mark_deleted(key, x, detected_at=res.fetched_at)
                        deleted.append(x)
            seen.update(ids)
            pages_read.append(page.page)
            if page.page == 1 and page.page_count > 1 and ids:
                per_page = len(ids)
            page_count = page.page_count
            pages_state[str(page.page)] = {"url": url, "post_ids": ids}
            for n in [n for n in pages_state if int(n) > page.page_count]:
                del pages_state[n]
            next_url = urljoin(res.url, page.next_url) if page.next_url else None
            new_state = {
                "topic_id": page.topic_id or tid, "title": page.title, "locked": page.locked,
                "page_count": page.page_count, "last_page_url": url, "per_page": per_page,
                "last_post_id": ids[-1] if ids else state.get("last_post_id"),
                "pages": pages_state, "precision": precision,
                "last_full_scan": state.get("last_full_scan"),
                **{k: state[k] for k in _FEED_KEYS if k in state},
            }
            if next_url is None:
                complete = True
                if full:
                    new_state["last_full_scan"] = res.fetched_at.isoformat()
            store.set_topic_state(key, new_state)
        state = new_state
        url = next_url

    if full and complete and failure is None:
        missing = sorted(store.known_post_ids(key) - seen - already_deleted - set(deleted))
        for pid in missing:
            gone, moved, moved_res = _confirm_deleted(board, pid, tid, key, record=record)
            if gone:
                store.mark_deleted(key, pid, detected_at=last_fetch_time or clock())
                deleted.append(pid)
            elif moved is not None and moved_res is not None:
                # it had moved while the scan ran: keep its version
                post = next(p for p in moved.posts if p.post_id == pid)
                sightings[pid] = post
                content, sharper = _content(post, precision)
                if store.add_post_version(key, pid, post.to_json(), content=content,
                                          fetched_at=moved_res.fetched_at,
                                          fetch_id=fetch_ids.get(id(moved_res))):
                    (refined if sharper else new_versions).append(pid)

    feed_result = ""
    if not errors and last_page is not None:
        feed_result = _refine_from_feed(
            client, board, store, key, tid, state, precision=precision, sightings=sightings,
            deleted=already_deleted | set(deleted), last_page=last_page, record=record,
            fetch_ids=fetch_ids, clock=clock, board_tz=board_tz, refined=refined)

    if observe is not None:
        observe["sightings"] = sightings
    report = PollReport(topic=key, requests=client.requests - requests_before,
                        new_posts=tuple(new_posts), new_versions=tuple(new_versions),
                        refined=tuple(refined), feed=feed_result,
                        deleted=tuple(deleted), pages=tuple(pages_read), page_count=page_count,
                        errors=tuple(errors), full=full, complete=complete and not errors)
    if full and failure is not None:
        failure.report = report  # type: ignore[attr-defined]
        raise failure
    return report


_FEED_KEYS = ("feed", "feed_done")


def _feed_candidates(precision: dict[str, str], done: set[int], deleted: set[int]) -> list[int]:
    """Posts ever seen without their second whose time has not been refined by the feed."""
    return sorted(int(pid) for pid, best in precision.items()
                  if best != "second" and int(pid) not in done and int(pid) not in deleted)


def _refine_from_feed(client: ForumClient, board: Board, store: Store, key: str, tid: int, state: dict, *,
                      precision: dict[str, str], sightings: dict[int, Post],
                      deleted: set[int], last_page: tuple[bytes, str, str], record,
                      fetch_ids: dict[int, int], clock: Callable[[], datetime],
                      board_tz: ZoneInfo, refined: list[int]) -> str:
    # long: R2.6's feed steps in order, sharing the poll's state
    """RULES R2.6: sharpen minute/relative post times with the topic's Atom feed.

    Asks the feed at most once per poll, and only when some post still lacks its second;
    stores a "second" version of each such post the feed lists; remembers the posts it does
    not list (never asked about again) and a board without a feed (not asked again for
    ``FEED_MISSING_RETRY``). Returns what happened ("", "read", "missing", "failed").
    """
    feed = dict(state.get("feed") or {})
    done = set(state.get("feed_done") or ())
    candidates = _feed_candidates(precision, done, deleted)
    if not candidates:
        return ""
    now = clock()
    retry_at = feed.get("retry_at")
    if retry_at and now < datetime.fromisoformat(retry_at):
        return ""
    url = feed.get("url") or board.poll_feed_url(key, tid, last_page)
    if not url:
        return ""
    result, why = "read", ""
    entries = []
    try:
        # a plain GET: the session is the one the topic pages were just read with, and a
        # feed is never a login form or an error page to classify (its posts could quote one)
        res = client.get(url)
        record(res)
        if res.status != 200:
            raise ForumError(f"HTTP {res.status}", url=res.url)
        entries = board.parse_feed(res, tid)
    except FetchError as e:
        result, why = "failed", str(e)
    except ForumError as e:
        result, why = "missing", str(e)
    if result != "read":
        wait = FEED_MISSING_RETRY if result == "missing" else FEED_FAILED_RETRY
        (log.info if result == "missing" else log.warning)(
            "topic feed of %s %s (asked again after %s): %s", key, result,
            (now + wait).isoformat(timespec="seconds"), why)
        feed = {"url": None if result == "missing" else feed.get("url"), "status": result,
                "error": why, "asked_at": now.isoformat(),
                "retry_at": (now + wait).isoformat()}
        with store.transaction():
            store.set_topic_state(key, {**store.topic_state(key), "feed": feed})
        return result

    by_id = {e.post_id: e for e in entries}
    fid = fetch_ids.get(id(res))
    loaded: dict[int, Post] | None = None
    with store.transaction():
        for pid in candidates:
            entry = by_id.get(pid)
            post = sightings.get(pid)
            if entry is not None and post is None:
                if loaded is None:   # seen by an earlier poll only (a restart, a failed poll)
                    loaded = {p.post_id: p for p, _ in stored_posts(store, key)}
                post = loaded.get(pid)
            done.add(pid)
            if entry is None or post is None:
                continue             # not in the feed (older than its newest posts): keep the range
            if entry.author and entry.author != post.author:
                log.warning("feed of %s: post %s is by %r there, by %r on the page; not used",
                            key, pid, entry.author, post.author)
                continue
            t = entry.published.astimezone(board_tz)
            slack = timedelta(minutes=1)
            if not post.earliest - slack <= t <= post.latest + slack:
                log.warning("feed of %s: post %s published %s, outside %s..%s shown on the "
                            "page (check [game] timezone); the feed's time is used",
                            key, pid, t.isoformat(), post.earliest.isoformat(),
                            post.latest.isoformat())
            sharp = dataclasses.replace(post, posted_at=t, earliest=t, latest=t,
                                        precision="second")
            precision[str(pid)] = "second"
            if store.add_post_version(key, pid, sharp.to_json(),
                                      content={**post.content_key(), "precision": "second"},
                                      fetched_at=res.fetched_at, fetch_id=fid):
                refined.append(pid)
        store.set_topic_state(key, {
            **store.topic_state(key), "precision": precision, "feed_done": sorted(done),
            "feed": {"url": url, "status": "read", "asked_at": now.isoformat()}})
    return result


def stored_posts(store: Store, topic_url: str) -> list[tuple[Post, datetime]]:
    """Every stored version of every post of a topic, in the order they were stored, each with
    the time it was first seen (the board's clock at that fetch)."""
    key = canonical_topic_url(topic_url)
    return [(post_from_json(v.data), v.fetched_at) for v in store.post_versions(key)]


def fetch_topic(client: ForumClient, topic_url: str, *,
                board_tz: ZoneInfo = ZoneInfo("Europe/Moscow"),
                on_fetch: Callable[[FetchResult], None] | None = None,
                single_page: bool = False, board: Board | None = None) -> list[TopicPage]:
    """Read a topic page by page (from the given page on), without a store."""
    board = _board(client, topic_url, board_tz, board)
    pages: list[TopicPage] = []
    url: str | None = client.url(topic_url)
    visited: set[str] = set()
    while url is not None:
        if url in visited or len(visited) >= MAX_PAGES:
            raise ParseError("the topic's pages link in a loop or never end", url=url)
        visited.add(url)
        res, page = board.fetch_topic_page(url, on_fetch=on_fetch)
        pages.append(page)
        if single_page:
            break
        url = urljoin(res.url, page.next_url) if page.next_url else None
    return pages


def _paced_for(client: ForumClient, full: bool):
    """A full re-scan is paced by the client's ``full_scan_delay``; other polls by min_delay."""
    return client.paced(client.full_scan_delay) if full else contextlib.nullcontext()
