"""SMF topics longer than its feed (issue 39 item 4, RULES R2.6).

SMF's pages show minutes («Today at 07:59 PM»); its board's Atom feed gives seconds but lists
at most 255 messages, the newest (``limit=255``), and may be a little stale. A topic of 260
posts on 18 pages built from the captured SMF page (fixtures/smf/topic-p2.html) and a feed of
255 entries built from the captured feed (fixtures/smf/feed-atom.xml): the posts the feed lists
get their second, those it does not list (the oldest, and the newest it had not caught up
with) keep their minute range and are never given a second; the post of 19:59 the feed missed
counts before the 20:00 deadline and the one of 20:00 does not.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import responses

from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.poller import poll_topic
from scraper_mod.store import Store

ROOT = Path(__file__).resolve().parents[2]
SMF = ROOT / "fixtures" / "smf"
BASE = "http://127.0.0.1:8231/"       # where fixtures/smf/ was captured
MSK = ZoneInfo("Europe/Moscow")
PER_PAGE = 15
FIRST_ID = 100
DEADLINE = datetime(2026, 12, 3, 20, 0, tzinfo=MSK)
FETCHED = datetime(2026, 12, 3, 17, 1, tzinfo=timezone.utc)      # 20:01 MSK, the same day


def _times() -> list[datetime]:
    """260 posts: every 111 s from 12:00, then one at 19:59:40 and one at 20:00:20."""
    start = datetime(2026, 12, 3, 12, 0, tzinfo=MSK)
    times = [start + timedelta(seconds=111 * i) for i in range(258)]
    return times + [DEADLINE - timedelta(seconds=20), DEADLINE + timedelta(seconds=20)]


TIMES = _times()
IDS = [FIRST_ID + i for i in range(len(TIMES))]
# the feed: 255 entries, the newest it had when it was made (before the last two posts)
IN_FEED = set(IDS[-257:-2])
assert len(IN_FEED) == 255


def _page_html(n: int, pages: int) -> str:
    """Page ``n`` (1-based) of the long topic, from the captured page 2."""
    html = (SMF / "topic-p2.html").read_text(encoding="utf-8").replace(
        'index.php?topic=2.15"', f'index.php?topic=2.{(n - 1) * PER_PAGE}"')   # canonical
    first = html.index('<div class="windowbg" id="msg18">')
    last = html.rindex('<hr class="post_separator">') + len('<hr class="post_separator">')
    block = html[first:html.index('<hr class="post_separator">', first)
                 + len('<hr class="post_separator">')]
    posts = []
    for i in range((n - 1) * PER_PAGE, min(n * PER_PAGE, len(IDS))):
        b = re.sub(r"(?<!\d)18(?!\d)", str(IDS[i]), block)
        b = b.replace("#15", f"#{i}").replace(
            "<strong>Today</strong> at 08:43 PM",
            f"<strong>Today</strong> at {TIMES[i].astimezone(MSK):%I:%M %p}")
        b = re.sub(r"Разговор 4:.*", f"Пост {i}: голосую за Кота", b)
        posts.append(b)
    links = ['<span class="pages">Pages</span>']
    for k in range(1, pages + 1):
        links.append(f'<span class="current_page">{k}</span>' if k == n else
                     f'<a class="nav_page" href="{BASE}index.php?topic=2.{(k - 1) * PER_PAGE}">'
                     f'{k}</a>')
    if n < pages:
        links.append(f'<a class="nav_page" href="{BASE}index.php?topic=2.{n * PER_PAGE}">'
                     '<span class="main_icons next_page"></span></a>')
    out = html[:first] + "\n".join(posts) + html[last:]
    return re.sub(r'<span class="pages">Pages</span>.*', " ".join(links), out)


def _feed_xml() -> str:
    """The board's feed with the 255 entries of IN_FEED, newest first, from the captured one."""
    xml = (SMF / "feed-atom.xml").read_text(encoding="utf-8")
    first = xml.index("<entry>")
    end = xml.rindex("</entry>") + len("</entry>")
    entry = xml[first:xml.index("</entry>", first) + len("</entry>")]
    entries = []
    for pid, t in sorted(((p, TIMES[p - FIRST_ID]) for p in IN_FEED), reverse=True):
        stamp = t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        e = re.sub(r"topic=\d+\.msg\d+#msg\d+", f"topic=2.msg{pid}#msg{pid}", entry)
        e = re.sub(r"msg=\d+</id>", f"msg={pid}</id>", e)
        e = re.sub(r"<name>[^<]*</name>", "<name>Big Joe</name>", e)
        e = re.sub(r"<published>[^<]*</published>", f"<published>{stamp}</published>", e)
        e = re.sub(r"<updated>[^<]*</updated>", f"<updated>{stamp}</updated>", e)
        entries.append(e)
    return xml[:first] + "\n".join(entries) + xml[end:]


@responses.activate
def test_R2_6_a_topic_longer_than_smfs_feed_keeps_the_minutes_the_feed_does_not_give(tmp_path):
    pages = -(-len(IDS) // PER_PAGE)
    assert pages == 18
    date = FETCHED.strftime("%a, %d %b %Y %H:%M:%S GMT")
    for n in range(1, pages + 1):
        responses.get(f"{BASE}index.php?topic=2.{(n - 1) * PER_PAGE}",
                      body=_page_html(n, pages).encode("utf-8"), headers={"Date": date})
    responses.get(BASE + "index.php?action=.xml;type=atom;board=2;limit=255",
                  body=_feed_xml().encode("utf-8"), headers={"Date": date})
    store = Store(tmp_path / "s.sqlite3")
    client = ForumClient(base_url=BASE, min_delay=0, sleep=lambda s: None)
    report = poll_topic(client, store, BASE + "index.php?topic=2.0", now=FETCHED, full=True,
                        board_tz=MSK)
    assert report.ok and report.complete and len(report.pages) == pages, report.summary()
    assert report.feed == "read" and set(report.refined) == IN_FEED
    key = BASE + "index.php?topic=2"
    assert store.known_post_ids(key) == set(IDS)
    latest = {}
    for v in store.post_versions(key):          # the last version of each post
        latest[v.data["post_id"]] = v.data
    for pid, t in zip(IDS, TIMES):
        post = latest[pid]
        earliest = datetime.fromisoformat(post["earliest"])
        last = datetime.fromisoformat(post["latest"])
        if pid in IN_FEED:                      # the feed's second, the true one
            assert post["precision"] == "second" and earliest == last == t, pid
        else:                                   # the page's minute, never a second
            assert post["precision"] == "minute", (pid, post["precision"])
            assert earliest == t.replace(second=0) and earliest <= t <= last, pid
            assert last - earliest < timedelta(minutes=1), pid
    # the oldest posts and the two newest are the ones the feed does not list
    assert {p for p in IDS if p not in IN_FEED} == {*IDS[:3], *IDS[-2:]}
    # R2.6 on minutes: the post shown 19:59 counts before the 20:00 deadline, the one
    # shown 20:00 does not; neither is sharpened by a wrong second
    on_time, late = latest[IDS[-2]], latest[IDS[-1]]
    assert datetime.fromisoformat(on_time["latest"]) < DEADLINE
    assert datetime.fromisoformat(late["earliest"]) >= DEADLINE
    # a second poll does not ask the feed again for posts it did not list (R2.6: at most
    # once): the old posts keep their minutes
    requests = len(responses.calls)
    again = poll_topic(client, store, BASE + "index.php?topic=2.0", now=FETCHED, board_tz=MSK)
    assert again.ok and again.feed == "" and not again.refined
    assert all("action=.xml" not in c.request.url for c in responses.calls[requests:])
