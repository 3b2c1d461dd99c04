"""The night notes of the host report in the game's language (R9.4).

``rules.night`` gives each note as a code with its values (``rules.notes.Note``); the wording
of every code, in Russian and English, is ``templates/night-notes.toml``. Checked: every code
has both wordings that fill in; the English lines are the ones the host always read; a Russian
game's host report has Russian notes only; notes stored by older versions (plain strings)
still show; a game can reword a note in its own templates/ folder.
"""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from render_scenarios import scenario
from test_resolve import board, clock, ctx_at, game, mail, msk  # noqa: F401
from test_rules_night import MAFIA, ROLES, lynch, opts, start

from scraper_mod.errors import ConfigError
from scraper_mod.game.results.rendering import render_day
from scraper_mod.game.results.resolve import resolve_day_files
from scraper_mod.posts.notes import FILE_NAME, note_line, note_lines, stored_notes, wordings
from scraper_mod.posts.render import templates_dir
from scraper_mod.rules.night import NightOrders, resolve_day
from scraper_mod.rules.notes import CODES, WHY, Note, note_from_json

SAMPLE = {"target": "Маша_2", "actor": "doc_Holiday", "sender": "Волк", "boss": "Вася",
          "commissar": "Алексей", "who": ("Big Joe",), "limit": 1,
          "other": "Лиса"}   # "other": R14's comparison


def sample(code: str, **over) -> Note:
    args = {k: SAMPLE.get(k, "dead") for k in CODES[code]}
    args.update(over)
    return Note.of(code, **args)


# --- the table ---------------------------------------------------------------------------

@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_has_a_russian_and_an_english_wording_that_fill_in(code):
    texts = wordings()["notes"][code]
    assert texts.get("ru") and texts.get("en")
    for why in (WHY if "why" in CODES[code] else (None,)):
        note = sample(code, **({"why": why} if why else {}))
        ru, en = note_line(note, "ru"), note_line(note, "en")
        assert "{" not in ru and "{" not in en and ru != en
        # every value the note carries is shown, in both languages
        for name in CODES[code]:
            if name != "why":
                shown = ", ".join(SAMPLE[name]) if name == "who" else str(SAMPLE[name])
                assert shown in ru and shown in en, (code, name)


def test_the_table_has_no_code_the_rules_never_give_and_every_reason_in_both_forms():
    table = wordings()
    assert set(table["notes"]) == set(CODES)
    assert set(table["why"]) == set(WHY)
    for why, forms in table["why"].items():
        assert {"en", "ru", "en_many", "ru_many"} <= set(forms), why


def test_russian_wordings_have_no_english_words():
    """Only the nicks (filled in) may be Latin in a Russian note."""
    for code, texts in wordings()["notes"].items():
        words = re.sub(r"\{[a-z]+\}", "", texts["ru"])
        assert not re.search(r"[A-Za-z]", words), (code, texts["ru"])


# --- the English lines are the ones hosts always read -------------------------------------

def test_english_lines_are_unchanged():
    """R6.1 / R5.4 / R5.2: the notes of a jailed Doctor, a freeze of a mafioso, a kill on the
    VSB, word for word (issue 12 reworded the VSB and the self-check: no "him" for a player)."""
    orders = NightOrders(mafia_kill="Ёжик в тумане", **MAFIA, heal="Лиса",
                         doctor="doc_Holiday", freeze="Кот", boss="Вася",
                         check="Алексей", checker="Алексей")
    res, _ = resolve_day(1, start(), lynch("doc_Holiday"), orders)
    assert note_lines(res.notes, "en") == (
        "freeze of Кот void: Кот is a mafioso",
        "heal by doc_Holiday void: doc_Holiday was jailed today",
        "mafia kill missed: Ёжик в тумане is the VSB (the mafia may not kill the VSB)",
        "check of Алексей void: aimed at the Commissar",
    )


