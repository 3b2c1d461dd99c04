"""The game file, ``game.toml`` (docs/game-file.md): loading, defaults and validation.

Every problem is a ``ConfigError`` naming the file and the key, e.g.
``games/m7/game.toml: players[3].role: unknown role 'wizard' (one of boss, mafia, ...)``.
"""
# long: one loader for every table of game.toml, each key checked where it is read

from __future__ import annotations

import dataclasses
import math
import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime, time
from pathlib import Path
from typing import Any, NoReturn
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from scraper_mod.errors import ConfigError, RulesError
from scraper_mod.forum.client import MAX_PAGE_SIZE, PAGE_TIME_LIMIT, REQUEST_TIME_LIMIT
from scraper_mod.forum.engine import (
    ENGINE_NAMES,
    ENGINES,
    POST_LIMIT_HINT,
    READ_ONLY_ENGINES,
    TOPIC_URL_EXAMPLE,
    topic_key,
    topic_url_problem,
    web_address_problem,
)
from scraper_mod.forum.gameboard import OLD_PM_SOURCE
from scraper_mod.game.setup.nickfiles import check_file_names
from scraper_mod.game.setup.signupconfig import SignupConfig, parse_reserve, parse_signup
from scraper_mod.moves.capped import MAX_MESSAGE_SIZE, MAX_MOVES_PER_MESSAGE
from scraper_mod.posts.limits import MIN_POST_CHARS
from scraper_mod.rules.calendar import MAX_DAYS, Calendar, wall_time
from scraper_mod.rules.model import Player, Role, RuleOptions
from scraper_mod.rules.names import fold
from scraper_mod.rules.roles import CATALOGUE, RolesSetup, read_setup

GAME_FILE = "game.toml"
MAX_GAME_FILE = 1 << 20     # bytes: a game file is a few KiB; a huge one is never read whole
STATE_FILE = "state.sqlite3"
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_HHMM = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


@dataclass(frozen=True)
class DaySpec:
    """One ``[[days]]`` entry: the day's topic and, optionally, a moved deadline (R1.4)."""

    number: int
    topic: str | None = None
    deadline: datetime | None = None
    vote_topic: str | None = None   # R2.17: the day's voting topic, when the house has one


@dataclass(frozen=True)
class ForumConfig:
    url: str | None = None
    username: str | None = None
    engine: str | None = None     # forum.engine.ENGINES; None: told from the board's front page
    min_delay: float = 1.0        # seconds between two requests to the board
    full_scan_delay: float = 0.5  # the same during the once-a-day full re-scan at the deadline
    timeout: float = 30.0
    retries: int = 4
    forum: str | None = None      # the forum's URL where new day topics appear
    title_pattern: str = r"День\s*{n}\b|Day\s*{n}\b"
    max_post_chars: int = 60000   # the board's limit (its default); a longer post is split
    max_page_size: int = MAX_PAGE_SIZE            # bytes read of one page at most
    request_time_limit: float = REQUEST_TIME_LIMIT   # seconds for a request, body included
    page_time_limit: float = PAGE_TIME_LIMIT      # seconds for a page, retries included


@dataclass(frozen=True)
class MovesConfig:
    source: str | None = None     # maildir | imap | queue | forum_pm (old name phpbb_pm)
    path: str = "moves"
    host: str | None = None
    port: int | None = None
    username: str | None = None
    folder: str = "INBOX"
    security: str = "ssl"         # ssl | starttls | none
    require_code: bool = False
    outbox: str = "outbox"
    smtp_host: str | None = None
    smtp_port: int = 25
    smtp_from: str | None = None
    smtp_security: str = "none"   # none | starttls | ssl
    smtp_username: str | None = None  # password from SCRAPER_MOD_SMTP_PASSWORD
    max_story_chars: int = 3000   # what of the murder story the newspaper quotes (0: none)
    max_message_size: int = MAX_MESSAGE_SIZE  # bytes of one message read at most
    max_moves_per_message: int = MAX_MOVES_PER_MESSAGE


@dataclass(frozen=True)
class ScheduleConfig:
    poll_minutes: float = 5.0
    final_poll_minutes: float = 1.0
    final_window_minutes: float = 30.0
    grace_seconds: float = 60.0


@dataclass(frozen=True)
class PublishConfig:
    """``[publish]`` (R12; docs/game-file.md "[publish]")."""

    mode: str = "off"                 # off | review | auto
    results_topic: str | None = None  # newspapers are replies here
    results_forum: str | None = None  # or one results topic per game, opened there
    day_topic: str = "open"           # open | reply
    title_template: str = "{title}. День {day}"
    vote_title_template: str = ""     # R2.17: "{title}. Голосование, день {day}": opened too
    private_messages: bool = True
    lock_day_topic: bool = False
    # during the day (docs/daytime.md): all off by default
    tally_times: tuple[str, ...] = ()  # "13:00": a vote count posted in the day topic then
    tally_command: str = ""           # "!голоса": a post with it asks for a count
    tally_cooldown_minutes: float = 30.0   # one count on request per this many minutes
    tally_requests_from: str = "anyone"    # anyone | players | alive: whose request counts
    remind_moves_at: str = ""         # "18:00": PM each role that has sent no move yet
    alert_host: str = "off"           # off | pm | mail: what needs the host, told at once
    alert_to: str = ""                # the host's nick (pm; default [game] host) or address

    @property
    def daytime_chores(self) -> bool:
        """True when anything is posted during the day (counts, reminders, alerts)."""
        return bool(self.tally_times or self.tally_command or self.remind_moves_at
                    or self.alert_host != "off")


