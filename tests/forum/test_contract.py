"""The Board contract (issue 35 item 3): the same behaviours, run on every engine.

Each test runs once per entry of ``ENGINES``: ``[memory]`` (forum/memory.py's ``MemoryBoard``)
and the real boards ``[phpbb]`` (../shared/phpbb-board) and ``[smf]`` (../shared/smf-board),
each started once for this module (``REAL``: its folder's environment variable, its players'
tool, its game forum). A new engine joins with one line in ``REAL`` (its ``open_board`` name
must be registered in forum/engine.py). The real boards' params carry the ``e2e`` mark: the
fast tier (``--ignore=tests/e2e``) leaves them out (tests/conftest.py), ``.ci/run`` runs them,
and under ``CI=true`` a board that is not given is a failure (as tests/conftest.py does).

The account is the host's (``admin``, a moderator on every board); the players act through
the board's own forms (forumctl.py / smfctl.py) or ``MemoryBoard.player_*``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator

import pytest
from conftest import (
    BOARD_ADMIN,
    BOARD_ENV,
    BOARD_PLAYERS,
    SMF_BOARD_ENV,
    _board_dir,
    _load_forumctl,
    _started,
)

from scraper_mod.errors import ForumError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.engine import Board, open_board
from scraper_mod.forum.memory import MemoryBoard
from scraper_mod.forum.posting import PostRefused


@dataclass(frozen=True)
class RealSpec:
    """How to start one real board and play its players."""

    env: str            # the environment variable naming its folder (start.sh, stop.sh, tool)
    shared: str         # its folder's name under ../shared
    tool: str           # the players' browser module in that folder
    forum_id: int       # the game forum (SMF: board)
    per_page: int       # posts on a topic page
    edit_grace: float   # seconds after posting in which an author's edit leaves no notice


REAL: dict[str, RealSpec] = {
    "phpbb": RealSpec(BOARD_ENV, "phpbb-board", "forumctl", 3, 10, 0),
    "smf": RealSpec(SMF_BOARD_ENV, "smf-board", "smfctl", 2, 15, 91),
    # an engine joins with one line (its open_board name registered in forum/engine.py)
    "fluxbb": RealSpec("SCRAPER_MOD_FLUXBB_BOARD", "fluxbb-board", "fluxctl", 2, 25, 0),
}

ENGINES = ["memory", *(pytest.param(name, marks=pytest.mark.e2e) for name in REAL)]


class Harness:
    """One board under test: the account's ``Board`` and the players' hands."""

    name: str
    board: Board
    forum_id: int
    per_page: int
    account = BOARD_ADMIN[0]

    def reply(self, nick: str, topic_id: int, text: str) -> int: ...
    def new_topic(self, nick: str, subject: str, text: str) -> int: ...
    def edit(self, nick: str, post_id: int, text: str) -> None: ...
    def delete(self, nick: str, post_id: int) -> None: ...
    def send_pm(self, nick: str, to: str, subject: str, text: str) -> None: ...
    def inbox(self, nick: str) -> list[tuple[str, str, str]]: ...   # (from, subject, text)
    def player_board(self, nick: str) -> Board: ...
    def now(self) -> datetime: ...
    def wait(self, seconds: float) -> None: ...
    def pass_edit_grace(self) -> None: ...


class MemoryHarness(Harness):
    name = "memory"
    forum_id = 3
    per_page = 10

    def __init__(self) -> None:
        self.board = self.mem = MemoryBoard(account=self.account, per_page=10,
                                            first_post_id=100)
        for nick in BOARD_PLAYERS:
            self.mem.add_user(nick)

    def reply(self, nick: str, topic_id: int, text: str) -> int:
        self.mem.advance(seconds=3)
        return self.mem.player_post(nick, topic_id, text)

    def new_topic(self, nick: str, subject: str, text: str) -> int:
        self.mem.advance(seconds=3)
        return self.mem.player_topic(nick, self.forum_id, subject, text)

    def edit(self, nick: str, post_id: int, text: str) -> None:
        self.mem.player_edit(nick, post_id, text, at=self.mem.advance(seconds=3))

    def delete(self, nick: str, post_id: int) -> None:
        self.mem.player_delete(nick, post_id)

    def send_pm(self, nick: str, to: str, subject: str, text: str) -> None:
        self.mem.player_pm(nick, subject, text, to=to, at=self.mem.advance(seconds=3))

    def inbox(self, nick: str) -> list[tuple[str, str, str]]:
        return [(frm, subj, text) for _, frm, subj, text in self.mem.pms_to(nick)]

    def player_board(self, nick: str) -> Board:
        return self.mem.as_account(nick)

    def now(self) -> datetime:
        return self.mem.now

    def wait(self, seconds: float) -> None:
        self.mem.advance(seconds=seconds)

    def pass_edit_grace(self) -> None:
        self.wait(self.mem.edit_grace.total_seconds() + 1)


def _phpbb_delete(admin: Any, post_id: int) -> None:
    """phpBB's delete button as a moderator (forumctl has none): the confirm box, for good."""
    r = admin.get("posting.php", mode="delete", p=post_id)
    form = admin._form(r, action_contains="mode=delete")
    admin._submit(form, "confirm", extra=[("delete_permanent", "1")])


