"""Issue 37, second pass, item 5: every R14 role's move answer (R5.1, R14.2) and role card
(R14.3) in Russian and English.

Twelve players with every R14 role with a move (and the Mayor, who has none) each send one
valid and one invalid move by mail; ``poll_moves`` answers each message at once: the valid
move confirmed in the role's own words, the invalid one refused saying why.
"""

from __future__ import annotations

import pytest
from test_resolve import mail, msk
from test_roles_game import PLAYERS, SETUP, game_toml, write

from scraper_mod.clock import FakeClock
from scraper_mod.game.context import open_game
from scraper_mod.game.night.intake import poll_moves
from scraper_mod.posts.render import render_text
from scraper_mod.rules.deal import role_card
from scraper_mod.rules.model import Role
from scraper_mod.rules.roles import CATALOGUE

CONTACT = {n: c for n, _, _, c in PLAYERS}
# sender, valid move, invalid move
MOVES = [
    ("Люба", "блокирую Зою", "блокирую себя"),                    # Putana
    ("Гена", "охраняю Машу", "охраняю себя"),                      # Bodyguard
    ("Лев", "защищаю Игоря", "защищаю Машу"),                      # Lawyer
    ("Таня", "сравниваю Игоря и Васю", "сравниваю Игоря и Игоря"),  # Journalist
    ("Зоя", "застрелить Васю", "застрелить Петрушку"),            # Sheriff
    ("Петя", "помиловать", "убить Васю"),                          # Judge
    ("Коля", "забрать Ирину", "забрать себя"),                     # Kamikaze
    ("Олег", None, "блокирую Васю"),                               # Mayor: no move
]
WANT = {
    "ru": {
        "Люба": ("Принято: блокировка — Зоя.", "на себя этот ход делать нельзя"),
        "Гена": ("Принято: охрана — Маша.", "на себя этот ход делать нельзя"),
        "Лев": ("Принято: защита — Игорь.", "Адвокат защищает только мафиози"),
        "Таня": ("Принято: сравнение — Игорь и Вася.", "для сравнения нужны два разных игрока"),
        "Зоя": ("Принято: выстрел Шерифа — Вася.", "Петрушку"),
        "Петя": ("Принято: помилование. Посадки в этот день не будет.",
                 "ваша роль не может сделать такой ход"),
        "Коля": ("Принято: забрать с собой — Ирина. Ход остаётся в силе, пока вы его не смените.",
                 "на себя этот ход делать нельзя"),
        "Олег": (None, "ваша роль не может сделать такой ход"),
    },
    "en": {
        "Люба": ("Accepted: block Зоя.", "you cannot make this move on yourself"),
        "Гена": ("Accepted: guard Маша.", "you cannot make this move on yourself"),
        "Лев": ("Accepted: defend Игорь.", "the Lawyer defends only a mafioso"),
        "Таня": ("Accepted: compare Игорь and Вася.", "a comparison needs two different players"),
        "Зоя": ("Accepted: the Sheriff's shot at Вася.", "Петрушку"),
        "Петя": ("Accepted: pardon. Nobody will be jailed this day.",
                 "your role cannot make this move"),
        "Коля": ("Accepted: take along Ирина. The move stands until you change it.",
                 "you cannot make this move on yourself"),
        "Олег": (None, "your role cannot make this move"),
    },
}


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_R14_2_every_role_move_confirmed_or_refused_at_once(tmp_path, lang):
    """R5.1, R14.2: each R14 role's valid move confirmed in its words, each invalid one
    refused with the reason (a role with no move, a target the table rules out)."""
    text = game_toml(None, {}, roles=f"[roles]\nsetup = {SETUP}\n")
    if lang == "en":
        text = text.replace('title = "Мафия #9"', 'title = "Мафия #9"\nlanguage = "en"')
    folder = write(tmp_path / lang, text)
    for i, (nick, good, bad) in enumerate(MOVES):
        if good:
            mail(folder, f"ok-{i}", CONTACT[nick], good, msk(9, 10, i))
        mail(folder, f"bad-{i}", CONTACT[nick], bad, msk(9, 11, i))
    ctx = open_game(folder, clock=FakeClock(msk(9, 12, 0)))
    try:
        rep = poll_moves(ctx, send=False)
    finally:
        ctx.close()
    by = {}
    for a in rep.answers:
        by.setdefault(a.player, []).append(" ".join(a.text.split()))
    for nick, (confirm, refuse) in WANT[lang].items():
        texts = by[nick]
        assert len(texts) == (2 if confirm else 1), (nick, texts)
        if confirm:
            assert confirm in texts[0], (nick, texts[0])
        bad = texts[-1]
        assert refuse in bad, (nick, bad)
        assert ("Не засчитано" if lang == "ru" else "Not counted") in bad, (nick, bad)


