"""Resolving a game day (RULES R6) and writing every post the host needs (R9).

Three layers, each usable alone:

* ``DayReport``: everything the posts say about one resolved day, as plain values (the
  outcome ``DayResult``, the final vote table, the judged night moves, the state after the
  night, the calendar instants). Tests build it by hand.
* ``render_day(report)``: the texts, ``{relative path: text}`` — ``newspaper.bbcode``,
  ``day-start.bbcode``, ``pm/<nick>.txt``, ``host-report.txt``, ``result.json`` — from the
  Jinja2 templates in ``templates/`` (``newspaper.<lang>.bbcode.j2`` ...). Pure: the same report
  gives the same bytes; no "now" appears in any output. A game may carry its own copies of
  templates in ``GAME/templates/`` (same file names): they are used instead of the built-in
  ones, so a host can change the wording of one post without touching the installation.
* ``write_day_files(out_dir, day, files)``: writes ``out/day-N/`` atomically (the new folder
  is built beside the old one and swapped in; a crash leaves the old folder or the new one,
  and ``recover_out_dir`` finishes an interrupted swap).

``resolve_day_files(ctx, day)`` ties them to the game: the final re-scan, the final tally, the
lynch, the night, the store, the files, and the later days that depend on this one.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence
from zoneinfo import ZoneInfo

import jinja2

from ..errors import ConfigError, RulesError, StorageError
from ..posts.notes import note_lines
from ..posts.plural import plural_ru
from ..posts.render import ZWSP, bbcode_inert, environment, render_text
from ..rules.model import ROLE_NAMES, DayResult, Move, Role, RuleOptions, Vote
from ..rules.moves import REASONS as MOVE_REASONS
from ..rules.notes import Note
from ..rules.state import with_named_duty
from ..slotbook import report_extras, resolve_view, with_book

# ---------------------------------------------------------------------------------------------
# Formatting helpers handed to the templates as ``fmt``
# ---------------------------------------------------------------------------------------------

_RU_MONTHS = ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа",
              "сентября", "октября", "ноября", "декабря")
_RU_WEEKDAYS = ("понедельник", "вторник", "среда", "четверг", "пятница", "суббота",
                "воскресенье")
_RU_WEEKDAYS_GEN = ("понедельника", "вторника", "среды", "четверга", "пятницы", "субботы",
                    "воскресенья")
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

    def __init__(self, lang: str, tz: ZoneInfo, *, binary_checks: bool = False) -> None:
        self.lang = lang
        self.tz = tz
        self.binary_checks = binary_checks

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
        """An instant after «до»/«с» (R9.6): "воскресенья, 17 марта, 20:00 МСК" (the weekday
        in the genitive); "Sunday, 17 March, 20:00 MSK"."""
        d = self.local(t)
        if self.lang == "ru":
            day = f"{_RU_WEEKDAYS_GEN[d.weekday()]}, {d.day} {_RU_MONTHS[d.month - 1]}"
        else:
            day = self.date(t)
        return f"{day}, {self.time(t)} {self.zone(t)}"

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
        return plural_ru(n, one, few, many)

    def role(self, role: Role | str | None) -> str:
        if role is None:
            return "?"
        return ROLE_NAMES[self.lang][Role(role)]

    def check_result(self, result: str) -> str:
        """A check's result as shown: an exact role (the ВСБ shows as civilian) or mafia/not."""
        table = _CHECK_RESULTS[self.lang]
        if self.binary_checks and result in table:
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
    """A vote-looking post or colored nick that was not counted (R9.4), and why.

    ``reason`` is the tally's code (``quoted``, ``late``...), ``why`` its words."""

    post_id: int | None
    author: str
    text: str
    reason: str
    why: str = ""


@dataclass(frozen=True)
class EditNote:
    """An edit that touched a vote (R2.7): the targets before and after, and whether the
    edited vote took effect."""

    post_id: int
    author: str
    edited_at: datetime | None
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    counted: bool = True
    seen_before: bool = True


