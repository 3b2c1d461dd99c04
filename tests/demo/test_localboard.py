"""LocalBoard: its pages are what phpBB 3.3.15 prosilver renders, as the parser reads them.

The fidelity tests rebuild the real topic t=4 of fixtures/phpbb (its BBCode sources and times
from that folder's ground truth) on a LocalBoard and check that the parser reads the board's
pages exactly as it reads the real pages, in both board languages and with relative dates.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import requests

from scraper_mod.clock import FakeClock
from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.errors import (
    BoardDisabledError,
    FetchError,
    LoginRequiredError,
    TopicNotFoundError,
)
from scraper_mod.forum.client import ForumClient, find_login_form
from scraper_mod.forum.phpbb.parse import parse_forum_page, parse_topic_page

MSK = ZoneInfo("Europe/Moscow")
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb"

TRUTH = FIXTURES / "truth.json"  # the ground truth of the real pages (PARSER's fixture)


def _truth() -> dict:
    if not TRUTH.exists():
        pytest.skip("fixtures/phpbb/truth.json is not there yet")
    return json.loads(TRUTH.read_text(encoding="utf-8"))["topic"]


def t4_posts() -> list[dict]:
    """Topic t=4 «День 1 — голосование» of the real board: every post's id, author, user
    id, time, BBCode source (as shown; the README writes a line break as " / ") and edit."""
    return [{**p, "bbcode": p["bbcode"].replace(" / ", "\n")} for p in _truth()["posts"]]


EDIT_BEFORE = {85: "Хм. [color=#FF0000]Вася[/color]"}   # post 85 before its edit (README)


NAMES = {2: "admin", 58: "Вася", 59: "Маша_2", 60: "Big Joe", 61: "Алексей", 62: "NightOwl",
         63: "Игрок-7", 64: "Ёжик в тумане", 65: "doc_Holiday"}
POST_COUNTS = {2: 17, 58: 20, 59: 19, 60: 18, 61: 18, 62: 18, 63: 13, 64: 17, 65: 17}
SIGNATURE = "[i]Лечу всех, кроме мафии.[/i] [color=#008000]doc_Holiday[/color]"
FIELDS = ("post_id", "author", "author_id", "posted_at", "precision", "earliest", "latest",
          "edited_at", "edited_by", "edit_count", "edit_reason", "colored", "bold", "hidden",
          "quotes", "text")


def find_fixture(tail: str) -> bytes:
    """A saved real page under fixtures/phpbb, by the end of its path."""
    hits = sorted(p for p in FIXTURES.glob("**/*") if p.as_posix().endswith(tail))
    if not hits:
        pytest.skip(f"fixtures/phpbb/**/{tail} is not there yet")
    return hits[0].read_bytes()


class _Addr:
    server_address = ("127.0.0.1", 8033)   # the real board's address, for same links


def t4_board(language: str, *, now: datetime, relative: bool = False,
             with_edit: bool = True) -> LocalBoard:
    """The real topic t=4 on a LocalBoard (not started: rendering only)."""
    b = LocalBoard(language=language, clock=lambda: now, relative_dates=relative)
    b._server = _Addr()
    for uid, name in NAMES.items():
        joined = (datetime(2023, 8, 20, 10, 0, tzinfo=MSK) if uid == 2 else
                  datetime(2023, 9, 1, 13, 0, tzinfo=MSK) + timedelta(hours=uid - 58))
        b.add_user(name, uid, signature=SIGNATURE if uid == 65 else None, joined=joined,
                   posts=POST_COUNTS[uid], colour="AA0000" if uid == 2 else None,
                   rank="Site Admin" if uid == 2 else None,
                   online=relative and uid in (2, 58))  # logged in when that folder was saved
    b.add_topic("День 1 — голосование", topic_id=4)
    for p in t4_posts():
        b.add_post(p["author"], p["author_id"], p["bbcode"],
                   datetime.fromisoformat(p["time_utc"]), post_id=p["post_id"])
    for p in t4_posts():
        if with_edit and p.get("edit"):
            e = p["edit"]
            for _ in range(e["count"]):
                b.edit_post(p["post_id"], p["bbcode"], reason=e["reason"], editor=e["by"],
                            edited_at=datetime.fromisoformat(e["at_moscow"]).replace(tzinfo=MSK))
    return b


FETCHED = datetime(2026, 12, 2, 13, 13, 42, tzinfo=timezone.utc)
RELATIVE_CLOCK = datetime(2024, 4, 9, 17, 35, 5, tzinfo=timezone.utc)


@pytest.mark.parametrize("folder,language,relative,now", [
    ("prosilver-ru", "ru", False, FETCHED),
    ("prosilver-en", "en", False, FETCHED),
    ("prosilver-ru-relative-dates", "ru", True, RELATIVE_CLOCK),
])
@pytest.mark.parametrize("start", [0, 25])
def test_parser_reads_localboard_exactly_as_the_real_board(folder, language, relative, now,
                                                          start):
    real = find_fixture(f"{folder}/guest_viewtopic_t4_start{start}.html")
    board = t4_board(language, now=now, relative=relative)
    url = "http://127.0.0.1:8033/viewtopic.php?t=4" + (f"&start={start}" if start else "")
    want = parse_topic_page(real, url=url, fetched_at=now)
    got = parse_topic_page(board.render_topic(4, start).encode(), url=url, fetched_at=now)
    for f in ("topic_id", "title", "locked", "page", "page_count", "next_url", "style",
              "language"):
        assert getattr(got, f) == getattr(want, f), f
    assert [p.post_id for p in got.posts] == [p.post_id for p in want.posts]
    for g, w in zip(got.posts, want.posts):
        for f in FIELDS:
            assert getattr(g, f) == getattr(w, f), (w.post_id, f)
    # the shown dates too (absolute, English, or «Вчера, 21:00» / «35 минут назад»)
    shown = re.compile(r'<time datetime="([^"]+)">([^<]+)</time>')
    assert shown.findall(board.render_topic(4, start)) == shown.findall(real.decode())


@pytest.mark.parametrize("folder,language,relative,now", [
    ("prosilver-ru", "ru", False, FETCHED),
    ("prosilver-en", "en", False, FETCHED),
    ("prosilver-ru-relative-dates", "ru", True, RELATIVE_CLOCK),
])
@pytest.mark.parametrize("start", [0, 25])
def test_rendered_post_markup_is_the_real_markup_byte_for_byte(folder, language, relative, now,
                                                                start):
    real = find_fixture(f"{folder}/guest_viewtopic_t4_start{start}.html").decode()
    mine = t4_board(language, now=now, relative=relative).render_topic(4, start)

    def block(page: str, pid: int) -> str:
        i = page.index(f'<div id="p{pid}"')
        return page[i:page.index('<div class="back2top">', i)]
    for pid in [p["post_id"] for p in t4_posts()][start:start + 25]:  # quotes, an edit...
        assert block(mine, pid) == block(real, pid), pid


def test_edit_notice_and_original_text():
    b = t4_board("ru", now=FETCHED, with_edit=False)
    edit = next(p["edit"] for p in t4_posts() if p["post_id"] == 85)
    editor, when, reason = edit["by"], edit["at_moscow"], edit["reason"]
    b.find_post(85).body = EDIT_BEFORE[85]   # as it stood before the edit: no notice yet
    page = parse_topic_page(b.render_topic(4, 0).encode(), url="x")
    p85 = next(p for p in page.posts if p.post_id == 85)
    assert p85.edit_count == 0 and [c.text for c in p85.colored] == ["Вася"]
    b.edit_post(85, "Хм. [color=#FF0000]Алексей[/color]", reason=reason, editor=editor,
                edited_at=datetime.fromisoformat(when).replace(tzinfo=MSK))
    b.edit_post(85, "Хм. [color=#FF0000]Алексей[/color]!", reason="ещё раз", editor=editor,
                edited_at=datetime.fromisoformat(when).replace(tzinfo=MSK) + timedelta(hours=1))
    html = b.render_topic(4, 0)
    assert "всего редактировалось 2 раза." in html
    p85 = next(p for p in parse_topic_page(html.encode(), url="x").posts if p.post_id == 85)
    assert (p85.edit_count, p85.edit_reason, p85.edited_by) == (2, "ещё раз", "Игрок-7")
    assert p85.edited_at == datetime(2024, 4, 9, 18, 5, tzinfo=MSK)


# -- BBCode ---------------------------------------------------------------------------------

def render(src: str, lang: str = "ru") -> str:
    b = LocalBoard(language=lang)
    return b._bbcode().render(src)


def test_bbcode_subset():
    assert render("[b]x[/b] [i]y[/i] [u]z[/u]") == (
        '<strong class="text-strong">x</strong> <em class="text-italics">y</em> '
        '<span style="text-decoration:underline">z</span>')
    assert render("[color=#ff0000]Вася[/color]") == '<span style="color:#ff0000">Вася</span>'
    assert render("[b][color=red]A[/color][/b]") == (
        '<strong class="text-strong"><span style="color:red">A</span></strong>')
    assert render("a\nb") == "a<br>\nb"
    assert render("<script>&") == "&lt;script&gt;&amp;"


def test_bbcode_quotes_spoiler_code():
    q = render('[quote="Ёжик в тумане" post_id=68 time=1712609299 user_id=64]'
               '[color=#ff0000]Вася[/color][/quote]\n+1')
    assert q.startswith('<blockquote cite="./viewtopic.php?p=68#p68"><div><cite><a href="./'
                        'memberlist.php?mode=viewprofile&amp;u=64">Ёжик в тумане</a> писал(а):')
    assert 'data-post-id="68"' in q and "08 апр 2024, 23:48" in q
    assert q.endswith('<span style="color:#ff0000">Вася</span></div></blockquote>\n+1')
    assert render("[quote=Вася]x[/quote]") == (
        "<blockquote><div><cite>Вася писал(а):</cite>x</div></blockquote>")
    assert render("[quote]x[/quote]") == '<blockquote class="uncited"><div>x</div></blockquote>'
    assert render("[spoiler][color=red]A[/color][/spoiler]", "en") == (
        '<div class="spoiler"><div class="spoiler-title"><strong>Spoiler</strong></div>'
        '<div class="spoiler-body"><span style="color:red">A</span></div></div>')
    code = render("[code][color=red]A[/color] <b>[/code]")
    assert "<pre><code>[color=red]A[/color] &lt;b&gt;</code></pre>" in code


def test_bbcode_broken_tags_as_the_real_board_shows_them():
    """As fixtures/phpbb/bbcode-3.3.15 captured them: a tag left open is closed at the end or by
    the tag around it; a stray closing tag and a bad argument stay text."""
    assert render("[b]open") == '<strong class="text-strong">open</strong>'
    assert render("close[/b]") == "close[/b]"
    assert render("[color=javascript:x]A[/color]") == "[color=javascript:x]A[/color]"
    assert render("[b][i]x[/b]") == (
        '<strong class="text-strong"><em class="text-italics">x</em></strong>')
    assert render("[color=red]A [b]B[/color]") == (
        '<span style="color:red">A <strong class="text-strong">B</strong></span>')


def test_quote_cites_parse_as_quotes():
    b = LocalBoard(language="en")
    b._server = _Addr()
    b.add_topic("Day 1", topic_id=9)
    first = b.add_post("Вася", 58, "[color=red]Маша_2[/color]", FETCHED)
    b.add_post("Маша_2", 59, f'[quote="Вася" post_id={first} time=1712609299 user_id=58]'
                             f'[color=red]Маша_2[/color][/quote]\nNo: [color=blue]Вася[/color]'
                             f'[spoiler][color=red]Big Joe[/color][/spoiler]', FETCHED)
    p = parse_topic_page(b.render_topic(9).encode(), url="x").posts[1]
    assert p.quotes == (first,)
    assert [(c.color, c.text) for c in p.colored] == [("blue", "Вася")]
    assert {(h.text, h.where) for h in p.hidden} == {("Маша_2", "quote"), ("Big Joe", "spoiler")}


# -- pages and pagination -------------------------------------------------------------------

def test_pagination_like_phpbb_with_ellipsis():
    b = LocalBoard(language="en", per_page=2)
    b._server = _Addr()
    b.add_topic("Long", topic_id=3)
    for n in range(20):
        b.add_post("Вася", 58, f"post {n}", FETCHED + timedelta(minutes=n))
    html = b.render_topic(3, 10)     # page 6 of 10
    pag = html[html.index('<div class="pagination">'):]
    pag = pag[:pag.index("</div>")]
    assert "20 posts" in pag
    labels = re.findall(r'<li class="active"><span>(\d+)</span>|>(\d+)</a>|(ellipsis)', pag)
    assert [a or b_ or e for a, b_, e in labels] == [
        "1", "ellipsis", "4", "5", "6", "7", "8", "ellipsis", "10"]
    page = parse_topic_page(html.encode(), url="http://127.0.0.1:8033/viewtopic.php?t=3&start=10")
    assert (page.page, page.page_count) == (6, 10)
    assert page.next_url == "http://127.0.0.1:8033/viewtopic.php?t=3&start=12"
    last = parse_topic_page(b.render_topic(3, 999).encode(), url="x")   # clamped like phpBB
    assert (last.page, last.next_url, [p.text for p in last.posts]) == (10, None,
                                                                          ["post 18", "post 19"])
    one = LocalBoard(language="ru")
    one._server = _Addr()
    one.add_topic("Один", topic_id=1)
    one.add_post("Вася", 58, "a", FETCHED)
    assert "1 сообщение" in one.render_topic(1)
    assert "Страница <strong>1</strong> из <strong>1</strong>" in one.render_topic(1)


def test_locked_topic():
    b = LocalBoard(language="ru")
    b._server = _Addr()
    b.add_topic("День 2", topic_id=5)
    b.add_post("admin", 2, "Голосование закрыто.", FETCHED)
    assert parse_topic_page(b.render_topic(5).encode(), url="x").locked is False
    b.lock()
    page = parse_topic_page(b.render_topic(5).encode(), url="x")
    assert page.locked is True and "Тема закрыта" in b.render_topic(5)


# -- the server -----------------------------------------------------------------------------

@pytest.fixture
def clock():
    return FakeClock(datetime(2024, 4, 9, 16, 0, tzinfo=timezone.utc))


def test_server_pages_date_header_and_forum_listing(clock):
    with LocalBoard(language="ru", clock=clock) as b:
        t = b.add_topic("День 1 — голосование", topic_id=4)
        b.add_topic("Флудилка", topic_id=5)
        b.add_post("Вася", 58, "привет", clock.now(), topic=t)
        clock.advance(seconds=90)
        r = requests.get(b.topic_url(t), timeout=5)
        assert r.status_code == 200 and r.headers["Date"] == "Tue, 09 Apr 2024 16:01:30 GMT"
        assert r.headers["Content-Type"] == "text/html; charset=UTF-8"
        assert "phpbb3_local_sid=" in r.headers["Set-Cookie"]
        page = parse_topic_page(r.content, url=r.url)
        assert page.topic_id == 4 and page.posts[0].text == "привет"
        r = requests.get(b.url + "viewforum.php?f=3", timeout=5)
        links = parse_forum_page(r.content, url=r.url)
        assert [(x.topic_id, x.title) for x in links] == [(4, "День 1 — голосование"),
                                                           (5, "Флудилка")]
        # p= finds the post's page
        r = requests.get(b.url + "viewtopic.php?p=1", timeout=5)
        assert parse_topic_page(r.content, url=r.url).topic_id == 4
        assert b.request_count("/viewtopic.php") == 2


def test_server_error_pages_are_recognised(clock, monkeypatch):
    monkeypatch.delenv("SCRAPER_MOD_FORUM_PASSWORD", raising=False)
    with LocalBoard(language="en", clock=clock) as b:
        b.add_topic("Day 1", topic_id=4)
        b.add_post("Вася", 58, "hi", clock.now())
        r = requests.get(b.url + "viewtopic.php?t=404", timeout=5)
        assert r.status_code == 404
        with pytest.raises(TopicNotFoundError):
            parse_topic_page(r.content, url=r.url)
        b.disabled = True
        r = requests.get(b.topic_url(), timeout=5)
        assert r.status_code == 200
        with pytest.raises(BoardDisabledError):
            parse_topic_page(r.content, url=r.url)
    with LocalBoard(language="ru", clock=clock, username="host", password="pw") as b:
        b.add_topic("День 1", topic_id=4)
        r = requests.get(b.topic_url(), timeout=5)
        with pytest.raises(LoginRequiredError):
            parse_topic_page(r.content, url=r.url)
        assert find_login_form(r.content, url=r.url) is not None


def test_failure_injection(clock):
    with LocalBoard(clock=clock) as b:
        b.add_topic("День 1", topic_id=4)
        b.add_post("Вася", 58, "привет", clock.now())
        b.fail_next(2, status=503, retry_after=30)
        for _ in range(2):
            r = requests.get(b.topic_url(), timeout=5)
            assert r.status_code == 503 and r.headers["Retry-After"] == "30"
        b.fail_next(status=429, match="start=25")
        assert requests.get(b.topic_url(), timeout=5).status_code == 200  # not matched
        assert requests.get(b.topic_url(start=25), timeout=5).status_code == 429
        b.truncate_next()
        r = requests.get(b.topic_url(), timeout=5)
        assert r.status_code == 200 and b"</html>" not in r.content
        b.drop_next()
        with pytest.raises(requests.ConnectionError):
            requests.get(b.topic_url(), timeout=5)
        assert requests.get(b.topic_url(), timeout=5).status_code == 200


def test_login_form_rules(clock):
    """The board enforces phpBB's form rules: same session, not within the same second."""
    with LocalBoard(language="ru", clock=clock, username="host", password="pw") as b:
        b.add_topic("День 1", topic_id=4)
        b.add_post("Вася", 58, "секрет", clock.now())
        s = requests.Session()
        form = find_login_form(s.get(b.url + "ucp.php?mode=login", timeout=5).content,
                               url=b.url + "ucp.php?mode=login")
        data = {**form.hidden, "username": "host", "password": "pw", "login": "Вход"}
        r = s.post(form.action, data=data, allow_redirects=False, timeout=5)
        assert r.status_code == 200 and "недействительна" in r.text   # same second
        clock.advance(seconds=2)
        other = requests.post(form.action, data=data, allow_redirects=False, timeout=5)
        assert other.status_code == 200 and "недействительна" in other.text  # no session
        r = s.post(form.action, data={**data, "password": "нет"}, allow_redirects=False,
                   timeout=5)
        assert "неверный пароль" in r.text and b.failed_logins == 1
        r = s.post(form.action, data=data, allow_redirects=False, timeout=5)
        assert r.status_code == 302 and "sid=" in r.headers["Location"]
        assert r.headers["Location"].startswith(b.url + "index.php")
        page = parse_topic_page(s.get(b.topic_url(), timeout=5).content, url="x")
        assert page.posts[0].text == "секрет"


