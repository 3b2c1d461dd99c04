"""Matching a move's target to a player: the same matching as for votes (R2.3), through
``scraper_mod.rules.names`` (inflection, with the dictionary's forms of Russian words, look-alike letters, aliases, prefixes, near-misses).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..morphology import inflect
from ..rules.model import Player
from ..rules.names import Match, NameIndex
from .grammar import Matcher


def matcher_for(players: Iterable[Player]) -> Matcher:
    """The grammar's matcher for these players: text -> the nicks it could name."""
    index = NameIndex(tuple(players), inflect=inflect)

    def match(text: str) -> Sequence[str]:
        r = index.match(text)
        if isinstance(r, Match):
            return (r.player,)
        return tuple(r.candidates)
    return match