class RealHarness(Harness):
    def __init__(self, name: str, spec: RealSpec, url: str, tool: Any) -> None:
        self.name, self.spec, self.url, self.tool = name, spec, url, tool
        self.forum_id, self.per_page = spec.forum_id, spec.per_page
        self._players: dict[str, Any] = {}
        self.board = self.player_board(self.account)

    def _player(self, nick: str) -> Any:
        if nick not in self._players:
            password = BOARD_ADMIN[1] if nick == BOARD_ADMIN[0] else BOARD_PLAYERS[nick]
            self._players[nick] = self.tool.Board(self.url.rstrip("/")).login(nick, password)
        return self._players[nick]

    def player_board(self, nick: str) -> Board:
        password = BOARD_ADMIN[1] if nick == BOARD_ADMIN[0] else BOARD_PLAYERS[nick]
        client = ForumClient(base_url=self.url, username=nick, password=password,
                             min_delay=0.2)
        return open_board(client, self.name, password=password)

    def reply(self, nick: str, topic_id: int, text: str) -> int:
        return int(self._player(nick).reply(topic_id, text))

    def new_topic(self, nick: str, subject: str, text: str) -> int:
        return int(self._player(nick).new_topic(self.forum_id, subject, text))

    def edit(self, nick: str, post_id: int, text: str) -> None:
        self._player(nick).edit(post_id, text)

    def delete(self, nick: str, post_id: int) -> None:
        player = self._player(nick)
        if hasattr(player, "delete"):
            player.delete(post_id)
        else:
            _phpbb_delete(self._player(self.account), post_id)

    def send_pm(self, nick: str, to: str, subject: str, text: str) -> None:
        self._player(nick).send_pm(to, subject, text)

    def inbox(self, nick: str) -> list[tuple[str, str, str]]:
        player = self._player(nick)
        out = []
        for row in player.list_pms("inbox"):
            pm = player.read_pm(row["id"])
            out.append((pm.get("from") or row.get("from"), row["subject"], pm["text"]))
        return out

    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def wait(self, seconds: float) -> None:
        time.sleep(seconds)

    def pass_edit_grace(self) -> None:
        if self.spec.edit_grace:
            self.wait(self.spec.edit_grace)


@pytest.fixture(scope="module", params=ENGINES)
def harness(request, tmp_path_factory) -> Iterator[Harness]:
    if request.param == "memory":
        yield MemoryHarness()
        return
    spec = REAL[request.param]
    source = _board_dir(spec.env, request.param, spec.shared, spec.tool + ".py")
    with _started(source, tmp_path_factory, spec.shared) as (port, _folder):
        yield RealHarness(request.param, spec, f"http://127.0.0.1:{port}/",
                          _load_forumctl(source, spec.tool))


def _all_posts(board: Board, topic_id: int):
    return [p for page in board.read_topic(topic_id) for p in page.posts]


def _stamp() -> str:
    return str(time.monotonic_ns())[-7:]


# -- reading -----------------------------------------------------------------------------------

def test_a_topic_is_read_across_its_pages_in_order(harness):
    players = ["Вася", "Маша_2", "Big Joe", "Кот"]
    tid = harness.new_topic(harness.account, f"День 1 {_stamp()}", "[b]День 1.[/b] Голосуем.")
    n = harness.per_page                            # the first post and n replies: 2 pages
    ids = [harness.reply(players[i % 4], tid, f"[color=red]{players[(i + 1) % 4]}[/color] "
                                              f"ход {i}") for i in range(n)]
    pages = harness.board.read_topic(tid)
    assert len(pages) == 2 and [p.page for p in pages] == [1, 2]
    assert pages[0].page_count == 2 and len(pages[0].posts) == n
    posts = [p for page in pages for p in page.posts]
    assert [p.post_id for p in posts][1:] == ids
    assert ids == sorted(ids)                       # post ids grow
    last = posts[n]
    assert last.author == players[(n - 1) % 4]
    assert [(c.color.lower(), c.text) for c in last.colored] == [("red", players[n % 4])]
    assert f"ход {n - 1}" in last.text
    again = harness.board.read_topic_page(tid, n)
    assert again.page == 2 and [(p.post_id, p.content_key()) for p in again.posts] == [
        (p.post_id, p.content_key()) for p in pages[1].posts]


