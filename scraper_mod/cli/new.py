"""`scraper-mod new GAME`: a new game folder with a commented game.toml (game/setup/newgame.py), the
move source's Maildir, and the next commands to run. What no option gives is asked for on a
terminal; otherwise the folder's name is the title and tomorrow the start."""

from __future__ import annotations

import argparse
import sys
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from scraper_mod.game.setup.newgame import NewGame, setup_problems, write_new_game

from ..errors import ConfigError, ScraperModError
from ..game.context import open_game
from .common import SubParsers


def register(sub: SubParsers) -> None:
    p = sub.add_parser(
        "new", help="set up a new game: a commented game.toml, the moves Maildir, the next steps",
        description="Writes GAME/game.toml with comments (every other key keeps its default), "
                    "makes the Maildir the night moves arrive in (GAME/moves/cur, new, tmp) "
                    "and prints the commands to run next. On a terminal it asks for what no "
                    "option gives; otherwise the title is the folder's name, the start is "
                    "tomorrow and the board is left for the host to fill in.")
    p.add_argument("game", metavar="GAME", help="the new game folder (made if missing; it must "
                                                "not hold a game.toml yet)")
    p.add_argument("--title", help="the game's title, e.g. 'Мафия #7'")
    p.add_argument("--start", metavar="YYYY-MM-DD",
                   help="the date day 1 starts on (at 21:00 Moscow time); today or later")
    p.add_argument("--board", metavar="URL", help="the board's root URL ([forum] url)")
    p.add_argument("--topic", metavar="URL", help="the day-1 topic (viewtopic.php?t=...), if "
                                                  "it is open already")
    p.add_argument("--players", metavar="FILE", help="a text file with one player's nick a "
                                                     "line (none: add them later with signup)")
    p.add_argument("--username", help="the board account that posts ([forum] username)")
    p.add_argument("--language", choices=("ru", "en"), default="ru",
                   help="the language of the posts and the host's page (default ru)")
    p.set_defaults(func=run)


def _ask(question: str, default: str) -> str:
    try:
        got = input(f"{question} [{default}]: " if default else f"{question}: ").strip()
    except EOFError:
        got = ""
    return got or default


def _players(path: str | None) -> tuple[str, ...]:
    if not path:
        return ()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ScraperModError(f"{path}: cannot read the players file: {e}",
                              hint="one nick a line, UTF-8") from None
    nicks = [line.strip() for line in text.splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    dup = sorted({n for n in nicks if nicks.count(n) > 1})
    if dup:
        raise ScraperModError(f"{path}: a nick is listed twice: {', '.join(dup)}")
    return tuple(nicks)


def _start(text: str, today: date) -> date:
    try:
        start = date.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError(f"not a date: {text!r}", key="--start",
                          hint="write YYYY-MM-DD, e.g. " + today.isoformat()) from None
    if start < today:
        raise ConfigError(f"{start.isoformat()} is in the past", key="--start",
                          hint=f"give the date day 1 starts on, today ({today.isoformat()}) "
                               "or later")
    return start


def run(args: argparse.Namespace) -> int:
    folder = Path(args.game)
    today = datetime.now(ZoneInfo("Europe/Moscow")).date()
    asking = sys.stdin.isatty()
    title, start, board = args.title, args.start, args.board
    if asking:
        title = title or _ask("title", folder.name)
        start = start or _ask("day 1 starts on (YYYY-MM-DD)",
                              (today + timedelta(days=1)).isoformat())
        board = board or _ask("the board's URL (empty: fill in [forum] url later)", "")
    new = NewGame(title=title or folder.name,
                  start=_start(start, today) if start else today + timedelta(days=1),
                  board=board or None, topic=args.topic, players=_players(args.players),
                  language=args.language, username=args.username)
    game = write_new_game(folder, new)
    print(f"wrote {game.path} and the Maildir {game.folder / game.moves.path}/{{cur,new,tmp}}")
    with open_game(folder, readonly=True) as ctx:
        for problem in setup_problems(ctx):
            print(f"to do: {problem}")
    print("next:")
    if not new.players:
        print(f"  scraper-mod signup {folder} SIGNUP_TOPIC_URL --write   # or add "
              "[[players]] to game.toml")
    print(f"  scraper-mod deal {folder}      # draws the roles, writes the role cards")
    if not new.topic:
        print(f"  scraper-mod day open {folder} 1 DAY1_TOPIC_URL   # once day 1's topic is "
              "open (or [[days]] in game.toml)")
    print(f"  scraper-mod status {folder}    # checks the set-up, shows the day")
    print(f"  export SCRAPER_MOD_FORUM_PASSWORD=...; scraper-mod run {folder}   # the daemon "
          "(docs/deploy.md: keep it running)")
    return 0
