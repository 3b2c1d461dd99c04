"""Issue 37, second pass: what R14's roles change in the posts around a day.

- R14.3: the post opening a day (day-start, day 1's post) says how to send night moves:
  where (the host's PMs on the board or the mail address, as ``[moves]`` says), the words of
  the dealt roles with an example, and the deadline, in Russian and English.
- R14.1 (1): on a day the Judge pardons, the final count (``tally``) says what ``resolve``
  says: nobody jailed, the pardoned player named; before the deadline the pardon is a secret
  move and the count is the count.

The game is tests/game/test_roles_game.py's: twelve players, every R14 role but the
Immortal, moves by mail; day 2 the Judge («Помиловать!») spares Вася.
"""

from __future__ import annotations

import json

from test_resolve import ctx_at, msk  # noqa: F401
from test_roles_game import board, clock, game, game_toml, write  # noqa: F401

from scraper_mod.cli import main
from scraper_mod.daemon.dayone import day_one_text
from scraper_mod.game.context import open_game
from scraper_mod.game.day.tally import tally_day
from scraper_mod.game.results.resolve import resolve_day_files
from scraper_mod.rules.deal import moves_howto
from scraper_mod.rules.model import Role


def test_R14_3_day_start_says_where_the_words_and_the_deadline_ru(game, clock):
    """R14.3: the day-start post lists every dealt role's move words with an example, the
    mail address of ``[moves]`` and the next deadline."""
    out = resolve_day_files(ctx_at(game, clock, msk(9, 20, 5)), 1)
    post = (game / "out" / "day-1" / "day-start.bbcode").read_text(encoding="utf-8")
    block = post[post.index("[b]Ночные ходы[/b]"):]
    assert block.startswith("[b]Ночные ходы[/b] — ведущему, как он укажет, до "
                            "[b]среды, 10 апреля, 20:00 МСК[/b].")
    for line in ("Босс: «убиваю Васю», «замораживаю Васю».", "Мафиози: «убиваю Васю».",
                 "Адвокат: «защищаю Васю».", "Путана: «блокирую Васю».",
                 "Телохранитель: «охраняю Машу».", "Журналист: «сравниваю Васю и Машу».",
                 "Шериф: «застрелить Васю».", "Судья: «помиловать» — раз за игру.",
                 "Камикадзе: «забрать Васю» — ход действует, пока его не сменят.",
                 "Комиссар: «проверяю Васю».", "Доктор: «лечу Машу»."):
        assert line in block.split("\n"), line
    # roles without a move (the Mayor) are not listed; the rest of the post is unchanged
    assert "Мэр" not in block and out.report.move_help["via"] == ""


def test_R14_3_day_start_mail_and_pm_routes_both_languages(tmp_path, board):
    """R14.3: «письмом на адрес …» for mail moves, «личным сообщением на форуме пользователю
    …» for the board's PMs; English the same; the house's own words and the code shown."""
    roles = ('[roles]\nsetup = { boss = 1, mafia = 1, lawyer = 1, commissar = 1, doctor = 1, '
             'putana = 1, bodyguard = 1, mayor = 1, judge = 1, kamikaze = 1, journalist = 1, '
             'sheriff = 1 }\n[roles.words]\nblock = ["навещаю"]\n')
    text = game_toml(board, {}, roles=roles)
    mail_game = text.replace('source = "maildir"', 'source = "imap"\nhost = "imap.example.org"\n'
                             'username = "host@example.org"\nrequire_code = true')
    folder = write(tmp_path / "mail", mail_game.replace("[forum]", '[forum]\nforum = "x"', 0))
    ctx = open_game(folder, readonly=True)
    try:
        post = day_one_text(ctx)
    finally:
        ctx.close()
    assert "Ночные ходы — до того же срока.\n\n[b]Ночные ходы[/b]" in post
    assert ("[b]Ночные ходы[/b] — письмом на адрес host@example.org, до [b]вторника, "
            "9 апреля, 20:00 МСК[/b], со своим кодом из карточки роли.") in post
    assert "Путана: «блокирую Васю» (или: «навещаю»)." in post
    pm_game = text.replace('source = "maildir"', 'source = "forum_pm"').replace(
        'title = "Мафия #9"', 'title = "Мафия #9"\nlanguage = "en"').replace(
        'timeout = 5', 'timeout = 5\nusername = "HostBot"')
    folder = write(tmp_path / "pm", pm_game)
    ctx = open_game(folder, readonly=True)
    try:
        post = day_one_text(ctx)
    finally:
        ctx.close()
    assert ("[b]Night moves[/b]: by private message on the forum to [b]HostBot[/b], until "
            "[b]Tuesday, 9 April, 20:00 MSK[/b].") in post
    assert 'Judge: "pardon", once a game.' in post
    assert 'Kamikaze: "take Vasya", stands until changed.' in post
    assert 'Putana (the Mistress): "block Vasya" (or: "навещаю").' in post