@dataclass(frozen=True)
class RandomReveal:
    """The host's random list revealed at the end (R3.1): the order, the salt, the hash."""

    order: tuple[str, ...]
    salt: str | None = None
    commitment: str | None = None

    @property
    def text(self) -> str | None:
        """The exact text whose SHA-256 is the commitment (``randomlist.commitment_text``)."""
        if not self.salt:
            return None
        from ..rules.randomlist import commitment_text
        return commitment_text(list(self.order), self.salt)


def code_inert(value: object) -> str:
    """Text for inside ``[code]``: phpBB parses nothing there but ``[/code]``, so the text is
    kept byte for byte (players copy it, e.g. to check a hash) unless it could close the
    block, in which case it is made inert like any player text."""
    s = "" if value is None else str(value)
    return bbcode_inert(s) if "[/code" in s.lower() else s


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
    late_posts: tuple[int, ...] = ()
    deleted_posts: tuple[int, ...] = ()
    reveal: RandomReveal | None = None
    topic: str | None = None
    vote_table: str = "list"               # "list" | "code" | "table"
    contacts: Mapping[str, str] = field(default_factory=dict)  # nick -> where his PMs go
    templates: str | None = None           # a game's own templates/ folder, tried first
    decisions: tuple = ()                  # R10, R11: slotbook.Decision, all (host report)

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
                     topic: str | None = None,
                     link: Callable[[int], str | None] | None = None) -> tuple[Candidate, ...]:
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
            url = link(v.post_id) if link else post_url(topic, v.post_id)
            lines.append(VoteLine(voter=nick, at=v.at, post_id=v.post_id, url=url))
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
    # The night notes in the game's language (rules/ gives codes; the wording is in
    # templates/night-notes.toml, or the game's own copy), so a template prints res.notes.
    res = replace(r.result, notes=note_lines(r.result.notes, r.lang, folder=r.templates))
    opts = r.options
    fmt = Formatter(r.lang, r.tz, binary_checks=opts.check_result == "binary")
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
        "late_voters": tuple(dict.fromkeys(x.author for x in r.rejected
                                           if x.reason in ("late", "late_unclear"))),
        "move_reasons": MOVE_REASONS,
        "boss_alive": any(r.roles.get(n) is Role.BOSS for n in alive_after),
        "silent": tuple(n for n in r.alive_before if n not in dict(r.posts_by)),
        "code_table": lambda headers: code_table(r.candidates, headers),
        "code_inert": code_inert,
    }


def _order_key(r: DayReport):
    order = {n: i for i, n in enumerate(r.roles)}
    return lambda n: (order.get(n, len(order)), n)


def _moved(actual: datetime | None, regular: datetime | None) -> bool:
    return actual is not None and regular is not None and actual != regular


@functools.lru_cache(maxsize=8)
def _environment_with(folder: str) -> jinja2.Environment:
    """The templates with a game's own ``templates/`` folder tried first."""
    base = environment()
    return base.overlay(loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(folder),
                                                    base.loader]))


def _render(kind: str, lang: str, ext: str, ctx: dict, overrides: str | None = None) -> str:
    if overrides and Path(overrides).is_dir():
        name = f"{kind}.{lang}.{ext}.j2"
        try:
            text = _environment_with(overrides).get_template(name).render(**ctx)
        except jinja2.TemplateError as e:
            where = getattr(e, "filename", None) or name
            line = getattr(e, "lineno", None)
            raise ConfigError(f"template {where}{f', line {line}' if line else ''}: {e}",
                              hint="fix the template, or remove it from the game's "
                                   "templates/ folder to use the default") from None
    else:
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
        if not any(k == "check" for k, _ in lst):  # a check text carries the notice itself
            lst.append(entry)
    mafia_after = [n for n in res.alive if r.roles.get(n) and r.roles[n].is_mafia]
    for nick in sorted(mafia_after, key=_order_key(r)):
        out.setdefault(nick, []).append(("mafia-news", {"recipient": nick}))
    if res.frozen and res.frozen in res.alive and not res.winner:
        # R5.4: the frozen player is always told; with freeze_public off he is the only one
        out.setdefault(res.frozen, []).append(("frozen", {"recipient": res.frozen}))
    return out


