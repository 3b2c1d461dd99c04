"""A new game's set-up: the commented ``game.toml`` that ``scraper-mod new`` writes, the move
source's folders, and the checks ``deal``, ``status`` and ``run`` share (issue 27 item 1).

Each check names the file and the key to fix. ``fatal`` problems stop ``run`` (the daemon
would fail on them at its first step); ``deal`` and ``status`` print them all as warnings.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from scraper_mod.errors import ConfigError, RulesError
from scraper_mod.forum.engine import TOPIC_URL_EXAMPLE
from scraper_mod.game.context import GameContext
from scraper_mod.game.setup.config import Game, parse_game
from scraper_mod.posts.dayfolder import write_atomic

__all__ = ["NewGame", "SetupProblem", "game_toml_text", "make_move_folders", "setup_problems",
           "write_new_game"]

MAILDIR_PARTS = ("cur", "new", "tmp")


@dataclass(frozen=True)
class NewGame:
    """What ``scraper-mod new`` asks for; everything else keeps its default in the file."""

    title: str
    start: date
    board: str | None = None          # [forum] url
    topic: str | None = None          # [[days]] number = 1, topic
    players: tuple[str, ...] = ()     # nicks; none: left for `signup --write`
    language: str = "ru"
    username: str | None = None       # [forum] username (the account that posts)


@dataclass(frozen=True)
class SetupProblem:
    """One thing to fix in a game's set-up: where (file and key) and what."""

    path: str
    key: str
    message: str
    hint: str = ""
    fatal: bool = True
    ru: str = ""      # the whole line in Russian (file, key, what and the fix), issue 39 item 4

    def __str__(self) -> str:
        return str(self.error())

    def error(self) -> ConfigError:
        """The problem as the error ``run`` refuses to start with (its Russian line too)."""
        return ConfigError(self.message, path=self.path, key=self.key, hint=self.hint,
                           ru=self.ru or None)

    def in_language(self, lang: str) -> str:
        """The line in ``lang``: Russian only for a Russian game (issue 39 item 4)."""
        return self.error().in_language(lang)