def test_the_feed_dates_each_post_to_the_second(harness):
    tid = harness.new_topic(harness.account, f"Лента {_stamp()}", "Голосуем.")
    before = harness.now() - timedelta(seconds=1)
    a = harness.reply("Вася", tid, "[color=red]Кот[/color]")
    harness.wait(2)
    b = harness.reply("Кот", tid, "[color=red]Вася[/color]")
    after = harness.now() + timedelta(seconds=1)
    entries = {e.post_id: e for e in harness.board.feed_entries(tid)}
    assert {a, b} <= set(entries)
    assert before <= entries[a].published < entries[b].published <= after
    assert entries[a].author == "Вася"
    for post in _all_posts(harness.board, tid):
        if post.post_id in (a, b):
            assert post.earliest <= entries[post.post_id].published <= post.latest


def test_an_edit_is_a_new_version_with_its_notice(harness):
    """A player's edit of his earlier post (not the topic's last, after the board's grace
    time) shows the new words and the board's notice: who, when, how many times."""
    tid = harness.new_topic(harness.account, f"Правка {_stamp()}", "Голосуем.")
    first = harness.reply("Вася", tid, "[color=red]Кот[/color]")
    harness.reply("Маша_2", tid, "[color=red]Вася[/color]")
    (old,) = [p for p in _all_posts(harness.board, tid) if p.post_id == first]
    assert old.edit_count == 0 and old.edited_at is None
    harness.pass_edit_grace()
    edited_from = harness.now() - timedelta(minutes=1)
    harness.edit("Вася", first, "[color=red]Маша_2[/color] передумал")
    edited_to = harness.now() + timedelta(minutes=1)
    (new,) = [p for p in _all_posts(harness.board, tid) if p.post_id == first]
    assert new.content_key() != old.content_key()
    assert [(c.color.lower(), c.text) for c in new.colored] == [("red", "Маша_2")]
    assert new.edit_count >= 1 and new.edited_by == "Вася"
    assert new.edited_at is not None and edited_from <= new.edited_at <= edited_to
    assert new.posted_at == old.posted_at


def test_a_deleted_post_vanishes_from_the_pages_and_the_feed(harness):
    tid = harness.new_topic(harness.account, f"Удаление {_stamp()}", "Голосуем.")
    a = harness.reply("Вася", tid, "[color=red]Кот[/color]")
    b = harness.reply("Кот", tid, "[color=red]Вася[/color] — сотру")
    c = harness.reply("Лиса", tid, "[color=red]Вася[/color]")
    harness.delete("Кот", b)
    ids = [p.post_id for p in _all_posts(harness.board, tid)]
    assert a in ids and c in ids and b not in ids
    assert b not in {e.post_id for e in harness.board.feed_entries(tid)}


# -- the account writes --------------------------------------------------------------------------

def test_the_account_opens_replies_edits_and_locks(harness):
    board = harness.board
    subject = f"Итоги {_stamp()}"
    tid, first = board.new_topic(harness.forum_id, subject, "[b]Итоги дня 1[/b]: Вася убит.")
    assert tid is not None and first.id is not None
    posted = board.reply(tid, "[color=red]Голосование[/color] закрыто.")
    assert posted.id is not None and posted.id > first.id
    posts = _all_posts(board, tid)
    assert [p.post_id for p in posts] == [first.id, posted.id]
    assert {p.author for p in posts} == {harness.account}
    assert posts[1].text.startswith("Голосование") and posts[0].bold == ("Итоги дня 1",)
    assert board.topic_id_of(board.topic_url(tid)) == tid
    assert str(posted.id) in board.post_url(posted.id)
    edited = board.edit(posted.id, "Голосование закрыто. Итог: Вася.", reason="итог")
    assert edited.id == posted.id
    assert _all_posts(board, tid)[1].text == "Голосование закрыто. Итог: Вася."
    assert board.read_topic_page(tid).locked is False
    board.lock(tid)
    assert board.read_topic_page(tid).locked is True
    assert (tid, subject) in [(t, s) for t, s, _ in board.forum_topics(
        board.forum_url(harness.forum_id))]


