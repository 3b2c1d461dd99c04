"""Every nick's file is its own (issue 26, item 3): ``out/role-cards/<nick>.txt`` and
``out/day-N/pm/<nick>.txt`` of two players never meet, on a case-blind file system either."""

from __future__ import annotations

from scraper_mod.errors import ConfigError
from scraper_mod.rules.deal import safe_filename


def check_file_names(nicks: list[str], where: str) -> None:
    """Item 3 of issue 26: every nick's file (``out/role-cards/``, ``out/day-N/pm/``) is its
    own, on a case-blind file system too; two nicks that would share one are refused, naming
    both (``where``: what holds them)."""
    seen: dict[str, str] = {}
    for nick in nicks:
        key = safe_filename(nick).casefold()
        if key in seen and seen[key] != nick:
            raise ConfigError(f"the nicks {seen[key]!r} and {nick!r} would share the file "
                              f"{safe_filename(nick)}.txt (role cards, private messages)",
                              path=where, hint="rename one of them")
        seen.setdefault(key, nick)