def test_client_logs_in_to_the_board(clock):
    with LocalBoard(language="en", clock=clock, username="host", password="pw") as b:
        b.add_topic("Day 1", topic_id=4)
        b.add_post("Вася", 58, "secret", clock.now())
        c = ForumClient(requests.Session(), base_url=b.url, username="host", password="pw",
                        sleep=clock.sleep, monotonic=lambda: clock.now().timestamp(),
                        now=clock.now)
        c.login()
        assert c.logins == 1
        c.login()                       # already logged in: phpBB sends us to the index
        assert c.logins == 1 and b.failed_logins == 0
        r = c.get_page(b.topic_url())
        assert parse_topic_page(r.body, url=r.url).posts[0].text == "secret"
        assert r.fetched_at == clock.now().replace(microsecond=0)


# -- private messages (ucp.php?i=pm) -----------------------------------------------------------

def pm_board(language: str, clock) -> LocalBoard:
    """The host's inbox of the real board (fixtures/phpbb/phpbb-3.3.15/pm) on a LocalBoard."""
    b = LocalBoard(language=language, clock=clock, username="admin", password="pw")
    for uid, name in NAMES.items():
        if uid != 2:
            b.add_user(name, uid)
    for m in json.loads(TRUTH.read_text(encoding="utf-8"))["pm"]["messages"]:
        sent = datetime.fromisoformat(m["sent_moscow"]).replace(tzinfo=MSK)
        b.send_pm(m["author"], m["author_id"], m["subject"], m["bbcode"], sent,
                  to_id=2 if m["in_inbox"] else 59, msg_id=m["msg_id"])
    return b


