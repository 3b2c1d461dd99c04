"""Fuzzed, truncated and corrupted pages: the parser answers with its own errors only."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_parser_helpers import OTHER, page

from scraper_mod.errors import ForumError
from scraper_mod.forum.model import TopicPage
from scraper_mod.forum.phpbb.parse import parse_forum_page, parse_topic_page

PAGES = [page(f, n) for f, n in [
    ("prosilver-ru", "guest_viewtopic_t4_start0.html"),
    ("subsilver2-port-gorski-ru-relative-dates", "guest_viewtopic_t4_start25.html"),
    ("prosilver-en", "guest_viewtopic_t9999_not_found.html"),
]] + [((OTHER / n).read_bytes(), "http://x/viewtopic.php?t=1", None) for n in [
    "2.0.x-subSilver-en-oldclassiccar.html", "3.0.x-subsilver2-en-dildano-imagetennis-p2.html",
    "3.0.x-prosilver-en-ilovephilosophy.html"]]


def _parse_or_own_error(body, url, fetched_at):
    try:
        r = parse_topic_page(body, url=url, fetched_at=fetched_at)
    except ForumError as e:
        assert str(e)
        return None
    assert isinstance(r, TopicPage)
    return r


@pytest.mark.parametrize("i", range(len(PAGES)))
def test_every_truncation_at_1000_bytes(i):
    body, url, fetched_at = PAGES[i]
    full = _parse_or_own_error(body, url, fetched_at)
    for cut in range(0, len(body), 1000):
        r = _parse_or_own_error(body[:cut], url, fetched_at)
        # a cut page never passes for a complete one with fewer posts
        assert r is None or (full is not None and len(r.posts) == len(full.posts))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(i=st.integers(0, len(PAGES) - 1), data=st.data())
def test_random_byte_flips(i, data):
    body, url, fetched_at = PAGES[i]
    flips = data.draw(st.lists(st.tuples(st.integers(0, len(body) - 1), st.integers(0, 255)),
                               min_size=1, max_size=40))
    b = bytearray(body)
    for pos, val in flips:
        b[pos] = val
    _parse_or_own_error(bytes(b), url, fetched_at)


@settings(max_examples=60, deadline=None)
@given(i=st.integers(0, len(PAGES) - 1), data=st.data())
def test_random_slices_spliced(i, data):
    """Pieces of a real page cut and glued together (a broken proxy, a bad cache)."""
    body, url, fetched_at = PAGES[i]
    a = data.draw(st.integers(0, len(body)))
    b = data.draw(st.integers(a, len(body)))
    c = data.draw(st.integers(0, len(body)))
    _parse_or_own_error(body[:a] + body[b:] + body[c:c + 500], url, fetched_at)


_TAGS = st.sampled_from(["<div class=\"post\" id=\"p1\">", "<div class=\"content\">",
                         "<p class=\"author\">", "<time datetime=\"2024-04-09T16:59:30+00:00\">",
                         "<blockquote>", "<span style=\"color:#FF0000\">", "<strong>",
                         "<a name=\"p5\">", "<b class=\"postauthor\">", "<b>Posted:</b> ",
                         "</div>", "</span>", "</blockquote>", "<br>", "</html>", "»",
                         "<div class=\"notice\">Last edited by <a>x</a> on ",
                         "<div class=\"quotecontent\">", "<td class=\"quote\">",
                         "<span class=\"postbody\">", "<a name=\"12\"></a>",
                         "<span class=\"postdetails\">Posted: ", "_________________",
                         "Сегодня, 12:00", "5 минут назад", "Tue Apr 09, 2024 7:59 pm"])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(_TAGS, st.text(max_size=20)), max_size=60))
def test_random_phpbb_like_markup(pieces):
    from datetime import datetime, timezone
    body = ("<html><body>" + "".join(pieces)).encode("utf-8", "surrogatepass")
    _parse_or_own_error(body, "http://x/viewtopic.php?t=1",
                        datetime(2024, 4, 9, 17, 35, tzinfo=timezone.utc))
    try:
        parse_forum_page(body, url="http://x/viewforum.php?f=1")
    except ForumError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=3000))
def test_random_bytes(body):
    _parse_or_own_error(body, "http://x/viewtopic.php?t=1", None)


PM_PAGES = [page(f, n) for f, n in [("pm/prosilver-ru", "inbox.html"),
                                    ("pm/prosilver-ru", "view_p6.html"),
                                    ("pm/subsilver2-port-gorski-ru", "view_p6.html")]]


@pytest.mark.parametrize("i", range(len(PM_PAGES)))
def test_pm_pages_truncated_at_every_1000_bytes(i):
    from scraper_mod.forum.phpbb.pm import parse_pm_inbox, parse_pm_view
    body, url, fetched_at = PM_PAGES[i]
    fn = parse_pm_inbox if "inbox" in url else parse_pm_view
    for cut in range(0, len(body), 1000):
        try:
            fn(body[:cut], url=url, fetched_at=fetched_at)
        except ForumError as e:
            assert str(e)


@settings(max_examples=40, deadline=None)
@given(i=st.integers(0, len(PM_PAGES) - 1), data=st.data())
def test_pm_pages_byte_flips(i, data):
    from scraper_mod.forum.phpbb.pm import parse_pm_inbox, parse_pm_view
    body, url, fetched_at = PM_PAGES[i]
    fn = parse_pm_inbox if "inbox" in url else parse_pm_view
    b = bytearray(body)
    for pos, val in data.draw(st.lists(st.tuples(st.integers(0, len(body) - 1),
                                                 st.integers(0, 255)), min_size=1, max_size=40)):
        b[pos] = val
    try:
        fn(bytes(b), url=url, fetched_at=fetched_at)
    except ForumError as e:
        assert str(e)
