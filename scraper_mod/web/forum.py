"""The forum's page of ``serve FOLDER`` (``/forum``, docs/memory.md): the games (finished and
running, each game ``serve`` shows linking to its page; older games' records listed), and the
players' table from every record under the folder, sorted by rating, games or wins
(``?sort=``, done on the server: no script needed), each row with a small chart of the
player's rating over his games, drawn as inline SVG.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from flask import Flask, render_template, request

from ..errors import ScraperModError
from ..game.history.record import finished_day
from ..game.history.stats import Stats, forum_stats, load_aliases, records_under
from ..game.history.statstext import role_name, side_name
from ..game.russian import error_in, game_language

__all__ = ["register_forum", "rating_svg", "SORTS"]

SORTS = ("rating", "games", "wins")

WORDS: dict[str, dict[str, str]] = {
    "forum": {"ru": "Форум", "en": "The forum"},
    "games": {"ru": "Игры", "en": "Games"},
    "players": {"ru": "Игроки", "en": "Players"},
    "player": {"ru": "Игрок", "en": "Player"},
    "rating": {"ru": "Рейтинг", "en": "Rating"},
    "n_games": {"ru": "Игр", "en": "Games"},
    "wins": {"ru": "Побед", "en": "Wins"},
    "pct": {"ru": "% побед", "en": "Win %"},
    "chart": {"ru": "График", "en": "Chart"},
    "chart_title": {"ru": "Рейтинг после каждой игры", "en": "The rating after each game"},
    "running": {"ru": "идёт, день {day}", "en": "running, day {day}"},
    "won": {"ru": "победа: {side}, день {day}", "en": "{side} won on day {day}"},
    "older": {"ru": "записана ведущим", "en": "written down by the host"},
    "no_records": {"ru": "Записей законченных игр пока нет.",
                   "en": "No finished game's record yet."},
    "sides": {"ru": "Стороны", "en": "Sides"},
    "roles": {"ru": "Роли", "en": "Roles"},
    "sort_by": {"ru": "Сортировка", "en": "Sorted by"},
    "to_games": {"ru": "все игры", "en": "every game"},
}


def fword(key: str, lang: str, **fields: object) -> str:
    text = WORDS[key].get(lang) or WORDS[key]["en"]
    return text.format(**fields) if fields else text


@dataclass
class GameRow:
    title: str
    name: str | None          # a game ``serve`` shows: its page's NAME
    start: str
    status: str
    finished: bool


def rating_svg(points: list[float], *, width: int = 120, height: int = 28) -> str:
    """A player's rating after each of his games as a small line (a dot for one game)."""
    if not points:
        return ""
    lo, hi = min(points), max(points)
    span = (hi - lo) or 1.0
    step = (width - 6) / max(len(points) - 1, 1)
    xy = [(3 + i * step, height - 3 - (p - lo) / span * (height - 6)) for i, p in
          enumerate(points)]
    if len(points) == 1:                  # one game: a dot in the middle
        xy = [(width / 2, height / 2)]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
    last = xy[-1]
    title = escape(" → ".join(f"{p:.1f}" for p in points[-8:]))
    return (f'<svg class="spark" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img"><title>{title}</title>'
            f'<polyline fill="none" stroke="#1f5fa8" stroke-width="1.5" points="{line}"/>'
            f'<circle cx="{last[0]:.1f}" cy="{last[1]:.1f}" r="2.6" fill="#1f5fa8"/></svg>')


def _game_rows(games: Any, found: list[tuple[Path, dict[str, Any]]], lang: str
               ) -> list[GameRow]:
    rows: list[GameRow] = []
    shown = set()
    for name, path in sorted(games.paths().items()):
        shown.add(Path(path).resolve())
        try:
            ctx = games.get(path)
            title = ctx.game.title
            resolutions = ctx.store.resolutions()
            last = finished_day(resolutions)
            start = ctx.calendar().day_start(1).date().isoformat()
        except ScraperModError as e:
            rows.append(GameRow(name, name, "", error_in(e, game_language(path) or "ru"),
                                False))
            continue
        if last is not None:
            winner = resolutions[last]["winner"]
            status = fword("won", lang, side=side_name(winner, lang), day=last)
        else:
            status = fword("running", lang, day=max(resolutions, default=0) + 1)
        rows.append(GameRow(title, name, start, status, last is not None))
    for folder, rec in found:
        if folder.resolve() in shown:
            continue
        status = fword("won", lang, side=side_name(rec["winner"], lang),
                       day=rec.get("decided_day", "?"))
        if rec.get("source") == "host":
            status += f" · {fword('older', lang)}"
        rows.append(GameRow(str(rec.get("title", "")), None, str(rec.get("start", "")),
                            status, True))
    rows.sort(key=lambda r: (r.finished, r.start), reverse=True)
    rows.sort(key=lambda r: r.finished)            # the running games first
    return rows


def _sorted(stats: Stats, sort: str) -> list[dict[str, Any]]:
    if sort == "rating":
        return stats.players
    return sorted(stats.players, key=lambda p: (-p[sort], -p["rating"], p["nick"]))


def register_forum(app: Flask, games: Any) -> None:
    """``GET /forum`` on ``app``; ``games`` is the app's ``OpenGames``."""

    @app.get("/forum")
    def forum():
        root = Path(games.target)
        root = root.parent if root.is_file() else root
        found = records_under(root)
        records = [rec for _, rec in found]
        langs = Counter(str(r.get("language", "ru")) for r in records)
        lang = request.args.get("lang") or (langs.most_common(1)[0][0] if langs else "ru")
        lang = lang if lang in ("ru", "en") else "ru"
        sort = request.args.get("sort", "rating")
        sort = sort if sort in SORTS else "rating"
        stats = forum_stats(records, load_aliases(root))
        players = _sorted(stats, sort)
        charts = {p["nick"]: rating_svg([h[2] for h in stats.history.get(p["nick"], [])])
                  for p in players}
        return render_template("forum.html", lang=lang, fword=fword, sort=sort, sorts=SORTS,
                               games=_game_rows(games, found, lang), stats=stats,
                               players=players, charts=charts, role_name=role_name,
                               side_name=side_name)

