"""Every game under a folder at a glance: ``scraper-mod status FOLDER --format json`` and the
host's page's games list read it (CONTRACT "Many games", "The host's page")."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from scraper_mod.game.setup.config import load_game

from ..errors import ScraperModError
from ..game.context import GameContext, open_game
from ..game.russian import error_in, game_language
from .many import find_games
from .status import game_status

PROBLEM_WINDOW = timedelta(minutes=15)   # errors older than this are not a problem now


def error_text(data: dict, lang: str = "en") -> str:
    """An error event's message in ``lang`` (the daemon keeps a Russian one beside the
    English where it has one)."""
    return (data.get("ru") if lang == "ru" else None) or data.get("message", "")


def recent_errors(ctx: GameContext, since: datetime, *, limit: int = 3,
                  lang: str = "en") -> list[str]:
    """The daemon's distinct error messages logged since ``since``, newest first."""
    errors: list[str] = []
    for at, _, data in ctx.store.events("error"):
        msg = error_text(data, lang)
        if at >= since and msg and msg not in errors:
            errors.append(msg)
    return errors[-limit:][::-1]


def folder_status(folder: Path, *, localized: bool = False) -> dict:
    """Every game under ``folder``: its status (``status GAME --format json``) and problems.
    ``localized`` (the text of ``status FOLDER``): each game also says its ``language`` and
    its problems are in it (issue 39 item 4: a Russian game's are Russian)."""
    now = datetime.now(timezone.utc)
    games = []
    for path in find_games(folder):
        entry: dict = {"name": path.name, "folder": str(path)}
        lang = (game_language(path) or "ru") if localized else "en"
        if localized:
            entry["language"] = lang
        try:
            load_game(path)
            ctx = open_game(path, readonly=True)     # status only reads (issue 18 item 8)
        except ScraperModError as e:
            entry.update(ok=False, problems=[error_in(e, lang)])
            games.append(entry)
            continue
        try:
            st = game_status(ctx)
            entry.update(st.to_json())
            if localized:
                entry.update(timezone=st.timezone, tally_note_ru=st.tally_note_ru)
            since = now - PROBLEM_WINDOW
            entry["problems"] = recent_errors(ctx, since, lang=lang)
            entry["ok"] = not entry["problems"]
        except ScraperModError as e:
            entry.update(ok=False, problems=[error_in(e, lang)])
        finally:
            ctx.close()
        games.append(entry)
    return {"folder": str(folder), "now": now.isoformat(), "games": games}
