"""The texts of R14's roles (issue 37 item 4): the newspaper, the host report, the PMs, the
count (the Mayor's ×2) and the role cards, in Russian and English, reading as a host writes
(R9.6: a nick only as a name, no verb agreeing with it)."""

from __future__ import annotations

import json

import pytest
from render_scenarios import TOPIC, base, t
from russian_text import check_en, check_ru

from scraper_mod.game.results.rendering import render_day
from scraper_mod.game.results.report import Candidate, VoteLine, post_url
from scraper_mod.posts.render import render_text
from scraper_mod.rules.deal import role_card
from scraper_mod.rules.model import Move, MoveKind, Player, Role
from scraper_mod.rules.night import Act, NightOrders, resolve_day
from scraper_mod.rules.state import initial_state
from scraper_mod.rules.tally import Lynch

ROLES = {
    "Вася": Role.BOSS, "Кот": Role.MAFIA, "Лис": Role.LAWYER, "Алексей": Role.COMMISSAR,
    "NightOwl": Role.SERGEANT, "doc_Holiday": Role.DOCTOR, "Маша_2": Role.PUTANA,
    "Гард": Role.BODYGUARD, "Светлана": Role.JOURNALIST, "Ковбой": Role.SHERIFF,
    "Кощей": Role.IMMORTAL, "Голова": Role.MAYOR, "Фемида": Role.JUDGE, "Самурай": Role.KAMIKAZE,
    "Игрок-7": Role.MANIAC, "Волк": Role.CIVILIAN,
}
NICKS = list(ROLES)


def report(day: int, lynch: Lynch | None, orders: NightOrders, lang: str, **kw):
    before = initial_state([Player(n, r) for n, r in ROLES.items()], "Кот", NICKS)
    if day > 1:
        before = before.evolve(day=day - 1)
    result, after = resolve_day(day, before, lynch, orders)
    moves = tuple(Move(a.actor, ROLES[a.actor], MoveKind(a.kind), a.target, t(14 + day, 12, 0),
                       "counted", target2=a.target2) for a in orders.acts)
    return base(day, result=result, roles=ROLES, alive_before=tuple(NICKS), lang=lang,
                random_order=tuple(NICKS), commissar="Алексей", sergeant="NightOwl",
                duty="Кот", commissar_after=after.commissar, duty_after="Кот", orders=orders,
                moves=moves, lynch_by=lynch.by if lynch else None, **kw)


def mayor_candidates(day: int) -> tuple[Candidate, ...]:
    def line(voter, hh, pid, double=False):
        return VoteLine(voter, t(14 + day, hh, 0), pid, post_url(TOPIC, pid), double=double)
    return (Candidate("Волк", 3, (line("Голова", 10, 11, True), line("Кот", 11, 12))),
            Candidate("Вася", 2, (line("Ковбой", 12, 13), line("Гард", 13, 14))))


def pardon_day(lang: str):
    """Day 1: the Judge pardons Волк (jailed by 3 votes, the Mayor's counted twice); the
    Putana blocks the Doctor; the Bodyguard dies in Волк's place; the Sheriff's shot at the
    Immortal fails; the Journalist compares; the Lawyer defends Кот against the check."""
    orders = NightOrders(
        mafia_kill="Волк", mafia_by="Кот", heal="Волк", doctor="doc_Holiday", check="Кот",
        checker="Алексей", acts=(Act("Фемида", "pardon"), Act("Маша_2", "block", "doc_Holiday"),
                                 Act("Гард", "guard", "Волк"), Act("Ковбой", "kill", "Кощей"),
                                 Act("Светлана", "compare", "Кот", "Вася"),
                                 Act("Лис", "defend", "Кот")))
    return report(1, Lynch("Волк", "votes", 0), orders, lang,
                  candidates=mayor_candidates(1))


def kamikaze_day(lang: str):
    """Day 2: the Kamikaze is jailed and takes the Doctor; the Sheriff shoots the Maniac."""
    orders = NightOrders(acts=(Act("Самурай", "take", "doc_Holiday"),
                               Act("Ковбой", "kill", "Игрок-7")))
    return report(2, Lynch("Самурай", "votes", 0), orders, lang)


def readable(files: dict[str, str], lang: str) -> dict[str, list[str]]:
    check = check_ru if lang == "ru" else check_en
    out = {}
    for name, text in files.items():
        if name.endswith(".json"):
            continue
        # ISO dates are the host report's own (a text for the host only)
        problems = [p for p in check(text, NICKS)
                    if not (name == "host-report.txt" and "ISO date" in p)]
        if problems:
            out[name] = problems
    return out


