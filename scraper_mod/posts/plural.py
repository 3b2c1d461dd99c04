"""The one Russian plural of the project: «1 голос», «3 голоса», «11 голосов», «21 голос».

Used by the templates (``fmt.plural``, the tally's ``plural``) and by LocalBoard's pages."""

from __future__ import annotations


def ru_plural_word(n: int, one: str, few: str, many: str) -> str:
    """The noun form for ``n``: ``one`` for 1, 21, 101 (not 11, 111); ``few`` for 2–4, 22–24
    (not 12–14); ``many`` for the rest, 0 included."""
    n10, n100 = abs(n) % 10, abs(n) % 100
    if n10 == 1 and n100 != 11:
        return one
    if 2 <= n10 <= 4 and not 12 <= n100 <= 14:
        return few
    return many


def plural_ru(n: int, one: str, few: str, many: str) -> str:
    """``n`` and its noun form: «11 голосов»."""
    return f"{n} {ru_plural_word(n, one, few, many)}"