def render_day(r: DayReport) -> dict[str, str]:
    """Every file of ``out/day-N/`` for this report: ``{relative path: text}``."""
    ctx = _template_context(r)
    lang = r.lang
    recipients = pm_recipients(r)
    ctx["pm_list"] = [(nick, [kind for kind, _ in parts], r.contacts.get(nick))
                      for nick, parts in sorted(recipients.items(),
                                                key=lambda x: _order_key(r)(x[0]))]
    files = {
        "newspaper.bbcode": _render("newspaper", lang, "bbcode", ctx, r.templates),
        "day-start.bbcode": _render("day-start", lang, "bbcode", ctx, r.templates),
        "host-report.txt": _render("host-report", lang, "txt", ctx, r.templates),
        "result.json": result_json(r.result),
    }
    for nick, parts in recipients.items():
        texts = []
        for kind, extra in parts:
            texts.append(_render(kind, lang, "txt", {**ctx, **extra}, r.templates))
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
    while len(s.encode("utf-8")) > 200:    # file systems allow 255 bytes a name
        s = s[:-1]
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
        if name.startswith(".day-") and name.endswith(".gone"):
            shutil.rmtree(p, ignore_errors=True)
            done.append(f"removed the withdrawn {name}")
            continue
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


_OURS = {"newspaper.bbcode", "day-start.bbcode", "host-report.txt", "result.json"}


def _ours(rel: str) -> bool:
    """A path in ``out/day-N/`` that resolving writes (``render_day``, ``preview_files``)."""
    return rel in _OURS or rel.split("/")[0] in ("pm", "preview")


def write_day_files(out_dir: Path, day: int, files: Mapping[str, str]) -> Path:
    """Write ``out_dir/day-N/`` with ``files`` (relative path -> text), atomically. Of the old
    folder only the files the host put there himself are carried over: any path resolving
    never writes (``_ours``); what resolving wrote before and does not write now goes.

    The new folder is built completely as ``.day-N.new`` (each file fsynced), then swapped
    with the old one in one step where the system allows (``renameat2``), else by two renames
    that ``recover_out_dir`` completes after a crash. Readers see the old folder or the new.
    """
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        recover_out_dir(out_dir)
        final, new, old = _day_paths(out_dir, day)
        if final.exists() and not final.is_dir():
            raise StorageError(f"{final.name} is a file, not the day's folder", path=str(final),
                               hint="move that file away; resolving writes the folder there")
        if new.exists():
            shutil.rmtree(new)
        new.mkdir()
        for rel, text in files.items():
            target = Path(os.path.normpath(new / rel))
            if new not in target.parents or Path(rel).is_absolute():
                raise StorageError(f"refusing to write outside the day folder: {rel}",
                                   path=str(new))
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as fh:
                fh.write(text.encode("utf-8"))
                fh.flush()
                os.fsync(fh.fileno())
            _crash_point(f"file:{rel}")
        if final.is_dir():  # the host's own files in the folder stay (never ours to delete)
            for src in sorted(final.rglob("*")):
                rel = src.relative_to(final).as_posix()
                if src.is_dir() and not src.is_symlink() or rel in files or _ours(rel):
                    continue
                (new / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, new / rel, follow_symlinks=False)
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


# ---------------------------------------------------------------------------------------------
# The service: resolve a day of a game and write its posts
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ResolveOutcome:
    """What ``resolve_day_files`` did: the day's result, where its posts are, and which later
    days it rewrote (``rewritten``) or withdrew because the game now ends earlier
    (``withdrawn``)."""

    day: int
    result: DayResult
    out_dir: Path
    files: tuple[str, ...]
    report: DayReport
    state: Any                     # the GameState after the day
    lynch: Any = None              # the tally's Lynch
    rewritten: tuple[int, ...] = ()
    withdrawn: tuple[int, ...] = ()


def default_day(ctx) -> int:
    """``resolve``'s default day: the last one whose deadline has passed (CONTRACT)."""
    day = ctx.calendar().last_due_day(ctx.now())
    if day < 1:
        cal = ctx.calendar()
        raise RulesError(f"no day's deadline has passed yet (day 1 ends "
                         f"{cal.deadline(1).isoformat()})",
                         hint="wait for the deadline, or give --day N --force")
    return day


