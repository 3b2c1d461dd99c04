"""Resolving a game day (RULES R6) and writing every post the host needs (R9).

Three layers, each usable alone:

* ``DayReport``: everything the posts say about one resolved day, as plain values (the
  outcome ``DayResult``, the final vote table, the judged night moves, the state after the
  night, the calendar instants). Tests build it by hand.
* ``render_day(report)``: the texts, ``{relative path: text}`` — ``newspaper.bbcode``,
  ``day-start.bbcode``, ``pm/<nick>.txt``, ``host-report.txt``, ``result.json`` — from the
  Jinja2 templates in ``templates/`` (``newspaper.<lang>.bbcode.j2`` ...). Pure: the same report
  gives the same bytes; no "now" appears in any output.
* ``write_day_files(out_dir, day, files)``: writes ``out/day-N/`` atomically (the new folder
  is built beside the old one and swapped in; a crash leaves the old folder or the new one,
  and ``recover_out_dir`` finishes an interrupted swap).

``resolve_day_files(ctx, day)`` ties them to the game: the final re-scan, the final tally, the
lynch, the night, the store, the files, and the later days that depend on this one.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence
from zoneinfo import ZoneInfo

from .errors import RulesError, StorageError
from .render import ZWSP, bbcode_inert, render_text
from .rules.model import ROLE_NAMES, DayResult, Move, Role, RuleOptions, Vote

# ---------------------------------------------------------------------------------------------
# Formatting helpers handed to the templates as ``fmt``
# ---------------------------------------------------------------------------------------------

_RU_MONTHS = ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа",
              "сентября", "октября", "ноября", "декабря")
_RU_WEEKDAYS = ("понедельник", "вторник", "среда", "четверг", "пятница", "суббота",
                "воскресенье")
_EN_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
              "September", "October", "November", "December")
_EN_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_RU_TZ = {"MSK": "МСК"}

_CHECK_RESULTS = {
    "ru": {"mafia": "мафия", "not_mafia": "не мафия"},
    "en": {"mafia": "mafia", "not_mafia": "not mafia"},
}


def visible_len(s: str) -> int:
    """Length as a reader sees it: zero-width spaces (from ``bb``) take no column."""
    return len(s) - s.count(ZWSP)


def pad_visible(s: str, width: int) -> str:
    """``s`` padded with spaces to ``width`` visible columns."""
    return s + " " * max(0, width - visible_len(s))


class Formatter:
    """Dates, times, plurals and role names in the post's language and the game's zone.

    Templates call it as ``fmt``: ``{{ fmt.when(next_deadline) }}``,
    ``{{ fmt.plural(n, "голос", "голоса", "голосов") }}``, ``{{ fmt.role(player.role) }}``.
    """

    def __init__(self, lang: str, tz: ZoneInfo) -> None:
        self.lang = lang
        self.tz = tz

    def local(self, t: datetime) -> datetime:
        return t.astimezone(self.tz)

    def zone(self, t: datetime) -> str:
        """The zone's short name: "МСК" in Russian posts for Moscow time."""
        name = self.local(t).tzname() or ""
        if self.lang == "ru":
            return _RU_TZ.get(name, name)
        return name

    def time(self, t: datetime) -> str:
        return self.local(t).strftime("%H:%M")

    def time_s(self, t: datetime) -> str:
        return self.local(t).strftime("%H:%M:%S")

    def date(self, t: datetime) -> str:
        """"воскресенье, 17 марта" / "Sunday, 17 March"."""
        d = self.local(t)
        if self.lang == "ru":
            return f"{_RU_WEEKDAYS[d.weekday()]}, {d.day} {_RU_MONTHS[d.month - 1]}"
        return f"{_EN_WEEKDAYS[d.weekday()]}, {d.day} {_EN_MONTHS[d.month - 1]}"

    def long_date(self, t: datetime) -> str:
        d = self.local(t)
        return f"{self.date(t)} {d.year}"

    def when(self, t: datetime) -> str:
        """"20:00 МСК, воскресенье, 17 марта"."""
        return f"{self.time(t)} {self.zone(t)}, {self.date(t)}"

    def vote_time(self, t: datetime, ref: datetime) -> str:
        """A vote's time: "19:47", with the date ("14.03 21:30") when not on ``ref``'s date."""
        a, b = self.local(t), self.local(ref)
        if a.date() == b.date():
            return a.strftime("%H:%M")
        return a.strftime("%d.%m %H:%M")

    def stamp(self, t: datetime | None) -> str:
        """A full instant for the host report: "2024-03-15 19:59:58 МСК"."""
        if t is None:
            return "—"
        return f"{self.local(t).strftime('%Y-%m-%d %H:%M:%S')} {self.zone(t)}"

    def plural(self, n: int, one: str, few: str, many: str | None = None) -> str:
        """``n`` and the right noun form: Russian one/few/many, English one/other."""
        if self.lang != "ru" or many is None:
            return f"{n} {one if n == 1 else few}"
        n10, n100 = n % 10, n % 100
        if n10 == 1 and n100 != 11:
            word = one
        elif 2 <= n10 <= 4 and not 12 <= n100 <= 14:
            word = few
        else:
            word = many
        return f"{n} {word}"

    def role(self, role: Role | str | None) -> str:
        if role is None:
            return "?"
        return ROLE_NAMES[self.lang][Role(role)]

    def check_result(self, result: str) -> str:
        """A check's result as shown: an exact role (the ВСБ shows as civilian) or mafia/not."""
        table = _CHECK_RESULTS[self.lang]
        if result in table:
            return table[result]
        try:
            return ROLE_NAMES[self.lang][Role(result)]
        except ValueError:
            return result

    def nicks(self, names: Iterable[str], empty: str = "—") -> str:
        """Comma-separated, BBCode-inert nicks."""
        out = ", ".join(bbcode_inert(n) for n in names)
        return out or empty

    def pad(self, s: str, width: int) -> str:
        return pad_visible(s, width)


