"""Matching a written name to a player (RULES R2.3): votes (R2.2) and night-move targets.

A name matches a player when, after *folding*, it equals the player's nick or one of his
aliases; failing that, a Russian inflected form of it ("Васю", "Алексея", "Маше_2",
"Ёжика в тумане"), a unique prefix (three letters at least) or a unique near-miss (a typo).
A name that could be two players matches none: ``NoMatch("ambiguous", candidates)``.

Folding (``fold``) makes these equal:

- case (``casefold``) and ``ё``/``е``;
- separators: spaces, underscores, hyphens, dots and apostrophes are dropped, so
  "Игрок-7", "Игрок 7" and "игрок7" are one name;
- Latin and Cyrillic letters that look alike: a/а e/е o/о p/р c/с x/х y/у k/к m/м t/т h/н
  b/в all fold to the Cyrillic letter (both ways: a nick typed in either alphabet matches).

Everything here is pure and precomputed: ``NameIndex(players)`` builds the lookup tables once
(all folded nicks, aliases and inflected forms); ``index.match(text)`` is a dictionary look-up
in the common case. ``match_nick(text, players)`` is the one-shot form.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable, Literal, Sequence, Union

__all__ = ["Match", "NoMatch", "NameIndex", "name_index", "match_nick", "fold", "edit_distance"]

How = Literal["exact", "alias", "inflected", "prefix", "near"]
# A lower-case Russian word (the nominative, ё folded to е) -> more of its oblique singular
# forms, from a dictionary: injected by the caller (``scraper_mod.morphology.inflect``), since
# a dictionary look-up is I/O and this module is pure.
Inflector = Callable[[str], Iterable[str]]

# Latin letter -> the Cyrillic letter it looks like (after casefold). The folding is one-way
# in code, but since both the nick and the written text go through it, a nick written in
# either alphabet (or a mix) matches.
_LOOKALIKE = str.maketrans({
    "a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "k": "к",
    "m": "м", "t": "т", "h": "н", "b": "в", "ё": "е",
})
_SEPARATORS = re.compile(r"[\s_\-‐‑‒–—.'’`ʼ]+")
_EDGE_PUNCT = " \t\r\n.,;:!?…\"'«»„“”()[]{}<>*~"
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_TOKEN = re.compile(r"[^\s_\-‐‑‒–—.]+|[\s_\-‐‑‒–—.]+")

PREFIX_MIN = 3


def fold(text: str) -> str:
    """The canonical form of a name: case, ё/е, separators and look-alike letters folded."""
    s = unicodedata.normalize("NFC", text).casefold().translate(_LOOKALIKE)
    return _SEPARATORS.sub("", s)


def edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance (a swap of two neighbours is one edit), stopping at
    ``limit + 1`` as soon as the answer must exceed ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] | None = None
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        best = cur[0]
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if (prev2 is not None and i > 1 and j > 1 and a[i - 1] == b[j - 2]
                    and a[i - 2] == b[j - 1]):
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
            best = min(best, v)
        if best > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[len(b)]


def near_limit(length: int) -> int:
    """How many typos a name of this (folded) length tolerates: 0 under 5, 1 from 5, 2 from 9."""
    if length >= 9:
        return 2
    if length >= 5:
        return 1
    return 0


# --- Russian inflection ---------------------------------------------------------------------
# Forms are generated from the nick (not guessed back from the text): the nominative's
# ending picks a declension, and every oblique case of it is listed. A few wrong-but-harmless
# forms come out (nobody writes them); what matters is that the real ones are there and
# that two players' forms colliding is detected as ambiguity.

_SIBILANT_GKH = set("гкхжшчщ")
_HUSHING = set("жшчщц")
_VOWELS = set("аеёиоуыэюя")


def _inflect_word(w: str) -> set[str]:
    """Oblique-case forms of one lower-case Cyrillic word (nominative singular given)."""
    forms: set[str] = set()
    if len(w) < 2:
        return forms
    last, stem = w[-1], w[:-1]
    if w.endswith(("ый", "ой")) and len(w) > 3:          # adjective-like: Серый, Лесной
        forms |= {stem[:-1] + e for e in ("ого", "ому", "ым", "ом")}
    if w.endswith("ий") and len(w) > 3:                   # Василий; or Синий
        forms |= {stem + e for e in ("я", "ю", "ем", "и", "е")}
        forms |= {stem[:-1] + e for e in ("его", "ему", "им", "ем", "ого", "ому")}
        return forms
    if w.endswith("ая") and len(w) > 3:                   # Рыжая
        forms |= {w[:-2] + e for e in ("ой", "ую", "ей")}
        return forms
    if last == "й":                                       # Алексей, Андрей, Гай
        forms |= {stem + e for e in ("я", "ю", "ем", "е", "и")}
    elif last == "ь":                                     # Игорь; Любовь
        forms |= {stem + e for e in ("я", "ю", "ем", "е", "и", "ью")}
    elif last == "а":                                     # Маша, Сова, Дима
        gen = "и" if stem[-1:] in _SIBILANT_GKH else "ы"
        forms |= {stem + e for e in (gen, "е", "у", "ой", "ою", "ей", "ею")}
    elif last == "я":                                     # Вася, Мария
        forms |= {stem + e for e in ("и", "е", "ю", "ей", "ею")}
    elif last in ("о", "е"):                              # Солнышко, Поле
        forms |= {stem + e for e in ("а", "у", "ом", "е", "я", "ю", "ем")}
    elif last not in _VOWELS:                             # Ёжик, Игрок, Борис
        endings = ("а", "у", "ом", "е", "ем") if last in _HUSHING else ("а", "у", "ом", "е")
        forms |= {w + e for e in endings}
        if w.endswith(("ов", "ев", "ин", "ын")):                # surnames: Петровым
            forms.add(w + "ым")
        # fleeting vowel: Пирожок -> Пирожка, Огурец -> Огурца, Павел -> Павла,
        # Паренёк -> Паренька
        if len(w) > 3 and w[-2] in ("о", "е") and w[-3] not in _VOWELS:
            base = w[:-2] + last
            forms |= {base + e for e in ("а", "у", "ом", "е", "ем")}
            if w[-2] == "е" and w[-3] in _VOWELS | {"л"}:
                base = w[:-2] + "ь" + last
                forms |= {base + e for e in ("а", "у", "ом", "е")}
    forms.discard(w)
    return forms


def _word_forms(w: str, inflect: Inflector | None) -> set[str]:
    """A word's oblique forms: the hand-written declension, and the dictionary's if given."""
    forms = _inflect_word(w)
    if inflect is not None and len(w) >= 2:
        forms |= {f.casefold().replace("ё", "е") for f in inflect(w)}
        forms.discard(w)
    return forms


def _inflected_forms(name: str, *, every_word: bool = True,
                     inflect: Inflector | None = None) -> set[str]:
    """Folded inflected forms of a nick: its first Cyrillic word declined ("Ёжика в тумане",
    "Маше_2"), and (``every_word``) every Cyrillic word declined ("Ивана Петрова");
    ``inflect`` adds a dictionary's forms of each word ("Зайца", "Льва", "Матери")."""
    parts = _TOKEN.findall(unicodedata.normalize("NFC", name).casefold().replace("ё", "е"))
    words = [i for i, p in enumerate(parts)
             if p.isalpha() and _CYRILLIC.search(p) and not _SEPARATORS.fullmatch(p)]
    out: set[str] = set()
    if not words:
        return out
    head = words[0]
    for form in _word_forms(parts[head], inflect):
        out.add(fold("".join(parts[:head] + [form] + parts[head + 1:])))
    if every_word and 1 < len(words) <= 3:
        # every word declined ("Ивана Петрова", "Иваном Петровым"): all combinations of the
        # words' forms; the mixed ones are never written, and they are few
        options = [[parts[i], *sorted(_word_forms(parts[i], inflect))] if i in words
                   else [parts[i]]
                   for i in range(len(parts))]
        for combo in itertools.product(*options):
            out.add(fold("".join(combo)))
    out.discard(fold(name))
    return out


