"""Issue 18 item 11: a wall time that does not exist (skipped when the clocks go forward) or
exists twice (when they go back) is no deadline. Europe/Berlin, 2025: the clocks go from
02:00 to 03:00 on 30 March and from 03:00 back to 02:00 on 26 October. `day move` and a
``[[days]] deadline`` in game.toml refuse the first and ask for an offset for the second."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from qa_game import FIXTURE, edit

from scraper_mod.cli import main
from scraper_mod.errors import RulesError
from scraper_mod.rules.calendar import wall_time
from scraper_mod.store import Store

BERLIN = ZoneInfo("Europe/Berlin")


def test_wall_time_of_a_plain_day_an_offset_a_gap_and_a_fold():
    assert wall_time(datetime(2025, 3, 29, 2, 30), BERLIN).isoformat() == \
        "2025-03-29T02:30:00+01:00"
    given = datetime.fromisoformat("2025-10-26T02:30:00+01:00")
    assert wall_time(given, BERLIN) is given
    with pytest.raises(RulesError) as gap:
        wall_time(datetime(2025, 3, 30, 2, 30), BERLIN)
    assert str(gap.value) == ("2025-03-30T02:30 does not exist in Europe/Berlin: the clocks go "
                              "forward that night and skip it (give a time outside the skipped "
                              "hour, e.g. 2025-03-30T03:30)")
    with pytest.raises(RulesError) as fold:
        wall_time(datetime(2025, 10, 26, 2, 30), BERLIN)
    assert str(fold.value) == ("2025-10-26T02:30 happens twice in Europe/Berlin: the clocks go "
                               "back that night (add its offset: 2025-10-26T02:30+02:00 (the "
                               "first time) or 2025-10-26T02:30+01:00 (the second))")
    # the hours around the changes are plain
    for t in (datetime(2025, 3, 30, 1, 59), datetime(2025, 3, 30, 3, 0),
              datetime(2025, 10, 26, 1, 59), datetime(2025, 10, 26, 3, 0)):
        assert wall_time(t, BERLIN).replace(tzinfo=None) == t


def berlin(tmp_path: Path, start: str) -> Path:
    """The day-1 game moved to Berlin, starting on a Monday: day 5 runs from Friday 21:00 to
    Sunday 20:00 (Saturday merged, R1.3), over the night the clocks change."""
    import shutil
    folder = tmp_path / f"berlin-{start}"
    shutil.copytree(FIXTURE, folder)
    edit(folder, 'timezone = "Europe/Moscow"', 'timezone = "Europe/Berlin"')
    edit(folder, "start = 2024-04-08", f"start = {start}")
    return folder


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_day_move_refuses_a_skipped_time_and_asks_for_the_offset_of_a_doubled_one(tmp_path,
                                                                                  capsys):
    game = berlin(tmp_path, "2025-03-24")
    code, out, err = run(capsys, "day", "move", game, "5", "2025-03-30T02:30")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith("error: TIME: 2025-03-30T02:30 does not exist in Europe/Berlin")
    assert "e.g. 2025-03-30T03:30" in err
    code, out, err = run(capsys, "day", "move", game, "5", "2025-03-30T03:30", "--force")
    assert code == 0 and "-> Sun 2025-03-30 03:30:00 CEST" in out, err
    game = berlin(tmp_path, "2025-10-20")
    code, out, err = run(capsys, "day", "move", game, "5", "2025-10-26T02:30")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "2025-10-26T02:30 happens twice in Europe/Berlin" in err
    assert "2025-10-26T02:30+02:00 (the first time) or 2025-10-26T02:30+01:00" in err
    with Store(game / "state.sqlite3") as s:                           # nothing moved
        assert not s.get("moved_deadlines")
    code, out, err = run(capsys, "day", "move", game, "5", "2025-10-26T02:30+01:00", "--force")
    assert code == 0 and "-> Sun 2025-10-26 02:30:00 CET" in out, err


@pytest.mark.parametrize("when, words", [   # a Russian game: Russian only (issue 39 item 4)
    ("2025-03-30T02:30:00", "не существует в Europe/Berlin"),
    ("2025-10-26T02:30:00", "2025-10-26T02:30+02:00 — первое, 2025-10-26T02:30+01:00 — второе"),
])
def test_game_toml_refuses_a_deadline_skipped_or_doubled(tmp_path, capsys, when, words):
    game = berlin(tmp_path, when[:8] + ("24" if when.startswith("2025-03") else "20"))
    with open(game / "game.toml", "a", encoding="utf-8") as f:
        f.write(f"\n[[days]]\nnumber = 5\ndeadline = {when}\n")
    code, out, err = run(capsys, "day", "list", game)
    assert code == 1 and err.count("\n") == 1
    assert "game.toml: days[2].deadline: " in err and words in err
