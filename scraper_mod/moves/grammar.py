"""The night-move grammar ("ходы"), Russian and English, forgiving (pure, no I/O).

Players write moves the way they talk::

    убить Вася              Убиваем: Васю            kill Vasya
    лечу Машу               лечить Маша_2            heal doc_Holiday
    проверить Big Joe       проверяю Алексея         check NightOwl
    заморозить NightOwl     морожу Ёжика в тумане    freeze Игрок-7
    Ход 1: убить Big Joe / Ход 2: проверить Алексея
    история: Его нашли утром в реке...   (the duty mafioso's murder story, may run on)
    код: XYZ                              (the secret code from the role card, anywhere)

``parse_moves(text, match)`` finds every move in the text: a move verb (any form: «убить»,
«убиваем», «убью», "kill"...) followed by the target's name. ``match`` is the name matcher
(``scraper_mod.rules.names`` through ``moves.targets.matcher_for``): it returns the nicks a
piece of text can name; one is a match, several are ambiguous, none is an unknown target.
Names of several words («Ёжик в тумане», "Big Joe") are tried longest first. A verb after
«не» / "don't" is not a move. Later moves of the same kind in one message replace earlier ones
(the judge keeps the last).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from ..rules.model import MoveKind
from ..rules.roles import MOVE_WORDS, SEED_ROLES, kinds_dealt

#: text -> the nicks it could name (0: unknown, 1: match, 2+: ambiguous)
Matcher = Callable[[str], Sequence[str]]

#: verb stems per move, matched against the start of a case-folded word (ё folded to е):
#: the seed's four moves; a game with R14 roles passes its own table (``rules.roles.move_words``
#: over the dealt roles and ``[roles.words]``)
Words = Mapping[MoveKind, tuple[str, ...]]
_STEMS: dict[MoveKind, tuple[str, ...]] = {
    k: v for k, v in MOVE_WORDS.items() if k in kinds_dealt(SEED_ROLES)}
# R14: the word joining a comparison's two players («сравнить X и Y»)
_PAIR_JOIN = {"и", "с", "со", "and", "with", "&", "vs"}
_NEGATIONS = {"не", "нельзя", "don't", "dont", "not", "never", "no"}
# words that may stand between the verb and the name
_FILLER = {"игрока", "игрок", "игроком", "player", "the", "ника", "ник", "on", "target",
           "цель", "—", "-", "nick", "в", "во", "на", "at", "is"}
_SELF = {"себя", "себе", "собой", "сам", "самого", "myself", "me", "self"}
_WORD = re.compile(r"[\w][\w'’\-.]*[\w]|[\w]", re.UNICODE)
_SEGMENT_SPLIT = re.compile(r"\n|;|\s/\s|\s\|\s")
_CODE = re.compile(r"(?i)(?<![\w])(код|code|пароль|password|secret)\s*[:=\-—]?\s*([^\s,;]+)")
_STORY = re.compile(r"(?i)^\s*(?:[-*•]\s*)?(история(?:\s+убийства)?|рассказ|story)\s*[:\-—]\s*(.*)$")
_MOVE_PREFIX = re.compile(r"(?i)^\s*(?:[-*•]|\d+[.)]|(?:ход|move)\s*(?:№\s*)?\d*\s*[:.)\-—]?)\s*")


@dataclass(frozen=True)
class ParsedMove:
    """One move found in a message."""

    kind: MoveKind
    target: str | None  # the matched nick, or None
    written: str        # the target as the player wrote it ('' when nothing followed the verb)
    problem: str = ""   # "" | "no_target" | "unknown_target" | "ambiguous_target"
    candidates: tuple[str, ...] = ()  # for an ambiguous target
    line: str = ""
    self_ref: bool = False  # «лечу себя», "heal myself": the target is the sender
    target2: str | None = None  # R14: a comparison's second player


@dataclass(frozen=True)
class ParsedMessage:
    """Everything the grammar found in a message."""

    moves: tuple[ParsedMove, ...]
    story: str | None
    codes: tuple[str, ...]
    truncated: bool = False  # more moves than ``limit``: the rest was not read


def fold_word(word: str) -> str:
    """Case-fold and ё→е, as the verb table is written (a nick's canonical form, with
    separators and look-alike letters folded too, is ``rules.names.fold``)."""
    return word.casefold().replace("ё", "е")


def verb_kind(word: str, words: Words | None = None) -> MoveKind | None:
    """The move a word names («убиваем» -> KILL), or None."""
    w = fold_word(word)
    for kind, stems in (_STEMS if words is None else words).items():
        if any(w.startswith(s) for s in stems):
            return kind
    return None


def find_codes(text: str) -> tuple[str, ...]:
    """Every «код: XYZ» / "code: XYZ" in the text (the value as written)."""
    return tuple(m.group(2).strip(".!") for m in _CODE.finditer(text))


def text_has_code(text: str, code: str) -> bool:
    """True when the secret code appears in the text as a word of its own (any case)."""
    if not code:
        return False
    pat = re.compile(r"(?<![\w])" + re.escape(code.strip()) + r"(?![\w])", re.IGNORECASE)
    return bool(pat.search(text))


def parse_moves(text: str, match: Matcher, *, limit: int | None = None,
                words: Words | None = None) -> ParsedMessage:
    """Find the moves, the murder story and the codes in a message's subject and own text.

    ``limit``: read no more than that many moves (``[moves] max_moves_per_message``); the
    lines after them are not read, and ``truncated`` says so. 40,000 «лечу E» lines give
    ``limit`` moves in the time of ``limit`` lines, not 40,000. ``words``: the move words
    of the game (default: the seed's four moves)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    codes = find_codes(text)
    story_lines: list[str] | None = None
    move_lines: list[str] = []
    for line in lines:
        m = _STORY.match(line)
        if m:
            story_lines = [m.group(2)] if m.group(2).strip() else []
            continue
        if story_lines is not None:
            # the story runs on until a code line or a line that is plainly a move
            if _CODE.search(line) and len(_CODE.sub("", line).strip()) == 0:
                continue
            if _starts_with_move(line, match, words):
                story_lines = _close_story(story_lines)
                move_lines.append(line)
                continue
            story_lines.append(line)
            continue
        move_lines.append(line)
    story = None
    if story_lines is not None:
        story = "\n".join(_close_story(story_lines)).strip() or None

    moves: list[ParsedMove] = []
    truncated = False
    for line in move_lines:
        clean = _CODE.sub(" ", line)
        for segment in _SEGMENT_SPLIT.split(clean):
            moves.extend(_segment_moves(segment, match, words))
        if limit is not None and len(moves) > limit:
            truncated = True
            break
    if any(not m.problem == "no_target" for m in moves):
        # a bare verb (a subject «Проверка», «Re: заморозка») only labels the real move
        moves = [m for m in moves if m.problem != "no_target"]
    if limit is not None and len(moves) > limit:
        moves, truncated = moves[:limit], True
    return ParsedMessage(moves=tuple(moves), story=story, codes=codes, truncated=truncated)


def _close_story(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def _starts_with_move(line: str, match: Matcher, table: Words | None = None) -> bool:
    rest = _MOVE_PREFIX.sub("", line, count=1)
    words = list(_WORD.finditer(rest))
    if not words or verb_kind(words[0].group(), table) is None:
        return False
    found = _segment_moves(rest, match, table)
    return bool(found) and (found[0].target is not None or found[0].kind is MoveKind.PARDON)


def _segment_moves(segment: str, match: Matcher, table: Words | None = None
                   ) -> list[ParsedMove]:
    words = list(_WORD.finditer(segment))
    kinds = [(i, verb_kind(w.group(), table)) for i, w in enumerate(words)]
    verbs = [(i, k) for i, k in kinds if k is not None
             and not (i > 0 and fold_word(words[i - 1].group()) in _NEGATIONS)]
    # a word right after a verb that names a player is the target, even when it reads like a
    # verb itself ("kill Killer", «проверить Лечилу»)
    kept: list[tuple[int, MoveKind]] = []
    for i, k in verbs:
        if kept and kept[-1][0] == i - 1 and _names_someone(words, i, match):
            continue
        kept.append((i, k))
    verbs = kept
    out: list[ParsedMove] = []
    for n, (i, kind) in enumerate(verbs):
        end = verbs[n + 1][0] if n + 1 < len(verbs) else len(words)
        rest = words[i + 1:end]
        if kind is MoveKind.PARDON:   # R14: the Judge's «помиловать» names no one
            out.append(ParsedMove(kind, None, "", line=segment.strip()))
            continue
        if not [w for w in rest if fold_word(w.group()) not in _FILLER]:
            # «проверяю» alone, or a verb that is part of a sentence with no name after it
            if len(verbs) == 1 and len(words) <= 3:
                out.append(ParsedMove(kind, None, "", "no_target", line=segment.strip()))
            continue
        if kind is MoveKind.COMPARE:
            out.append(_pair(rest, segment, match))
            continue
        found = _target(kind, rest, segment, match)
        trimmed = rest
        while len(trimmed) > 1 and fold_word(trimmed[0].group()) in _FILLER:
            # «убить игрока Васю»: the filler word is usually not part of the name, but
            # «Игрока 7» is the inflected nick Игрок-7: the filler-less reading wins if it matches
            trimmed = trimmed[1:]
            other = _target(kind, trimmed, segment, match)
            if other.target is not None or found.target is None:
                found = other if other.target is not None else found
                if other.target is not None:
                    break
        out.append(found)
    return out


def _pair(rest: list[re.Match], segment: str, match: Matcher) -> ParsedMove:
    """R14: «сравнить X и Y» — the two players on either side of the joining word."""
    join = next((j for j, w in enumerate(rest) if fold_word(w.group()) in _PAIR_JOIN
                 and 0 < j < len(rest) - 1), None)
    if join is None:
        first = _target(MoveKind.COMPARE, rest, segment, match)
        return ParsedMove(MoveKind.COMPARE, first.target, first.written,
                          first.problem or "no_target", first.candidates, line=segment.strip())
    a = _target(MoveKind.COMPARE, rest[:join], segment, match)
    b = _target(MoveKind.COMPARE, rest[join + 1:], segment, match)
    written = segment[rest[0].start():rest[-1].end()]
    return ParsedMove(MoveKind.COMPARE, a.target, written, a.problem or b.problem,
                      a.candidates or b.candidates, line=segment.strip(), target2=b.target)


def _names_someone(words: list[re.Match], i: int, match: Matcher) -> bool:
    return any(len(match(" ".join(w.group() for w in words[i:i + n]))) == 1
               for n in range(1, min(4, len(words) - i) + 1))


def _target(kind: MoveKind, rest: list[re.Match], segment: str, match: Matcher) -> ParsedMove:
    if fold_word(rest[0].group()) in _SELF:
        return ParsedMove(kind, None, rest[0].group(), line=segment.strip(), self_ref=True)
    ambiguous: tuple[str, ...] = ()
    for n in range(min(5, len(rest)), 0, -1):
        written = segment[rest[0].start():rest[n - 1].end()]
        found = tuple(dict.fromkeys(match(written)))
        if len(found) == 1:
            return ParsedMove(kind, found[0], written, line=segment.strip())
        if len(found) > 1 and not ambiguous:
            ambiguous = found
    first = segment[rest[0].start():rest[min(len(rest), 3) - 1].end()]
    if ambiguous:
        return ParsedMove(kind, None, first, "ambiguous_target", ambiguous, line=segment.strip())
    return ParsedMove(kind, None, first, "unknown_target", line=segment.strip())
