"""Golden files for every post kind, both languages, over several scenario days (R9).

The expected texts live under tests/golden/<scenario>/<file>.<lang>.<ext>. To regenerate them
on purpose after changing a template: ``SCRAPER_MOD_REGEN_GOLDEN=1 python -m pytest
tests/posts/test_render_golden.py`` — then read the diff before committing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from render_scenarios import SCENARIOS, scenario

from scraper_mod.game.results.rendering import render_day
from scraper_mod.posts.dayfolder import DEPRECATED_DAY_START, day_start_name

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
REGEN = os.environ.get("SCRAPER_MOD_REGEN_GOLDEN") == "1"


def golden_name(rel: str, lang: str) -> str:
    """``pm/Вася.txt`` -> ``pm/Вася.ru.txt``; result.json is language-free."""
    if rel == "result.json":
        return rel
    stem, ext = rel.rsplit(".", 1)
    return f"{stem}.{lang}.{ext}"


def rendered(name: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for lang in ("ru", "en"):
        report = scenario(name, lang)
        files = render_day(report)
        # the next day's start under its own name is the old file's text (issue 27 item 4)
        assert files.pop(day_start_name(report.day)) == files[DEPRECATED_DAY_START]
        for rel, text in files.items():
            key = golden_name(rel, lang)
            if key in out:
                assert out[key] == text, f"{key} differs between languages"
            out[key] = text
    return out


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_golden(name):
    folder = GOLDEN / name
    files = rendered(name)
    if REGEN:
        if folder.exists():
            for old in sorted(folder.rglob("*"), reverse=True):
                old.unlink() if old.is_file() else old.rmdir()
        for rel, text in files.items():
            p = folder / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(text.encode("utf-8"))
    assert folder.is_dir(), f"no golden files for {name}: run with SCRAPER_MOD_REGEN_GOLDEN=1"
    expected = {str(p.relative_to(folder)): p.read_bytes().decode("utf-8")
                for p in sorted(folder.rglob("*")) if p.is_file()}
    assert sorted(files) == sorted(expected)
    for rel in files:
        assert files[rel] == expected[rel], f"{name}/{rel} differs from its golden file"


def test_every_post_kind_in_both_languages_is_covered():
    kinds = set()
    for name in SCENARIOS:
        for rel in rendered(name):
            kinds.add(rel)
    flat = {k.rsplit("/", 1)[-1] for k in kinds}
    for lang in ("ru", "en"):
        assert f"newspaper.{lang}.bbcode" in flat
        assert f"day-start.{lang}.bbcode" in flat
        assert f"host-report.{lang}.txt" in flat
    # check results and mafia news are private messages, one file per recipient
    pm_texts = "\n".join(t for name in SCENARIOS for k, t in rendered(name).items()
                         if k.startswith("pm/"))
    assert "проверка Комиссара" in pm_texts and "the Commissar's check" in pm_texts
    assert "новости для мафии" in pm_texts and "news for the mafia" in pm_texts


# -- what the scenarios must say (so a regenerated golden file cannot silently lose it) ---

def files_of(name, lang="ru"):
    return render_day(scenario(name, lang))


def test_votes_lynch_newspaper_has_jail_role_table_and_story():
    """R9.1: who was jailed, his role, the count; voters linked and in time order."""
    paper = files_of("votes-lynch")["newspaper.bbcode"]
    assert "садится [b]Маша_2[/b] (6 голосов из 9). Роль: [b]мирный житель[/b]" in paper
    line = next(ln for ln in paper.splitlines() if ln.startswith("[*][b]Маша_2 — 6:"))
    order = [line.index(n) for n in ("Игрок-7", "doc_Holiday", "Вася", "Big Joe",
                                     "Ёжик в тумане", "Алексей")]
    assert order == sorted(order)
    assert "[url=https://forum.example.org/viewtopic.php?p=31#p31]Игрок-7[/url] (12:36)" in line
    assert "[quote]Его нашли утром в парке, у пруда с утками...[/quote]" in paper
    assert "Жертва мафии: [b]NightOwl[/b] ([i]Сержант[/i])" in paper
    # R8.1: the last word until 12 hours after the newspaper (21:00 + 12h)
    assert "[b]Последнее слово[/b] (до субботы, 16 марта, 09:00 МСК): Маша_2, NightOwl." in paper
    # R1.3: Saturday merged into Sunday
    assert "до [b]воскресенья, 17 марта, 20:00 МСК[/b] (выходные: одна посадка)" in paper


def test_random_tie_names_the_tie_and_the_save_without_the_name():
    """R2.10/R3: the random list decides a tie; R5.6: a save is announced unnamed."""
    paper = files_of("random-tie")["newspaper.bbcode"]
    assert "Голоса разделились поровну: Вася, Лиса. По случайному списку ведущего садится " \
           "[b]Big Joe[/b]" in paper
    assert "[*]Доктор спас жизнь одному из жителей." in paper
    assert "Лиса[/b]" not in paper.split("[b]Ночь[/b]")[1].split("[b]Живы")[0]
    # the [code] layout: columns aligned
    code = paper.split("[code]\n")[1].split("\n[/code]")[0].splitlines()
    assert code[0].startswith("Кандидат")
    col = code[0].index("Голоса")
    assert all(ln[col].isdigit() for ln in code[1:] if ln.strip() and not ln.startswith(" "))
    report = files_of("random-tie")["host-report.txt"]
    assert "по случайному списку: ничья: Вася, Лиса" in report
    assert "курсор 3 → 4" in report


def test_freeze_is_published_and_secret_when_the_option_says_so():
    """R5.4: the newspaper names the frozen player unless freeze_public is false."""
    from dataclasses import replace
    r = scenario("freeze")
    paper = render_day(r)["newspaper.bbcode"]
    assert "[*]Заморозка: [b]doc_Holiday[/b] — ночной ход не засчитывается" in paper
    assert "[table]" in paper and "[tr][td]Кот[/td][td]4[/td]" in paper
    assert "срок перенесён ведущим со вторника, 19 марта, 20:00 МСК" in paper
    secret = replace(r, options=replace(r.options, freeze_public=False))
    files = render_day(secret)
    assert "doc_Holiday[/b]:" not in files["newspaper.bbcode"]
    assert "Заморозка" not in files["newspaper.bbcode"]
    assert "Заморозка" not in files["day-start.bbcode"]
    assert "тайная" in files["host-report.txt"]
    # R5.4 option: secret, telling only the frozen player
    assert "Вас заморозил Босс" in files["pm/doc_Holiday.txt"]
    assert "doc_Holiday: заморозка" in files["host-report.txt"]


def test_vsb_miss_reads_as_no_kill_everywhere_but_the_host_report():
    """R5.2: a shot at the ВСБ is reported only as "the mafia killed no one"."""
    files = files_of("vsb-miss")
    assert "ВСБ" not in files["newspaper.bbcode"]
    assert "внебрачный" not in files["newspaper.bbcode"]
    assert "Этой ночью никто не погиб" in files["newspaper.bbcode"]
    for nick in ("Вася", "Big Joe", "Кот"):
        news = files[f"pm/{nick}.txt"]
        assert "Этой ночью мафия никого не убила." in news
        assert "ВСБ" not in news
    assert "Мафия стреляла в ВСБ" in files["host-report.txt"]
    assert "Ни одного засчитанного голоса. По случайному списку" in files["newspaper.bbcode"]
    assert "Срок этого дня перенесён ведущим с воскресенья, 17 марта, 20:00 МСК." \
        in files["newspaper.bbcode"]


def test_vsb_protection_can_be_announced():
    from dataclasses import replace
    r = scenario("vsb-miss")
    paper = render_day(replace(r, options=replace(r.options, announce_vsb_protection=True))
                       )["newspaper.bbcode"]
    assert "внебрачный сын Босса" in paper and "Игрок-7[/b]" not in paper


def test_promotion_check_goes_to_both_and_sergeant_is_promoted():
    """R5.5/R6.4/R6.5: the dead Commissar's check reaches him and the Sergeant."""
    files = files_of("promotion")
    assert "Кот — мафия." in files["pm/Ёжик в тумане.txt"]
    sergeant = files["pm/NightOwl.txt"]
    assert "Кот — мафия." in sergeant and "Теперь Комиссар — вы" in sergeant
    assert "Сержант" not in files["newspaper.bbcode"]  # the promotion stays secret


