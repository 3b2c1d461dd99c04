"""What a new host met in the alert PMs (issue 39 item 5): a Russian game's alert is Russian
only (the English detail goes to run.log), links to the post by its full address, and its
command names the real game folder and post number, never «ИГРА» or «НОМЕР_ПОСТА»; on LocalBoard
with the daemon on a simulated clock (the world of tests/daemon/test_daytime.py)."""

from __future__ import annotations

import re

from test_daytime import REFEREE, pms_to, run, world, write_game  # noqa: F401 (a fixture)
from test_schedule_live import msk, vote


def test_an_unreadable_vote_in_the_last_hour_is_a_russian_pm_with_a_full_link(world):
    clock, board, t, folder = world
    write_game(folder, board, t, 'alert_host = "pm"')
    clock.schedule(msk(14, 19, 10),
                   lambda: board.add_post("Маша", 303, "[color=red]Петя[/color] и "
                                          "[color=red]Колю[/color]", msk(14, 19, 10), topic=t))
    run(folder, clock, msk(14, 19, 30))
    [(subject, text)] = pms_to(board, REFEREE[1])
    assert subject.startswith("Дневная проверка: нужен ведущий")
    pid = max(p.post_id for p in board.topics[t].posts)
    assert f"пост {pid} (Маша)" in text and "в одном посте цветом названы два разных игрока" \
        in text
    link = re.search(r"Где: (\S+)", text)
    assert link and link[1].startswith(board.url) and f"p={pid}" in link[1]
    assert "ИГРА" not in text and "НОМЕР_ПОСТА" not in text
    assert f"scraper-mod decide {folder.resolve()} vote {pid} none" in text
    # no English word but the command's, the keys and the addresses
    rest = re.sub(r"scraper-mod decide \S+ vote \d+( none)?|--why|https?://\S+|\S*/\S*|"
                  r"run\.log", " ", text)
    assert re.findall(r"[A-Za-z]{2,}", rest) == [], rest


_ = vote
