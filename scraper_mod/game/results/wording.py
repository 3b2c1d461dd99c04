"""The wording the templates use, handed to them as ``fmt``: Russian and English dates,
weekdays, plurals, time zones and check results, and the width of text as shown in a
``[code]`` block.
"""

from __future__ import annotations

from datetime import datetime
from typing import Iterable
from zoneinfo import ZoneInfo

from scraper_mod.posts.plural import plural_ru
from scraper_mod.posts.render import ZWSP, bbcode_inert
from scraper_mod.rules.model import ROLE_NAMES, Role

_RU_MONTHS = ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа",
              "сентября", "октября", "ноября", "декабря")
_RU_WEEKDAYS = ("понедельник", "вторник", "среда", "четверг", "пятница", "суббота",
                "воскресенье")
_RU_WEEKDAYS_GEN = ("понедельника", "вторника", "среды", "четверга", "пятницы", "субботы",
                    "воскресенья")
_EN_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
              "September", "October", "November", "December")
_EN_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_RU_TZ = {"MSK": "МСК"}

_CHECK_RESULTS = {
    "ru": {"mafia": "мафия", "not_mafia": "не мафия"},
    "en": {"mafia": "mafia", "not_mafia": "not mafia"},
}


def visible_len(s: str) -> int:
    """Length as a reader sees it: zero-width spaces (from ``bb``) take no column."""
    return len(s) - s.count(ZWSP)


def pad_visible(s: str, width: int) -> str:
    """``s`` padded with spaces to ``width`` visible columns."""
    return s + " " * max(0, width - visible_len(s))


class Formatter:
    """Dates, times, plurals and role names in the post's language and the game's zone.

    Templates call it as ``fmt``: ``{{ fmt.when(next_deadline) }}``,
    ``{{ fmt.plural(n, "голос", "голоса", "голосов") }}``, ``{{ fmt.role(player.role) }}``.
    """

    def __init__(self, lang: str, tz: ZoneInfo, *, binary_checks: bool = False) -> None:
        self.lang = lang
        self.tz = tz
        self.binary_checks = binary_checks

    def local(self, t: datetime) -> datetime:
        return t.astimezone(self.tz)

    def zone(self, t: datetime) -> str:
        """The zone's short name: "МСК" in Russian posts for Moscow time."""
        name = self.local(t).tzname() or ""
        if self.lang == "ru":
            return _RU_TZ.get(name, name)
        return name

    def time(self, t: datetime) -> str:
        return self.local(t).strftime("%H:%M")

    def time_s(self, t: datetime) -> str:
        return self.local(t).strftime("%H:%M:%S")

    def date(self, t: datetime) -> str:
        """"воскресенье, 17 марта" / "Sunday, 17 March"."""
        d = self.local(t)
        if self.lang == "ru":
            return f"{_RU_WEEKDAYS[d.weekday()]}, {d.day} {_RU_MONTHS[d.month - 1]}"
        return f"{_EN_WEEKDAYS[d.weekday()]}, {d.day} {_EN_MONTHS[d.month - 1]}"

    def long_date(self, t: datetime) -> str:
        d = self.local(t)
        return f"{self.date(t)} {d.year}"

    def when(self, t: datetime) -> str:
        """An instant after «до»/«с» (R9.6): "воскресенья, 17 марта, 20:00 МСК" (the weekday
        in the genitive); "Sunday, 17 March, 20:00 MSK"."""
        d = self.local(t)
        if self.lang == "ru":
            day = f"{_RU_WEEKDAYS_GEN[d.weekday()]}, {d.day} {_RU_MONTHS[d.month - 1]}"
        else:
            day = self.date(t)
        return f"{day}, {self.time(t)} {self.zone(t)}"

    def vote_time(self, t: datetime, ref: datetime) -> str:
        """A vote's time: "19:47", with the date ("14.03 21:30") when not on ``ref``'s date."""
        a, b = self.local(t), self.local(ref)
        if a.date() == b.date():
            return a.strftime("%H:%M")
        return a.strftime("%d.%m %H:%M")

    def day_time(self, t: datetime) -> str:
        """A vote's time in the host report, with its date: "16.03 17:08:03" (a merged
        weekend day spans two dates, so the time alone reads out of order)."""
        return self.local(t).strftime("%d.%m %H:%M:%S")

    def stamp(self, t: datetime | None) -> str:
        """A full instant for the host report: "2024-03-15 19:59:58 МСК"."""
        if t is None:
            return "—"
        return f"{self.local(t).strftime('%Y-%m-%d %H:%M:%S')} {self.zone(t)}"

    def plural(self, n: int, one: str, few: str, many: str | None = None) -> str:
        """``n`` and the right noun form: Russian one/few/many, English one/other."""
        if self.lang != "ru" or many is None:
            return f"{n} {one if n == 1 else few}"
        return plural_ru(n, one, few, many)

    def role(self, role: Role | str | None) -> str:
        if role is None:
            return "?"
        return ROLE_NAMES[self.lang][Role(role)]

    def check_result(self, result: str) -> str:
        """A check's result as shown: an exact role (the ВСБ shows as civilian) or mafia/not."""
        table = _CHECK_RESULTS[self.lang]
        if self.binary_checks and result in table:
            return table[result]
        try:
            return ROLE_NAMES[self.lang][Role(result)]
        except ValueError:
            return result

    def nicks(self, names: Iterable[str], empty: str = "—") -> str:
        """Comma-separated, BBCode-inert nicks."""
        out = ", ".join(bbcode_inert(n) for n in names)
        return out or empty

    def pad(self, s: str, width: int) -> str:
        return pad_visible(s, width)