# ---------------------------------------------------------------------------------------------
# The report: everything the posts of one day say
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class VoteLine:
    """One counted vote in the table: the voter, when, and the post it was written in."""

    voter: str
    at: datetime
    post_id: int | None = None
    url: str | None = None


@dataclass(frozen=True)
class Candidate:
    """One line of the vote table: the candidate, his count and his voters in time order."""

    target: str
    votes: int
    voters: tuple[VoteLine, ...]


@dataclass(frozen=True)
class Rejected:
    """A vote-looking post or colored nick that was not counted (R9.4), and why."""

    post_id: int | None
    author: str
    text: str
    reason: str


@dataclass(frozen=True)
class EditNote:
    post_id: int
    author: str
    edited_at: datetime | None
    edit_count: int


@dataclass(frozen=True)
class RandomReveal:
    """The host's random list revealed at the end (R3.1): the order, the salt, the hash."""

    order: tuple[str, ...]
    salt: str | None = None
    commitment: str | None = None


@dataclass(frozen=True)
class DayReport:
    """Everything the posts of one resolved day need, as plain values.

    ``roles``: every player's role; ``alive_before``: alive at the start of the day;
    ``commissar``/``sergeant``/``duty``: as they stand before the night (``*_after`` after it).
    ``lynch_by``/``tied``: how the lynch was decided; ``cursor_before``/``cursor_after``: the
    random list's cursor (R3.2). ``orders`` is the night's ``NightOrders`` (or None).
    """

    title: str
    day: int
    lang: str
    tz: ZoneInfo
    options: RuleOptions
    result: DayResult
    roles: Mapping[str, Role]
    alive_before: tuple[str, ...]
    deadline: datetime
    newspaper_at: datetime                 # when the newspaper appears: the next day's start
    next_deadline: datetime | None
    next_deadline_regular: datetime | None = None   # what it would be unmoved (R1.4)
    deadline_regular: datetime | None = None        # this day's unmoved deadline (R1.4)
    next_day_merged: bool = False          # the next day runs over a weekend (R1.3)
    candidates: tuple[Candidate, ...] = ()
    not_voting: tuple[str, ...] = ()
    lynch_by: str | None = None
    tied: tuple[str, ...] = ()
    random_order: tuple[str, ...] = ()
    cursor_before: int = 0
    cursor_after: int = 0
    rejected: tuple[Rejected, ...] = ()
    tally_notes: tuple[str, ...] = ()
    moves: tuple[Move, ...] = ()
    orders: Any = None
    commissar: str | None = None
    sergeant: str | None = None
    duty: str | None = None
    commissar_after: str | None = None
    duty_after: str | None = None
    frozen_today: str | None = None        # frozen by the previous night: vote not counted
    posts_by: tuple[tuple[str, int], ...] = ()
    edits: tuple[EditNote, ...] = ()
    reveal: RandomReveal | None = None
    topic: str | None = None
    vote_table: str = "list"               # "list" | "code" | "table"

    @property
    def deaths(self) -> tuple[str, ...]:
        """Who died this day (lynch first, then the night), for the last-word window (R8.1)."""
        out = []
        if self.result.lynched:
            out.append(self.result.lynched.player)
        out += [d.player for d in self.result.killed]
        return tuple(out)