def logged_in(board, clock) -> ForumClient:
    return ForumClient(requests.Session(), base_url=board.url, username="admin", password="pw",
                       sleep=clock.sleep, monotonic=lambda: clock.now().timestamp(),
                       now=clock.now)


@pytest.mark.parametrize("language,inbox", [
    ("ru", "pm/prosilver-ru/inbox.html"),
    ("en", "pm/prosilver-en/inbox_dateformat_D_M_d_Y_g_i_a.html"),
])
def test_pm_pages_parse_as_the_real_ones(language, inbox):
    from scraper_mod.forum.phpbb.pm import parse_pm_inbox, parse_pm_view
    _truth()
    clock = FakeClock(FETCHED)
    real_inbox = find_fixture(inbox)
    with pm_board(language, clock) as b:
        client = logged_in(b, clock)
        r = client.get_page(b.inbox_url())          # logs in on the way
        assert client.logins == 1
        got = parse_pm_inbox(r.body, url="x", fetched_at=FETCHED)
        want = parse_pm_inbox(real_inbox, url="x", fetched_at=FETCHED)
        assert got == want                           # ids, senders, subjects, times, unread
        if language != "ru":
            return
        for s in want:
            view = client.get_page(b.pm_url(s.msg_id))
            real = find_fixture(f"pm/prosilver-ru/view_p{s.msg_id}.html")
            g = parse_pm_view(view.body, url="x", fetched_at=FETCHED)
            w = parse_pm_view(real, url="x", fetched_at=FETCHED)
            assert g == w, s.msg_id
        read = parse_pm_inbox(client.get_page(b.inbox_url()).body, url="x", fetched_at=FETCHED)
        assert not any(s.unread for s in read)       # opening a message marks it read