# Latin nick with a Russian case ending after an apostrophe or hyphen: "NightOwl'а",
# "Big Joe-ю", "doc_Holiday'ем".
_LATIN_WITH_ENDING = re.compile(
    r"^(?P<nick>.*[A-Za-z0-9])\s*[-'’`ʼ]\s*(?P<end>а|у|ом|ем|е|ю|я|и|ой|ей|ы|ым|ям)$",
    re.IGNORECASE)
# The words that may lead a name in a colored vote: "за Васю", "голосую против Маши_2",
# "vote Big Joe".
_LEAD_IN = re.compile(
    r"^(?:(?:мой\s+)?голос(?:ую)?(?:\s*[:—-])?\s+(?:за\s+|против\s+)?|за\s+|против\s+|"
    r"сажаю\s+|сажаем\s+|(?:i\s+)?vote(?:\s+for)?:?\s+|lynch\s+)", re.IGNORECASE)
# A colored fragment naming several people: "Вася, Маша" / "Вася и Маша".
_LIST_SPLIT = re.compile(r"\s*(?:[,;/+&]|\s(?:и|или|and|or)\s)\s*", re.IGNORECASE)


# --- results --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Match:
    """The text names ``player``; ``how``: exact | alias | inflected | prefix | near."""

    player: str
    how: How
    text: str = ""

    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True)
class NoMatch:
    """The text names no one (``reason="nobody"``) or could be several (``"ambiguous"``)."""

    reason: Literal["nobody", "ambiguous"]
    candidates: tuple[str, ...] = ()
    text: str = ""

    def __bool__(self) -> bool:
        return False


MatchResult = Union[Match, NoMatch]
PlayerSpec = Union[tuple, "object"]  # (nick, aliases) or anything with .nick and .aliases


def _nick_and_aliases(p) -> tuple[str, tuple[str, ...]]:
    if isinstance(p, str):
        return p, ()
    if hasattr(p, "nick"):
        return p.nick, tuple(getattr(p, "aliases", ()) or ())
    nick, aliases = p
    return nick, tuple(aliases or ())