def vote_table_layout(options: RuleOptions) -> str:
    """R9.1: the board's own ``[table]`` when ``table_bbcode``; else ``vote_table`` or a list."""
    if options.table_bbcode:
        return "table"
    layout = getattr(options, "vote_table", "list")
    return layout if layout in ("list", "code", "table") else "list"


def post_url(topic: str | None, post_id: int | None) -> str | None:
    """The permanent link of a post on the topic's board: ``.../viewtopic.php?p=N#pN``."""
    if not topic or post_id is None:
        return None
    base = topic.split("?", 1)[0]
    base = base.rsplit("/", 1)[0] + "/" if "/" in base else ""
    return f"{base}viewtopic.php?p={post_id}#p{post_id}"


def build_candidates(counts: Iterable[Any], votes: Iterable[Vote], *,
                     topic: str | None = None) -> tuple[Candidate, ...]:
    """The vote table from a tally's ``counts`` (target, votes, voters) and counted ``votes``.

    Keeps the tally's order of candidates (CONTRACT: by votes, then who reached it first);
    each candidate's voters are put in the order their votes were cast (R9.1).
    """
    by_voter = {v.voter: v for v in votes}
    out = []
    for c in counts:
        lines = []
        for nick in c.voters:
            v = by_voter.get(nick)
            if v is None:
                continue
            lines.append(VoteLine(voter=nick, at=v.at, post_id=v.post_id,
                                  url=post_url(topic, v.post_id)))
        lines.sort(key=lambda x: (x.at, x.post_id or 0))
        out.append(Candidate(target=c.target, votes=int(c.votes), voters=tuple(lines)))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------

_CODE_WRAP = 44  # the voters column wraps at this many characters inside [code]


def code_table(candidates: Sequence[Candidate], headers: Sequence[str]) -> str:
    """The vote table as aligned monospace text for ``[code]`` (nicks made inert).

    Columns are sized by what a reader sees (zero-width spaces take no column); the voters
    column wraps onto continuation lines aligned under itself.
    """
    names = [bbcode_inert(c.target) for c in candidates]
    w1 = max([visible_len(headers[0])] + [visible_len(n) for n in names]) + 2
    w2 = max([visible_len(headers[1])] + [len(str(c.votes)) for c in candidates]) + 2
    pad = pad_visible
    lines = [(pad(headers[0], w1) + pad(headers[1], w2) + headers[2]).rstrip()]
    for c, name in zip(candidates, names):
        voters = [bbcode_inert(v.voter) for v in c.voters]
        rows: list[str] = []
        cur = ""
        for i, nick in enumerate(voters):
            piece = nick + ("," if i < len(voters) - 1 else "")
            if cur and visible_len(cur) + 1 + visible_len(piece) > _CODE_WRAP:
                rows.append(cur)
                cur = piece
            else:
                cur = f"{cur} {piece}" if cur else piece
        rows.append(cur)
        lines.append((pad(name, w1) + pad(str(c.votes), w2) + rows[0]).rstrip())
        for r in rows[1:]:
            lines.append(" " * (w1 + w2) + r)
    return "\n".join(lines)