def test_victories_reveal_roles_and_the_random_list():
    """R7 and R3.1: the winner, every role, the random list and its salt at the end."""
    town = files_of("town-wins")["newspaper.bbcode"]
    assert "Игра окончена: победил город!" in town
    assert "[list=1]\n[*]Лиса\n[*]Игрок-7" in town
    assert "Соль: [code]4f1c0a9e2b7d[/code]" in town
    assert "[*]Игрок-7 — ВСБ (в живых)" in town
    assert "победила мафия" in files_of("mafia-wins")["newspaper.bbcode"]
    maniac = files_of("maniac-wins", "en")["newspaper.bbcode"]
    assert "Game over: the Maniac wins!" in maniac
    assert "Salt:" not in maniac  # none recorded: nothing invented
    assert "game over" in files_of("maniac-wins", "en")["day-start.bbcode"]


def test_the_revealed_random_list_hashes_to_the_commitment():
    """R3.1: players can copy the [code] block and check its SHA-256."""
    import hashlib
    for lang in ("ru", "en"):
        paper = files_of("town-wins", lang)["newspaper.bbcode"]
        published = scenario("town-wins").reveal.commitment
        block = paper.split("[code]scraper-mod random list v1")[1].split("[/code]")[0]
        text = "scraper-mod random list v1" + block
        assert hashlib.sha256(text.encode("utf-8")).hexdigest() == published
        assert f"[code]{published}[/code]" in paper


