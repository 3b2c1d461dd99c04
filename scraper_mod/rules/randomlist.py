"""The host's random list ("случайный список ведущего", docs/rules.md R3).

R3.1 Before the deal the host fixes a random order of all players. ``draw_random_list`` draws
it with cryptographic randomness (``secrets.SystemRandom``); ``commitment`` is the SHA-256 of
the list and a secret salt, published at the start; list and salt are published at the end so
players can check that no random was rigged.

The bytes hashed (``commitment_text``), UTF-8 encoded, are::

    scraper-mod random list v1\\n
    <salt>\\n
    <nick 1>\\n
    <nick 2>\\n
    ...
    <nick N>\\n

one line each, every line ending in a line feed (U+000A), nicks exactly as written in the game
file. A player can check it with ``printf 'scraper-mod random list v1\\n<salt>\\nВася\\n...'
| sha256sum`` or by saving the published text to a file and running ``sha256sum`` on it.

R3.2 A cursor starts at the top (0). Each random takes the first eligible (alive) player at or
after the cursor and moves the cursor just past him, wrapping at the end of the list.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Sequence
from random import Random

from ..errors import RulesError

COMMITMENT_HEADER = "scraper-mod random list v1"


def draw_random_list(nicks: Iterable[str], *, rng: Random | None = None) -> list[str]:
    """R3.1: a random order of all players, by default from ``secrets.SystemRandom``."""
    order = list(nicks)
    if len(set(order)) != len(order):
        dup = next(n for n in order if order.count(n) > 1)
        raise RulesError(f"the random list cannot hold {dup!r} twice")
    (rng or secrets.SystemRandom()).shuffle(order)
    return order


def new_salt() -> str:
    """A fresh secret salt: 32 hex digits (128 bits) from ``secrets``."""
    return secrets.token_hex(16)


def commitment_text(order: Sequence[str], salt: str) -> str:
    """The exact text whose UTF-8 bytes ``commitment`` hashes (see the module docstring)."""
    for nick in order:
        if "\n" in nick or "\r" in nick:
            raise RulesError(f"a nick with a line break cannot go into the random list: {nick!r}")
    if "\n" in salt or "\r" in salt:
        raise RulesError("the salt must be one line")
    return "".join(line + "\n" for line in (COMMITMENT_HEADER, salt, *order))


def commitment(order: Sequence[str], salt: str) -> str:
    """R3.1: the SHA-256 (hex) of ``commitment_text(order, salt)`` in UTF-8."""
    return hashlib.sha256(commitment_text(order, salt).encode("utf-8")).hexdigest()


def verify_commitment(order: Sequence[str], salt: str, published: str) -> bool:
    """Whether a published commitment matches the list and salt revealed at the end."""
    return secrets.compare_digest(commitment(order, salt), published.strip().lower())


def pick_random(order: Sequence[str], cursor: int, eligible: set[str] | frozenset[str]
                ) -> tuple[str, int]:
    """R3.2: the first eligible player at or after ``cursor``, wrapping at the end.

    Returns the nick and the new cursor, just past him (0 after the last entry).
    """
    n = len(order)
    if n == 0:
        raise RulesError("the random list is empty", hint="draw it with `scraper-mod deal`")
    start = cursor % n
    for i in range(n):
        k = (start + i) % n
        if order[k] in eligible:
            return order[k], (k + 1) % n
    raise RulesError("no player on the random list can be picked",
                     hint="the random list must hold every alive player")