def _s(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def game_toml_text(new: NewGame) -> str:
    """The commented game file for ``new`` (CONTRACT "The game file")."""
    board = (f"url = {_s(new.board)}" if new.board else
             '# url = "https://forum.example.org/"   # REQUIRED before `run`: the board root')
    user = (f"username = {_s(new.username)}" if new.username else
            '# username = "admin"                    # the account that posts (publish)')
    lines = [
        "# The game file of scraper-mod (written by `scraper-mod new`). Every key and its",
        "# default: docs/game-file.md. Check it with `scraper-mod status GAME`.",
        "",
        "[game]",
        f"title = {_s(new.title)}",
        'timezone = "Europe/Moscow"',
        f"start = {new.start.isoformat()}              # day 1 starts at day_start on this date",
        'day_start = "21:00"',
        'deadline = "20:00"             # votes and night moves',
        "merge_weekends = true          # Saturday and Sunday are one day (RULES R1.3)",
        f"language = {_s(new.language)}               # the language of the posts and the page",
        '# host = "admin"               # the host\'s forum nick: his posts are never votes',
        "",
        "[forum]",
        board,
        user,
        "# the password is read from the environment variable SCRAPER_MOD_FORUM_PASSWORD",
        "",
        "[moves]",
        'source = "maildir"             # night moves arrive as mail in this Maildir',
        'path = "moves"                 # relative to the game folder (cur/, new/, tmp/)',
        "",
        "[publish]",
        'mode = "off"                   # "off": write out/ only | "review" | "auto"',
        "",
    ]
    if new.topic:
        lines += ["[[days]]", "number = 1", f"topic = {_s(new.topic)}", ""]
    else:
        lines += ["# the day-1 topic, once it is open:",
                  "# [[days]]", "# number = 1",
                  f'# topic = "{TOPIC_URL_EXAMPLE}"', ""]
    if new.players:
        lines += ["# the players: roles are drawn by `scraper-mod deal` (or add role = ...);",
                  "# add contact = \"mail@example.org\" to each: night moves come from there"]
        for nick in new.players:
            lines += ["[[players]]", f"nick = {_s(nick)}", ""]
    else:
        lines += ["# no players yet: `scraper-mod signup GAME URL --write` adds them from the",
                  "# sign-up topic, or add one table per player:",
                  '# [[players]]', '# nick = "Вася"',
                  '# contact = "vasya@example.org"   # whom his night moves come from', ""]
    return "\n".join(lines)


def make_move_folders(game: Game) -> list[Path]:
    """The folders a ``maildir`` or ``queue`` move source reads; returns the ones made."""
    if game.moves.source not in ("maildir", "queue"):
        return []
    root = game.folder / game.moves.path
    wanted = [root / p for p in MAILDIR_PARTS] if game.moves.source == "maildir" else [root]
    made = [p for p in wanted if not p.is_dir()]
    new_root = not root.exists()
    for p in wanted:     # owner-only: the night moves are the game's secrets
        p.mkdir(mode=0o700, parents=True, exist_ok=True)
    if new_root:         # made by mkdir(parents=True) with the default mode
        root.chmod(0o700)
    return made


def write_new_game(folder: Path, new: NewGame) -> Game:
    """Write ``folder/game.toml`` for ``new`` (refusing to overwrite one) and make the move
    source's folders. The text is checked as the game file before anything is written."""
    path = folder / "game.toml"
    if path.exists():
        raise ConfigError("a game file is already there", path=str(path),
                          hint="choose another folder, or edit this one")
    text = game_toml_text(new)
    game = parse_game(tomllib.loads(text), path=path)
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    make_move_folders(game)
    return game


def setup_problems(ctx: GameContext) -> list[SetupProblem]:
    """What is wrong in the game's set-up as of ``ctx.now()``: the board, the start date, the
    move source's folders, the players."""
    game = ctx.game
    where = str(game.path)
    out: list[SetupProblem] = []
    if not game.forum.url:
        out.append(SetupProblem(where, "forum.url", "no board to read",
                                'add url = "https://forum.example.org/" under [forum]',
                                ru='не указан форум (добавьте url = '
                                   '"https://forum.example.org/" в [forum])'))
    out += _start_problems(ctx)
    m = game.moves
    if m.source in ("maildir", "queue"):
        root = game.folder / m.path
        missing = ([p for p in MAILDIR_PARTS if not (root / p).is_dir()]
                   if m.source == "maildir" else ([] if root.is_dir() else ["."]))
        if missing:
            what = "Maildir" if m.source == "maildir" else "queue folder"
            mk = (f"mkdir -p {root}/{{{','.join(MAILDIR_PARTS)}}}" if m.source == "maildir"
                  else f"mkdir -p {root}")
            what_ru = "папки Maildir" if m.source == "maildir" else "папки очереди"
            out.append(SetupProblem(where, "moves.path", f"no {what} at {root}",
                                    f"make it: {mk}",
                                    ru=f"нет {what_ru} {root} (создайте её: `{mk}`)"))
    if not game.players:
        out.append(SetupProblem(where, "players", "no [[players]] yet: no vote or move can "
                                "count", "add them, or run `scraper-mod signup GAME URL "
                                "--write`", fatal=False,
                                ru="игроков ([[players]]) ещё нет: ни голос, ни ход не "
                                   "засчитается (добавьте их или выполните `scraper-mod "
                                   "signup GAME URL --write`)"))
    return out


def _start_problems(ctx: GameContext) -> list[SetupProblem]:
    game, now = ctx.game, ctx.now()
    where = str(game.path)
    today = now.astimezone(game.timezone).date().isoformat()
    cal = ctx.calendar()
    try:
        cal.last_due_day(now)
        first_deadline = cal.deadline(1)
    except RulesError as e:
        return [SetupProblem(where, "game.start", f"{game.start.isoformat()}: {e.message}",
                             f"give the date day 1 starts on, e.g. start = {today}",
                             ru=f"{game.start.isoformat()}: "
                                f"{e.ru or 'по этой дате не выходит календарь дней'} "
                                f"(укажите в [game] start дату начала дня 1, например {today})")]
    if first_deadline > now or ctx.store.resolutions() or ctx.store.last_fetch_at():
        return []
    return [SetupProblem(
        where, "game.start",
        f"{game.start.isoformat()} is in the past: day 1's deadline "
        f"{first_deadline.astimezone(game.timezone):%d.%m.%Y %H:%M} has passed and the board "
        "was never read",
        f"give the date day 1 starts on, e.g. start = {today}; a game taken over midway "
        f"keeps it: read the board once (`scraper-mod poll {game.folder}`), and then `run` "
        "catches up on the days gone by",
        ru=f"{game.start.isoformat()} — дата в прошлом: срок дня 1 "
           f"({first_deadline.astimezone(game.timezone):%d.%m.%Y %H:%M}) прошёл, а форум ещё "
           f"ни разу не читался (укажите в [game] start дату начала дня 1, например {today}; если "
           f"игра принята с середины, оставьте дату: прочтите форум один раз "
           f"(`scraper-mod poll {game.folder}`), и `scraper-mod run` догонит прошедшие дни)")]