def test_a_locked_topic_refuses_a_members_reply(harness):
    tid = harness.new_topic(harness.account, f"Закрыто {_stamp()}", "Голосуем.")
    harness.reply("Вася", tid, "[color=red]Кот[/color]")
    harness.board.lock(tid)
    before = [p.post_id for p in _all_posts(harness.board, tid)]
    vasya = harness.player_board("Вася")
    with pytest.raises(PostRefused) as refused:
        vasya.reply(tid, "[color=red]Лиса[/color]")
    assert refused.value.kind in ("locked", "no-permission", "no-form")
    assert [p.post_id for p in _all_posts(harness.board, tid)] == before


# -- private messages ---------------------------------------------------------------------------

def test_a_pm_is_sent_and_read_back(harness):
    board = harness.board
    stamp = _stamp()
    sent = board.send_pm("Вася", f"Роль {stamp}", "Вы — [b]мафия[/b]. Ночью пишите мне.")
    assert sent.id is not None
    got = [(frm, text) for frm, subj, text in harness.inbox("Вася") if subj == f"Роль {stamp}"]
    assert len(got) == 1 and got[0][0] == harness.account and "мафия" in got[0][1]
    assert f"Роль {stamp}" in [subj for _, _, subj in board.sent_pms()]

    harness.send_pm("Маша_2", harness.account, f"Ход {stamp}", "Проверяю [b]Кот[/b]")
    rows = [r for r in board.pm_inbox() if r.subject == f"Ход {stamp}"]
    assert len(rows) == 1 and rows[0].author == "Маша_2"
    pm = board.read_pm(rows[0].msg_id)
    assert pm.author == "Маша_2" and "Проверяю" in pm.text and pm.bold == ("Кот",)
    stored = board.fetch_pm(rows[0].msg_id)
    again = board.parse_pm(stored.body, msg_id=rows[0].msg_id, url=stored.url,
                           fetched_at=stored.fetched_at)
    assert (again.author, again.text) == (pm.author, pm.text)


# -- after a crash: the account's own writing is found by its text -------------------------------

def test_crash_recovery_finds_the_accounts_own_reply_topic_and_pm(harness):
    board = harness.board
    stamp = _stamp()
    subject = f"Газета {stamp}"
    text = f"[b]Газета[/b] дня {stamp}: ночью убит Кот."
    tid, first = board.new_topic(harness.forum_id, subject, text)
    harness.reply("Лиса", tid, "Ого.")
    reply_text = f"Начинается день {stamp}. [color=red]Голосуем[/color]."
    posted = board.reply(tid, reply_text)
    harness.reply("Вася", tid, f"Начинается день {stamp}?")     # a player's words are not ours
    pm_text = f"Ваша проверка {stamp}: Лиса — мирная."
    pm = board.send_pm("Маша_2", f"Проверка {stamp}", pm_text)

    assert board.find_topic(harness.forum_id, subject, text) == (tid, first.id)
    assert board.find_reply(tid, reply_text) == posted.id
    assert board.find_reply(tid, f"Никогда не писал {stamp}") is None
    assert board.find_pm("Маша_2", f"Проверка {stamp}", pm_text) == pm.id
    assert board.find_pm("Маша_2", f"Проверка {stamp}", "Другой текст.") is None
    assert posted.id in [pid for pid, _ in board.own_posts(tid)]


@pytest.mark.parametrize("bad", ["https://example.org/forum/", "not an address"])
def test_an_address_of_no_topic_is_one_clear_error(harness, bad):
    with pytest.raises(ForumError) as e:
        harness.board.topic_key(bad)
    assert "topic" in str(e.value).lower() and "\n" not in str(e.value)
    assert harness.board.topic_id_of(bad) is None



def test_a_posts_page_shows_the_post(harness):
    """What the poller asks when a full scan misses a post, and what a link opens."""
    board = harness.board
    tid = harness.new_topic(harness.account, f"Ссылка {_stamp()}", "Голосуем.")
    pid = harness.reply("Лиса", tid, "[color=red]Кот[/color]")
    key = board.topic_key(board.topic_url(tid))
    assert board.topic_id_of(key) == tid and board.topic_key(board.page_url(key, 0)) == key
    _, page = board.fetch_topic_page(board.post_page_url(key, pid))
    assert pid in [p.post_id for p in page.posts]
    assert str(pid) in board.post_url(pid)
