"""QA: out/ belongs to the host too. Resolving a day again rewrites its posts, but a file the
host put in out/day-N/ himself is kept, and a file where the day's folder goes is refused."""

from __future__ import annotations

from qa_game import copy_game, read_topic

from scraper_mod.cli import main
from scraper_mod.game.publishing.outdir import write_day_files

POSTS = {"newspaper.bbcode": "[b]День 1[/b]\n", "day-start.bbcode": "День 2\n",
         "host-report.txt": "отчёт\n", "result.json": "{}\n"}


def tree(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_resolving_again_keeps_the_hosts_own_files(tmp_path, capsys):
    game = copy_game(tmp_path)
    read_topic(game)
    assert main(["resolve", str(game), "--offline", "--day", "1"]) == 0
    day = game / "out" / "day-1"
    first = tree(day)
    assert "newspaper.bbcode" in first
    (day / "заметки ведущего.txt").write_text("Вася просил перенести дедлайн\n", encoding="utf-8")
    (day / "drafts").mkdir()
    (day / "drafts" / "newspaper-edited.bbcode").write_text("[b]правка[/b]\n", encoding="utf-8")
    assert main(["resolve", str(game), "--offline", "--day", "1"]) == 0
    capsys.readouterr()
    second = tree(day)
    assert second.pop("заметки ведущего.txt").decode() == "Вася просил перенести дедлайн\n"
    assert second.pop("drafts/newspaper-edited.bbcode").decode() == "[b]правка[/b]\n"
    assert second == first          # the posts themselves: byte for byte the same


def test_files_resolving_wrote_before_do_not_linger(tmp_path):
    """A private message that is no longer sent (a corrected day) must not stay behind."""
    out = tmp_path / "out"
    write_day_files(out, 3, {**POSTS, "pm/Вася.txt": "проверка\n", "preview/index.html": "<p>"})
    (out / "day-3" / "мои.txt").write_text("моё\n", encoding="utf-8")
    write_day_files(out, 3, {**POSTS, "pm/Маша.txt": "ход принят\n"})
    assert set(tree(out / "day-3")) == {*POSTS, "pm/Маша.txt", "мои.txt"}


def test_a_file_where_the_day_folder_goes_is_refused(tmp_path, capsys):
    game = copy_game(tmp_path)
    read_topic(game)
    (game / "out").mkdir()
    (game / "out" / "day-1").write_text("заметки\n", encoding="utf-8")
    code = main(["resolve", str(game), "--offline", "--day", "1"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: ") and err.count("\n") == 1
    assert f"{game / 'out' / 'day-1'}: day-1 is a file" in err and "move that file away" in err
    assert (game / "out" / "day-1").read_text(encoding="utf-8") == "заметки\n"
    assert [p.name for p in (game / "out").iterdir()] == ["day-1"]


def test_a_very_long_nick_still_gets_its_files(tmp_path, capsys):
    """A 200-letter Cyrillic nick is 400 bytes: over the 255 bytes a file name may have."""
    from qa_game import edit
    game = copy_game(tmp_path)
    nick = "Ж" * 200
    edit(game, 'nick = "Вася"', f'nick = "{nick}"')
    edit(game, '"doc_Holiday", "Вася"', f'"doc_Holiday", "{nick}"')
    edit(game, "start = 2024-04-08", "start = 2030-04-08")
    assert main(["deal", str(game)]) == 0
    edit(game, "start = 2030-04-08", "start = 2024-04-08")
    assert main(["resolve", str(game), "--offline", "--day", "1", "--force"]) == 0
    capsys.readouterr()
    names = [p.name for p in (game / "out").rglob("Ж*")]
    assert len(names) == 2            # his role card and his day-1 message (the boss's)
    assert all(len(n.encode("utf-8")) <= 255 and n.endswith(".txt") for n in names)