def test_pm_pages_need_a_login(clock, monkeypatch):
    monkeypatch.delenv("SCRAPER_MOD_FORUM_PASSWORD", raising=False)
    _truth()
    with pm_board("ru", clock) as b:
        r = requests.get(b.inbox_url(), timeout=5)
        assert "авторизуйтесь для входа в ваш личный раздел" in r.text
        with pytest.raises(LoginRequiredError):
            ForumClient(requests.Session(), base_url=b.url, sleep=clock.sleep,
                        monotonic=lambda: clock.now().timestamp()).get_page(b.inbox_url())
        # a message between two others is not shown (the host's own sent ones are, as on
        # phpBB: its outbox and sentbox)
        other = b.send_pm("Вася", 58, "тайна", "только Маше", to_id=59)
        client = logged_in(b, clock)
        assert client.get_page(b.pm_url(5)).status == 200
        with pytest.raises(TopicNotFoundError) as ei:
            client.get_page(b.pm_url(other))
        assert "запрошенного сообщения не существует" in str(ei.value)


def test_forum_listing_reads_as_the_real_one():
    real = find_fixture("prosilver-ru/guest_viewforum_f3.html")
    b = t4_board("ru", now=FETCHED)
    b.add_topic("Игра 2 — правила и состав", topic_id=3, sticky=True)
    b.add_post("admin", 2, "Правила.", datetime(2024, 4, 8, 20, 0, tzinfo=MSK), topic=3)
    b.add_topic("Флудилка игры 2", topic_id=5)
    for minute, (name, uid) in ((40, ("Big Joe", 60)), (50, ("Вася", 58)),
                                (62, ("Ёжик в тумане", 64))):
        b.add_post(name, uid, "флуд", datetime(2024, 4, 9, 20, 0, tzinfo=MSK)
                   + timedelta(minutes=minute), topic=5)
    url = "http://127.0.0.1:8033/viewforum.php?f=3"
    got = parse_forum_page(b.render_forum(3).encode(), url=url)
    assert got == parse_forum_page(real, url=url)
    assert [t.topic_id for t in got] == [3, 5, 4]       # the sticky first, then by last post