def test_r9_2_day_start_post_opens_the_next_day():
    """R9.2: the start-of-day post for the main topic: the new day's number, yesterday's
    jailed and dead with roles, the alive list, how to vote and the deadline (a moved one is
    said, R1.4), the frozen player's void vote (R5.4) and the last-word window (R8.1)."""
    text = files_of("freeze", "ru")["day-start.bbcode"]
    assert "день 4" in text and "[b]Живы (5):[/b]" in text
    assert "[color=red]Ник[/color]" in text and "среды, 20 марта, 20:00 МСК" in text
    assert "срок перенесён" in text
    assert "Заморозка: [b]doc_Holiday[/b] — голос в день 4 не засчитывается" in text
    assert "[b]Последнее слово[/b]" in text


def test_issue_27_texts_a_host_would_correct():
    """Issue 27 item 6: vote times in the host report carry their date (a merged weekend day
    spans two dates); a move reads «убийство — Лиса: …» as the newspaper writes it; «все
    проголосовали» never stands beside a frozen vote that did not count; the day start of a
    weekend day does not say «сегодня»."""
    from dataclasses import replace
    weekend = render_day(scenario("random-tie"))["host-report.txt"]
    assert "Лиса (16.03 21:30:00, #60), Ёжик в тумане (17.03 11:02:00, #71)" in weekend
    report = render_day(scenario("freeze"))
    assert "убийство — Лиса: засчитано" in report["host-report.txt"]
    assert "сегодня" not in report["day-start.bbcode"]
    every = replace(scenario("freeze"), not_voting=())          # the frozen voted, all did
    files = render_day(every)
    paper, host = files["newspaper.bbcode"], files["host-report.txt"]
    assert "Проголосовали все" not in paper and "Проголосовали все" not in host
    assert ("Заморозка: голос игрока Игрок-7 в этот день не засчитывался; проголосовали все "
            "остальные.") in paper
    assert ("Заморозка в этот день (голос не считается): Игрок-7; проголосовали все "
            "остальные\n\n== Не засчитано") in host