def test_several_dead_mafiosi_are_named_together():
    """R5.2: a kill sent only by mafiosi who cannot act; the reason agrees in number."""
    s = start()
    _, s = resolve_day(1, s, lynch("Big Joe"), NightOrders())
    orders = NightOrders(mafia_kill="Лиса", mafia_by="Big Joe", mafia_also=("Кот",))
    res, _ = resolve_day(2, s, lynch("Кот"), orders)
    assert res.notes == (Note.of("mafia_kill_backers_gone", target="Лиса",
                                 who=("Big Joe", "Кот"), why="dead"),)
    assert note_lines(res.notes, "en") == ("mafia kill of Лиса void: Big Joe, Кот are out of the game",)
    assert note_lines(res.notes, "ru") == (
        "выстрел мафии в игрока Лиса не состоялся: Big Joe, Кот уже вне игры",)


def test_russian_lines_of_a_night():
    """R5.6 / R5.3: a heal that stops the Maniac, a Maniac aiming at himself."""
    orders = NightOrders(maniac_kill="Лиса", maniac="Игрок-7", heal="Лиса",
                         doctor="doc_Holiday")
    res, _ = resolve_day(1, start(), None, orders)
    assert note_lines(res.notes, "ru") == ("Доктор спас игрока Лиса от выстрела Маньяка",)
    res, _ = resolve_day(1, start(), lynch("Маша_2"), NightOrders(
        maniac_kill="Игрок-7", maniac="Игрок-7", freeze="Маша_2", boss="Вася"))
    assert note_lines(res.notes, "ru") == (
        "заморозка игрока Маша_2 не состоялась: Маша_2 сидит (посадка сегодня днём)",
        "выстрел Маньяка не засчитан: Маньяк не может убить себя")


def test_a_simultaneous_lynch_note_in_both_languages():
    """R6.1 with lynch_first = false: a kill on the jailed player does nothing more."""
    res, _ = resolve_day(1, start(), lynch("Лиса"), NightOrders(mafia_kill="Лиса", **MAFIA),
                         opts(lynch_first=False))
    assert note_lines(res.notes, "en") == (
        "mafia kill on Лиса had no effect: Лиса was jailed the same day",)
    assert note_lines(res.notes, "ru") == (
        "выстрел мафии в игрока Лиса впустую: Лиса сидит (посадка в тот же день)",)


# --- the host report ----------------------------------------------------------------------

def night_notes() -> tuple[Note, ...]:
    """Many kinds of notes from real nights."""
    notes: list[Note] = []
    s = start()
    _, s1 = resolve_day(1, s, lynch("Волк"), NightOrders())
    for state, ly, orders, o in [
        (s, lynch("doc_Holiday"), NightOrders(heal="Лиса", doctor="doc_Holiday",
                                               mafia_kill="Кот", **MAFIA), opts()),
        (s, None, NightOrders(freeze="Алексей", boss="Вася", check="Кот",
                              checker="Алексей", mafia_kill="Петя", **MAFIA), opts()),
        (s, None, NightOrders(heal="doc_Holiday", doctor="doc_Holiday"),
         opts(doctor_self_heals=0)),
        (s1, None, NightOrders(check="Волк", checker="Алексей", maniac_kill="Волк",
                               maniac="Игрок-7", freeze="Волк", boss="Вася"), opts()),
        (s, None, NightOrders(mafia_kill="Лиса", **MAFIA, maniac_kill="Лиса",
                              maniac="Игрок-7", check="Кот", checker="Алексей"), opts()),
    ]:
        res, _ = resolve_day(state.day + 1, state, ly, orders, o)
        notes += res.notes
    return tuple(notes)


def test_a_russian_host_report_has_no_english_note():
    notes = night_notes()
    assert len({n.code for n in notes}) >= 9
    english = set(note_lines(notes, "en"))
    for lang in ("ru", "en"):
        r = scenario("freeze", lang)
        r = dataclasses.replace(r, result=dataclasses.replace(r.result, notes=notes))
        report = render_day(r)["host-report.txt"]
        section = report.split("== Заметки ==\n" if lang == "ru" else "== Notes ==\n")[1]
        lines = section.split("\n\n")[0].splitlines()
        assert lines == list(note_lines(notes, lang))
        if lang == "ru":
            assert not english & set(report.splitlines())
            for line in lines:
                for nick in ROLES:
                    line = line.replace(nick, "")
                assert not re.search(r"[A-Za-z]", line.replace("Петя", "")), line
        else:
            assert set(lines) == english


