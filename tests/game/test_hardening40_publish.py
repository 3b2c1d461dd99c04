"""Issue 40, items 5 and 7, without a board's network (docs/security.md "Attacks by players"):

- item 7 (R12.2): a PM the board took but whose sent folder does not show it (SMF cut its
  subject short) is recorded ``unconfirmed``: looked for again, never sent blind again, and
  listed for the host among the failures;
- item 5 (R12.5): a forum PM is its author's by member id where the board shows one: a member
  who shows a player's name is not that player, and a renamed player is still himself.
"""

from __future__ import annotations

from datetime import timedelta

from test_publish import publish, world  # noqa: F401

from scraper_mod.forum.posting import Posted, PostRefused, same_subject
from scraper_mod.game.context import open_game
from scraper_mod.game.publishing import publish as pub
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
    from scraper_mod.daemon.autopilot import check_login
    game, board, clock = world
    toml = game / "game.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('mode = "review"',
                                                             'mode = "auto"'), encoding="utf-8")
    monkeypatch.setenv("SCRAPER_MOD_FORUM_PASSWORD", "wrong-password")

    class Ops:
        said: list = []
        log = __import__("logging").getLogger("scraper_mod.run")

        def alert(self, ctx, kind, detail, day, *, detail_ru=None):
            self.said.append((kind, detail, detail_ru))
            return "failed"

    ctx = open_game(game, clock=clock)
    try:
        before = board.failed_logins
        ops = Ops()
        check_login(ctx, ops)                              # type: ignore[arg-type]
        assert [k for k, *_ in ops.said] == ["login"] and "refused the login" in ops.said[0][1]
        # the Russian game's host reads a Russian line (issue 39 item 4)
        assert ops.said[0][2].startswith("форум не принял вход учётной записи")
        assert board.failed_logins - before == 1
        assert [o.status for o in pub.publish_day(ctx, 1)][0] == "failed"
        assert board.failed_logins - before == 1           # nothing tried again
    finally:
        ctx.close()


def _auto_pm_game(game):
    toml = game / "game.toml"
    toml.write_text(toml.read_text("utf-8").replace('mode = "review"', 'mode = "auto"').replace(
        "[publish]", '[moves]\nsource = "phpbb_pm"\n\n[publish]'), encoding="utf-8")


def test_R5_1_answers_to_pm_moves_go_at_the_next_poll_not_with_the_newspaper(world):
    """Item 10: a move answered by board PM is sent at once (``publish_move_answers``, each
    poll of ``run``), before the day is resolved; the newspaper's publish later finds it
    already sent."""
    game, board, clock = world
    _auto_pm_game(game)
    answers = game / "outbox" / "day-1"
    answers.mkdir(parents=True)
    (answers / "000007.txt").write_text("To: Big Joe\nSubject: Re: ход\n\nИсправьте ход до "
                                        "срока.\n", encoding="utf-8")
    ctx = open_game(game, clock=clock)
    try:
        assert ctx.store.resolution(1) is None            # the day is not resolved yet
        out = pub.publish_move_answers(ctx, 1)
        assert [(o.kind, o.to, o.status) for o in out] == [("pm", "Big Joe", "posted")]
        assert board.sent_pms_log[-1][2:] == (60, "Re: ход", "Исправьте ход до срока.\n")
        assert [o.status for o in pub.publish_move_answers(ctx, 1)] == ["already"]
    finally:
        ctx.close()
    later = [o for o in publish(game, clock) if o.item and o.item.key.startswith("answer/")]
    assert [o.status for o in later] == ["already"]


def test_the_accounts_own_pm_is_never_a_move(world):
    """Item 10: the host's alert PM sent to the account's own inbox is no move from an
    unknown sender (nor answered, nor alerted as one)."""
    from scraper_mod.game.night.intake import day_moves, poll_moves
    game, board, clock = world
    _auto_pm_game(game)
    toml = game / "game.toml"
    text = toml.read_text("utf-8")
    for nick, role in (("Вася", "boss"), ("Маша_2", "mafia"), ("Big Joe", "commissar"),
                       ("Алексей", "civilian")):
        text = text.replace(f'nick = "{nick}"\n', f'nick = "{nick}"\nrole = "{role}"\n')
    text = text.replace('host = "admin"\n', 'host = "admin"\nrandom_list = ["Вася", '
                        '"Маша_2", "Big Joe", "Алексей"]\n')
    toml.write_text(text, encoding="utf-8")
    board.send_pm("admin", 2, "Проверка: нужен ведущий", "Что: ход от неизвестного "
                  "отправителя. убить Вася", clock.now() - timedelta(minutes=5))
    board.send_pm("Big Joe", 60, "ход", "проверяю Маша_2", clock.now() - timedelta(minutes=4))
    ctx = open_game(game, clock=clock)
    try:
        poll_moves(ctx)
        day = ctx.calendar().day_at(clock.now())
        moves = day_moves(ctx, day)
        assert [m.player for m in moves] == ["Big Joe"], moves
        assert not [m for m in moves if m.status == "unknown_sender"]
    finally:
        ctx.close()