def initial_game_state(ctx):
    """The state before day 1: the game file's players with the dealt roles, the duty mafioso
    and the random list (``scraper-mod deal``'s, unless the game file gives them)."""
    from ..rules.deal import effective_duty, effective_players, effective_random_list
    from ..rules.state import initial_state
    deal = ctx.store.get("deal")
    return initial_state(effective_players(ctx.game, deal), effective_duty(ctx.game, deal),
                         effective_random_list(ctx.game, deal) or ())


def state_before(ctx, day: int):
    """The game state day ``day`` starts from: the stored state after day ``day - 1``."""
    from ..rules.state import GameState
    if day == 1:
        return initial_game_state(ctx)
    stored = ctx.store.resolution(day - 1)
    if stored is None:
        missing = min(d for d in range(1, day) if ctx.store.resolution(d) is None)
        raise RulesError(f"day {missing} is not resolved yet, so day {day} has no state to "
                         "start from", hint=f"resolve day {missing} first")
    if not isinstance(stored.get("state"), dict):
        raise StorageError(f"the stored resolution of day {day - 1} has no game state",
                           path=str(ctx.store.path),
                           hint=f"resolve day {day - 1} again (scraper-mod resolve --day "
                                f"{day - 1})")
    st = GameState.from_json(stored["state"])
    # the store keeps JSON with sorted keys: put the players back in the game file's order,
    # which every list in the posts follows
    order = [p.nick for p in ctx.game.players if p.nick in st.roles]
    order += [n for n in st.roles if n not in order]
    # R4.1: a duty mafioso the host named in game.toml since (the same rule the moves use)
    return with_named_duty(st.evolve(roles={n: st.roles[n] for n in order}), ctx.game.duty)


def final_scan(ctx, day: int) -> None:
    """The final full re-scan of the day's topic and the last read of the move source.

    A topic that could not be read completely, or a move source that failed, stops the
    resolution: a day is never resolved on partial data."""
    from ..errors import ConfigError, ForumError, MailboxError
    from ..forum.poller import poll_day
    if not ctx.topic_for_day(day):
        raise ConfigError(f"day {day} has no topic", path=str(ctx.game.path), key="days",
                          hint=f"add [[days]] number = {day} with its topic, or use --offline")
    report = poll_day(ctx, day, full=True)
    if report is not None and (report.errors or not report.complete):
        first = report.errors[0] if report.errors else "the last page was not reached"
        raise ForumError(f"the final re-scan of day {day}'s topic failed: {first}",
                         url=report.topic,
                         hint="try again when the board answers, or resolve the stored "
                              "posts with --offline")
    if ctx.game.moves.source:
        from ..moves.intake import poll_moves
        intake = poll_moves(ctx)
        if intake.fetch.errors:
            raise MailboxError(f"the last read of the moves failed: {intake.fetch.errors[0]}",
                               source=intake.fetch.source,
                               hint="try again, or resolve the stored moves with --offline")


def _reveal(ctx, state) -> RandomReveal | None:
    if not state.order:
        return None
    deal = ctx.store.get("deal") or {}
    if list(deal.get("random_list") or ()) == list(state.order):
        return RandomReveal(order=tuple(state.order), salt=deal.get("salt"),
                            commitment=deal.get("commitment"))
    return RandomReveal(order=tuple(state.order))


