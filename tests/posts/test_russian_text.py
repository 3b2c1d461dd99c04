"""R9.6: every post reads as a careful host would write it, for any nick of either gender.

Every template is rendered with nicks of both genders and non-Russian ones (Светлана, Big
Joe, Маша_2, Ёжик в тумане, in the roles that appear in the most posts) and read by
``tests/russian_text.py`` (``check_ru`` / ``check_en``): no verb or short participle next to
a nick, no он/его/её for a player, no ISO date and no «дедлайн» in what players read, no
"he" for a player in English. The demo's whole game (``scraper-mod demo``) is read the same
way: every post, private message, move answer and role card it writes.
"""

from __future__ import annotations

import dataclasses
from zoneinfo import ZoneInfo

import pytest
from render_scenarios import SCENARIOS, scenario
from russian_text import check_en, check_ru

from scraper_mod.demo.world import run_demo
from scraper_mod.game.results.rendering import render_day
from scraper_mod.game.setup.config import load_game
from scraper_mod.posts.render import render_text
from scraper_mod.rules.deal import role_card
from scraper_mod.rules.model import Role
from scraper_mod.rules.moves import REASONS

MSK = ZoneInfo("Europe/Moscow")
# the scenarios' players renamed so that both genders and non-Russian nicks stand in the
# roles named most often (the Boss, the mafioso on duty, the Commissar, the jailed civilian)
RENAME = {"Вася": "Светлана", "Лиса": "Маша", "Кот": "Гоша"}
NICKS = ["Светлана", "Big Joe", "Маша_2", "Ёжик в тумане", "Маша", "Гоша", "NightOwl",
         "doc_Holiday", "Алексей", "Игрок-7"]


