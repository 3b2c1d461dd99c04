"""Sign-ups (issue 29): from the posts of a sign-up topic to the players, the reserve, the
withdrawn and the late. Pure: the posts come in as ``Sighting`` values, nothing is read here.

- A post's own words (never what it quotes, spoils or codes, nor a signature) are a sign-up
  when the whole text, or a line of its own, is a sign-up mark once folded (case, «ё»,
  punctuation and spacing: «Я в игре!» = «я в игре»); a withdrawal likewise. «+ к
  сказанному» is a sentence, not a mark. A post with both counts by its last mark line.
- An edited post counts as it stood at its edit time: each stored version is a sighting with
  the time its text stood (written, or edited). A mark edited away, or a post deleted, takes
  the sign-up back without counting as a withdrawal.
- Each board user has one place: the time of the sign-up that still stands (a second «+»
  keeps the first place; a withdrawal then a new sign-up goes to the end). The first N are
  the players, the rest the reserve in order.
- A post that looks like a sign-up or a withdrawal but holds no mark («+ если ещё можно»,
  «Простите, не смогу») counts as neither and is listed for the host (``unclear``).
- A «+» edited away while another «+» of the same user stands keeps him in from that one's
  time (issue 40).
- After ``close`` a sign-up is late: reported, and put at the end of the reserve only when
  the host asks (``late_to_reserve``); a withdrawal counts whenever it comes.
- Look-alike nicks (the folding of R2.3, ``rules.names.fold``) and nicks holding control
  characters are reported as warnings, never merged or dropped.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import Iterable

from .names import fold as fold_name

JOIN_MARKS = ("+", "я", "я в игре", "в игре", "участвую", "записываюсь", "запишите", "+1",
              "in", "/in")
LEAVE_MARKS = ("-", "выписываюсь", "не смогу", "минус", "out", "/out")

_DASHES = str.maketrans({"−": "-", "–": "-", "—": "-", "‐": "-", "‑": "-", "ё": "е"})
_KEPT_SIGNS = frozenset("+-/")
_SPACES = re.compile(r"\s+")


def fold_mark(text: str) -> str:
    """A line or a mark as compared: NFKC, case folded, «ё» as «е», dashes as «-», other
    punctuation and symbols (emoji too) dropped but «+», «-» and «/», spacing collapsed."""
    s = unicodedata.normalize("NFKC", text).casefold().translate(_DASHES)
    s = "".join(ch if ch in _KEPT_SIGNS or unicodedata.category(ch)[0] not in "PS" else " "
                for ch in s)
    return _SPACES.sub(" ", s).strip()


@dataclass(frozen=True)
class Marks:
    """The sign-up and withdrawal marks (``[signup] join`` / ``leave``), folded."""

    join: frozenset[str]
    leave: frozenset[str]

    @classmethod
    def of(cls, join: Iterable[str] = JOIN_MARKS, leave: Iterable[str] = LEAVE_MARKS) -> "Marks":
        return cls(frozenset(m for m in map(fold_mark, join) if m),
                   frozenset(m for m in map(fold_mark, leave) if m))

    def read(self, text: str) -> str | None:
        """"join", "leave" or None for a post's own text: the last line of its own that is
        a mark (the whole text being one is the one-line case)."""
        found = None
        for line in text.splitlines():
            m = fold_mark(line)
            if m in self.join:
                found = "join"
            elif m in self.leave:
                found = "leave"
        return found

    def near(self, text: str) -> str | None:
        """A line that looks like a sign-up or a withdrawal but is no mark («+ если ещё
        можно», «Простите, не смогу»): a mark begins it, or a mark of words stands in it as
        words of their own; None when there is none (issue 40: listed for the host)."""
        for line in text.splitlines():
            m = fold_mark(line)
            if not m or m in self.join or m in self.leave:
                continue
            words = m.split(" ")
            for mark in self.join | self.leave:
                if len(mark) <= 2 and mark.isalpha():   # «я», «in»: too common a word
                    continue
                parts = mark.split(" ")
                if words[:len(parts)] == parts or (
                        (len(parts) > 1 or len(mark) > 2) and any(
                            words[i:i + len(parts)] == parts
                            for i in range(len(words) - len(parts) + 1))):
                    return line.strip()
        return None


@dataclass(frozen=True)
class Sighting:
    """One version of one post: who wrote it (``user``: the board's user id as text, else
    the nick), the nick as the board shows it, when this text stood, and its own words."""

    post_id: int
    user: str
    nick: str
    at: datetime
    text: str
    host: bool = False       # the host's post: never counts
    deleted: bool = False    # the post is gone from the board (this sighting: its end)


@dataclass(frozen=True)
class Note:
    post: int
    why: str


@dataclass(frozen=True)
class SignupList:
    players: tuple[str, ...]
    reserve: tuple[str, ...]
    withdrawn: tuple[str, ...]
    late: tuple[str, ...]
    ignored: tuple[Note, ...] = ()
    warnings: tuple[Note, ...] = ()
    users: dict[str, str] = field(default_factory=dict)   # nick -> board user key
    unclear: tuple[Note, ...] = ()   # like a sign-up or a withdrawal, but no mark: the host's

    def to_json(self) -> dict:
        return {"players": list(self.players), "reserve": list(self.reserve),
                "withdrawn": list(self.withdrawn), "late": list(self.late),
                "ignored": [{"post": n.post, "why": n.why} for n in self.ignored],
                "warnings": [{"post": n.post, "why": n.why} for n in self.warnings],
                "unclear": [{"post": n.post, "why": n.why} for n in self.unclear]}


@dataclass
class _User:
    nick: str
    first_post: int
    since: datetime | None = None    # the standing sign-up's time
    post: int | None = None          # the standing sign-up's post
    joins: dict[int, datetime] = field(default_factory=dict)   # posts holding a «+» now
    left: bool = False               # the last mark was a withdrawal
    late: datetime | None = None     # a sign-up after the close
    late_post: int = 0


def _events(sightings: Iterable[Sighting], marks: Marks,
            ignored: list[Note]) -> list[tuple[datetime, int, Sighting, str | None]]:
    """(time, post, sighting, mark) for each change of a post's mark, in time order."""
    out = []
    last: dict[int, str | None] = {}
    said: set[int] = set()
    for s in sightings:
        if s.host:
            if s.post_id not in said:
                said.add(s.post_id)
                ignored.append(Note(s.post_id, "the host's post"))
            continue
        mark = None if s.deleted else marks.read(s.text)
        if s.post_id in last and last[s.post_id] == mark:
            continue
        if s.post_id not in last and mark is None:
            last[s.post_id] = None
            continue
        last[s.post_id] = mark
        out.append((s.at, s.post_id, s, mark))
    out.sort(key=lambda e: (e[0], e[1]))
    return out