def build_report(ctx, day: int, *, tally, lynch, moves, orders, before, result,
                 after) -> DayReport:
    """The ``DayReport`` of a resolved day from the service objects (VOTES' ``DayTally``,
    MOVES' judged moves, CORE's states and result)."""
    from ..rules.votes import reason_text
    from .tally import post_link
    game = ctx.game
    lang = game.language
    cal = ctx.calendar()
    deadline = cal.deadline(day)
    over = result.winner is not None
    next_deadline = None if over else cal.deadline(day + 1)
    next_regular = None
    if not over and cal.is_moved(day + 1):
        next_regular = cal.scheduled_deadline(day + 1)
    merged = (not over and not cal.is_moved(day + 1)
              and cal.deadline(day + 1) - cal.day_start(day + 1) > timedelta(hours=24))
    board = tally.board

    def link(post_id: int) -> str | None:
        return post_link(board, post_id) if board and post_id is not None else None

    notes = tally.notes
    rejected = tuple(Rejected(post_id=r.post_id, author=r.author, text=r.text, reason=r.reason,
                              why=reason_text(r.reason, lang)) for r in tally.rejected)
    edits = tuple(EditNote(post_id=e.post_id, author=e.author, edited_at=e.edited_at,
                           before=tuple(e.before), after=tuple(e.after), counted=e.counted,
                           seen_before=e.seen_before) for e in notes.edits)
    order = {n: i for i, n in enumerate(before.roles)}
    posts_by = tuple(sorted(((n, int(c)) for n, c in dict(notes.posts_per_player).items()
                             if c), key=lambda x: (order.get(x[0], len(order)), x[0])))
    frozen_today = ", ".join(sorted(tally.state.frozen)) or None
    tally_notes = tuple(tally.state.notes) + tuple(notes.notes) + (
        (tally.lynch_note,) if tally.lynch_note else ())
    return DayReport(
        title=game.title, day=day, lang=lang, tz=game.timezone, options=game.rules,
        result=result, roles=dict(before.roles), alive_before=before.alive_in_order(),
        deadline=deadline, newspaper_at=cal.day_start(day + 1),
        next_deadline=next_deadline, next_deadline_regular=next_regular,
        deadline_regular=cal.scheduled_deadline(day) if cal.is_moved(day) else None,
        next_day_merged=merged,
        candidates=build_candidates(tally.tally.counts, tally.tally.votes, link=link),
        not_voting=tuple(tally.tally.not_voting),
        lynch_by=lynch.by if lynch else None, tied=tuple(lynch.tied) if lynch else (),
        random_order=tuple(before.order), cursor_before=before.cursor,
        cursor_after=lynch.cursor if lynch else before.cursor,
        rejected=rejected, tally_notes=tally_notes, moves=tuple(moves), orders=orders,
        commissar=before.commissar, sergeant=before.sergeant, duty=before.duty,
        commissar_after=after.commissar, duty_after=after.duty, frozen_today=frozen_today,
        posts_by=posts_by, edits=edits, late_posts=tuple(notes.late_posts),
        deleted_posts=tuple(notes.deleted),
        reveal=_reveal(ctx, before) if over else None, topic=tally.topic,
        vote_table=vote_table_layout(game.rules),
        contacts={p.nick: p.contact for p in game.players if p.contact},
        templates=str(game.folder / "templates"))


def _decide_lynch(tally, before, options):
    from ..rules.tally import decide_lynch
    leaders = [t for t in tally.tally.leaders if t in before.alive]
    if len(leaders) != 1 and not before.order:
        raise RulesError("the vote is tied or empty and the game has no random list (R3)",
                         hint="draw it with `scraper-mod deal`, or set game.random_list")
    return decide_lynch(tally.tally, alive=before.alive, order=before.order,
                        cursor=before.cursor, options=options)


def checked_state_before(ctx, day: int):
    """``state_before``, refusing a day after the game's end."""
    before = state_before(ctx, day)
    if day > 1:
        prev = ctx.store.resolution(day - 1) or {}
        if prev.get("winner"):
            raise RulesError(f"the game ended on day {day - 1} ({prev['winner']} won): "
                             f"there is no day {day}")
    return before


def compute_day(ctx, day: int):
    """Resolve day ``day`` from the stored posts and moves, without writing anything.

    Returns ``(report, files-independent parts)``: the ``DayReport``, the state after the
    day, the lynch and the night orders."""
    from ..moves.intake import day_moves
    from ..rules.moves import orders_from_moves
    from ..rules.night import resolve_day
    from .tally import tally_day
    game = ctx.game
    before = checked_state_before(ctx, day)
    deadline = ctx.calendar().deadline(day)
    # R10, R11: renamed to the slots' nicks at the deadline, the host's removals dead
    before, host_kills, book = resolve_view(ctx, before, day=day, cutoff=deadline)
    tally = tally_day(ctx, day, as_of=deadline)
    lynch = _decide_lynch(tally, before, game.rules)
    moves = day_moves(ctx, day, state=before)
    orders = orders_from_moves(moves, before, game.rules)
    result, after = resolve_day(day, before, lynch, orders, game.rules)
    result = with_book(ctx, result, book, day, host_kills)
    report = build_report(ctx, day, tally=tally, lynch=lynch, moves=moves, orders=orders,
                          before=before, result=result, after=after)
    report = replace(report, **report_extras(ctx, book, report.contacts))
    if report.reveal is not None and not book.empty:   # the list as committed to (R3.1)
        report = replace(report, reveal=_reveal(ctx, initial_game_state(ctx)))
    return report, before, after, lynch, orders


