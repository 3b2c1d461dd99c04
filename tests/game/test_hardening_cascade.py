"""Issue 26, "Also": a crash in the middle of a cascade re-resolve never leaves a later day
resolved from the old state. The game of tests/game/test_resolve.py: day 2 is resolved with
Маша dead; a heal found late saves her on day 1; the process dies while day 2 is being
resolved again. The next start (``finish_cascade``, which ``run`` and ``resolve`` call
first) resolves day 2 again from day 1's new state."""

from __future__ import annotations

import json

import pytest
from test_resolve import PLAYERS, board, clock, ctx_at, game, mail, msk  # noqa: F401

from scraper_mod.game.context import open_game
from scraper_mod.game.results import resolve as resolving
from scraper_mod.game.results.resolve import finish_cascade, resolve_day_files


class Crash(Exception):
    pass


def test_a_cascade_cut_short_is_finished_on_the_next_start(game, clock, board, monkeypatch):
    folder, _ = game
    ctx = ctx_at(folder, clock, msk(9, 20, 5))
    resolve_day_files(ctx, 1)
    for voter, at in (("Петя", msk(10, 10, 0)), ("Ирина", msk(10, 11, 0)),
                      ("Таня", msk(10, 12, 0))):
        uid = next(u for n, _, u, _ in PLAYERS if n == voter)
        board.add_post(voter, uid, "[color=blue]Игорь[/color]", at, topic=2)
    mail(folder, "m4", "vasya@example.org", "убить Ирина", msk(10, 9, 0))
    clock.set(msk(10, 20, 5))
    resolve_day_files(ctx, 2)
    assert "Маша" not in json.loads((folder / "out" / "day-2" / "result.json").read_text())[
        "alive"]

    mail(folder, "m5", "irina@example.org", "лечить Маша", msk(9, 15, 0))
    clock.set(msk(10, 20, 30))
    real = resolving.resolve_day_files

    def dies_in_the_cascade(ctx, day=None, **kw):
        if kw.get("cascade") is False:
            raise Crash()          # kill -9 while day 2 is being resolved again
        return real(ctx, day, **kw)
    monkeypatch.setattr(resolving, "resolve_day_files", dies_in_the_cascade)
    with pytest.raises(Crash):
        resolving.resolve_day_files(ctx, 1)
    monkeypatch.setattr(resolving, "resolve_day_files", real)
    ctx.close()
    stale = json.loads((folder / "out" / "day-2" / "result.json").read_text())
    assert "Маша" not in stale["alive"]          # day 2 still from the old state ...

    ctx = open_game(folder, clock=clock)          # ... until the next start
    try:
        assert finish_cascade(ctx) == (2,)
        after = json.loads((folder / "out" / "day-2" / "result.json").read_text())
        assert "Маша" in after["alive"]
        assert ctx.store.resolution(2)["state"]["commissar"] == "Маша"
        assert finish_cascade(ctx) == ()           # done once
    finally:
        ctx.close()