def count_signups(sightings: Iterable[Sighting], players: int, *, marks: Marks | None = None,
                  close: datetime | None = None, late_to_reserve: bool = False) -> SignupList:
    """The sign-up list from every version of every post of the topic (see the module)."""
    marks = marks or Marks.of()
    ignored: list[Note] = []
    users: dict[str, _User] = {}
    sightings_list = list(sightings)
    for at, pid, s, mark in _events(sightings_list, marks, ignored):
        u = users.setdefault(s.user, _User(s.nick, pid))
        u.nick = s.nick
        if mark == "join":
            if close is not None and at > close:
                if u.since is None and u.late is None:
                    u.late, u.late_post, u.left = at, pid, False
                continue
            u.joins.setdefault(pid, at)
            if u.since is None:
                u.since, u.post, u.left = at, pid, False
        elif mark == "leave":
            u.since = u.post = u.late = None
            u.joins.clear()
            u.left = True
        else:                     # its mark edited away, or the post deleted
            u.joins.pop(pid, None)
            if u.post == pid:
                ignored.append(Note(pid, "the sign-up was edited away or deleted"))
                # another «+» of his that still stands keeps him in, from its own time
                rest = sorted((t, p) for p, t in u.joins.items())
                u.since, u.post = rest[0] if rest else (None, None)
    standing = sorted((u for u in users.values() if u.since is not None),
                      key=lambda u: (u.since, u.post))
    in_time = [u.nick for u in standing]
    late = sorted((u for u in users.values() if u.since is None and u.late is not None),
                  key=lambda u: (u.late, u.late_post))
    reserve = in_time[players:] + ([u.nick for u in late] if late_to_reserve else [])
    listed = standing + late
    return SignupList(
        players=tuple(in_time[:players]), reserve=tuple(reserve),
        withdrawn=tuple(u.nick for u in users.values() if u.left and u.since is None),
        late=tuple(u.nick for u in late), ignored=tuple(ignored),
        warnings=tuple(_warnings(listed)),
        users={u.nick: k for k, u in users.items()},
        unclear=tuple(_unclear(sightings_list, marks)))


def _unclear(sightings: list[Sighting], marks: Marks) -> list[Note]:
    """Posts whose standing text is no mark but looks like one (``Marks.near``), once each:
    never counted, never dropped in silence (issue 40)."""
    last: dict[int, Sighting] = {}
    for s in sightings:
        last[s.post_id] = s
    out = []
    for pid, s in sorted(last.items()):
        if s.host or s.deleted or marks.read(s.text) is not None:
            continue
        line = marks.near(s.text)
        if line is not None:
            out.append(Note(pid, f"{s.nick}: «{line[:80]}» looks like a sign-up or a "
                                 "withdrawal but is no mark: not counted, the host decides"))
    return out


def _warnings(listed: list[_User]) -> list[Note]:
    """Look-alike nicks (R2.3's folding) and nicks with control characters."""
    out: list[Note] = []
    seen: dict[str, _User] = {}
    for u in listed:
        post = u.post or u.late_post or u.first_post
        bad = [ch for ch in u.nick if unicodedata.category(ch) in ("Cc", "Cf")
               and ch != "\u200d"]
        if bad:
            out.append(Note(post, f"the nick {u.nick!r} holds the control character "
                                  f"U+{ord(bad[0]):04X}: check it on the board before it "
                                  "goes into game.toml"))
        key = fold_name(u.nick)
        other = seen.get(key)
        if other is not None:
            out.append(Note(post, f"the nick {u.nick!r} looks like {other.nick!r} (the same "
                                  "name once case, ё/е, spaces, hyphens and look-alike "
                                  "Latin/Cyrillic letters are folded): two board users, "
                                  "both listed; a vote could not tell them apart"))
        seen.setdefault(key, u)
    return out
