"""A reusable reader of what players read, by RULES R9.6 and the editor's rules
(``../shared/design/russian-text.md``, summarised here so that the tests need nothing outside
the project).

``check_ru(text, nicks)`` returns the problems of a Russian text (empty when it reads well):

- a past-tense verb, a short participle or a short adjective next to a nick (only spaces and
  BBCode tags between), or heading a line whose nick follows a colon: «Мафия убила
  [b]Маша[/b]», «Комиссар Маша погиб», «Заморожен [b]Гоша[/b]», «Посажен …: [b]Кот[/b]». The
  tool can neither decline a nick nor know its gender; a noun label («Жертва мафии: X»), the
  present tense («садится X») or an impersonal form («засчитано») reads well for anyone;
- он/его/её/ему/ей… after a nick in the same sentence («Заморожен Гоша: его ход»);
- «дедлайн» (the word is «срок»), «с вторника» (it is «со вторника»), an arrow ``->``, a bare dash for "nobody"
  («Не голосовали: —»), a code in brackets («[quoted]»);
- with ``players=True`` (what players read, not the host report): an ISO date (2024-03-15).

``check_en(text, nicks)``: he/his/him/himself for a player (use they/their or the role), ISO
dates with ``players=True``.

Other engineers' templates can use it: ``assert not check_ru(rendered, nicks)``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

import pymorphy3

__all__ = ["check_ru", "check_en"]

# what may stand between two words of one phrase: spaces and inline tags (not a line break,
# a list item or a table cell)
_TAG = r"(?:\[/?(?:b|i|u|s|color|size|url)(?:=[^\]]*)?\])"
_GAP = rf"(?:[ \t]|{_TAG})*"
_WORD = re.compile(r"[А-Яа-яЁё]+")
_ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_PRONOUNS = re.compile(r"(?<![А-Яа-яЁё])(он|она|его|её|ее|ему|ей|него|неё|нему|ней|ним|нём)"
                       r"(?![А-Яа-яЁё])", re.I)
_SENTENCE_END = re.compile(r"[.!?\n]")
_CODE = re.compile(r"\[(?:quoted|late|dead|frozen|ambiguous|self_vote|unknown_name|edited|"
                   r"replaced|invalid|counted|[a-z]+_[a-z_]+)\]")
_BARE_DASH = re.compile(r":\s*—\s*[.;]?\s*$", re.M)


@lru_cache(maxsize=1)
def _morph() -> pymorphy3.MorphAnalyzer:
    return pymorphy3.MorphAnalyzer(lang="ru")


@lru_cache(maxsize=4096)
def _agrees(word: str) -> str | None:
    """What kind of gender-agreeing word this is, or None: 'past verb', 'short participle',
    'short adjective' (the most likely readings only)."""
    parses = _morph().parse(word.lower())
    best = parses[0].score if parses else 0
    for p in parses:
        if p.score < best * 0.5:
            break
        tag = p.tag
        if tag.POS == "VERB" and tag.tense == "past" and tag.gender != "neut":
            return "past verb"          # «было», «стало»: impersonal, agree with no one
        if tag.POS == "PRTS" and tag.gender in ("masc", "femn"):
            return "short participle"
        if tag.POS == "ADJS" and tag.gender in ("masc", "femn"):
            return "short adjective"
    return None


def _nick_spans(text: str, nicks: Iterable[str]) -> list[tuple[int, int, str]]:
    spans = []
    for n in sorted(set(nicks), key=len, reverse=True):
        for m in re.finditer(re.escape(n), text):
            if m.start() and text[m.start() - 1].isalnum() or (
                    m.end() < len(text) and text[m.end()].isalnum()):
                continue                          # part of a longer word or nick
            if any(s <= m.start() < e for s, e, _ in spans):
                continue
            spans.append((m.start(), m.end(), n))
    return sorted(spans)


def _line_of(text: str, i: int) -> tuple[int, str]:
    start = text.rfind("\n", 0, i) + 1
    end = text.find("\n", i)
    return start, text[start:end if end >= 0 else len(text)]


_QUOTE = re.compile(r"\[quote(?:=[^\]]*)?\].*?\[/quote\]", re.S)


def _ours(text: str) -> str:
    """The text without what players wrote themselves (the murder story, in [quote])."""
    return _QUOTE.sub("[quote][/quote]", text)


def check_ru(text: str, nicks: Iterable[str], *, players: bool = True) -> list[str]:
    """The problems of a Russian text by R9.6 (see the module's docstring)."""
    problems: list[str] = []
    text = _ours(text)
    nicks = [n for n in nicks if n]
    for start, end, nick in _nick_spans(text, nicks):
        before = re.search(rf"([А-Яа-яЁё]+){_GAP}\Z", text[max(0, start - 80):start])
        after = re.match(rf"{_GAP}([А-Яа-яЁё]+)", text[end:end + 80])
        for m, side in ((before, "before"), (after, "after")):
            if m and (kind := _agrees(m.group(1))):
                problems.append(f"{kind} «{m.group(1)}» {side} the nick {nick!r}: "
                                f"«{_line_of(text, start)[1].strip()}»")
        line_start, line = _line_of(text, start)
        colon = line.find(":")
        if 0 <= colon < start - line_start:
            head = _WORD.findall(line[:colon])
            if head and (kind := _agrees(head[0])) and head[0][0].isupper():
                problems.append(f"{kind} «{head[0]}» heads a line naming {nick!r}: "
                                f"«{line.strip()}»")
        tail = text[end:end + 200]
        stop = _SENTENCE_END.search(tail)
        pm = _PRONOUNS.search(tail[:stop.start()] if stop else tail)
        if pm:
            problems.append(f"pronoun «{pm.group(1)}» for the player {nick!r}: "
                            f"«{_line_of(text, start)[1].strip()}»")
    low = text.lower()
    if "дедлайн" in low:
        problems.append("«дедлайн» (the word is «срок»)")
    if re.search(r"(?<![А-Яа-яЁё])с вторника", text):
        problems.append("«с вторника» (write «со вторника»)")
    for m in _BARE_DASH.finditer(text):
        problems.append(f"a bare dash for nobody: «{_line_of(text, m.start())[1].strip()}»")
    return _common(text, problems, players)


def _common(text: str, problems: list[str], players: bool) -> list[str]:
    """The checks of both languages: arrows, codes, ISO dates for players; problems once."""
    if "->" in text:
        problems.append("«->» (write «→»)")
    for m in _CODE.finditer(text):
        problems.append(f"a code {m.group(0)!r} in the text")
    if players:
        for m in _ISO.finditer(text):
            problems.append(f"an ISO date {m.group(0)!r} in what players read")
    return list(dict.fromkeys(problems))


_HE = re.compile(r"\b(he|his|him|himself)\b", re.I)


def check_en(text: str, nicks: Iterable[str] = (), *, players: bool = True) -> list[str]:
    """An English text's problems: he/his/him for a player; ISO dates for players."""
    text = _ours(text)
    problems = [f"«{m.group(1)}» for a player: «{_line_of(text, m.start())[1].strip()}»"
                for m in _HE.finditer(text)]
    return _common(text, problems, players)
