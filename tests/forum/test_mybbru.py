"""forum/mybbru/ (issue 36 item 2): a hosted mybb.ru board, read only, on fixtures/mybbru
(API answers and PunBB 1.2 pages built to the documented shapes: nothing was recorded on a
live hosted board, docs/engines.md)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import requests
import responses
from qa_game import copy_game, edit

from scraper_mod.cli import main
from scraper_mod.errors import ConfigError, ForumError, ParseError, TopicNotFoundError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.engine import (
    READ_ONLY_ENGINES,
    Board,
    can_post,
    detect_engine,
    engine_of,
    engine_of_url,
    open_board,
    topic_key,
)
from scraper_mod.forum.mybbru.board import MybbruBoard
from scraper_mod.forum.mybbru.links import api_posts_url, api_url
from scraper_mod.forum.mybbru.parse import ApiOff, parse_api_posts, parse_api_users
from scraper_mod.forum.poller import poll_topic, read_at_deadline
from scraper_mod.forum.posting import PostRefused
from scraper_mod.game.setup.config import load_game
from scraper_mod.store import Store

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "mybbru"
BASE = "https://mafia.mybb.ru/"
TOPIC = f"{BASE}viewtopic.php?id=4"
MSK = timezone(timedelta(hours=3))
DEADLINE = datetime(2024, 4, 9, 20, 0, tzinfo=MSK)
DATE = {"Date": "Tue, 09 Apr 2024 17:00:30 GMT"}


def _client() -> ForumClient:
    return ForumClient(requests.Session(), base_url=BASE, min_delay=0, sleep=lambda s: None,
                       retries=0)


def _api(rs, *, disabled: bool = False) -> None:
    posts = FIX / "api" / ("disabled.json" if disabled else "post.get-topic4-skip0.json")
    topic = FIX / "api" / "topic.get-topic4.json"
    rs.add(responses.GET, api_posts_url(BASE, 4, 0), body=posts.read_bytes(), headers=DATE,
           content_type="application/json; charset=utf-8")
    if not disabled:    # a refused post.get: topic.get is never asked
        rs.add(responses.GET, api_url(BASE, "topic.get", topic_id=4), body=topic.read_bytes(),
               headers=DATE, content_type="application/json; charset=utf-8")


def _pages(rs) -> None:
    for n in (1, 2):
        rs.add(responses.GET, TOPIC + ("&p=2" if n == 2 else ""), headers=DATE,
               body=(FIX / "pages" / f"viewtopic-id4-p{n}.html").read_bytes(),
               content_type="text/html; charset=utf-8")


def _votes(posts) -> list[tuple[int, str, str]]:
    return [(p.post_id, p.author, c.text) for p in posts for c in p.colored]


EXPECTED_VOTES = [(102, "Вася", "Маша_2"), (103, "Маша_2", "Big Joe"),
                  (104, "Big Joe", "Маша_2"), (105, "Алексей", "Маша_2"),
                  (106, "NightOwl", "Big Joe"), (107, "Игрок-7", "Вася"),
                  (108, "doc_Holiday", "Маша_2")]


def test_the_api_gives_every_post_to_the_second_and_keeps_quotes_out_of_votes():
    board = MybbruBoard(_client())
    assert isinstance(board, Board) and board.engine == "mybbru"
    with responses.RequestsMock() as rs:
        _api(rs)
        (page,) = board.read_topic(4)
    assert page.title == "День 1 — голосование" and page.page_count == 1
    assert [p.post_id for p in page.posts] == list(range(101, 109))
    assert _votes(page.posts) == EXPECTED_VOTES
    owl = page.posts[5]
    assert owl.precision == "second" and owl.posted_at == datetime(2024, 4, 9, 19, 59, 30,
                                                                   tzinfo=MSK)
    assert owl.author_id == 62
    hidden = {(p.author, h.where, h.text) for p in page.posts for h in p.hidden}
    assert hidden == {("Маша_2", "quote", "Маша_2"), ("Алексей", "spoiler", "Вася")}
    assert page.posts[7].text == "Маша_2"          # the code box and its «Код:» are no words
    assert board.api is True


def test_a_disabled_api_falls_back_to_the_pages_and_is_not_asked_again():
    board = MybbruBoard(_client())
    with responses.RequestsMock() as rs:
        _api(rs, disabled=True)
        _pages(rs)
        pages = board.read_topic(4)
        asked = [c.request.url for c in rs.calls]
    assert [p.page for p in pages] == [1, 2] and pages[0].page_count == 2
    posts = [p for page in pages for p in page.posts]
    assert _votes(posts) == EXPECTED_VOTES
    assert posts[5].posted_at == datetime(2024, 4, 9, 19, 59, 30, tzinfo=MSK)
    masha = posts[2]
    assert (masha.edited_by, masha.edited_at) == ("Маша_2", datetime(2024, 4, 9, 12, 20, 41,
                                                                       tzinfo=MSK))
    assert "Отредактировано" not in masha.text
    big_joe = posts[3]
    assert [(h.where, h.text) for h in big_joe.hidden] == [("signature", "Вася")]
    assert board.api is False and len([u for u in asked if "api.php" in u]) == 1
    with responses.RequestsMock() as rs:
        _pages(rs)
        assert len(board.read_topic(4)) == 2
        assert not [c for c in rs.calls if "api.php" in c.request.url]


def test_a_windows_1251_page_is_read():
    board = MybbruBoard(_client())
    board.api = False
    with responses.RequestsMock() as rs:
        rs.add(responses.GET, f"{BASE}viewtopic.php?id=7",
               body=(FIX / "pages" / "viewtopic-id7-cp1251.html").read_bytes(),
               content_type="text/html; charset=windows-1251")
        page = board.read_topic_page(7)
    assert page.title == "День 2 — голосование"
    (ezhik,) = [p for p in page.posts if p.author == "Ёжик в тумане"]
    assert ezhik.text == "Ёжик голосует: Вася — «ёлки»" and ezhik.colored[0].text == "Вася"


def test_api_and_pages_both_unavailable_is_one_clear_line():
    board = MybbruBoard(_client())
    with responses.RequestsMock() as rs:
        rs.add(responses.GET, api_posts_url(BASE, 4, 0), body=b"<html>Forbidden</html>",
               status=403)
        rs.add(responses.GET, TOPIC, body=b"<html><body>502 Bad Gateway</body></html>",
               status=502)
        with pytest.raises(ForumError) as got:
            board.read_topic_page(4)
    line = str(got.value)
    assert "\n" not in line and "API" in line and "page" in line and "HTTP 403" in line
    assert "check [forum] url" in line


def test_a_topic_the_board_does_not_have_is_topic_not_found():
    board = MybbruBoard(_client())
    board.api = False
    with responses.RequestsMock() as rs:
        rs.add(responses.GET, f"{BASE}viewtopic.php?id=99",
               body=(FIX / "pages" / "message-bad-topic.html").read_bytes())
        with pytest.raises(TopicNotFoundError, match="неверная или устаревшая"):
            board.read_topic_page(99)


@pytest.mark.parametrize("url, engine", [
    ("https://forum.example.org/viewtopic.php?t=5", "phpbb"),
    ("https://forum.example.org/viewtopic.php?f=2&p=77#p77", "phpbb"),
    ("https://forum.example.org/index.php?topic=5.0", "smf")])
def test_a_topic_address_of_another_engine_is_named(url, engine):
    board = MybbruBoard(_client())
    with pytest.raises(ForumError) as got:
        board.topic_key(url)
    assert f"a {engine} board" in str(got.value)
    assert f'[forum] engine = "{engine}"' in str(got.value) and "\n" not in str(got.value)


def test_addresses_of_the_family_name_the_engine():
    assert engine_of_url(TOPIC + "&p=3") == "mybbru"
    assert engine_of_url("https://igra.rolka.me/viewtopic.php?id=12") == "mybbru"
    assert topic_key(TOPIC + "&p=3#p108") == TOPIC
    board = MybbruBoard(_client())
    assert board.post_url(106) == f"{BASE}viewtopic.php?pid=106#p106"
    assert board.topic_url(4, 25) == TOPIC + "&p=2"


def test_the_engine_is_told_from_a_page_and_opened():
    page = (FIX / "pages" / "viewtopic-id4-p1.html").read_bytes()
    assert detect_engine(page) == "mybbru"
    with responses.RequestsMock() as rs:
        rs.add(responses.GET, BASE, body=page)
        assert engine_of(_client()) == "mybbru"
    assert isinstance(open_board(_client(), "mybbru"), MybbruBoard)


def test_the_board_does_not_post_and_says_so_in_one_line():
    board = MybbruBoard(_client())
    assert board.can_post is False and not can_post(board) and "mybbru" in READ_ONLY_ENGINES
    writes = [lambda: board.reply(4, "x"), lambda: board.new_topic(3, "День 2", "x"),
              lambda: board.edit(101, "x"), lambda: board.send_pm("Вася", "s", "x"),
              lambda: board.lock(4)]
    for write in writes:
        with pytest.raises(PostRefused) as got:
            write()
        assert got.value.kind == "read-only" and "by hand" in str(got.value)
        assert got.value.in_language("ru").startswith("форум на mybb.ru scraper-mod только "
                                                      "читает") and "вручную" in got.value.ru
    assert board.find_reply(4, "x") is None and board.own_posts(4) == []
    with pytest.raises(ForumError, match="private messages"):
        board.pm_inbox()


def _mybbru_game(tmp_path: Path, *, publish: str = "") -> Path:
    """fixtures/games/day1 on a mybb.ru board: its day 1 topic is fixtures/mybbru's topic 4."""
    game = copy_game(tmp_path)
    edit(game, 'url = "http://127.0.0.1/"', f'url = "{BASE}"\nengine = "mybbru"')
    edit(game, 'topic = "http://127.0.0.1/viewtopic.php?t=4"', f'topic = "{TOPIC}"')
    if publish:
        with (game / "game.toml").open("a", encoding="utf-8") as f:
            f.write(f"\n[publish]\n{publish}\n")
    return game