def test_R14_3_moves_howto_lists_dealt_roles_in_catalogue_order():
    """The list follows the catalogue; the ВСБ (a civilian's card) and the Sergeant (the
    Commissar's words once promoted) are not listed; a role without a move is not listed."""
    got = moves_howto([Role.CIVILIAN, Role.VSB, Role.SERGEANT, Role.MAYOR, Role.PUTANA,
                       Role.COMMISSAR, Role.BOSS])
    assert [e["role"] for e in got] == ["boss", "commissar", "putana"]
    assert [e["role"] for e in moves_howto([Role.SERGEANT, Role.MAFIA])] == ["mafia",
                                                                              "sergeant"]


def test_R14_1_final_count_agrees_with_resolve_on_a_pardon(game, clock, capsys):
    """R14.1 (1) and R14 Judge: day 2 the votes point at Вася and the Judge pardons. Before
    the deadline the count is the count (no lynch: not final, the pardon a secret move);
    after it, before and after ``resolve``, the final count says nobody is jailed and whom
    the pardon spared, as the resolution and the newspaper do."""
    resolve_day_files(ctx_at(game, clock, msk(9, 20, 5)), 1)
    ctx = ctx_at(game, clock, msk(10, 19, 0))
    during = tally_day(ctx, 2, poll=True)
    assert not during.final and during.spared is None and "pardoned" not in during.to_json()
    assert during.to_json()["counts"][0]["target"] == "Вася"
    ctx.close()
    ctx = ctx_at(game, clock, msk(10, 20, 5))
    before = tally_day(ctx, 2).to_json()      # the deadline passed, day 2 not resolved yet
    assert before["lynch"] is None and before["pardoned"] is True and before["spared"] == "Вася"
    text = tally_day(ctx, 2).render("text")
    assert "Посадка: нет — Судья помиловал игрока Вася" in text
    bb = tally_day(ctx, 2).render("bbcode")
    assert "Судья помиловал игрока [b]Вася[/b]: посадки сегодня нет." in bb
    assert "садится" not in bb.split("Судья помиловал")[1]
    out = resolve_day_files(ctx, 2)
    assert out.result.lynched is None and out.result.pardoned and out.result.spared == "Вася"
    ctx.close()
    assert main(["tally", str(game), "--day", "2", "--offline", "--format", "json"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert (after["lynch"], after["pardoned"], after["spared"]) == (None, True, "Вася")
    assert main(["tally", str(game), "--day", "2", "--offline", "--lang", "en"]) == 0
    assert "Lynch: none — the Judge pardoned Вася" in capsys.readouterr().out


def test_R14_1_day_1_without_a_pardon_the_final_count_jails(game, clock, capsys):
    """A Judge dealt but no pardon sent on day 1: the final count's lynch is the resolution's."""
    ctx = ctx_at(game, clock, msk(9, 20, 5))
    t = tally_day(ctx, 1, poll=True).to_json()
    assert t["lynch"]["player"] == "Коля" and "pardoned" not in t
    assert resolve_day_files(ctx, 1).result.lynched.player == "Коля"
    ctx.close()