def _template_context(r: DayReport) -> dict:
    res = r.result
    fmt = Formatter(r.lang, r.tz)
    opts = r.options
    mafia_deaths = [d for d in res.killed if d.by == "mafia"]
    alive_after = tuple(res.alive)
    last_word_until = r.newspaper_at + timedelta(hours=opts.last_word_hours)
    lynched = res.lynched
    lynched_votes = 0
    if lynched is not None:
        lynched_votes = next((c.votes for c in r.candidates if c.target == lynched.player), 0)
    counted_voters = sum(c.votes for c in r.candidates)
    weekend = r.next_day_merged and not _moved(r.next_deadline, r.next_deadline_regular)
    mafia_alive = sorted((n for n in alive_after if r.roles.get(n) and r.roles[n].is_mafia),
                         key=_order_key(r))
    orders = r.orders
    return {
        "r": r, "res": res, "fmt": fmt, "options": opts, "day": r.day, "next_day": r.day + 1,
        "title": r.title, "lynched": lynched, "lynch_by": r.lynch_by or (lynched.by if lynched
                                                                          else None),
        "lynched_votes": lynched_votes, "counted_voters": counted_voters,
        "tied": r.tied, "candidates": r.candidates, "not_voting": r.not_voting,
        "layout": r.vote_table,
        "killed": res.killed, "mafia_deaths": mafia_deaths, "story": res.story,
        "saved": res.saved, "frozen": res.frozen,
        "freeze_public": opts.freeze_public,
        "vsb_announced": res.vsb_protected and opts.announce_vsb_protection,
        "alive": alive_after, "deaths": r.deaths, "last_word_until": last_word_until,
        "deadline": r.deadline, "deadline_moved": _moved(r.deadline, r.deadline_regular),
        "deadline_regular": r.deadline_regular,
        "next_deadline": r.next_deadline,
        "next_deadline_moved": _moved(r.next_deadline, r.next_deadline_regular),
        "next_deadline_regular": r.next_deadline_regular, "weekend": weekend,
        "newspaper_at": r.newspaper_at,
        "winner": res.winner, "reveal": r.reveal, "roles": r.roles,
        "all_players": sorted(r.roles, key=_order_key(r)),
        "mafia_alive": mafia_alive, "orders": orders, "moves": r.moves,
        "frozen_today": r.frozen_today,
        "boss_alive": any(r.roles.get(n) is Role.BOSS for n in alive_after),
        "silent": tuple(n for n in r.alive_before if n not in dict(r.posts_by)),
        "code_table": lambda headers: code_table(r.candidates, headers),
    }


def _order_key(r: DayReport):
    order = {n: i for i, n in enumerate(r.roles)}
    return lambda n: (order.get(n, len(order)), n)


def _moved(actual: datetime | None, regular: datetime | None) -> bool:
    return actual is not None and regular is not None and actual != regular


def _render(kind: str, lang: str, ext: str, ctx: dict) -> str:
    text = render_text(kind, lang, ext, **ctx)
    # One trailing newline, no trailing spaces: stable bytes whatever the template's ends.
    lines = [ln.rstrip() for ln in text.split("\n")]
    return "\n".join(lines).strip("\n") + "\n"


def pm_recipients(r: DayReport) -> dict[str, list[tuple[str, dict]]]:
    """Who gets which private message (R9.3): ``{nick: [(template kind, extra context)]}``.

    * the check result to the player who checked and the same text to the Sergeant of that
      night (R5.5), and a promotion notice to a promoted Sergeant (R6.5);
    * the mafia's news to every mafioso alive after the night.
    """
    res = r.result
    out: dict[str, list[tuple[str, dict]]] = {}
    for c in res.checks:
        # as rules.night.check_recipients: the checker (even dead tonight) and the Sergeant
        # if he was alive when the day began
        recipients = [c.by]
        if r.sergeant and r.sergeant in r.alive_before and r.sergeant != c.by:
            recipients.append(r.sergeant)
        for nick in recipients:
            out.setdefault(nick, []).append(("check", {"check": c, "recipient": nick}))
    if res.promoted:
        entry = ("check", {"check": None, "recipient": res.promoted})
        lst = out.setdefault(res.promoted, [])
        if not any(k == "check" and x["check"] is None for k, x in lst):
            lst.append(entry)
    mafia_after = [n for n in res.alive if r.roles.get(n) and r.roles[n].is_mafia]
    for nick in sorted(mafia_after, key=_order_key(r)):
        out.setdefault(nick, []).append(("mafia-news", {"recipient": nick}))
    return out


def render_day(r: DayReport) -> dict[str, str]:
    """Every file of ``out/day-N/`` for this report: ``{relative path: text}``."""
    ctx = _template_context(r)
    lang = r.lang
    files = {
        "newspaper.bbcode": _render("newspaper", lang, "bbcode", ctx),
        "day-start.bbcode": _render("day-start", lang, "bbcode", ctx),
        "host-report.txt": _render("host-report", lang, "txt", ctx),
        "result.json": result_json(r.result),
    }
    for nick, parts in pm_recipients(r).items():
        texts = []
        for kind, extra in parts:
            texts.append(_render(kind, lang, "txt", {**ctx, **extra}))
        files[f"pm/{safe_file_name(nick)}.txt"] = "\n".join(texts)
    return dict(sorted(files.items()))