def test_the_autopilot_is_refused_at_load_in_the_hosts_language(tmp_path):
    game = _mybbru_game(tmp_path, publish='mode = "auto"')
    with pytest.raises(ConfigError) as got:
        load_game(game / "game.toml")
    line = str(got.value)
    assert "publish.mode" in line and "\n" not in line
    assert "автопилот не может писать на форум mybb.ru" in line and "вручную" in line
    edit(game, 'mode = "auto"', 'mode = "off"')
    edit(game, 'source = "maildir"', 'source = "forum_pm"')
    with pytest.raises(ConfigError, match="moves.source.*почтой"):
        load_game(game / "game.toml")


def test_a_whole_day_is_counted_and_resolved_from_the_boards_answers(tmp_path, capsys):
    """The poll (API), the deadline reading (R2.11) and the resolution of day 1 on a mybb.ru
    board: R2.6 - NightOwl's vote at 19:59:30 counts, Игрок-7's at 20:00:05 does not; R2.2 -
    the quoted and spoilered names are not votes; R2.9 - the leader is jailed."""
    game = _mybbru_game(tmp_path, publish='mode = "review"')
    assert load_game(game / "game.toml").forum.engine == "mybbru"
    client = _client()
    board = MybbruBoard(client)
    with responses.RequestsMock() as rs, Store(game / "state.sqlite3") as store:
        _api(rs)
        report = poll_topic(client, store, TOPIC, now=DEADLINE - timedelta(minutes=5),
                            full=True, board=board)
        assert len(report.new_posts) == 8 and not report.errors
        read = read_at_deadline(client, store, TOPIC, deadline=DEADLINE,
                                now=DEADLINE + timedelta(seconds=2), board=board)
        assert read.status == "read" and len(read.posts) == 8
    assert main(["tally", str(game), "--offline", "--day", "1"]) == 0
    tally = capsys.readouterr().out
    assert ("Маша_2 — 4 голоса: Вася (11:06, пост 102), Big Joe (13:00, пост 104), Алексей "
            "(15:30, пост 105), doc_Holiday (18:01, пост 108)") in tally
    assert "Big Joe — 2 голоса: Маша_2 (12:15, пост 103), NightOwl (19:59, пост 106)" in tally
    assert "пост 107, Игрок-7: «Вася» — пост после срока" in tally
    assert "пост 103, Маша_2: «Маша_2» — внутри цитаты" in tally
    assert "пост 105, Алексей: «Вася» — внутри спойлера" in tally
    assert main(["resolve", str(game), "--offline", "--day", "1"]) == 0
    capsys.readouterr()
    newspaper = (game / "out" / "day-1" / "newspaper.bbcode").read_text(encoding="utf-8")
    assert "По итогам голосования садится [b]Маша_2[/b] (4 голоса из 6)" in newspaper
    assert "Посты после 20:00 не засчитаны (Игрок-7)" in newspaper
    # the texts are the host's to post: `publish` says so in one line, in Russian
    code = main(["publish", str(game), "--day", "1"])
    err = capsys.readouterr().err
    assert code != 0 and err.count("\n") == 1 and "Traceback" not in err
    assert "scraper-mod не пишет на форум mybb.ru" in err and "вручную" in err


