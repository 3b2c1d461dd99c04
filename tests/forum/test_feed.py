"""phpBB's topic Atom feed (scraper_mod/forum/feed.py) on the real phpBB 3.3.15 feeds, for
RULES R2.6: the feed gives every listed post's time to the second where subsilver2 pages
show minutes or «35 минут назад»."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scraper_mod.errors import ParseError
from scraper_mod.forum.feed import FeedEntry, advertised_feed_url, feed_url_for, parse_topic_feed

ROOT = Path(__file__).resolve().parents[2]
V33 = ROOT / "fixtures" / "phpbb" / "phpbb-3.3.15"
OTHER = ROOT / "fixtures" / "phpbb" / "other-versions"
FEED_URL = "http://127.0.0.1:8033/app.php/feed/topic/4"


def truth_posts() -> list[dict]:
    return json.loads((ROOT / "fixtures" / "phpbb" / "truth.json").read_text(
        encoding="utf-8"))["topic"]["posts"]


def feed(lang: str) -> bytes:
    return (V33 / f"feed_topic_4.{lang}.atom.xml").read_bytes()


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_fixture_feed_gives_the_newest_15_posts_to_the_second(lang):
    """R2.6: ids, authors, and the post instants to the second, newest first, equal the
    ground truth (truth.json, from the capture's README)."""
    entries = parse_topic_feed(feed(lang), url=FEED_URL)
    newest = sorted(truth_posts(), key=lambda p: p["unix"], reverse=True)[:15]
    assert [e.post_id for e in entries] == [p["post_id"] for p in newest]
    assert [e.post_id for e in entries] == list(range(102, 87, -1))
    for e, p in zip(entries, newest):
        assert isinstance(e, FeedEntry)
        assert e.author == p["author"]
        assert e.published == datetime.fromisoformat(p["time_utc"])
        assert e.published.timestamp() == p["unix"]
        assert e.updated == e.published          # none of the 15 was edited
        assert e.title == "Re: День 1 — голосование"
        assert e.published.utcoffset().total_seconds() == 3 * 3600  # the board's +03:00


def test_fixture_feed_has_the_posts_around_the_deadline():
    """The posts that decide R2.6 on the relative-dates capture: 19:58:59, 19:59:30 (Маша_2's
    vote, shown as «35 минут назад»), 20:00:10 and 20:00:45."""
    by_id = {e.post_id: e for e in parse_topic_feed(feed("ru"))}
    assert by_id[95].published.isoformat() == "2024-04-09T19:58:59+03:00"
    assert (by_id[96].author, by_id[96].published.isoformat()) == (
        "Маша_2", "2024-04-09T19:59:30+03:00")
    assert by_id[97].published.isoformat() == "2024-04-09T20:00:10+03:00"
    assert by_id[98].published.isoformat() == "2024-04-09T20:00:45+03:00"


def test_phpbb30_style_entries_and_edited_posts():
    """phpBB 3.0's feed.php links posts as viewtopic.php?f=F&t=T&p=N#pN; <updated> carries
    the edit time; a Z offset is UTC; entries that name no post are skipped."""
    body = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en-gb">
<link rel="self" type="application/atom+xml" href="http://f.org/feed.php?f=1&amp;t=9" />
<title>Board</title><updated>2010-05-01T10:00:00+00:00</updated>
<entry><author><name><![CDATA[Bob]]></name></author>
<updated>2010-05-01T10:00:00Z</updated><published>2010-04-30T09:59:59+00:00</published>
<id>http://f.org/viewtopic.php?t=9&amp;p=123#p123</id>
<link href="http://f.org/viewtopic.php?t=9&amp;p=123#p123"/>
<title type="html"><![CDATA[Re: Day 1]]></title></entry>
<entry><id>http://f.org/viewtopic.php?t=9</id><published>2010-04-30T09:00:00+00:00</published>
<title>the topic itself</title></entry>
</feed>""".encode()
    (e,) = parse_topic_feed(body, url="http://f.org/feed.php?t=9")
    assert (e.post_id, e.author, e.title) == (123, "Bob", "Re: Day 1")
    assert e.published == datetime.fromisoformat("2010-04-30T09:59:59+00:00")
    assert e.updated == datetime.fromisoformat("2010-05-01T10:00:00+00:00")


@pytest.mark.parametrize("body, words", [
    (b"", "empty"),
    (b"   \n", "empty"),
    ((V33 / "prosilver-ru" / "guest_viewtopic_t4_start0.html").read_bytes(), "Atom"),
    (b"<?xml version='1.0'?><rss version='2.0'><channel/></rss>", "not an Atom feed"),
    (b"\x00\xff garbage", "Atom feed"),
    (b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x?p=5</id>'
     b"<published>yesterday</published></entry></feed>", "post 5"),
    (b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x?p=6</id>'
     b"<published>2024-04-09T19:59:30</published></entry></feed>", "UTC offset"),
    (b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x?p=7</id></entry></feed>',
     "no <published>"),
])
def test_not_a_feed_is_a_clear_parse_error(body, words):
    with pytest.raises(ParseError) as ei:
        parse_topic_feed(body, url=FEED_URL)
    assert words in str(ei.value) and FEED_URL in str(ei.value)


def test_entities_are_not_expanded():
    """A feed is untrusted: no DTD, no entity expansion (billion laughs), no network."""
    body = (b'<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY a "2024-04-09T19:59:30+03:00">'
            b'<!ENTITY b SYSTEM "file:///etc/passwd">]>'
            b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x?p=5</id>'
            b'<author><name>&b;</name></author><published>&a;</published></entry></feed>')
    with pytest.raises(ParseError):
        parse_topic_feed(body)


def test_feed_urls_for_both_layouts():
    assert feed_url_for("https://f.org/forum/viewtopic.php?f=3&t=4&start=25&style=2") == \
        "https://f.org/forum/app.php/feed/topic/4"
    assert feed_url_for("https://f.org/viewtopic.php?t=4", layout="3.0") == \
        "https://f.org/feed.php?t=4"
    with pytest.raises(ParseError):
        feed_url_for("https://f.org/viewforum.php?f=3")


def test_advertised_feed_url_from_real_pages():
    """phpBB links the topic feed in the page's <head> when it is on (3.3 and 3.0)."""
    for folder, page_url, expected in [
        ("prosilver-ru", "http://127.0.0.1:8033/viewtopic.php?t=4",
         "http://127.0.0.1:8033/app.php/feed/topic/4"),
        ("subsilver2-port-gorski-ru-relative-dates",
         "http://127.0.0.1:8033/viewtopic.php?t=4&style=2",
         "http://127.0.0.1:8033/app.php/feed/topic/4?style=2")]:
        body = (V33 / folder / "guest_viewtopic_t4_start0.html").read_bytes()
        assert advertised_feed_url(body, page_url=page_url, topic_id=4) == expected
        assert advertised_feed_url(body, page_url=page_url, topic_id=5) is None
    body = (OTHER / "3.0.x-prosilver-en-ilovephilosophy.html").read_bytes()
    assert advertised_feed_url(body, page_url="http://ilovephilosophy.com/viewtopic.php?t=1",
                               topic_id=194998) == \
        "http://ilovephilosophy.com/feed.php?f=1&t=194998"
    body = (OTHER / "3.0.x-subsilver2-en-dildano-imagetennis-p2.html").read_bytes()
    assert advertised_feed_url(body, page_url="http://x/viewtopic.php?t=1", topic_id=1) is None
    sid = b'<head><link rel="alternate" type="application/atom+xml" ' \
          b'href="/app.php/feed/topic/4?sid=0123abcd"></head>'
    assert advertised_feed_url(sid, page_url="http://b/viewtopic.php?t=4", topic_id=4) == \
        "http://b/app.php/feed/topic/4"


# --- fuzz: garbage never raises anything but ParseError -------------------------------------

FEEDS = [feed("ru"), feed("en")]


def _parse_or_own_error(body: bytes):
    try:
        entries = parse_topic_feed(body, url=FEED_URL)
    except ParseError as e:
        assert str(e)
        return None
    assert all(isinstance(e, FeedEntry) for e in entries)
    return entries


@pytest.mark.parametrize("i", range(len(FEEDS)))
def test_every_truncation_is_an_error_never_a_shorter_feed(i):
    body = FEEDS[i]
    full = parse_topic_feed(body)
    end = body.rindex(b"</feed>")
    for cut in range(0, len(body), 257):
        r = _parse_or_own_error(body[:cut])
        if cut <= end:
            assert r is None, cut        # a cut feed never passes for one with fewer posts
    assert _parse_or_own_error(body[:end + 7]) == full


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(i=st.integers(0, len(FEEDS) - 1), data=st.data())
def test_random_byte_flips(i, data):
    body = FEEDS[i]
    flips = data.draw(st.lists(st.tuples(st.integers(0, len(body) - 1), st.integers(0, 255)),
                               min_size=1, max_size=40))
    b = bytearray(body)
    for pos, val in flips:
        b[pos] = val
    _parse_or_own_error(bytes(b))


@settings(max_examples=60, deadline=None)
@given(i=st.integers(0, len(FEEDS) - 1), data=st.data())
def test_random_slices_spliced(i, data):
    body = FEEDS[i]
    a = data.draw(st.integers(0, len(body)))
    b = data.draw(st.integers(a, len(body)))
    c = data.draw(st.integers(0, len(body)))
    _parse_or_own_error(body[:a] + body[b:] + body[c:c + 500])


_PIECES = st.sampled_from([
    '<feed xmlns="http://www.w3.org/2005/Atom">', "</feed>", "<entry>", "</entry>",
    "<id>http://x/viewtopic.php?p=5#p5</id>", '<link href="viewtopic.php?p=7#p7"/>',
    "<published>", "</published>", "<updated>", "</updated>", "2024-04-09T19:59:30+03:00",
    "2024-13-40T99:99:99", "<author><name>", "</name></author>", "<![CDATA[", "]]>",
    "<title>", "</title>", "&amp;", "&nbsp;", "<?xml version='1.0'?>", "Z"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=12)), max_size=40))
def test_random_feed_like_markup(pieces):
    _parse_or_own_error("".join(pieces).encode("utf-8"))