def test_old_string_notes_still_show_as_they_are():
    old = ("freeze of Кот void: Кот is a mafioso", "heal of Лиса void: the same patient two "
           "nights running")
    r = scenario("freeze", "ru")
    r = dataclasses.replace(r, result=dataclasses.replace(
        r.result, notes=old + (Note.of("double_kill", target="Лиса"),)))
    report = render_day(r)["host-report.txt"]
    assert "== Заметки ==\n" + "\n".join(old) + \
           "\nв игрока Лиса стреляли и мафия, и Маньяк: смерть одна\n" in report
    # a stored resolution of an older version: its notes are strings
    assert stored_notes({"day": 2, "notes": list(old)}) == old
    assert stored_notes({"day": 2}) == ()
    assert note_lines(stored_notes({"notes": list(old)}), "ru") == old
    assert note_from_json(17) == "17"


def test_an_unknown_code_is_shown_not_hidden():
    """A note stored by a newer version: the host still sees its code and values."""
    n = note_from_json({"code": "bribe_void", "args": {"target": "Лиса", "who": ["Кот"]}})
    assert note_line(n, "ru") == "bribe_void: target=Лиса, who=Кот"


def test_a_note_is_checked_against_its_code():
    with pytest.raises(Exception, match="takes target"):
        Note.of("freeze_mafioso", actor="Кот")
    with pytest.raises(Exception, match="unknown note code"):
        Note.of("freeze_void", target="Кот")
    with pytest.raises(Exception, match="unknown reason"):
        Note.of("heal_by_gone", actor="Кот", why="asleep")


# --- stored in the state file, and a game's own wording -----------------------------------

def test_resolve_stores_the_codes_and_writes_russian_notes(game, clock):
    """The Doctor heals Коля, who is jailed that day (R6.1): a note, stored as a code."""
    folder, _ = game
    mail(folder, "m4", "irina@example.org", "лечу Коля", msk(9, 9, 50))
    ctx = ctx_at(folder, clock, msk(9, 20, 5))
    try:
        out = resolve_day_files(ctx, 1)
        assert Note.of("heal_on_gone", target="Коля", why="jailed") in out.result.notes
        stored = ctx.store.resolution(1)
        assert {"code": "heal_on_gone", "args": {"target": "Коля", "why": "jailed"}} \
            in stored["notes"]
        assert stored_notes(stored) == out.result.notes
        json.dumps(stored)  # plain JSON
    finally:
        ctx.close()
    report = (folder / "out" / "day-1" / "host-report.txt").read_text(encoding="utf-8")
    assert "лечение игрока Коля не состоялось: Коля сидит (посадка сегодня днём)" in report
    assert "heal on" not in report and "void" not in report


def test_a_game_can_reword_one_note(tmp_path):
    own = tmp_path / "templates"
    own.mkdir()
    (own / FILE_NAME).write_text('[notes.freeze_mafioso]\nru = "Кот? {target} же мафия!"\n',
                                 encoding="utf-8")
    note = Note.of("freeze_mafioso", target="Кот")
    assert note_line(note, "ru", folder=own) == "Кот? Кот же мафия!"
    assert note_line(note, "en", folder=own) == "freeze of Кот void: Кот is a mafioso"
    # the rest of the table is the built-in one
    assert note_line(sample("check_self"), "ru", folder=own) == \
        note_line(sample("check_self"), "ru")
    r = scenario("freeze", "ru")
    r = dataclasses.replace(r, templates=str(own),
                            result=dataclasses.replace(r.result, notes=(note,)))
    assert "Кот? Кот же мафия!" in render_day(r)["host-report.txt"]


def test_a_broken_wording_file_is_a_clear_error(tmp_path):
    own = tmp_path / "templates"
    own.mkdir()
    (own / FILE_NAME).write_text('[notes.freeze_mafioso\nru = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"night-notes\.toml.*not a readable TOML"):
        note_line(Note.of("freeze_mafioso", target="Кот"), "ru", folder=own)
    (own / FILE_NAME).write_text('[notes.freeze_mafioso]\nru = "{игрок} — мафиози"\n',
                                 encoding="utf-8")
    with pytest.raises(ConfigError, match=r"notes\.freeze_mafioso\.ru.*\{target\}"):
        note_line(Note.of("freeze_mafioso", target="Кот"), "ru", folder=own)


def test_the_wording_file_ships_with_the_templates():
    assert (templates_dir() / FILE_NAME).is_file()