def test_users_get_and_a_malformed_post_answer():
    users = parse_api_users((FIX / "api" / "users.get.json").read_bytes(), url="users.get")
    assert (users[58], users[65], len(users)) == ("Вася", "doc_Holiday", 8)
    bad = json.dumps({"response": [{"id": "5", "username": "Вася", "message": "<p>x</p>"}]})
    with pytest.raises(ParseError) as got:
        parse_api_posts(bad.encode(), url=api_posts_url(BASE, 4), board_tz=MSK)
    assert "'posted'" in str(got.value) and "\n" not in str(got.value)
    with pytest.raises(ApiOff, match="отключено администратором"):
        parse_api_posts((FIX / "api" / "disabled.json").read_bytes(), url="x", board_tz=MSK)


def _many(n: int, skip: int) -> bytes:
    base = int(datetime(2024, 4, 9, 10, 0, tzinfo=MSK).timestamp())
    return json.dumps({"response": [
        {"id": 1000 + i, "user_id": 58, "username": "Вася", "posted": base + 60 * i,
         "message": f"<p>пост {i}</p>"} for i in range(skip, min(n, skip + 100))]}).encode()


def test_the_poller_reads_the_api_in_answers_of_100_and_then_only_the_last():
    client = _client()
    board = MybbruBoard(client)
    topic = json.dumps({"response": [{"id": 4, "subject": "День 1", "num_replies": 129,
                                      "closed": 0}]}).encode()
    with responses.RequestsMock() as rs, Store(":memory:") as store:
        for skip in (0, 100):
            rs.add(responses.GET, api_posts_url(BASE, 4, skip), body=_many(130, skip))
        rs.add(responses.GET, api_url(BASE, "topic.get", topic_id=4), body=topic)
        first = poll_topic(client, store, TOPIC, now=DEADLINE, full=True, board=board)
        assert (len(first.new_posts), first.pages, first.page_count) == (130, (1, 2), 2)
        asked = len(rs.calls)
        again = poll_topic(client, store, TOPIC, now=DEADLINE, board=board)
        assert again.pages == (2,) and again.new_posts == ()
        assert [c.request.url for c in rs.calls[asked:]][0] == api_posts_url(BASE, 4, 100)


def test_the_poller_falls_back_to_the_pages_when_the_api_is_off():
    client = _client()
    board = MybbruBoard(client)
    with responses.RequestsMock() as rs, Store(":memory:") as store:
        _api(rs, disabled=True)
        _pages(rs)
        report = poll_topic(client, store, TOPIC, now=DEADLINE, full=True, board=board)
    assert report.ok and report.pages == (1, 2) and len(report.new_posts) == 8


def test_posts_url_reads_a_mybbru_topic(capsys):
    with responses.RequestsMock() as rs:
        _pages(rs)
        assert main(["posts", TOPIC, "--min-delay", "0"]) == 0
    out = capsys.readouterr().out
    assert "== День 1 — голосование t=4: page 2 of 2, 3 post(s)" in out
    assert "#106  NightOwl [62]  2024-04-09 19:59:30 +0300\n    colored: Big Joe (red)" in out
    assert "edited 1x by Маша_2 at 2024-04-09 12:20" in out
