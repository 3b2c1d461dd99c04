"""Russian inflection from a dictionary (pymorphy3 with its OpenCorpora dictionary), for name
matching (RULES R2.3): the oblique singular forms of a Russian word used in a nick, «Заяц» →
«Зайца», «Лев» → «Льва», «Мать» → «Матери», «Лёд» → «Льда».

This is the adapter: it reads the dictionary files (I/O), so it lives outside the pure
``rules/`` core, which takes ``inflect`` as an injected callable
(``rules.names.NameIndex(players, inflect=inflect)``).
"""

from __future__ import annotations

from functools import lru_cache

import pymorphy3

__all__ = ["inflect"]

# The nick is a name given in the nominative: only analyses of the word as a nominative
# singular noun or full adjective are declined, and only into singular forms (so that plurals
# add no collisions between players). Vocatives («Маш») and superlatives are no case of the
# name.
_POS = frozenset({"NOUN", "ADJF"})


@lru_cache(maxsize=1)
def _analyzer() -> pymorphy3.MorphAnalyzer:
    return pymorphy3.MorphAnalyzer(lang="ru")


@lru_cache(maxsize=8192)
def inflect(word: str) -> frozenset[str]:
    """The oblique singular forms of one lower-case Russian word read as a nominative singular
    noun or adjective, lower case, the word itself left out; nothing for a word the dictionary
    does not know (the hand-written rules of ``rules.names`` still decline it)."""
    m = _analyzer()
    if not word or not m.word_is_known(word):
        return frozenset()
    out: set[str] = set()
    for p in m.parse(word):
        tag = p.tag
        if tag.POS not in _POS or tag.case != "nomn" or tag.number != "sing":
            continue
        for f in p.lexeme:
            ft = f.tag
            if ft.number != "sing" or ft.case in ("nomn", "voct") or "Supr" in ft:
                continue
            if tag.POS == "ADJF" and (ft.POS != "ADJF" or ft.gender != tag.gender):
                continue
            out.add(f.word)
    out.discard(word)
    out.discard(word.replace("ё", "е"))
    return frozenset(out)
