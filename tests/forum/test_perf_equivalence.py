"""The plain speed-ups kept change no result: letters read once per game, shared name indexes, the hand-written
``Post.to_json`` and one parse per fetched page (``forum/parse/doc.py``) give exactly what the
uncached, generic code gave."""

from __future__ import annotations

import re
from dataclasses import asdict
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urljoin
from zoneinfo import ZoneInfo

import lxml.html
import pytest

from scraper_mod.errors import (
    BoardDisabledError,
    ForumError,
    LoginRequiredError,
    ParseError,
    TopicNotFoundError,
)
from scraper_mod.forum.fetched import (
    FetchResult,
    LoginForm,
    _status_error,
    find_login_form,
    page_error,
)
from scraper_mod.forum.html import parse_html
from scraper_mod.forum.model import post_from_json
from scraper_mod.forum.phpbb.parse import classify_error_page, parse_topic_page
from scraper_mod.forum.session import _SID_INPUT_B, _SID_INPUT_B2, scrub_body
from scraper_mod.game.night import intake
from scraper_mod.rules.model import Player
from scraper_mod.rules.names import NameIndex, name_index
from scraper_mod.store import Store

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
PAGES = sorted((FIXTURES / "phpbb" / "phpbb-3.3.15").glob("*/guest_viewtopic_t4_start*.html"))
MAIL = FIXTURES / "mail"
T0 = datetime(2024, 4, 9, 12, 0, tzinfo=timezone.utc)


def _asdict_json(post) -> dict:
    """``Post.to_json`` as it was first written, with ``dataclasses.asdict``."""
    d = asdict(post)
    for k in ("posted_at", "earliest", "latest", "edited_at"):
        if d[k] is not None:
            d[k] = d[k].isoformat()
    return d


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name + "/" + p.name)
def test_post_to_json_is_what_asdict_gave(page):
    parsed = parse_topic_page(page.read_bytes(), url=page.name, fetched_at=T0,
                              board_tz=ZoneInfo("Europe/Moscow"))
    assert parsed.posts
    for post in parsed.posts:
        got, want = post.to_json(), _asdict_json(post)
        # same keys in the same order, same values, same containers (tuples stay tuples)
        assert repr(got) == repr(want)
        assert post_from_json(got) == post


def test_the_fixture_pages_hold_every_kind_of_post_field():
    """The pages above cover colored, hidden, bold, quoted and edited posts."""
    posts = [p for page in PAGES for p in parse_topic_page(
        page.read_bytes(), url=page.name, fetched_at=T0,
        board_tz=ZoneInfo("Europe/Moscow")).posts]
    assert any(p.colored for p in posts) and any(p.hidden for p in posts)
    assert any(p.edited_at for p in posts) and any(p.quotes for p in posts)


PLAYERS = (Player("Вася", aliases=("Василий",)), Player("Маша_2"), Player("Big Joe"),
           Player("Ёжик в тумане"), Player("Павел"), Player("Red Fox", alive=False))
WRITTEN = ["Васю", "василия", "маше 2", "Маше_2", "big joe", "Ежика в тумане", "Павла",
           "Red Fox", "Biq Joe", "Ва", "Пав", "Никто", "", "за Васю", "Вася, Маша"]


def test_R2_3_a_shared_name_index_matches_like_a_fresh_one():
    shared = name_index(PLAYERS)
    assert name_index(list(PLAYERS)) is shared          # built once per list of names
    assert name_index(PLAYERS[:3]) is not shared
    fresh = NameIndex(PLAYERS)
    assert shared.players == fresh.players
    for text in WRITTEN:
        assert shared.match(text) == fresh.match(text), text
        assert shared.match_all(text) == fresh.match_all(text), text


def _game_ctx(store: Store):
    from scraper_mod.game.setup.config import ForumConfig, MovesConfig
    return SimpleNamespace(store=store, game=SimpleNamespace(
        moves=MovesConfig(), forum=ForumConfig(), timezone=ZoneInfo("Europe/Moscow")),
        letters={})


def test_letters_are_decoded_once_per_game_and_equal_to_a_fresh_read(monkeypatch):
    store = Store(":memory:")
    names = sorted(p.name for p in MAIL.iterdir() if p.suffix in (".eml", ".bin"))
    for i, name in enumerate(names):
        at = T0 + timedelta(minutes=i)
        store.add_message("maildir:/m", name, (MAIL / name).read_bytes(), received_at=at,
                          stored_at=at)
    fresh = [intake.read_letter(m) for m in store.messages()]
    reads: list[int] = []
    real = intake.read_letter
    monkeypatch.setattr(intake, "read_letter",
                        lambda m, **kw: reads.append(m.id) or real(m, **kw))
    ctx = _game_ctx(store)
    first, dups1 = intake._letters(ctx)
    second, dups2 = intake._letters(ctx)
    assert sorted(reads) == sorted(m.id for m in store.messages())   # each read once
    assert first == second and dups1 == dups2
    assert dups1, "the duplicate delivery in fixtures/mail is recognised"
    assert first == [letter for letter in fresh if letter.message_id not in dups1]
    # another game with the same message ids holds other mail: read afresh, not mixed up
    other = Store(":memory:")
    for i, name in enumerate(reversed(names)):
        at = T0 + timedelta(minutes=i)
        other.add_message("maildir:/m", name, (MAIL / name).read_bytes(), received_at=at,
                          stored_at=at)
    theirs, their_dups = intake._letters(_game_ctx(other))
    assert theirs == [letter for letter in (real(m) for m in other.messages())
                      if letter.message_id not in their_dups]