class NameIndex:
    """Precomputed lookup of a game's players by every folded name and form (R2.3).

    ``players``: ``(nick, aliases)`` pairs, or ``Player`` objects, or bare nicks.
    ``inflect``: a dictionary of Russian word forms (see ``Inflector``); without it only the
    hand-written declension below is used.
    """

    def __init__(self, players: Iterable, inflect: Inflector | None = None) -> None:
        self.players: tuple[str, ...] = ()
        self._exact: dict[str, set[str]] = {}
        self._alias: dict[str, set[str]] = {}
        self._inflected: dict[str, set[str]] = {}
        names: list[str] = []
        near: set[tuple[str, str, int]] = set()   # (form, player, length of its name)
        for p in players:
            nick, aliases = _nick_and_aliases(p)
            names.append(nick)
            self._exact.setdefault(fold(nick), set()).add(nick)
            for a in aliases:
                if fold(a):
                    self._alias.setdefault(fold(a), set()).add(nick)
            for n in (nick, *aliases):
                base = fold(n)
                if not base:
                    continue
                for f in _inflected_forms(n, inflect=inflect):
                    self._inflected.setdefault(f, set()).add(nick)
                # near-misses are looked for among the names and their first-word forms
                near |= {(f, nick, len(base))
                         for f in {base} | _inflected_forms(n, every_word=False,
                                                            inflect=inflect)}
        self.players = tuple(names)
        # (folded name, player) for the prefix search
        self._bases: tuple[tuple[str, str], ...] = tuple(
            (k, nick) for table in (self._exact, self._alias) for k, ns in table.items()
            for nick in sorted(ns))
        self._forms: tuple[tuple[str, str, int], ...] = tuple(sorted(near))
        self.match = lru_cache(maxsize=4096)(self._match)

    def __contains__(self, nick: str) -> bool:
        return nick in self.players

    # -- matching ------------------------------------------------------------------------
    def _match(self, text: str) -> MatchResult:
        raw = (text or "").strip(_EDGE_PUNCT)
        key = fold(raw)
        if not key:
            return NoMatch("nobody", (), text)
        for how, table in (("exact", self._exact), ("alias", self._alias),
                           ("inflected", self._inflected)):
            found = table.get(key)
            if found:
                return _one(found, how, text)
        m = _LATIN_WITH_ENDING.match(raw)
        if m:
            k = fold(m.group("nick"))
            found = self._exact.get(k) or self._alias.get(k)
            if found:
                return _one(found, "inflected", text)
        if len(key) >= PREFIX_MIN:
            found = {nick for base, nick in self._bases if base.startswith(key)}
            if found:
                return _one(found, "prefix", text)
        found = set()
        for form, nick, base_len in self._forms:
            limit = near_limit(base_len)
            if limit and edit_distance(key, form, limit) <= limit:
                found.add(nick)
        if found:
            return _one(found, "near", text)
        return NoMatch("nobody", (), text)

    def match_all(self, text: str) -> list[MatchResult]:
        """The text as one name; when it names no one as a whole, the name after a lead-in
        ("за Васю", "голосую за Машу_2", "vote Big Joe"), or a list of names ("Вася, Маша";
        "Вася и Маша"): one result per part. Used for colored vote fragments, so that one
        fragment naming two players is seen (R2.4)."""
        whole = self.match(text)
        if isinstance(whole, Match) or whole.reason == "ambiguous":
            return [whole]
        bare = _LEAD_IN.sub("", text.strip(_EDGE_PUNCT), count=1)
        if bare != text.strip(_EDGE_PUNCT):       # "за Васю", "голосую за Машу_2"
            named = self.match_all(bare)
            if any(named) or any(isinstance(r, NoMatch) and r.reason == "ambiguous"
                                 for r in named):
                return named
        parts = [p for p in _LIST_SPLIT.split(text.strip(_EDGE_PUNCT)) if p.strip(_EDGE_PUNCT)]
        if len(parts) < 2:
            return [whole]
        results = [self.match(p) for p in parts]
        if not any(results):
            return [whole]
        return results


def _one(found: set[str], how: str, text: str) -> MatchResult:
    if len(found) == 1:
        return Match(next(iter(found)), how, text)  # type: ignore[arg-type]
    return NoMatch("ambiguous", tuple(sorted(found)), text)


def name_index(players: Iterable, inflect: Inflector | None = None) -> NameIndex:
    """``NameIndex(players)``, built once per list of names: an index depends only on each
    player's nick and aliases, and never changes once built, so every day of a game (and
    every recomputation) shares one (with its cache of matches)."""
    key = tuple(_nick_and_aliases(p) for p in players)
    try:
        return _name_index(key, inflect)
    except TypeError:  # an unhashable name: not worth caching
        return NameIndex(key, inflect)


@lru_cache(maxsize=1024)
def _name_index(key: tuple[tuple[str, tuple[str, ...]], ...],
                inflect: Inflector | None) -> NameIndex:
    return NameIndex(key, inflect)


def match_nick(text: str, players: Sequence) -> MatchResult:
    """Match one written name against ``players`` ((nick, aliases) pairs or Player objects).

    For many look-ups against the same players build a ``NameIndex`` once.
    """
    return NameIndex(players).match(text)