# --- the topic's Atom feed (feed=True), as phpBB 3.3 serves app.php/feed/topic/N -------------

@pytest.mark.parametrize("language", ["ru", "en"])
def test_topic_feed_is_the_real_feed_byte_for_byte(language):
    """The real topic rebuilt on a LocalBoard gives the real board's feed exactly: the newest
    15 posts, newest first, <published>/<updated> to the second in +03:00, the content."""
    real = find_fixture(f"phpbb-3.3.15/feed_topic_4.{language}.atom.xml").decode()
    b = t4_board(language, now=FETCHED)
    b.feed = True
    assert b.render_topic_feed(4) == real


def test_topic_pages_link_the_feeds_as_phpbb_does():
    real = find_fixture("prosilver-en/guest_viewtopic_t4_start0.html").decode()
    b = t4_board("en", now=FETCHED)
    b.forums[3] = "Игра 2"
    assert "atom+xml" not in b.render_topic(4)             # feeds off: no links
    b.feed = True
    links = [line for line in b.render_topic(4).splitlines() if "atom+xml" in line]
    assert links == [line for line in real.splitlines() if "atom+xml" in line]


def test_feed_served_over_http_and_404_when_off():
    from scraper_mod.forum.feed import advertised_feed_url, parse_topic_feed
    clock = FakeClock(datetime(2024, 4, 9, 20, 35, tzinfo=MSK))
    with LocalBoard(language="ru", clock=clock, feed=True, feed_limit=3) as b:
        b.add_topic("День 1", topic_id=4)
        ids = [b.add_post("Вася", 58, f"пост {n}", datetime(2024, 4, 9, 19, 50 + n, 7 * n,
                                                              tzinfo=MSK)) for n in range(5)]
        b.edit_post(ids[4], "исправлено", edited_at=datetime(2024, 4, 9, 20, 1, 2, tzinfo=MSK),
                    notice=True)
        s = requests.Session()
        page = s.get(b.topic_url())
        url = advertised_feed_url(page.content, page_url=page.url, topic_id=4)
        assert url == f"{b.url}app.php/feed/topic/4"
        r = s.get(url)
        assert r.status_code == 200 and r.headers["Content-Type"].startswith(
            "application/atom+xml")
        entries = parse_topic_feed(r.content, url=url)
        assert [e.post_id for e in entries] == ids[:1:-1]   # the newest 3, newest first
        assert entries[0].published == datetime(2024, 4, 9, 19, 54, 28, tzinfo=MSK)
        assert entries[0].updated == datetime(2024, 4, 9, 20, 1, 2, tzinfo=MSK)
        assert entries[1].updated == entries[1].published
        assert s.get(f"{b.url}app.php/feed/topic/99").status_code == 404
        b.feed = False
        r = s.get(url)
        assert r.status_code == 404 and "Ленты новостей" in r.text
        assert r.headers["Content-Type"].startswith("text/html")
        assert "atom+xml" not in s.get(b.topic_url()).text


def test_one_connection_kept_alive_for_a_clients_pages_and_closed_with_the_board(clock):
    """The board answers HTTP/1.1 with keep-alive, as phpBB behind Apache or nginx does, and
    the client gives a page's connection back once the page is read: ten pages, one TCP
    connection. A page the client leaves unread (over its size limit) closes its connection;
    a stopped board ends the connections it kept, so a client finds it down."""
    with LocalBoard(language="ru", clock=clock) as board:
        tid = board.add_topic("День 1")
        for n in range(3):
            board.add_post("Вася", 58, f"сообщение {n}", clock.now(), topic=tid)
        client = ForumClient(base_url=board.url, min_delay=0)
        bodies = {client.get_page(board.topic_url(tid)).body for _ in range(10)}
        assert len(bodies) == 1 and board.connections == 1
        small = ForumClient(client.session, base_url=board.url, min_delay=0,
                            max_page_size=1000, retries=0)
        with pytest.raises(FetchError, match="page size limit"):
            small.get(board.topic_url(tid))
        client.get_page(board.topic_url(tid))
        assert board.connections == 2          # the unread page's connection was closed
        url = board.topic_url(tid)
    client.retries = 0
    with pytest.raises(FetchError, match="after 1 attempts"):
        client.get(url)
