"""Pages that are not a readable topic: each gets its own error, naming the URL."""

from __future__ import annotations

import pytest
from test_parser_helpers import PHPBB, V33, page

from scraper_mod.errors import (
    BoardDisabledError,
    ForumError,
    LoginRequiredError,
    NotABoardPageError,
    ParseError,
    TopicNotFoundError,
)
from scraper_mod.forum.phpbb.parse import parse_forum_page, parse_topic_page

REAL = [
    ("prosilver-ru", "guest_viewtopic_t9999_not_found.html", TopicNotFoundError,
     "запрошенной темы не существует"),
    ("prosilver-en", "guest_viewtopic_t9999_not_found.html", TopicNotFoundError,
     "the requested topic does not exist"),
    ("prosilver-ru", "guest_viewtopic_t7_login_required.html", LoginRequiredError,
     "должны быть авторизованы"),
    ("prosilver-en", "guest_viewtopic_t7_login_required.html", LoginRequiredError,
     "registered and logged in"),
    ("prosilver-ru", "guest_viewforum_f5_login_required.html", LoginRequiredError,
     "должны быть авторизованы"),
    ("prosilver-en", "guest_viewforum_f5_login_required.html", LoginRequiredError,
     "registered and logged in"),
    ("prosilver-ru", "guest_viewtopic_t4_board_disabled.html", BoardDisabledError,
     "недоступна"),
    ("prosilver-en", "guest_viewtopic_t4_board_disabled.html", BoardDisabledError,
     "currently unavailable"),
    ("prosilver-ru", "guest_index_board_disabled.html", BoardDisabledError, "недоступна"),
    ("prosilver-en", "guest_index_board_disabled.html", BoardDisabledError,
     "currently unavailable"),
    ("pm/prosilver-ru", "login_required_inbox.html", LoginRequiredError, "авторизуйтесь"),
    ("pm/prosilver-ru", "login_required_inbox_nocookie.html", LoginRequiredError,
     "авторизуйтесь"),
    ("pm/subsilver2-port-gorski-ru", "login_required_inbox.html", LoginRequiredError,
     "авторизуйтесь"),
]


@pytest.mark.parametrize("folder,name,error,words", REAL)
def test_real_error_pages(folder, name, error, words):
    body, url, fetched_at = page(folder, name)
    with pytest.raises(error) as e:
        parse_topic_page(body, url=url, fetched_at=fetched_at)
    assert type(e.value) is error
    assert e.value.url == url
    assert url in str(e.value)
    assert words in str(e.value).lower()
    assert e.value.hint    # says what to check


def test_not_found_is_404_page_with_board_chrome():
    """The 404 page is a full phpBB page (header, footer): only its message tells."""
    body, url, _ = page("prosilver-ru", "guest_viewtopic_t9999_not_found.html")
    assert b"viewtopic.php" in body or b"phpbb" in body.lower()
    with pytest.raises(TopicNotFoundError):
        parse_topic_page(body, url=url)


@pytest.mark.parametrize("name,words", [
    ("cloudflare_challenge.html", "challenge"),
    ("ddos_guard.html", "challenge"),
    ("nginx_502.html", "502 bad gateway"),
])
def test_not_phpbb_pages(name, words):
    body = (PHPBB / "synthetic" / name).read_bytes()
    with pytest.raises(NotABoardPageError) as e:
        parse_topic_page(body, url="https://forum.example.org/viewtopic.php?t=4")
    assert words in str(e.value).lower()
    assert "https://forum.example.org/viewtopic.php?t=4" in str(e.value)


@pytest.mark.parametrize("body,words", [
    (b"", "empty"),
    (b"   \n\t ", "empty"),
    (b"\x00\x00\x00", ""),
    ("<html><body>hello</body></html>".encode(), "not a phpbb page"),
    (b"\xff\xfe\x00<\x00h\x00t\x00m\x00l", ""),
    (b"<<<<>>>>&&&&;;;;", ""),
    (b'{"error": "rate limited"}', "not a phpbb page"),
])
def test_garbage_is_a_forum_error(body, words):
    with pytest.raises(ForumError) as e:
        parse_topic_page(body, url="http://x/viewtopic.php?t=4")
    assert isinstance(e.value, (ParseError, NotABoardPageError))
    assert words in str(e.value).lower()


def test_other_phpbb_pages_given_as_topic():
    body, url, _ = page("prosilver-ru", "guest_viewforum_f3.html")
    with pytest.raises(ParseError, match="topic list"):
        parse_topic_page(body, url=url)
    body = (V33 / "feed_topic_4.ru.atom.xml").read_bytes()
    with pytest.raises(ParseError, match="Atom feed"):
        parse_topic_page(body, url="http://127.0.0.1:8033/app.php/feed/topic/4")


@pytest.mark.parametrize("folder", ["prosilver-ru", "subsilver2-port-gorski-en"])
def test_truncated_topic_page_is_never_fewer_posts(folder):
    """A page cut after 10 posts must not look like a 10-post page (the poller would think
    the other posts were deleted)."""
    body, url, fetched_at = page(folder, "guest_viewtopic_t4_start0.html")
    cut = body[: body.index(b"p76")]     # somewhere after the 13th post started
    with pytest.raises(ParseError, match="truncated"):
        parse_topic_page(cut, url=url, fetched_at=fetched_at)


def test_topic_page_given_as_forum_page_and_login_forum():
    body, url, _ = page("prosilver-en", "guest_viewforum_f5_login_required.html")
    with pytest.raises(LoginRequiredError):
        parse_forum_page(body, url=url)
    body, url, _ = page("prosilver-en", "guest_viewtopic_t4_board_disabled.html")
    with pytest.raises(BoardDisabledError):
        parse_forum_page(body, url=url)


def test_bad_date_names_post_and_text():
    body, url, fetched_at = page("subsilver2-port-gorski-en", "guest_viewtopic_t4_start0.html")
    broken = body.replace(b"Mon Apr 08, 2024 9:07 pm", b"Mon Apr 88, 2024 9:07 pm")
    with pytest.raises(ParseError) as e:
        parse_topic_page(broken, url=url, fetched_at=fetched_at)
    assert "post 64" in str(e.value) and "Apr 88" in str(e.value)


def test_naive_fetched_at_is_refused_clearly():
    from datetime import datetime
    body, url, _ = page("prosilver-ru", "guest_viewtopic_t4_start0.html")
    with pytest.raises(ParseError, match="timezone-aware"):
        parse_topic_page(body, url=url, fetched_at=datetime(2024, 4, 9, 20, 35))


def test_garbage_collector_state_is_restored():
    """parse_topic_page pauses the cyclic GC for speed: it must leave it as it found it,
    after a page and after an error page alike."""
    import gc
    good, url, fetched_at = page("prosilver-ru", "guest_viewtopic_t4_start25.html")
    bad, bad_url, _ = page("prosilver-ru", "guest_viewtopic_t9999_not_found.html")
    assert gc.isenabled()
    parse_topic_page(good, url=url, fetched_at=fetched_at)
    assert gc.isenabled()
    with pytest.raises(TopicNotFoundError):
        parse_topic_page(bad, url=bad_url)
    assert gc.isenabled()
    gc.disable()
    try:
        parse_topic_page(good, url=url, fetched_at=fetched_at)
        assert not gc.isenabled()
    finally:
        gc.enable()