def resolve_day_files(ctx, day: int | None = None, *, force: bool = False,
                      offline: bool = False, preview: bool = False,
                      cascade: bool = True) -> ResolveOutcome:
    """Resolve day ``day`` (RULES R6) and write ``out/day-N/`` (R9).

    Refuses before the day's deadline unless ``force``. Unless ``offline``, first re-scans
    the whole topic and reads the move source a last time. Records the result and the game
    state after the day in the store, writes the posts atomically, and — when later days
    were already resolved — resolves them again from the new state (``cascade``), so a
    correction of an earlier day carries through; later days that no longer happen (the game
    now ends earlier) are withdrawn from the store and from ``out/``.
    """
    from ..posts.preview import preview_files
    if day is None:
        day = default_day(ctx)
    if day < 1:
        raise RulesError(f"there is no day {day}: days are numbered from 1")
    cal = ctx.calendar()
    deadline = cal.deadline(day)
    now = ctx.now()
    if now < deadline and not force:
        raise RulesError(f"day {day}'s deadline has not passed yet: it is "
                         f"{deadline.astimezone(ctx.game.timezone).isoformat()}",
                         hint="wait for it, or use --force to resolve early")
    checked_state_before(ctx, day)  # before any network: an impossible day fails fast
    if not offline:
        final_scan(ctx, day)
    report, before, after, lynch, orders = compute_day(ctx, day)
    files = render_day(report)
    out_dir = ctx.game.out_dir
    final = out_dir / f"day-{day}"
    if preview or (final / "preview").is_dir():
        files.update(preview_files(files, lang=report.lang))
    write_day_files(out_dir, day, files)
    result = report.result
    data = {
        **result.to_json(),
        "story": result.story, "vsb_protected": result.vsb_protected,
        "notes": [n.to_json() if isinstance(n, Note) else n for n in result.notes],
        "lynch": lynch.to_json() if lynch is not None else None,
        "orders": orders.to_json(),
        "cursor": after.cursor,
        "state_before": before.to_json(),
        "state": after.to_json(),
        "files": {rel: hashlib.sha256(text.encode("utf-8")).hexdigest()
                  for rel, text in files.items()},
    }
    ctx.store.save_resolution(day, data, resolved_at=now)
    ctx.store.log_event("resolve", {"day": day, "forced": bool(force and now < deadline),
                                    "offline": offline, "winner": result.winner},
                        at=now)
    rewritten: list[int] = []
    withdrawn: list[int] = []
    if cascade:
        later = sorted(d for d in ctx.store.resolutions() if d > day)
        for d in later:
            if ctx.store.resolution(d - 1) is None or (ctx.store.resolution(d - 1) or {}).get(
                    "winner"):
                withdraw_day(ctx, d)
                withdrawn.append(d)
                continue
            resolve_day_files(ctx, d, force=True, offline=True, cascade=False)
            rewritten.append(d)
    return ResolveOutcome(day=day, result=result, out_dir=final, files=tuple(files),
                          report=report, state=after, lynch=lynch, rewritten=tuple(rewritten),
                          withdrawn=tuple(withdrawn))


def withdraw_day(ctx, day: int) -> None:
    """Forget a resolved day that no longer happens: its stored resolution and its posts
    (the folder is renamed aside first, so a crash leaves it whole or gone)."""
    ctx.store.delete_resolutions_from(day)
    final = ctx.game.out_dir / f"day-{day}"
    gone = ctx.game.out_dir / f".day-{day}.gone"
    if final.exists():
        if gone.exists():
            shutil.rmtree(gone)
        os.rename(final, gone)
        shutil.rmtree(gone, ignore_errors=True)
    ctx.store.log_event("withdraw", {"day": day}, at=ctx.now())
