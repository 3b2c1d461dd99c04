"""Issue 40, items 5 and 7, without a board's network (docs/security.md "Attacks by players"):

- item 7 (R12.2): a PM the board took but whose sent folder does not show it (SMF cut its
  subject short) is recorded ``unconfirmed``: looked for again, never sent blind again, and
  listed for the host among the failures;
- item 5 (R12.5): a forum PM is its author's by member id where the board shows one: a member
  who shows a player's name is not that player, and a renamed player is still himself.
"""

from __future__ import annotations

from test_publish import world  # noqa: F401

from scraper_mod.forum.posting import Posted, PostRefused, same_subject
from scraper_mod.game import publish as pub
from scraper_mod.game.context import open_game
from scraper_mod.rules.model import Player, Role
from scraper_mod.rules.moves import identify


class UnconfirmingBoard:
    """SMF as the attack left it: the PM form is taken, the sent folder never shows it."""

    engine = "smf"

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, int | None]] = []
        self.found: int | None = None

    def send_pm(self, nick: str, subject: str, text: str, *,
                member_id: int | None = None) -> Posted:
        self.sent.append((nick, subject, member_id))
        raise PostRefused("unconfirmed", f"the PM to {nick!r} is not in the sent folder",
                          url="http://smf.test/index.php?action=pm;f=sent")

    def find_pm(self, nick: str, subject: str, text: str) -> int | None:
        return self.found

    def pm_url(self, msg_id: int) -> str:
        return f"http://smf.test/index.php?action=pm;f=sent#msg{msg_id}"


def test_R12_2_a_pm_whose_delivery_cannot_be_confirmed_is_never_sent_blind_again(world):
    game, _board, clock = world
    ctx = open_game(game, clock=clock)
    try:
        board = UnconfirmingBoard()
        item = pub.Item(1, "pm", "Вася", "Вася", "Ваша роль.", subject="Проверка: роль " * 8)
        first = pub.publish_items(ctx, [item], board=board)
        assert [o.status for o in first] == ["failed"]
        for _ in range(3):                                  # later runs, retries
            again = pub.publish_items(ctx, [item], board=board)
            assert [o.status for o in again] == ["failed"]
        assert len(board.sent) == 1                         # sent once, never again
        failures = pub.failures(ctx)
        assert [f["status"] for f in failures] == [pub.UNCONFIRMED]
        assert "not sent again" in failures[0]["error"] or \
            "не отправляется повторно" in failures[0]["error"]
        # found on the board later (the host looked, or the folder caught up): done
        board.found = 77
        done = pub.publish_items(ctx, [item], board=board)
        assert [o.status for o in done] == ["already"] and len(board.sent) == 1
    finally:
        ctx.close()


def test_R12_5_smf_pms_go_to_the_players_member_id(world):
    game, _board, clock = world
    ctx = open_game(game, clock=clock)
    try:
        board = UnconfirmingBoard()
        nick = next(p.nick for p in ctx.game.players if p.forum_id is not None)
        member = next(p.forum_id for p in ctx.game.players if p.nick == nick)
        pub.publish_items(ctx, [pub.Item(1, "pm", nick, nick, "x", subject="s")], board=board)
        assert board.sent == [(nick, "s", member)]
    finally:
        ctx.close()


def test_same_subject_as_smf_lists_it():
    sent = "Проверка: итоги дня 1 и всё, что ведущий хочет сказать игроку " * 3
    assert same_subject(sent[:100], sent) and same_subject(sent[:40] + "...", sent)
    assert not same_subject("Проверка", "Проверка: роль")          # too short to tell
    assert not same_subject("Мафия #8: день 1", "Мафия #7: день 1")


BOSS = Player("Вася", Role.BOSS, forum_id=2)
PLAYERS = (BOSS, Player("Кот", Role.CIVILIAN, forum_id=10), Player("Лиса", Role.CIVILIAN))


def test_R12_5_a_pm_is_its_authors_by_member_id():
    # the Boss renamed himself: still the Boss
    assert identify("Вася Пупкин", PLAYERS, via="pm", sender_id=2) is BOSS
    # a spectator (member 12) who shows the Boss's name is nobody
    assert identify("Вася", PLAYERS, via="pm", sender_id=12) is None
    assert identify("вася", PLAYERS, via="pm", sender_id=12) is None
    # no member id shown (a stored PM of an older version), or no forum_id in the game file:
    # the name, as before
    assert identify("Вася", PLAYERS, via="pm") is BOSS
    assert identify("Лиса", PLAYERS, via="pm", sender_id=13).nick == "Лиса"
    # mail is never matched by member id
    assert identify("Вася", PLAYERS, via="mail", sender_id=2) is None


def test_one_refused_login_stops_the_runs_posting(world, monkeypatch):
    """Item 13: a wrong password. ``publish`` of a day (a newspaper, the next day's start
    and two PMs) asks the board once: the refusal is remembered by the run's client and every
    other publication fails at once, without another login (phpBB asks for a captcha after
    three failed logins and can lock the account out)."""
    game, board, clock = world
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", "wrong-password")
    ctx = open_game(game, clock=clock)
    try:
        before = board.failed_logins
        outcomes = pub.publish_day(ctx, 1)
        assert outcomes and {o.status for o in outcomes} == {"failed"}
        assert board.failed_logins - before == 1
        assert all("refused the login" in (o.error or "") for o in outcomes)
        assert ctx.client is not None and ctx.client.login_refused is not None
        pub.publish_day(ctx, 1)                             # the run's next try: no login
        assert board.failed_logins - before == 1
    finally:
        ctx.close()


def test_run_checks_the_login_when_it_starts_and_alerts_the_host(world, monkeypatch):
    from scraper_mod.cli.run import _check_login
    game, board, clock = world
    toml = game / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('mode = "review"',
                                                             'mode = "auto"'), encoding="utf-8")
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", "wrong-password")

    class Ops:
        said: list = []

        def alert(self, ctx, kind, detail, day):
            self.said.append((kind, detail))
            return "failed"

    ctx = open_game(game, clock=clock)
    try:
        before = board.failed_logins
        ops = Ops()
        _check_login(ctx, ops)                             # type: ignore[arg-type]
        assert [k for k, _ in ops.said] == ["login"] and "refused the login" in ops.said[0][1]
        assert board.failed_logins - before == 1
        assert [o.status for o in pub.publish_day(ctx, 1)][0] == "failed"
        assert board.failed_logins - before == 1           # nothing tried again
    finally:
        ctx.close()
