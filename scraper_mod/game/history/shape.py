"""The record's words, light to import (the statistics read records without the game's
services): the file name, the version, the sides, every role id and its side, how a death's
cause is said, and the record's one spelling in bytes."""

from __future__ import annotations

import json
from typing import Any

from ...rules.model import Role, Side

__all__ = ["RECORD_FILE", "RECORD_VERSION", "SIDES", "ROLE_SIDES", "side_of", "how_of",
           "record_bytes"]

RECORD_FILE = "record.json"
RECORD_VERSION = 1
SIDES = ("town", "mafia", "maniac")
#: the sides as a Russian record and its statistics name them
SIDES_RU = {"town": "город", "mafia": "мафия", "maniac": "маньяк"}

#: every role id a record may hold and its side (the winner's words: town | mafia | maniac);
#: the roles of other houses beside the seed's
ROLE_SIDES: dict[str, str] = {
    **{r.value: ("maniac" if r.side is Side.ALONE else r.side.value) for r in Role},
    "putana": "town", "bodyguard": "town", "lawyer": "mafia", "journalist": "town",
    "sheriff": "town", "immortal": "town", "mayor": "town", "judge": "town",
    "kamikaze": "town",
}

#: a death's cause as the state keeps it -> how the record says it
_HOW = {"votes": "jailed", "random": "jailed", "host": "removed"}


def side_of(role: str) -> str:
    """The side of a role id (``town`` for a role the table does not know)."""
    return ROLE_SIDES.get(role, "town")


def how_of(by: str) -> str:
    return _HOW.get(by, by)


def record_bytes(record: dict[str, Any]) -> bytes:
    """The record's one spelling: the same record gives the same bytes."""
    return (json.dumps(record, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