@dataclass(frozen=True)
class Game:
    """A loaded, validated game file."""

    path: Path
    title: str
    timezone: ZoneInfo
    start: date
    day_start: time = time(21, 0)
    deadline: time = time(20, 0)
    language: str = "ru"
    host: str | None = None
    players: tuple[Player, ...] = ()
    duty: str | None = None
    random_list: tuple[str, ...] | None = None
    rules: RuleOptions = field(default_factory=RuleOptions)
    days: tuple[DaySpec, ...] = ()
    forum: ForumConfig = field(default_factory=ForumConfig)
    moves: MovesConfig = field(default_factory=MovesConfig)
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)
    publish: PublishConfig = field(default_factory=PublishConfig)
    deal: dict = field(default_factory=dict)  # role id -> count, for `deal`
    roles: RolesSetup = field(default_factory=RolesSetup)   # [roles] (R14.3)
    signup: SignupConfig = field(default_factory=SignupConfig)
    reserve: tuple[str, ...] = ()   # R13: written by `signup --write`, taken by `replace`

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def state_path(self) -> Path:
        return self.folder / STATE_FILE

    @property
    def out_dir(self) -> Path:
        return self.folder / "out"

    def player(self, nick: str) -> Player | None:
        for p in self.players:
            if p.nick == nick:
                return p
        return None

    def day(self, number: int) -> DaySpec | None:
        for d in self.days:
            if d.number == number:
                return d
        return None


def resolve_game_path(arg: str | Path) -> Path:
    """A game folder or its game.toml -> the game.toml path."""
    p = Path(arg)
    try:
        if p.is_dir():
            p = p / GAME_FILE
        found = p.exists()
    except OSError as e:  # a folder we may not enter
        raise ConfigError(f"cannot read: {e.strerror or e}", path=str(p),
                          hint="check the folder's permissions",
                          ru="не читается (проверьте права на папку)") from None
    if not found:
        raise ConfigError("no such game file", path=str(p),
                          hint="give a game folder holding game.toml, or the file itself",
                          ru="нет такого файла игры (укажите папку игры с game.toml или сам "
                             "файл)")
    return p


def load_game(arg: str | Path) -> Game:
    """Read and validate a game file (a folder or the file)."""
    path = resolve_game_path(arg)
    try:
        # utf-8-sig: Windows Notepad starts UTF-8 files with a byte order mark
        data = tomllib.loads(_read_capped(path).decode("utf-8-sig"))
    except tomllib.TOMLDecodeError as e:
        at = re.search(r"line (\d+), column (\d+)", str(e))
        raise ConfigError(f"not valid TOML: {e}", path=str(path),
                          ru="файл не читается как TOML" + (
                              f": ошибка в строке {at[1]}, позиция {at[2]}" if at else "")
                          + " (проверьте кавычки, скобки и знаки = в этом месте)") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"cannot read: not UTF-8 text (byte {e.start})", path=str(path),
                          hint="save game.toml as UTF-8 (not windows-1251 or UTF-16)") from None
    except OSError as e:
        raise ConfigError(f"cannot read: {e}", path=str(path)) from None
    return parse_game(data, path=path)


def _read_capped(path: Path) -> bytes:
    """The game file's bytes, refused in one line when it is larger than ``MAX_GAME_FILE``
    (the folder scan reads every game file every minute: a few GB would kill the daemon of
    every game)."""
    with path.open("rb") as f:
        raw = f.read(MAX_GAME_FILE + 1)
    if len(raw) > MAX_GAME_FILE:
        raise ConfigError(f"the game file is larger than {MAX_GAME_FILE >> 20} MiB; it is not "
                          "read", path=str(path), hint="a game file is a few KiB: check what "
                          "was written into it")
    return raw


def _check_url(r: "_Reader", key: str, url: str, *, topic: bool = False) -> None:
    """An http(s) address with a host; for a day's topic, the address of a topic on an
    engine scraper-mod reads (``forum.engine.topic_url_problem``)."""
    if web_address_problem(url) is not None:
        example = TOPIC_URL_EXAMPLE if topic else "https://forum.example.org/"
        r.fail(key, f"not a web address: {url!r}", hint="give the full URL, e.g. " + example,
               ru=f"это не веб-адрес: {url!r} (укажите полный адрес, например {example})")
    problem = topic_url_problem(url, engine=r.engine) if topic else None
    if problem is not None:
        ru_msg, ru_hint = topic_url_problem(url, "ru", engine=r.engine) or problem
        r.fail(key, problem[0], hint=problem[1], ru=f"{ru_msg} ({ru_hint})")


