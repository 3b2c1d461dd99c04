"""What a post may take: player text capped, a post split under the board's limit.

The board refuses a post longer than its ``max_post_chars`` (60,000 characters by default), and a
player's text must not be able to make the newspaper that long: the murder story is capped
(``cap_text``) and a newspaper that is still too long (a vote table of many players with a
link per vote) is split into several posts (``split_post``), each closing the BBCode blocks
it leaves open and the next reopening them. Pure: text in, text out.
"""

from __future__ import annotations

import re
from typing import Callable

ELLIPSIS = "…"

# what a post may need on top of its part's lines: a heading, a footer, the closing and
# reopening of the blocks, and the host's correction line added when a post is edited
RESERVE = 1000
MIN_POST_CHARS = 5000           # under this no heading plus a vote table line fits

# BBCode blocks that span lines in the posts (inline tags open and close on one line)
_TAG = re.compile(r"\[(/?)(list|table|code|quote|size|color|b|i|u|spoiler)(=[^\]\n]*)?\]",
                  re.IGNORECASE)


def cap_text(text: str | None, limit: int) -> tuple[str | None, int | None]:
    """``text`` cut to at most ``limit`` characters (at a word where one is near, with
    "…"), and its full length when it was cut (else None). ``limit`` 0 leaves nothing."""
    if text is None or len(text) <= limit:
        return text, None
    if limit <= 0:
        return None, len(text)
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.8:
        cut = cut[:space]
    return cut.rstrip() + ELLIPSIS, len(text)


def _open_blocks(stack: list[tuple[str, str]], line: str) -> None:
    """Follow the blocks ``line`` opens and closes; inside [code] only [/code] counts."""
    for m in _TAG.finditer(line):
        closing, name = m.group(1) == "/", m.group(2).lower()
        if stack and stack[-1][0] == "code" and not (closing and name == "code"):
            continue
        if not closing:
            stack.append((name, m.group(0)))
        else:
            for i in range(len(stack) - 1, -1, -1):
                if stack[i][0] == name:
                    del stack[i:]
                    break


def split_post(text: str, limit: int, *,
               mark: Callable[[str, int, int], str] | None = None) -> list[str]:
    """``text`` as one or more posts of at most ``limit`` characters, split between lines.

    Each part but the last closes the blocks still open (``[/list]``, ``[/code]`` …) and the
    next part reopens them; ``mark(where, part, parts)`` gives the line put at the ``"head"``
    of parts 2… and at the ``"foot"`` of every part but the last. ``limit`` 0: no limit.
    """
    if limit <= 0 or len(text) <= limit:
        return [text]
    budget = max(limit - RESERVE, MIN_POST_CHARS // 2)
    chunks: list[tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]] = []
    stack: list[tuple[str, str]] = []
    lines: list[str] = []
    opened: list[tuple[str, str]] = []
    size = 0
    for line in _lines(text, budget):
        if lines and size + len(line) + 1 > budget:
            chunks.append((lines, opened, list(stack)))
            lines, opened = [], list(stack)
            size = sum(len(t) + 1 for _, t in opened)
        lines.append(line)
        size += len(line) + 1
        _open_blocks(stack, line)
    chunks.append((lines, opened, list(stack)))
    parts = []
    n = len(chunks)
    for i, (body, reopen, still_open) in enumerate(chunks, start=1):
        out = []
        if i > 1 and mark:
            out.append(mark("head", i, n))
        out += [t for _, t in reopen] + body
        if i < n:
            out += [f"[/{name}]" for name, _ in reversed(still_open)]
            if mark:
                out.append(mark("foot", i, n))
        parts.append("\n".join(out).rstrip("\n") + "\n")
    return parts


def _lines(text: str, budget: int):
    """The text's lines; a line longer than a whole part (no newspaper has one; a count's
    list of requesters may) in pieces, between list items («, ») or words where it can."""
    for line in text.rstrip("\n").split("\n"):
        while len(line) > budget:
            cut = line.rfind(", ", 0, budget)
            if cut > budget // 2:
                yield line[:cut + 1]
                line = line[cut + 2:]
                continue
            cut = line.rfind(" ", 0, budget)
            if cut > budget // 2:
                yield line[:cut]
                line = line[cut + 1:]
                continue
            yield line[:budget]
            line = line[budget:]
        yield line


def part_name(stem: str, ext: str, part: int) -> str:
    """``newspaper.bbcode``, then ``newspaper-2.bbcode``, ``newspaper-3.bbcode`` …"""
    return f"{stem}.{ext}" if part == 1 else f"{stem}-{part}.{ext}"


PART_FILE = re.compile(r"^newspaper(?:-([2-9]|[1-9][0-9]+))?\.bbcode$")


def part_number(name: str) -> int | None:
    """The part a file name of ``out/day-N/`` holds (1 for ``newspaper.bbcode``), else None."""
    m = PART_FILE.match(name)
    return (int(m.group(1)) if m.group(1) else 1) if m else None