def renamed(obj):
    """``obj`` with every string that is a renamed nick replaced (dataclasses, containers)."""
    if isinstance(obj, str):
        return RENAME.get(obj, obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.replace(obj, **{f.name: renamed(getattr(obj, f.name))
                                           for f in dataclasses.fields(obj) if f.init})
    if isinstance(obj, dict):
        return {renamed(k): renamed(v) for k, v in obj.items()}
    if isinstance(obj, (tuple, list, frozenset, set)):
        return type(obj)(renamed(x) for x in obj)
    return obj


def check(text: str, lang: str, *, players: bool) -> list[str]:
    return (check_ru if lang == "ru" else check_en)(text, NICKS, players=players)


def _for_players(rel: str) -> bool:
    return not rel.startswith(("host-report", "result.json"))


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_r9_6_every_post_of_a_day_reads_well(name, lang):
    posts = render_day(renamed(scenario(name, lang)))
    assert any(n in "".join(posts.values()) for n in RENAME.values())
    problems = {rel: p for rel, text in posts.items() if rel != "result.json"
                if (p := check(text, lang, players=_for_players(rel)))}
    assert not problems


def _tally_context(final: bool, lang: str) -> dict:
    voters = [{"nick": n, "post_id": 40 + i, "at": "19:4" + str(i), "url": None,
               "final": i == 0}     # R2.14: the first one final
              for i, n in enumerate(["Big Joe", "Маша_2", "Ёжик в тумане"])]
    return {
        "day": 3, "title": "Мафия #7", "topic": "", "final": final,
        "deadline": "15.03 20:00", "deadline_day": "15.03", "deadline_hm": "20:00",
        "deadline_zone": "МСК" if lang == "ru" else "MSK",
        "as_of": "15.03 17:12", "as_of_day": "15.03", "as_of_hm": "17:12",
        "time_left": "" if final else ("1 сут. 2 ч 48 мин" if lang == "ru" else "1 d 2 h 48 min"),
        "candidates": [{"target": "Светлана", "votes": 3, "voters": voters, "penalty": 0},
                       {"target": "Big Joe", "votes": 3, "penalty": 2,       # R2.16
                        "voters": [{"nick": "Светлана", "post_id": 7, "at": "12:00", "url": None,
                                    "final": False}]}],
        "not_voting": ["Гоша"], "frozen": ["Маша"],
        "rejected": [{"post_id": 51, "author": "Маша", "text": "Светлану", "reason": "frozen",
                      "why": "голос замороженного" if lang == "ru" else "frozen voter",
                      "url": None},
                     {"post_id": 52, "author": "Гоша", "text": "Big Joe", "reason": "change_limit",
                      "why": "", "url": None}],                          # R2.13
        "majority": {"target": "Светлана", "voter": "Ёжик в тумане", "post_id": 42,  # R2.15
                     "hm": "19:42", "day": "15.03", "url": None},
        "lynch": {"player": "Светлана", "by": "random", "tied": ["Светлана", "Big Joe"]},
        "lynch_note": None, "votes_total": 4, "notes": [],
        "plural": (lambda n, one, few, many: f"{n} {one if n == 1 else few if n < 5 else many}"),
        "heading": "", "requests": [],      # a count posted during the day (docs/daytime.md)
    }


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("ext", ["bbcode", "txt"])
@pytest.mark.parametrize("final", [False, True])
def test_r9_6_the_vote_count_reads_well(lang, ext, final):
    text = render_text("tally", lang, ext, **_tally_context(final, lang))
    assert "Светлана" in text
    assert not check(text, lang, players=ext == "bbcode")


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_r9_6_a_count_posted_during_the_day_reads_well(lang):
    """docs/daytime.md: the heading and the requests it answers; nicks as labels."""
    ctx = _tally_context(False, lang) | {
        "heading": ("промежуточные итоги на 13:00 МСК" if lang == "ru"
                    else "interim count as of 13:00 MSK"),
        "requests": [{"nick": "Ёжик в тумане", "url": "https://f.example/viewtopic.php?p=9#p9"},
                     {"nick": "Big Joe", "url": ""}]}
    text = render_text("tally", lang, "bbcode", **ctx)
    if lang == "ru":
        assert text.startswith("[b]Мафия #7 — день 3: промежуточные итоги на 13:00 МСК[/b]")
        assert ("Подсчёт просили: [url=https://f.example/viewtopic.php?p=9#p9]Ёжик в тумане[/url], "
                "Big Joe.") in text
        assert not check(text, lang, players=True)
    else:
        assert text.startswith("[b]Мафия #7 — day 3: interim count as of 13:00 MSK[/b]")
        assert "Asked for by [url=https://f.example/viewtopic.php?p=9#p9]Ёжик в тумане[/url], Big Joe." in text
        assert not check(text, lang, players=True)


def _answers(lang: str) -> list[str]:
    base = dict(title="Мафия #7", day=3, sender="x@example.org", story=None,
                received="14.03 в 12:00 МСК" if lang == "ru" else "14.03 12:00 MSK",
                deadline="до пятницы, 15 марта, 20:00 МСК" if lang == "ru"
                else "Friday, 15 March, 20:00 MSK", subject="ход", reasons=REASONS)
    out = []
    for reason in sorted(REASONS) + ["late", "replaced"]:
        for kind, target in (("kill", "Светлана"), ("heal", "Big Joe"), ("check", "Маша_2"),
                             ("freeze", "Ёжик в тумане")):
            status = {"late": "late", "replaced": "replaced"}.get(reason, "invalid")
            items = [{"kind": kind, "target": target, "status": status, "reason": reason,
                      "previous": None, "standing": "Гоша", "written": ""},
                     {"kind": kind, "target": target, "status": "counted", "reason": "",
                      "previous": "Маша", "standing": None, "written": ""}]
            out.append(render_text("move-answer", lang, "txt", player="Светлана", items=items,
                                   **base))
        out.append(render_text("move-answer", lang, "txt", player=None,
                               items=[{"kind": None, "target": None, "status": "unknown_sender",
                                       "reason": reason, "previous": None, "standing": None,
                                       "written": ""}], **base))
    # the limits of issue 18: a message too large or nested too deep, too many moves
    unreadable = [{"kind": None, "target": None, "status": "invalid", "reason": "unreadable",
                   "previous": None, "standing": None, "written": ""}]
    for problem in ("size", "nesting"):
        for player in ("Светлана", None):
            out.append(render_text("move-answer", lang, "txt", player=player, items=unreadable,
                                   problem=problem, size_limit="1 MiB", moves_cut=0, **base))
    for n in (1, 2, 5, 20, 21):
        out.append(render_text("move-answer", lang, "txt", player="Светлана", items=[
            {"kind": "heal", "target": "Маша_2", "status": "counted", "reason": "",
             "previous": None, "standing": None, "written": ""}], problem="", size_limit="1 MiB",
            moves_cut=n, **base))
    return out


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_r9_6_every_move_answer_reads_well(lang):
    problems = {t: p for t in _answers(lang) if (p := check(t, lang, players=True))}
    assert not problems


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_r9_6_every_role_card_reads_well(lang):
    roles = {"Светлана": Role.BOSS, "Big Joe": Role.MAFIA, "Маша_2": Role.COMMISSAR,
             "Ёжик в тумане": Role.SERGEANT, "Маша": Role.DOCTOR, "Гоша": Role.MANIAC,
             "NightOwl": Role.VSB, "Игрок-7": Role.CIVILIAN}
    for nick in roles:
        for duty in ("Big Joe", "Светлана"):
            card = role_card(nick, roles, duty=duty, code="7Q2X", title="Мафия #7")
            text = render_text("role-card", lang, "txt", **card)
            assert nick in text
            assert not check(text, lang, players=True), (nick, text)


def test_r9_6_the_checker_finds_what_the_editor_found():
    """The checker itself, on the review's findings and rewrites."""
    nicks = ["Маша", "Светлана", "Гоша", "Кот", "Коля"]
    bad = ["Мафия убила [b]Маша[/b] ([i]Комиссар[/i]).",
           "По итогам голосования посадили [b]Светлана[/b] (7 голосов из 12).",
           "Заморожен [b]Гоша[/b]: его ход этой ночью не состоялся.",
           "Комиссар Маша погиб.", "Посажен по итогам дня 3: [b]Кот[/b] (мафиози).",
           "Голосование и ходы до 2024-03-15 20:00.", "лечение — Маша: получен после дедлайна",
           "Не голосовали: —."]
    good = ["Жертва мафии: [b]Маша[/b] ([i]Комиссар[/i]).",
            "По итогам голосования садится [b]Светлана[/b] (7 голосов из 12).",
            "Заморозка: [b]Гоша[/b] — ночной ход не засчитывается, голос в день 3 тоже.",
            "Комиссар Маша — среди жертв этой ночи.", "Посадка дня 3: [b]Кот[/b] (мафиози).",
            "убийство — Коля. Это ВСБ, сын Босса, — мафия не может его убить.",
            "Проголосовали все."]
    assert all(check_ru(t, nicks) for t in bad), [t for t in bad if not check_ru(t, nicks)]
    assert not [check_ru(t, nicks) for t in good if check_ru(t, nicks)]
    assert check_en("Big Joe was jailed; his vote is void.", ["Big Joe"])
    assert not check_en("Big Joe was jailed; their vote is void.", ["Big Joe"])


@pytest.fixture(scope="module")
def demo_game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo-ru") / "game"
    result = run_demo(keep=folder, out=lambda line: None)
    assert result.errors == []
    return folder


def test_r9_6_the_demos_whole_game_reads_well(demo_game):
    nicks = [p.nick for p in load_game(demo_game).players]
    files = sorted(p for p in (demo_game / "out").rglob("*") if p.is_file()
                   and p.suffix in (".bbcode", ".txt") and "secret" not in p.name)
    files += sorted((demo_game / "outbox").rglob("*.txt"))
    assert len(files) > 40
    problems = {}
    for f in files:
        text = f.read_text(encoding="utf-8")
        p = check_ru(text, nicks, players=f.name != "host-report.txt")
        if p:
            problems[str(f.relative_to(demo_game))] = p
    assert not problems


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("ext", ["bbcode", "txt"])
def test_r9_6_the_count_of_a_tie_by_the_earliest_final_count_reads_well(lang, ext):
    """R2.12: the tie rule's line (docs/rules-house.md)."""
    context = _tally_context(True, lang) | {"lynch": {
        "player": "Светлана", "by": "votes", "tied": ["Светлана", "Big Joe"], "earliest": "19:42"}}
    text = render_text("tally", lang, ext, **context)
    assert "19:42" in text and "Светлана" in text
    assert not check(text, lang, players=ext == "bbcode")