def _check_read_only(r: "_Reader", engine: str, moves: "MovesConfig", pub: "PublishConfig",
                     language: str) -> None:
    """A board scraper-mod only reads (``READ_ONLY_ENGINES``): nothing that posts
    or reads PMs there, each refused in one line in the game's language with the fix."""
    name = ENGINE_NAMES.get(engine, engine)
    asks = [("publish.mode", pub.mode == "auto",
             f"the autopilot cannot post on a {name} board (scraper-mod only reads it)",
             f"автопилот не может писать на форум {name} (scraper-mod его только читает)",
             'set [publish] mode = "off" and post the texts of out/day-N/ by hand',
             'поставьте [publish] mode = "off" и публикуйте тексты из out/day-N/ вручную'),
            ("moves.source", moves.source in ("forum_pm", "phpbb_pm"),
             f"moves by forum PM cannot be read on a {name} board",
             f"ходы личными сообщениями форума {name} не читаются",
             'take moves by mail: [moves] source = "imap" or "maildir"',
             'принимайте ходы почтой: [moves] source = "imap" или "maildir"'),
            ("publish.alert_host", pub.alert_host == "pm",
             f"alerts by forum PM cannot be sent on a {name} board",
             f"оповещения личными сообщениями на форуме {name} не отправляются",
             'set [publish] alert_host = "mail" (or "off")',
             'поставьте [publish] alert_host = "mail" (или "off")')]
    for key, bad, en, ru, hint, hint_ru in asks:
        if bad:
            line_ru = f"{ru}: {hint_ru}"
            raise ConfigError(line_ru if language == "ru" else en, path=r.path, key=key,
                              hint="" if language == "ru" else hint, ru=line_ru)


class _Reader:
    def __init__(self, path: Path):
        self.path = str(path)
        self.engine: str | None = None     # [forum] engine, read first (topic addresses)

    def fail(self, key: str, msg: str, hint: str = "", ru: str | None = None) -> NoReturn:
        raise ConfigError(msg, path=self.path, key=key, hint=hint, ru=ru)

    def table(self, data: dict, key: str) -> dict:
        v = data.get(key, {})
        if not isinstance(v, dict):
            self.fail(key, "must be a table")
        return v

    def typed(self, tbl: dict, prefix: str, key: str, kind, default=None):
        if key not in tbl:
            return default
        v = tbl[key]
        ok = isinstance(v, kind) and not (kind in (int, float, (int, float)) and isinstance(v, bool))
        if not ok:
            name = _KIND_NAMES.get(kind, "a number") if isinstance(kind, type) else "a number"
            self.fail(f"{prefix}{key}", f"must be {name}, not {v!r}")
        if isinstance(v, float) and not math.isfinite(v):   # TOML's nan and inf (issue 40)
            self.fail(f"{prefix}{key}", f"must be a finite number, not {v!r}",
                      hint="write a number such as 30 or 0.5")
        return v

    def hhmm(self, tbl: dict, prefix: str, key: str, default: time) -> time:
        v = tbl.get(key)
        if v is None:
            return default
        if isinstance(v, time):
            return v.replace(second=0, microsecond=0)
        if not isinstance(v, str) or not _HHMM.match(v):
            self.fail(f"{prefix}{key}", f"must be a time as \"HH:MM\", not {v!r}")
        h, m = v.split(":")
        return time(int(h), int(m))

    def unknown(self, tbl: dict, prefix: str, known) -> None:
        for k in tbl:
            if k not in known:
                self.fail(f"{prefix}{k}", "unknown key",
                          hint=f"known keys: {', '.join(sorted(known))}")


def _check_name_clash(r: "_Reader", seen: dict[str, tuple[int, str, str]], i: int, nick: str,
                      aliases: list[str]) -> None:
    """R2.3: no two players' nicks or aliases may be one name once folded the way votes are
    matched (case, ё/е, separators, look-alike Latin/Cyrillic letters: «Игрок-7» = «Игрок 7»,
    Latin «Bacя» = «Вася»), or every vote for either would be ambiguous. ``seen``: folded
    name -> (player index, the name as written, its key), filled in as players are read."""
    for j, name in enumerate([nick, *aliases]):
        key = f"players[{i + 1}]." + ("nick" if j == 0 else f"aliases[{j}]")
        k = fold(name)
        if not k:
            continue
        if k in seen and seen[k][0] != i:
            _, other, other_key = seen[k]
            r.fail(key, f"duplicate nick or alias {name!r}: the same name as {other_key} "
                   f"{other!r} when votes are matched (case, ё/е, spaces, hyphens and "
                   "look-alike Latin/Cyrillic letters are ignored)",
                   hint="rename one of them, or drop the alias")
        seen.setdefault(k, (i, name, key))