def result_json(result: DayResult) -> str:
    """CONTRACT's resolve JSON: the contract's key order, UTF-8, a trailing newline."""
    return json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n"


_UNSAFE = set('/\\:*?"<>|\0')


def safe_file_name(nick: str) -> str:
    """A nick as a file name: path separators and characters Windows forbids become ``_``.

    Nicks that would collide after this are told apart by a short hash suffix.
    """
    s = "".join("_" if (ch in _UNSAFE or ord(ch) < 32) else ch for ch in nick).strip(" .")
    if s != nick or not s:
        s = (s or "player") + "-" + hashlib.sha256(nick.encode()).hexdigest()[:6]
    return s


# ---------------------------------------------------------------------------------------------
# Atomic writing of out/day-N/
# ---------------------------------------------------------------------------------------------

def _crash_point(step: str) -> None:
    """A no-op hook between the steps of a write; tests replace it to simulate a crash."""


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux ``renameat2(RENAME_EXCHANGE)``); False if unsupported."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    rc = fn(_AT_FDCWD, os.fsencode(str(a)), _AT_FDCWD, os.fsencode(str(b)), _RENAME_EXCHANGE)
    return rc == 0


def _day_paths(out_dir: Path, day: int) -> tuple[Path, Path, Path]:
    return (out_dir / f"day-{day}", out_dir / f".day-{day}.new", out_dir / f".day-{day}.old")


def recover_out_dir(out_dir: Path) -> list[str]:
    """Finish or undo any interrupted day-folder swap under ``out_dir``; returns what it did.

    A ``.day-N.old`` exists only once ``.day-N.new`` is complete: with ``day-N`` missing the
    swap is rolled forward; with ``day-N`` present the old copy is removed. A lone
    ``.day-N.new`` is an unfinished build and is removed.
    """
    done: list[str] = []
    if not out_dir.is_dir():
        return done
    for p in sorted(out_dir.iterdir()):
        name = p.name
        if not (name.startswith(".day-") and name.endswith((".new", ".old"))):
            continue
        day = name[len(".day-"):-4]
        if not day.isdigit():
            continue
        final, new, old = _day_paths(out_dir, int(day))
        if name.endswith(".old"):
            if not final.exists() and new.is_dir():
                os.rename(new, final)
                done.append(f"finished writing {final.name}")
            elif not final.exists():
                os.rename(old, final)
                done.append(f"restored {final.name}")
                continue
            shutil.rmtree(old, ignore_errors=True)
        elif name.endswith(".new") and not old.exists():
            shutil.rmtree(new, ignore_errors=True)
            done.append(f"removed an unfinished {name}")
    return done


def write_day_files(out_dir: Path, day: int, files: Mapping[str, str]) -> Path:
    """Write ``out_dir/day-N/`` with exactly ``files`` (relative path -> text), atomically.

    The new folder is built completely as ``.day-N.new`` (each file fsynced), then swapped
    with the old one in one step where the system allows (``renameat2``), else by two renames
    that ``recover_out_dir`` completes after a crash. Readers see the old folder or the new.
    """
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        recover_out_dir(out_dir)
        final, new, old = _day_paths(out_dir, day)
        if new.exists():
            shutil.rmtree(new)
        new.mkdir()
        for rel, text in files.items():
            target = new / rel
            if new not in target.parents:
                raise StorageError(f"refusing to write outside the day folder: {rel}",
                                   path=str(new))
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as fh:
                fh.write(text.encode("utf-8"))
                fh.flush()
                os.fsync(fh.fileno())
            _crash_point(f"file:{rel}")
        for d in sorted({(new / rel).parent for rel in files}, reverse=True):
            _fsync_dir(d)
        _crash_point("built")
        if final.exists() and _exchange(new, final):
            _crash_point("exchanged")
            _fsync_dir(out_dir)
            shutil.rmtree(new)
            return final
        if final.exists():
            os.rename(final, old)
            _crash_point("old-moved")
        os.rename(new, final)
        _fsync_dir(out_dir)
        _crash_point("swapped")
        if old.exists():
            shutil.rmtree(old)
        return final
    except OSError as e:
        raise StorageError(f"cannot write the day's posts: {e}", path=str(out_dir),
                           hint="check that the game folder's out/ is writable") from None