def test_R14_newspaper_ru_pardon_guard_immortal_and_the_mayor():
    """R14 Judge, Bodyguard, Immortal, Mayor: «Судья помиловал …», «Телохранитель погиб,
    закрыв собой …» (unnamed), someone survived (unnamed), «Мэр ×2» in the table."""
    files = render_day(pardon_day("ru"))
    paper = files["newspaper.bbcode"]
    assert "Судья помиловал игрока [b]Волк[/b]: посадки сегодня нет." in paper
    assert ("Жертва мафии: [b]Гард[/b] ([i]Телохранитель[/i]): Телохранитель погиб, закрыв "
            "собой другого игрока.") in paper
    assert "Один из жителей пережил покушение" in paper and "Кощей" not in paper.split(
        "[b]Ночь[/b]")[1].split("[b]Живы")[0]
    assert "Голова[/url] ×2" in paper
    assert "Маша_2" not in paper.split("[b]Ночь[/b]")[1].split("[b]Живы")[0]   # blocks: secret
    assert not readable(files, "ru")
    result = json.loads(files["result.json"])
    assert result["pardoned"] is True and result["lynched"] is None
    assert result["blocked"] == ["doc_Holiday"] and result["survived"] is True
    assert result["killed"] == [{"player": "Гард", "role": "bodyguard", "by": "mafia"}]
    assert {"by": "Светлана", "target": ["Кот", "Вася"], "result": "same"} in result["checks"]
    assert {"by": "Алексей", "target": "Кот", "result": "civilian"} in result["checks"]


def test_R14_pms_comparison_to_the_journalist_alone_and_the_defended_check():
    """R14 Journalist: the comparison goes to the Journalist only (not the Sergeant); R14
    Lawyer: the Commissar's check of the defended mafioso reads «мирный житель»."""
    files = render_day(pardon_day("ru"))
    journalist = files["pm/Светлана.txt"]
    assert "сравнение Журналиста" in journalist and "Кот и Вася — одна сторона." in journalist
    assert "Кот — мирный житель." in files["pm/Алексей.txt"]
    assert "сравнение" not in files["pm/NightOwl.txt"]
    report_ru = files["host-report.txt"]
    assert "Помилование Судьи: Волк" in report_ru and "Блокировки: doc_Holiday" in report_ru
    assert "Сравнение: Светлана → Кот и Вася: одна сторона" in report_ru
    assert "Телохранитель вместо охраняемого" in report_ru and "Голова ×2" in report_ru


def test_R14_newspaper_en_and_the_kamikaze():
    """R14 Kamikaze, Sheriff: the newspaper names X and X's role; the Sheriff's victim."""
    files = render_day(kamikaze_day("en"))
    paper = files["newspaper.bbcode"]
    assert "The Kamikaze took [b]doc_Holiday[/b] ([i]Doctor[/i]) along." in paper
    assert "The Sheriff killed [b]Игрок-7[/b] ([i]Maniac[/i])." in paper
    assert not readable(files, "en")
    ru = render_day(kamikaze_day("ru"))
    assert ("Камикадзе забрал с собой игрока [b]doc_Holiday[/b] ([i]Доктор[/i])."
            in ru["newspaper.bbcode"])
    assert "Жертва Шерифа: [b]Игрок-7[/b]" in ru["newspaper.bbcode"]
    assert not readable(ru, "ru")
    killed = json.loads(ru["result.json"])["killed"]
    assert killed[0] == {"player": "doc_Holiday", "role": "doctor", "by": "kamikaze"}


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_R14_3_every_role_card_tells_how_to_move(lang):
    """R14.3: every role's card says the role, its move words with an example, where the
    move goes and the deadline; the Lawyer's card names the mafia; R9.6 wording."""
    roles = dict(ROLES, **{"Ёжик в тумане": Role.VSB, "Зоя": Role.CIVILIAN})
    how = {"via": "pm", "to": "admin", "deadline": "20:00 МСК" if lang == "ru" else "20:00 MSK"}
    for nick, role in roles.items():
        card = role_card(nick, roles, duty="Кот", code=None, title="Мафия #7", how=how)
        text = render_text("role-card", lang, "txt", **card)
        check = check_ru if lang == "ru" else check_en
        assert not check(text, list(roles)), (nick, text)
        moves = [m for m in card["moves"]]
        if role in (Role.VSB, Role.CIVILIAN, Role.MAYOR, Role.IMMORTAL):
            assert not moves
        else:
            example = moves[0]["example_ru" if lang == "ru" else "example_en"]
            assert example in text and "admin" in text and how["deadline"] in text, nick
    lawyer = render_text("role-card", lang, "txt", **role_card(
        "Лис", roles, duty="Кот", title="Мафия #7", how=how))
    assert "Вася" in lawyer and "Кот" in lawyer
    vsb = role_card("Ёжик в тумане", roles, duty="Кот", title="T", how=how)
    civ = role_card("Зоя", roles, duty="Кот", title="T", how=how)
    assert {k: v for k, v in vsb.items() if k != "nick"} == {
        k: v for k, v in civ.items() if k != "nick"}