def _check_name_characters(r: "_Reader", i: int, nick: str, aliases: list[str]) -> None:
    """A nick or alias with a control character (a newline splits a line of the newspaper's
    list) or a bidirectional control (U+202E turns the rest of the line around in browsers)
    is refused at load, naming the key and the character."""
    for j, name in enumerate([nick, *aliases]):
        key = f"players[{i + 1}]." + ("nick" if j == 0 else f"aliases[{j}]")
        for ch in name:
            if unicodedata.category(ch) in ("Cc", "Cf") and ch not in "\u200d":
                r.fail(key, f"{name!r} holds the control character U+{ord(ch):04X} "
                       f"({unicodedata.name(ch, 'unnamed')})",
                       hint="write the nick as the board shows it, without control or "
                            "direction characters")


_KIND_NAMES = {str: "a string", int: "a whole number", bool: "true or false",
               float: "a number"}


def _typed_table(r: _Reader, cls, tbl: dict, prefix: str):
    """Build the dataclass ``cls`` from ``tbl``, checking each value against its field type."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    r.unknown(tbl, prefix, fields)
    for k, v in tbl.items():
        declared = str(fields[k].type)
        kind: type | tuple[type, ...]
        if declared.startswith("str"):
            kind = str
        elif declared.startswith("bool"):
            kind = bool
        elif declared.startswith("int"):
            kind = int
        else:
            kind = (int, float)
        r.typed(tbl, prefix, k, kind)
    return cls(**tbl)


def _options(r: _Reader, tbl: dict, merge_weekends) -> RuleOptions:
    defaults = RuleOptions()
    fields = {f.name: f for f in dataclasses.fields(RuleOptions)}
    r.unknown(tbl, "rules.", fields)
    values: dict[str, Any] = {}
    for name, f in fields.items():
        if name not in tbl:
            continue
        default = getattr(defaults, name)
        v = tbl[name]
        key = f"rules.{name}"
        if name == "vote_change_limits":      # R2.13
            values[name] = _change_limits(r, v)
            continue
        if name == "voting_opens":            # R2.18
            if not isinstance(v, str) or (v and not _HHMM.match(v)):
                r.fail(key, f"must be a time of day \"HH:MM\" in game time, not {v!r}",
                       hint='e.g. voting_opens = "20:00"; "" for no voting window')
            values[name] = v
            continue
        if isinstance(default, bool):
            if not isinstance(v, bool):
                r.fail(key, f"must be true or false, not {v!r}")
        elif isinstance(default, int):
            if isinstance(v, bool) or not isinstance(v, int):
                r.fail(key, f"must be a whole number, not {v!r}")
            if (v < 0 and not (name == "vote_changes" and v == -1)) or \
                    (name == "last_word_hours" and v > 24 * 7):
                r.fail(key, f"out of range: {v}")
        elif isinstance(default, tuple):
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                r.fail(key, "must be a list of strings")
            v = tuple(x.strip().lower() for x in v)
        elif isinstance(default, str):
            choices = _CHOICES[name]
            if v not in choices:
                r.fail(key, f"must be one of {', '.join(choices)}, not {v!r}")
        values[name] = v
    if merge_weekends is not None:
        values["merge_weekends"] = merge_weekends
    for d in values.get("weekend_days", ()):
        if d not in WEEKDAYS:
            r.fail("rules.weekend_days", f"unknown weekday {d!r} (one of {', '.join(WEEKDAYS)})")
    if set(values.get("weekend_days", ())) >= set(WEEKDAYS):
        r.fail("rules.weekend_days", "cannot list every day of the week: no deadline would be left")
    return RuleOptions(**values)


def _change_limits(r: _Reader, v: object) -> tuple[tuple[str, int], ...]:
    """R2.13: ``vote_change_limits = [{ from = "19:00", changes = 2 }, ...]``."""
    out = []
    for i, item in enumerate(v if isinstance(v, list) else [v]):
        start, n = item.get("from") if isinstance(item, dict) else None, \
            item.get("changes") if isinstance(item, dict) else None
        if not isinstance(item, dict) or set(item) != {"from", "changes"} or \
                not isinstance(start, str) or not _HHMM.match(start) or \
                isinstance(n, bool) or not isinstance(n, int) or n < 0:
            r.fail(f"rules.vote_change_limits[{i + 1}]", f"must be {{ from = \"HH:MM\", "
                   f"changes = N }} (game time, N 0 or more), not {item!r}",
                   hint='e.g. [{ from = "19:00", changes = 2 }, { from = "19:50", changes = 1 }]')
        out.append((start, n))
    return tuple(out)


_CHOICES = {
    "ambiguous_post": ("none", "last"),
    "edited_votes": ("versions", "never"),
    "tie_scope": ("all_alive", "tied_only"),
    "tie_break": ("random_list", "earliest"),
    "check_result": ("exact", "binary"),
    "vote_table": ("list", "code", "table"),
}


def _refuse_non_finite(r: _Reader, data: object, key: str) -> None:
    """Every number of the file is finite: TOML has ``nan`` and ``inf``, and a wait of
    ``nan`` minutes makes every poll fail (issue 40). The key is named, in the file's order."""
    if isinstance(data, float) and not math.isfinite(data):
        r.fail(key or "(top level)", f"must be a finite number, not {data!r}",
               hint="write a number such as 30 or 0.5")
    if isinstance(data, dict):
        for k, v in data.items():
            _refuse_non_finite(r, v, f"{key}.{k}" if key else str(k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            _refuse_non_finite(r, v, f"{key}[{i}]")
def _unknown_player_role(r: _Reader, key: str, role: object) -> NoReturn:
    """A role in ``[[players]]`` that is no role id (R14.3): one line naming the id when the
    host wrote a role's name («Путана»); in English as the rest of the file's checks, with
    the Russian line for the host's page of a Russian game."""
    ids = ", ".join(x.value for x in Role)
    named = next((x for x, sp in CATALOGUE.items() if isinstance(role, str)
                  and role.strip().casefold() in (sp.ru.casefold(), sp.en.casefold())), None)
    if named is not None:
        en = f"unknown role {role!r}: write the role's id, {named.value!r}"
        ru = f"неизвестная роль {role!r}: роль пишется латиницей, {named.value!r}"
    else:
        en = f"unknown role {role!r} (one of {ids})"
        ru = f"неизвестная роль {role!r} (допустимы: {ids})"
    r.fail(key, en, ru=ru)


def parse_game(data: dict, *, path: Path) -> Game:
    # long: one check per game.toml table, in the file's order
    """Validate a parsed TOML document into a ``Game``."""
    r = _Reader(path)
    pre = data.get("forum")
    r.engine = pre.get("engine") if isinstance(pre, dict) and isinstance(
        pre.get("engine"), str) else None
    r.unknown(data, "", {"game", "forum", "moves", "rules", "players", "mafia", "days",
                         "schedule", "deal", "publish", "signup", "reserve", "roles"})
    _refuse_non_finite(r, data, "")
    g = r.table(data, "game")
    r.unknown(g, "game.", {"title", "timezone", "start", "day_start", "deadline",
                           "merge_weekends", "language", "host", "random_list"})
    title = r.typed(g, "game.", "title", str, "Мафия")
    tzname = r.typed(g, "game.", "timezone", str, "Europe/Moscow")
    try:
        tz = ZoneInfo(tzname)
    except (ZoneInfoNotFoundError, ValueError):
        r.fail("game.timezone", f"unknown time zone {tzname!r}", hint="e.g. \"Europe/Moscow\"",
               ru=f"неизвестный часовой пояс {tzname!r} (например \"Europe/Moscow\")")
    start = g.get("start")
    if start is None:
        r.fail("game.start", "missing: the date day 1 starts, e.g. 2024-03-14",
               ru="не указана дата начала дня 1 (например start = 2024-03-14)")
    if isinstance(start, str):
        try:
            start = date.fromisoformat(start)
        except ValueError:
            r.fail("game.start", f"must be a date like 2024-03-14, not {start!r}")
    if isinstance(start, datetime) or not isinstance(start, date):
        r.fail("game.start", f"must be a date like 2024-03-14, not {start!r}")
    day_start = r.hhmm(g, "game.", "day_start", time(21, 0))
    deadline = r.hhmm(g, "game.", "deadline", time(20, 0))
    language = r.typed(g, "game.", "language", str, "ru")
    if language not in ("ru", "en"):
        r.fail("game.language", f"must be \"ru\" or \"en\", not {language!r}",
               ru=f"нужно \"ru\" или \"en\", а не {language!r}")
    host = r.typed(g, "game.", "host", str, None)
    merge = r.typed(g, "game.", "merge_weekends", bool, None)

    players = []
    raw_players = data.get("players", [])
    if not isinstance(raw_players, list):
        r.fail("players", "must be an array of tables: [[players]]",
               ru="нужен список таблиц: [[players]]")
    seen: dict[str, tuple[int, str, str]] = {}
    for i, p in enumerate(raw_players):
        pre = f"players[{i + 1}]."
        if not isinstance(p, dict):
            r.fail(f"players[{i + 1}]", "must be a table")
        r.unknown(p, pre, {"nick", "role", "contact", "aliases", "alive", "code", "forum_id"})
        nick = r.typed(p, pre, "nick", str)
        if not nick or not nick.strip():
            r.fail(pre + "nick", "missing or empty", ru="ник не указан или пуст")
        role = p.get("role")
        if role is not None:
            try:
                role = Role(role)
            except ValueError:
                _unknown_player_role(r, pre + "role", role)
        aliases = p.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            r.fail(pre + "aliases", "must be a list of strings")
        _check_name_characters(r, i, nick, aliases)
        _check_name_clash(r, seen, i, nick, aliases)
        players.append(Player(
            nick=nick, role=role, contact=r.typed(p, pre, "contact", str),
            aliases=tuple(aliases), alive=r.typed(p, pre, "alive", bool, True),
            code=r.typed(p, pre, "code", str), forum_id=r.typed(p, pre, "forum_id", int)))
    for single in (r for r, sp in CATALOGUE.items() if sp.single):
        holders = [p.nick for p in players if p.role is single]
        if len(holders) > 1:
            en = (f"{len(holders)} players have the role {single.value} "
                  f"({', '.join(holders)}); a game has at most one")
            ru = (f"роль {single.value} ({CATALOGUE[single].ru}) у {len(holders)} игроков "
                  f"({', '.join(holders)}), а по правилам она одна: оставьте её одному")
            r.fail("players", en, ru=ru)
    check_file_names([p.nick for p in players], str(path))
    nicks = {p.nick for p in players}
    if host and host in nicks:
        r.fail("game.host", f"the host {host!r} is also a player",
               ru=f"ведущий {host!r} указан и среди игроков")

    random_list = g.get("random_list")
    if random_list is not None:
        if (not isinstance(random_list, list)
                or not all(isinstance(x, str) for x in random_list)
                or sorted(random_list) != sorted(nicks)):
            r.fail("game.random_list", "must list every player's nick exactly once",
                   ru="в случайном списке должен быть ник каждого игрока, ровно по одному "
                      "разу")
        random_list = tuple(random_list)

    mafia = r.table(data, "mafia")
    r.unknown(mafia, "mafia.", {"duty"})
    duty = r.typed(mafia, "mafia.", "duty", str)
    if duty is not None:
        dp = next((p for p in players if p.nick == duty), None)
        if dp is None:
            r.fail("mafia.duty", f"{duty!r} is not a player",
                   ru=f"{duty!r} — не игрок этой игры")
        if dp.role is not None and not dp.role.is_mafia:
            r.fail("mafia.duty", f"{duty!r} is {dp.role.value}, not a mafioso",
                   ru=f"{duty!r} — не мафиози (роль {dp.role.value})")

    rules = _options(r, r.table(data, "rules"), merge)

    days: list[DaySpec] = []
    raw_days = data.get("days", [])
    if not isinstance(raw_days, list):
        r.fail("days", "must be an array of tables: [[days]]",
               ru="нужен список таблиц: [[days]]")
    for i, d in enumerate(raw_days):
        pre = f"days[{i + 1}]."
        if not isinstance(d, dict):
            r.fail(f"days[{i + 1}]", "must be a table")
        r.unknown(d, pre, {"number", "topic", "deadline", "vote_topic"})
        n = r.typed(d, pre, "number", int)
        if n is None or not 1 <= n <= MAX_DAYS:
            r.fail(pre + "number", f"must be a day number from 1 to {MAX_DAYS}")
        dl = d.get("deadline")
        if dl is not None:
            if isinstance(dl, str):
                try:
                    dl = datetime.fromisoformat(dl)
                except ValueError:
                    r.fail(pre + "deadline", f"must be a date and time, not {dl!r}",
                           ru=f"нужны дата и время, а не {dl!r}")
            if not isinstance(dl, datetime):
                r.fail(pre + "deadline", "must be a date and time like 2024-03-15T20:00:00+03:00",
                       ru="нужны дата и время вида 2024-03-15T20:00:00+03:00")
            try:     # issue 18 item 11: no wall time skipped or shown twice by DST
                dl = wall_time(dl, tz)
            except RulesError as e:
                r.fail(pre + "deadline", e.message, hint=e.hint, ru=e.ru)
        if any(x.number == n for x in days):
            r.fail(pre + "number", f"day {n} is listed twice")
        topic = r.typed(d, pre, "topic", str)
        if topic is not None:
            _check_url(r, pre + "topic", topic, topic=True)
        vote_topic = r.typed(d, pre, "vote_topic", str)      # R2.17
        if vote_topic is not None:
            _check_url(r, pre + "vote_topic", vote_topic, topic=True)
            if topic is not None and topic_key(vote_topic) == \
                    topic_key(topic):
                r.fail(pre + "vote_topic", "is the day's topic itself",
                       hint="the voting topic is a topic of its own; leave vote_topic out "
                            "when the house votes in the day's topic")
        days.append(DaySpec(number=n, topic=topic, deadline=dl, vote_topic=vote_topic))
    moved = {d.number: d.deadline for d in days if d.deadline is not None}
    if moved:  # a moved deadline before its day starts is caught here, naming the key
        cal = Calendar(start=start, day_start=day_start, deadline=deadline, tz=tz,
                       merge_weekends=rules.merge_weekends, weekend_days=rules.weekend_days,
                       moved=moved)
        for i, d in enumerate(days):
            if d.deadline is not None:
                try:
                    cal.deadline(d.number)
                except RulesError as e:
                    r.fail(f"days[{i + 1}].deadline", e.message,
                           hint="a day's deadline must come after the day's start",
                           ru=(e.ru or e.message) + " (срок дня должен быть позже его начала)")

    forum = _typed_table(r, ForumConfig, r.table(data, "forum"), "forum.")
    for key in ("url", "forum"):
        if getattr(forum, key) is not None:
            _check_url(r, f"forum.{key}", getattr(forum, key))
    if forum.engine not in (None, *ENGINES):
        r.fail("forum.engine", f"must be {' or '.join(ENGINES)}, not {forum.engine!r}",
               hint="leave it out to let scraper-mod tell it from the board's front page",
               ru=f"нужно одно из: {', '.join(ENGINES)}, а не {forum.engine!r} (или уберите "
                  "ключ: scraper-mod узнает движок по главной странице форума)")
    for key in ("min_delay", "full_scan_delay"):
        if not 0 <= getattr(forum, key) < math.inf:  # nan and inf are TOML floats too
            r.fail(f"forum.{key}", "must be a finite number of seconds >= 0, not "
                   f"{getattr(forum, key)!r}")
    if not 0 < forum.timeout < math.inf:
        r.fail("forum.timeout", f"must be a finite number of seconds > 0, not {forum.timeout!r}",
               ru=f"нужно число секунд больше 0, а не {forum.timeout!r}")
    if not 0 <= forum.retries <= 20:
        r.fail("forum.retries", f"must be from 0 to 20, not {forum.retries!r}",
               ru=f"нужно число от 0 до 20, а не {forum.retries!r}")
    if forum.max_post_chars and not MIN_POST_CHARS <= forum.max_post_chars <= 10_000_000:
        r.fail("forum.max_post_chars", f"must be 0 (no limit) or from {MIN_POST_CHARS} to "
               f"10000000 characters, not {forum.max_post_chars!r}",
               hint=POST_LIMIT_HINT)
    _check_limits(r, forum, "forum.", sizes=("max_page_size",),
                  seconds=("request_time_limit", "page_time_limit"))
    try:
        re.compile(forum.title_pattern.replace("{n}", "1"))
    except re.error as e:
        r.fail("forum.title_pattern", f"not a valid regular expression: {e}")

    moves = _typed_table(r, MovesConfig, r.table(data, "moves"), "moves.")
    if moves.source not in (None, "maildir", "imap", "queue", "forum_pm", OLD_PM_SOURCE):
        r.fail("moves.source", f"must be maildir, imap, queue or forum_pm, not {moves.source!r}")
    if moves.smtp_security not in ("ssl", "starttls", "none"):
        r.fail("moves.smtp_security", "must be ssl, starttls or none")
    if moves.security not in ("ssl", "starttls", "none"):
        r.fail("moves.security", "must be ssl, starttls or none")
    for key in ("port", "smtp_port"):
        if getattr(moves, key) is not None and not 1 <= getattr(moves, key) <= 65535:
            r.fail(f"moves.{key}", f"must be a port number from 1 to 65535, not "
                   f"{getattr(moves, key)!r}")
    if not 0 <= moves.max_story_chars <= 50_000:
        r.fail("moves.max_story_chars", f"must be from 0 (no story) to 50000 characters, not "
               f"{moves.max_story_chars!r}")
    _check_limits(r, moves, "moves.", sizes=("max_message_size",),
                  counts=("max_moves_per_message",))
    if moves.source == "imap" and not moves.host:
        r.fail("moves.host", "the IMAP server's host name is needed for source = \"imap\"")

    s = r.table(data, "schedule")
    r.unknown(s, "schedule.", {x.name for x in dataclasses.fields(ScheduleConfig)})
    for k, v in s.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < math.inf:
            r.fail(f"schedule.{k}", f"must be a finite number of minutes/seconds >= 0, "
                   f"not {v!r}")
    for k in ("poll_minutes", "final_poll_minutes"):
        if k in s and s[k] < 0.01:
            r.fail(f"schedule.{k}", f"must be at least 0.01 minutes (0.6 s), not {s[k]!r}",
                   hint="the board would be asked without pause")
    schedule = ScheduleConfig(**s)

    publish = _parse_publish(r, r.table(data, "publish"), language)
    if forum.engine in READ_ONLY_ENGINES:
        _check_read_only(r, forum.engine, moves, publish, language)

    deal = r.table(data, "deal")
    for k, v in deal.items():
        if k not in {x.value for x in Role}:
            r.fail(f"deal.{k}", "unknown role")
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            r.fail(f"deal.{k}", f"must be a count >= 0, not {v!r}")

    def fail_lang(key: str, en: str, ru: str) -> NoReturn:
        # R14.3 / issue 37: a Russian game's host reads the line in Russian
        r.fail(key, ru if language == "ru" else en, ru=ru)
    roles_setup = read_setup(r.table(data, "roles"), players=len(players) or None,
                             fail=fail_lang)
    if roles_setup.counts and players and all(p.role is not None for p in players):
        given = {role: sum(1 for p in players if p.role is role) for role in Role}
        diff = sorted(role.value for role in Role
                      if given[role] != roles_setup.counts.get(role, 0))
        if diff:   # every role is written in [[players]]: they must be the setup's
            fail_lang("roles.setup", f"the roles in [[players]] differ from the setup in "
                      f"{', '.join(diff)}: fix one of them",
                      f"роли в [[players]] не совпадают с раскладом: {', '.join(diff)}; "
                      "исправьте одно из двух")

    return Game(path=path, title=title, timezone=tz, start=start, day_start=day_start,
                deadline=deadline, language=language, host=host, players=tuple(players),
                duty=duty, random_list=random_list, rules=rules, days=tuple(sorted(
                    days, key=lambda x: x.number)), forum=forum, moves=moves,
                schedule=schedule, publish=publish, deal=dict(deal), roles=roles_setup,
                signup=parse_signup(r, r.table(data, "signup"), tz),
                reserve=parse_reserve(r, data))


def _check_limits(r: "_Reader", table, prefix: str, *, sizes=(), seconds=(),
                  counts=()) -> None:
    """The limits of issue 18 (``forum.client``, ``moves.capped``): sizes in bytes from 1 KiB, times in
    seconds above 0, counts from 1."""
    for key in sizes:
        v = getattr(table, key)
        if v < 1024:
            r.fail(prefix + key, f"must be a number of bytes of at least 1024, not {v!r}",
                   hint="e.g. 8_388_608 for 8 MiB")
    for key in seconds:
        v = getattr(table, key)
        if not 0 < v < math.inf:
            r.fail(prefix + key, f"must be a finite number of seconds > 0, not {v!r}")
    for key in counts:
        v = getattr(table, key)
        if v < 1:
            r.fail(prefix + key, f"must be at least 1, not {v!r}")


def _parse_publish(r: "_Reader", tbl: dict, language: str = "ru") -> PublishConfig:
    """``[publish]``: the modes and targets of posting on the board (R12)."""
    tbl = dict(tbl)
    times = tbl.pop("tally_times", [])
    command = tbl.pop("tally_command", "")
    pub = _typed_table(r, PublishConfig, tbl, "publish.")
    if not isinstance(times, list) or not all(isinstance(t, str) and _HHMM.match(t.strip())
                                              for t in times):
        r.fail("publish.tally_times", f"must be a list of times of day, not {times!r}",
               hint='e.g. tally_times = ["13:00", "19:00"] (game time)')
    if command is True:         # the board's language's own word
        command = "!голоса" if language == "ru" else "!votecount"
    elif command is False:
        command = ""
    if not isinstance(command, str) or len(command.strip()) > 40 or (
            command and len(command.strip()) < 2):
        r.fail("publish.tally_command", f"must be a short word such as \"!голоса\", not "
               f"{command!r}", hint='or true for the language\'s default ("!голоса", '
               '"!votecount")')
    pub = dataclasses.replace(pub, tally_times=tuple(sorted({t.strip() for t in times})),
                              tally_command=command.strip())
    if pub.remind_moves_at and not _HHMM.match(pub.remind_moves_at):
        r.fail("publish.remind_moves_at", f"not a time of day: {pub.remind_moves_at!r}",
               hint='e.g. "18:00" (game time)')
    if pub.tally_cooldown_minutes < 0:
        r.fail("publish.tally_cooldown_minutes", "must be 0 or more")
    if pub.tally_requests_from not in ("anyone", "players", "alive"):
        r.fail("publish.tally_requests_from", 'must be "anyone", "players" or "alive", not '
               f"{pub.tally_requests_from!r}")
    if pub.alert_host not in ("off", "pm", "mail"):
        r.fail("publish.alert_host", f'must be "off", "pm" or "mail", not {pub.alert_host!r}')
    if pub.alert_host == "mail" and "@" not in pub.alert_to:
        r.fail("publish.alert_to", "alerts by mail need the host's address",
               hint='e.g. alert_to = "host@example.org" (sent through [moves] smtp_host)')
    if pub.mode not in ("off", "review", "auto"):
        r.fail("publish.mode", f'must be "off", "review" or "auto", not {pub.mode!r}')
    if pub.day_topic not in ("open", "reply"):
        r.fail("publish.day_topic", f'must be "open" or "reply", not {pub.day_topic!r}')
    if pub.results_topic is not None:
        _check_url(r, "publish.results_topic", pub.results_topic, topic=True)
    if pub.results_forum is not None:
        _check_url(r, "publish.results_forum", pub.results_forum)
    try:
        pub.title_template.format(title="x", day=1)
    except (KeyError, IndexError, ValueError) as e:
        r.fail("publish.title_template", f"only {{title}} and {{day}} may be used ({e})")
    try:
        pub.vote_title_template.format(title="x", day=1)
    except (KeyError, IndexError, ValueError) as e:
        r.fail("publish.vote_title_template", f"only {{title}} and {{day}} may be used ({e})")
    return pub
