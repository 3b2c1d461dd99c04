"""The forum's statistics in words: a text for the terminal, a BBCode post for the board (a
table of the top players, the sides' record, the roles' record), in Russian or English."""

from __future__ import annotations

from scraper_mod.game.results.report import code_inert

from ...rules.model import ROLE_NAMES
from .shape import SIDES_RU
from .stats import Stats

__all__ = ["stats_text", "stats_bbcode", "role_name", "side_name"]

_MORE_ROLES = {
    "ru": {"putana": "Путана", "bodyguard": "Телохранитель", "lawyer": "Адвокат",
           "journalist": "Журналист", "sheriff": "Шериф", "immortal": "Бессмертный",
           "mayor": "Мэр", "judge": "Судья", "kamikaze": "Камикадзе"},
    "en": {"putana": "Putana", "bodyguard": "Bodyguard", "lawyer": "Lawyer",
           "journalist": "Journalist", "sheriff": "Sheriff", "immortal": "Immortal",
           "mayor": "Mayor", "judge": "Judge", "kamikaze": "Kamikaze"},
}
_SIDES = {"ru": SIDES_RU,
          "en": {"town": "town", "mafia": "mafia", "maniac": "maniac"}}
_WORDS = {
    "ru": {"title": "Статистика форума", "games": "Партий", "players": "Игроки",
           "nick": "Игрок", "g": "игр", "w": "побед", "pct": "%", "rating": "рейтинг",
           "days": "дней", "hits": "в мафию", "sides": "Стороны", "side": "сторона",
           "roles": "Роли", "role": "роль", "setups": "Расклады", "setup": "расклад",
           "top": "Лучшие игроки", "none": "записей партий нет"},
    "en": {"title": "The forum's statistics", "games": "Games", "players": "Players",
           "nick": "Player", "g": "games", "w": "wins", "pct": "%", "rating": "rating",
           "days": "days", "hits": "on mafia", "sides": "Sides", "side": "side",
           "roles": "Roles", "role": "role", "setups": "Setups", "setup": "setup",
           "top": "The top players", "none": "no game records"},
}


def _lang(lang: str) -> str:
    return lang if lang in _WORDS else "en"


def role_name(role: str, lang: str) -> str:
    lang = _lang(lang)
    names = {r.value: n for r, n in ROLE_NAMES[lang].items()}
    return names.get(role) or _MORE_ROLES[lang].get(role, role)


def side_name(side: str, lang: str) -> str:
    return _SIDES[_lang(lang)].get(side, side)


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "–"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]

    def line(cells: list[str]) -> str:
        return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [line(header), *(line(r) for r in rows)]


def _player_rows(stats: Stats, limit: int | None) -> list[list[str]]:
    rows = []
    for i, p in enumerate(stats.players[:limit], start=1):
        hits, votes = p["votes_on_mafia"]
        rows.append([f"{i}. {p['nick']}", str(p["games"]), str(p["wins"]),
                     _pct(p["wins"], p["games"]), f"{p['rating']:.1f}",
                     str(p["days_survived"]), _pct(hits, votes)])
    return rows


def _sections(stats: Stats, lang: str, limit: int | None) -> list[tuple[str, list[str]]]:
    w = _WORDS[lang]
    players = _table([w["nick"], w["g"], w["w"], w["pct"], w["rating"], w["days"], w["hits"]],
                     _player_rows(stats, limit))
    sides = _table([w["side"], w["g"], w["w"], w["pct"]],
                   [[side_name(s, lang), str(g), str(n), _pct(n, g)]
                    for s, (g, n) in stats.sides.items()])
    roles = _table([w["role"], w["g"], w["w"], w["pct"]],
                   [[role_name(r["role"], lang), str(r["games"]), str(r["wins"]),
                     _pct(r["wins"], r["games"])] for r in stats.roles])
    setups = _table([w["setup"], w["g"], *(side_name(s, lang) for s in stats.sides)],
                    [[r["setup"], str(r["games"]),
                      *(str(r["wins"].get(s, 0)) for s in stats.sides)]
                     for r in stats.setups])
    return [(w["top"] if limit else w["players"], players), (w["sides"], sides),
            (w["roles"], roles), (w["setups"], setups)]


def stats_text(stats: Stats, lang: str = "ru") -> str:
    """The statistics for the terminal."""
    lang = _lang(lang)
    w = _WORDS[lang]
    if not stats.games:
        return f"{w['title']}: {w['none']}\n"
    out = [f"{w['title']}: {w['games'].lower()} {stats.games}", ""]
    for head, lines in _sections(stats, lang, None):
        out += [head, *lines, ""]
    return "\n".join(out)


def stats_bbcode(stats: Stats, lang: str = "ru", *, top: int = 20) -> str:
    """A post for the board: the top ``top`` players, the sides' and the roles' record (each
    table in [code], so every board lines its columns up)."""
    lang = _lang(lang)
    w = _WORDS[lang]
    if not stats.games:
        return f"[b]{w['title']}[/b]: {w['none']}\n"
    out = [f"[size=150][b]{w['title']}[/b][/size]", f"{w['games']}: [b]{stats.games}[/b]", ""]
    for head, lines in _sections(stats, lang, top)[:3]:
        body = "\n".join(code_inert(line) for line in lines)   # a nick cannot close [code]
        out += [f"[b]{head}[/b]", f"[code]{body}[/code]", ""]
    return "\n".join(out)
