"""The SMF adapter (forum/smf/board.py) against the real SMF 2.1.4 board (tests/conftest.py's
``real_smf_board``: a fresh copy per test; skipped without SCRAPER_MOD_SMF_BOARD, a failure
under CI=true).

Post times cannot be set on a real board: the cutoff is tested with the real times around
a deadline computed from them (the feed's seconds), as a host's 20:00 would fall.
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from conftest import BOARD_ADMIN, GAME_FORUM_ID, SMF_GAME_BOARD_ID

from scraper_mod.errors import LoginRequiredError, TopicNotFoundError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.engine import Board, engine_of, open_board
from scraper_mod.forum.smf.board import SmfBoard
from scraper_mod.rules.tally import count_votes
from scraper_mod.rules.votes import extract_votes

PLAYERS = ["Вася", "Маша_2", "Big Joe", "Кот", "Лиса"]


def _host(board) -> SmfBoard:
    client = ForumClient(base_url=board.url, username=BOARD_ADMIN[0], min_delay=0.2)
    return SmfBoard(client, password=BOARD_ADMIN[1])   # the feed's board: from the topic


def _votes(posts, deadline):
    versions = [(p, p.latest) for p in posts]
    votes, rejected, _ = extract_votes(versions, players=[(n, ()) for n in PLAYERS],
                                       alive=PLAYERS, host="admin", deadline=deadline)
    return votes, rejected


def _start_of_a_minute(min_left: float) -> None:
    """Wait until at least ``min_left`` seconds of the current minute are left."""
    left = 60 - time.time() % 60
    if left < min_left:
        time.sleep(left + 0.5)


def test_the_feed_places_votes_around_the_deadline_to_the_second(real_smf_board):
    """R2.6 on SMF: the page shows minutes; a vote 10 s before the deadline counts and one
    5 s after it does not, though both show the same minute."""
    admin = real_smf_board.player("admin")
    tid = admin.new_topic(SMF_GAME_BOARD_ID, "День 1", "[b]Голосование до 20:00[/b]")
    vasya, masha = real_smf_board.player("Вася"), real_smf_board.player("Маша_2")
    _start_of_a_minute(25)
    early = vasya.reply(tid, "[color=red]Маша_2[/color]")
    time.sleep(16)
    late = masha.reply(tid, "[color=red]Вася[/color]")

    host = _host(real_smf_board)
    page_posts = {p.post_id: p for p in host.read_topic_page(tid).posts}
    assert page_posts[early].precision == page_posts[late].precision == "minute"
    posts = {p.post_id: p for p in host.exact_posts(tid)}
    assert posts[early].precision == posts[late].precision == "second"
    assert page_posts[early].earliest <= posts[early].posted_at <= page_posts[early].latest
    gap = posts[late].posted_at - posts[early].posted_at
    assert gap >= timedelta(seconds=15)
    deadline = posts[early].posted_at + timedelta(seconds=10)   # «19:59:50» and «20:00:05»
    assert posts[late].posted_at >= deadline + timedelta(seconds=5)

    votes, rejected = _votes(list(posts.values()), deadline)
    assert [(v.voter, v.target, v.post_id) for v in votes] == [("Вася", "Маша_2", early)]
    assert [(r.post_id, r.reason) for r in rejected if r.post_id == late] == [(late, "late")]
    tally = count_votes(votes, alive=PLAYERS)
    assert [(v.voter, v.target) for v in tally.votes] == [("Вася", "Маша_2")]


def test_two_votes_in_one_minute_count_in_the_order_posted(real_smf_board):
    admin = real_smf_board.player("admin")
    tid = admin.new_topic(SMF_GAME_BOARD_ID, "День 1", "Голосуем.")
    kot = real_smf_board.player("Кот")
    _start_of_a_minute(15)
    first = kot.reply(tid, "[color=red]Вася[/color]")
    time.sleep(2.5)
    second = kot.reply(tid, "Передумал: [color=red]Big Joe[/color]")

    host = _host(real_smf_board)
    shown = {p.post_id: p for p in host.read_topic_page(tid).posts}
    assert shown[first].earliest == shown[second].earliest       # one shown minute
    posts = host.exact_posts(tid)
    by_id = {p.post_id: p for p in posts}
    assert by_id[first].posted_at < by_id[second].posted_at
    deadline = by_id[second].posted_at + timedelta(minutes=5)
    votes, _ = _votes(posts, deadline)
    tally = count_votes(votes, alive=PLAYERS)
    assert [(v.voter, v.target, v.post_id) for v in tally.votes] == [("Кот", "Big Joe", second)]


@pytest.fixture(params=["phpbb", "smf"])
def engine_board(request):
    """(engine, the real board of that engine, its game board/forum id)."""
    if request.param == "phpbb":
        return "phpbb", request.getfixturevalue("real_board"), GAME_FORUM_ID
    return "smf", request.getfixturevalue("real_smf_board"), SMF_GAME_BOARD_ID


def _open(engine: str, board) -> Board:
    client = ForumClient(base_url=board.url, username=BOARD_ADMIN[0], password=BOARD_ADMIN[1],
                         min_delay=0.2)
    return open_board(client, engine_of(client), password=BOARD_ADMIN[1])


def test_the_host_writes_through_the_seam_and_finds_it_again_after_a_crash(engine_board):
    """On both engines, through forum/engine.py's Board: reply, new topic, edit, PM, lock; a
    PM to the host read as a move; after a crash (a new process: a new client and login) the
    own post and the sent PM are found, so nothing is posted twice."""
    engine, board, forum_id = engine_board
    host = _open(engine, board)
    assert host.engine == engine and isinstance(host, Board)
    tid, first = host.new_topic(forum_id, "День 2 — голосование", "[b]День 2.[/b]")
    assert tid and first.id
    newspaper = "[b]Итоги дня 1[/b]: повешен [color=red]Вася[/color]."
    posted = host.reply(tid, newspaper)
    assert posted.id and posted.id > first.id
    if engine == "smf":
        waits = [s for s in host.client.slept if s > 0.5]
        assert waits and max(waits) <= 3.1   # the flood gate; never SMF's «wait 2 seconds» (3.5 s)
    host.edit(posted.id, newspaper + " (исправлено)", reason="опечатка")
    pm = host.send_pm("Маша_2", "Проверка", "Маша_2 — мирный житель.")
    assert pm.id

    masha = board.player("Маша_2")
    got = [p for p in masha.list_pms("inbox") if p["subject"] == "Проверка"]
    assert got and got[0]["from"] == "admin"
    masha.send_pm("admin", "Ночь 2", "[b]проверить[/b] Кот")
    row = [r for r in host.pm_inbox() if r.subject == "Ночь 2"]
    assert row and row[0].author == "Маша_2"
    assert host.read_pm(row[0].msg_id).text == "проверить Кот"

    # the crash: a new client, as after kill -9; publish looks before it posts
    again = _open(engine, board)
    mine = again.own_posts(tid)
    assert [pid for pid, text in mine if text.startswith("Итоги дня 1")] == [posted.id]
    assert any(text.endswith("(исправлено)") for _, text in mine)
    assert [m for m, to, subj in again.sent_pms() if subj == "Проверка" and to == "Маша_2"] \
        == [pm.id]
    texts = [p.text for page in again.read_topic(tid) for p in page.posts]
    assert sum(t.startswith("Итоги дня 1") for t in texts) == 1

    again.lock(tid)
    assert again.read_topic_page(tid).locked
    again.lock(tid)                                   # already locked: nothing to do
    ctl = board.smfctl if engine == "smf" else board.forumctl
    with pytest.raises(ctl.ForumError, match="(?i)locked"):
        board.player("Вася").reply(tid, "[color=red]Кот[/color]")
    with pytest.raises(TopicNotFoundError):
        again.read_topic_page(tid + 50)
    assert again.logout()


def test_an_ended_session_is_logged_in_again_and_guests_read(real_smf_board):
    """The host's SMF session ends (logged out elsewhere, expired): the next reply logs in
    again once and is posted once; a guest reads the topic and the feed without an account."""
    host = _host(real_smf_board)
    tid, _ = host.new_topic(SMF_GAME_BOARD_ID, "День 3", "Начали.")
    host.client.session.cookies.clear()          # the board forgets the host
    posted = host.reply(tid, "Итоги: [color=red]Вася[/color]")
    assert host.client.logins == 2
    guest = SmfBoard(ForumClient(base_url=real_smf_board.url, min_delay=0))
    posts = guest.exact_posts(tid)
    assert [p.post_id for p in posts][-1] == posted.id
    assert [p.text for p in posts].count("Итоги: Вася") == 1
    assert all(p.precision == "second" for p in posts)
    with pytest.raises(LoginRequiredError):
        guest.reply(tid, "я гость")