# -- one parse per fetched page (forum/parse/doc.py) ------------------------------------------

ALL_PAGES = sorted((FIXTURES / "phpbb").rglob("*.html"))
_POSTBODY = "//*[contains(concat(' ', normalize-space(@class), ' '), ' postbody ')]"


def _login_form_as_first_written(body: bytes, url: str):
    """``client.find_login_form`` before the shared tree: its own lxml.html parse."""
    try:
        doc = lxml.html.document_fromstring(body) if body.strip() else None
    except (ValueError, lxml.etree.ParserError):
        doc = None
    if doc is None or doc.xpath(_POSTBODY):
        return None
    for form in doc.xpath("//form"):
        if not form.xpath(".//input[@name='password']"):
            continue
        hidden = {i.get("name"): i.get("value", "")
                  for i in form.xpath(".//input[@type='hidden'][@name]")}
        submit = form.xpath(".//input[@type='submit'][@name]")
        name, value = (submit[0].get("name"), submit[0].get("value", "")) if submit else (
            "login", "Login")
        return LoginForm(action=urljoin(url, form.get("action") or url), hidden=hidden,
                         submit_name=name, submit_value=value)
    return None


def _page_error_as_first_written(result):
    """``client.page_error`` before the shared tree: its own ``parse_html``."""
    try:
        doc = parse_html(result.body, result.url)
    except ParseError:
        return _status_error(result)
    if doc.xpath(f"boolean({_POSTBODY} | //*[contains(concat(' ', normalize-space(@class), "
                 "' '), ' topictitle ')])"):
        return None
    err = classify_error_page(doc, url=result.url)
    if isinstance(err, (BoardDisabledError, TopicNotFoundError, LoginRequiredError)):
        return err
    return _status_error(result)


def _outcome(fn):
    try:
        return fn()
    except ForumError as e:
        return (type(e).__name__, str(e))


def _variants(body: bytes) -> list[bytes]:
    """The page, cut short (a truncated fetch), with its posts' markers renamed (a page
    without posts) and empty."""
    return [body, body[: len(body) // 2], body.replace(b"postbody", b"postbodx"), b"", b"  "]


@pytest.mark.parametrize("page", ALL_PAGES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_one_shared_tree_checks_and_parses_a_page_as_three_parses_did(page):
    """The login-form check, the error check and the parser, all on one ``PageDoc`` in the
    client's order, say exactly what each said with a parse of its own."""
    url = "http://board.example/viewtopic.php?t=4"
    for body in _variants(page.read_bytes()):
        for status in (200, 404):
            res = FetchResult(url=url, status=status, body=body, fetched_at=T0)
            assert find_login_form(body, url=url, page=res.page) == \
                _login_form_as_first_written(body, url)
            got, want = page_error(res), _page_error_as_first_written(res)
            assert (type(got), str(got)) == (type(want), str(want))
            for tz in (ZoneInfo("Europe/Moscow"), None):
                shared = _outcome(lambda: parse_topic_page(body, url=url, fetched_at=T0,
                                                           board_tz=tz, page=res.page))
                alone = _outcome(lambda: parse_topic_page(body, url=url, fetched_at=T0,
                                                          board_tz=tz))
                assert shared == alone


_SID_AS_FIRST_WRITTEN = re.compile(rb"((?:[?&;]|&amp;)sid=)[0-9a-fA-F]{32}")
SID = b"0123456789abcdefABCDEF0123456789"


@pytest.mark.parametrize("body", [p.read_bytes() for p in ALL_PAGES] + [
    b'<a href="./viewtopic.php?t=4&amp;sid=' + SID + b'">x</a>?sid=' + SID + b";sid=" + SID,
    b"&sid=" + SID + b"0 xsid=" + SID + b" sid=" + SID + b" ?sid=" + SID[:31] + b"&amp;&amp;sid="
    + SID, b"sid=" + SID + b"?sid=" + SID + b"sid=" + SID,
    b'<input type="hidden" name="sid\' value="' + SID + b'" />',     # quotes that differ
    b"<input value='" + SID + b"\" name='sid\" />"])
def test_scrub_body_drops_the_session_ids_the_first_pattern_dropped(body):
    want = _SID_INPUT_B2.sub(rb"\1\2", _SID_INPUT_B.sub(
        rb"\1", _SID_AS_FIRST_WRITTEN.sub(rb"\1", body)))
    assert scrub_body(body) == (want if b"sid" in body else body)