ROLES12 = {n: Role(r) for n, r, _, _ in PLAYERS}


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("role", [r for r in CATALOGUE if CATALOGUE[r].r14])
def test_R14_3_every_role_card_in_both_languages(lang, role):
    """R14.3: each R14 role's card names the role, says its move with an example (in the
    card's language), where the move goes and the deadline; a role without a move says so."""
    roles = dict(ROLES12)
    roles["Олег"] = role
    how = {"via": "pm", "to": "HostBot", "deadline": "20:00 МСК" if lang == "ru" else "20:00 MSK"}
    card = role_card("Олег", roles, duty="Игорь", title="Мафия #9", how=how)
    text = render_text("role-card", lang, "txt", **card)
    spec = CATALOGUE[role]
    name = spec.ru if lang == "ru" else spec.en
    assert name in text, text
    for m in spec.moves:
        assert (m.example_ru if lang == "ru" else m.example_en) in text, text
    if spec.moves:
        assert "HostBot" in text and "20:00" in text, text
        assert ("личным сообщением на форуме" if lang == "ru" else "private message") in text
    else:
        assert "HostBot" not in text
        assert ("Ночного хода нет" if lang == "ru" else "no night move") in text, text
    if role is Role.LAWYER:        # R14.3: the Lawyer knows the mafia
        assert "Вася" in text and "Игорь" in text
    # the other language never leaks in
    assert ("Accepted" not in text) if lang == "ru" else not any("а" <= ch <= "я" for ch in
                                                                    text.replace(name, "")
                                                                    .replace("Олег", "")
                                                                    .replace("Мафия", "")
                                                                    .replace("Вася", "")
                                                                    .replace("Игорь", "")
                                                                    .replace("Лев", ""))


@pytest.mark.parametrize("roles, says", [
    ('[roles]\npreset = "nope"\n', "roles.preset: неизвестный расклад 'nope' (есть: classic"),
    ('[roles]\nsetup = { boss = 1, putana = 2 }\n',
     "roles.setup.putana: putana = 2: по правилам такая роль одна; напишите putana = 1"),
    ('[roles]\nsetup = { boss = 1, judge = 1, immortal = 2 }\n',
     "roles.setup.immortal: immortal = 2: по правилам такая роль одна"),
    ('[roles]\nsetup = { boss = true }\n', "roles.setup.boss: число должно быть не меньше 1, "
                                             "а не true"),
    ('[roles]\nsetup = { boss = "x" }\n', 'а не "x" (роль, которой нет, просто не пишите)'),
    ('[roles]\nsetup = { boss = 1.5 }\n', "а не 1.5"),
    ('[roles]\nsetup = "boss"\n', "roles.setup: должна быть таблица «роль = число»"),
    ('[roles]\nsetup = {}\n', "roles.setup: должна быть таблица «роль = число»"),
    ('[roles]\npreset = "putana"\nsetup = { boss = 1 }\n', "укажите что-то одно: setup или preset"),
    ('[roles]\nsetup = { maniac = 1 }\n', "roles.setup: в раскладе нет мафии: добавьте boss"),
    ('[roles]\ncolour = 1\n', "roles.colour: неизвестный ключ (допустимы: preset, setup, words)"),
    ('[roles]\nsetup = { boss = 1 }\n[roles.words]\nfly = ["лечу"]\n',
     "roles.words.fly: неизвестный ход 'fly'"),
    ('[roles]\nsetup = { boss = 1 }\n[roles.words]\nblock = "блок"\n',
     'roles.words.block: нужен список слов, например ["блокирую"]'),
    ('[roles]\nsetup = { boss = 1 }\n[roles.words]\nblock = [""]\n',
     "roles.words.block: нужен список слов"),
    ('[roles]\nsetup = { boss = 1, putana = 1 }\n[roles.words]\nblock = ["убиваю"]\n',
     "roles.words.block: слово 'убиваю' совпадает со словом хода kill"),
])
def test_R14_3_more_bad_setups_refused_in_one_russian_line(tmp_path, capsys, roles, says):
    """Issue 37 item 5, the gaps hunted in the second pass: each bad ``[roles]`` of a Russian
    game is one Russian line naming the key and the fix; nothing written."""
    from scraper_mod.cli import main
    folder = write(tmp_path / "g", game_toml(None, {}, roles=roles, with_roles=False))
    assert main(["deal", str(folder)]) == 1
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert "True" not in err and "must be" not in err
    assert not (folder / "state.sqlite3").exists() and not (folder / "out").exists()


def test_R14_3_a_role_written_by_its_russian_name_says_the_id(tmp_path, capsys):
    """A host writing «Путана» in [[players]] is told the id to write (one line), and the
    host's page of a Russian game reads it in Russian."""
    from scraper_mod.cli import main
    from scraper_mod.errors import ConfigError
    players = [(n, "Путана" if n == "Люба" else r, u, c) for n, r, u, c in PLAYERS]
    folder = write(tmp_path / "g", game_toml(None, {}, players=players))
    assert main(["deal", str(folder)]) == 1
    err = capsys.readouterr().err
    # a Russian game: the command line's line is Russian only (issue 39)
    assert "players[6].role: неизвестная роль 'Путана': роль пишется латиницей, 'putana'" in err
    assert err.count("\n") == 1 and not (folder / "state.sqlite3").exists()
    with pytest.raises(ConfigError) as e:
        open_game(folder, readonly=True)
    assert "роль пишется латиницей, 'putana'" in e.value.in_language("ru")
