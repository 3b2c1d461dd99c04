"""`scraper-mod demo`: a whole built-in game, from the deal to the victory, on this machine.

It writes a game folder (a temporary one, or ``--keep DIR``), starts ``LocalBoard`` (a phpBB
3.3 prosilver look-alike on 127.0.0.1) and a local Maildir, deals the roles as ``scraper-mod
deal`` does (``game.deal``), and runs the very daemon of ``scraper-mod run`` (``schedule.Daemon`` with the real
poller, parser, vote count, move intake and resolver) on a simulated clock: a
``ScriptedClock`` that, while the daemon sleeps, plays the scripted game at its instants —
players post votes in the day topics, send night moves by mail, the host opens each day's
topic (the daemon finds it in the forum by its title) and posts the newspaper. The board's
``Date`` header follows the same clock.

The game (12 players, fixed roles and random list, so the outcome is always the same):

* day 1 (Thu): votes in several colors, inflected («Светлану»), one inside a quote (not a
  vote), one in black (not a vote color) -> Светлана jailed by votes. Night: the duty mafioso
  aims at the ВСБ (invalid, a miss: "the mafia killed no one"), a forged "doctor" mail
  (refused: unknown sender), the Maniac kills Таня, the Commissar checks the Boss.
* day 2 (Fri): a 4:4 tie, with a post edited after the deadline (its earlier vote stands), a
  post at 19:59:59 (counts) and one at 20:00:00 (late) -> the random list jails Дима, the
  Maniac (his night kill is void). The mafia kills the Commissar Маша; her check still
  reaches the Sergeant, who is promoted; the Boss freezes Гоша; a late heal is a miss.
* day 3 (the weekend: Friday 21:00 to Sunday 20:00, R1.3): Гоша's frozen vote does not
  count -> Лена (mafia) jailed; the Doctor saves Петя from the mafia; NightOwl is frozen.
* day 4 (Mon): Игорь, the duty mafioso, is jailed -> the Boss's kill counts: the Doctor dies.
* day 5 (Tue): the Boss is jailed -> the town wins.
"""

from __future__ import annotations

import json
import logging
import mailbox
import os
import shutil
import tempfile
import time as _time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from functools import partial
from pathlib import Path
from typing import Callable
from zoneinfo import ZoneInfo

from scraper_mod.game.setup.deal import deal_game, deal_lines

from ..clock import FakeClock
from ..daemon.scheduler import Daemon
from ..daemon.work import LiveOps, Resolution
from ..errors import ScraperModError
from ..game.context import open_game
from ..posts.dayfolder import day_start_name
from .localboard import LocalBoard

MSK = ZoneInfo("Europe/Moscow")
TITLE = "Мафия-демо"
HOST = "Ведущий"
HOST_ID = 50
FORUM_ID = 3


def at(day: int, hh: int, mm: int = 0, ss: int = 0) -> datetime:
    """An instant of the demo game: March ``day`` 2024, Moscow time (13.03 is a Wednesday)."""
    return datetime(2024, 3, day, hh, mm, ss, tzinfo=MSK)


@dataclass(frozen=True)
class DemoPlayer:
    nick: str
    role: str
    user_id: int
    contact: str


PLAYERS: tuple[DemoPlayer, ...] = (
    DemoPlayer("Вася", "boss", 101, "vasya@demo.example"),
    DemoPlayer("Игорь", "mafia", 102, "igor@demo.example"),
    DemoPlayer("Лена", "mafia", 103, "lena@demo.example"),
    DemoPlayer("Маша", "commissar", 104, "masha@demo.example"),
    DemoPlayer("Петя", "sergeant", 105, "petya@demo.example"),
    DemoPlayer("Ирина", "doctor", 106, "irina@demo.example"),
    DemoPlayer("Дима", "maniac", 107, "dima@demo.example"),
    DemoPlayer("Коля", "vsb", 108, "kolya@demo.example"),
    DemoPlayer("Светлана", "civilian", 109, "sveta@demo.example"),
    DemoPlayer("Таня", "civilian", 110, "tanya@demo.example"),
    DemoPlayer("NightOwl", "civilian", 111, "owl@demo.example"),
    DemoPlayer("Гоша", "civilian", 112, "gosha@demo.example"),
)
DUTY = "Игорь"
RANDOM_LIST = ("Таня", "Светлана", "Дима", "Гоша", "NightOwl", "Вася", "Коля", "Петя", "Лена",
               "Игорь", "Маша", "Ирина")
START = at(13, 20, 55)          # the demo clock starts here (day 1 starts at 21:00)
END = at(21, 0)                 # a bound: the game is over long before
DAYS = 5


# ---------------------------------------------------------------------------------------------
# The script: what players and the host do, and when
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ScriptPost:
    at: datetime
    author: str
    body: str
    key: str | None = None        # a name for later edits / quotes
    day: int = 0


@dataclass(frozen=True)
class ScriptEdit:
    at: datetime
    key: str
    body: str
    reason: str | None = None


@dataclass(frozen=True)
class Mail:
    at: datetime
    sender: str                   # a nick, or "Name <address>" for a forged mail
    text: str
    subject: str = "ход"


def _posts() -> list[ScriptPost | ScriptEdit]:
    c = lambda color, text: f"[color={color}]{text}[/color]"  # noqa: E731
    red = lambda text: c("red", text)  # noqa: E731
    d1: list[ScriptPost | ScriptEdit] = [
        ScriptPost(at(13, 22, 10), "Вася",
                   f"Всем привет! Начнём со {red('Светлана')}, она слишком тихая.",
                   key="vasya1"),
        ScriptPost(at(13, 23, 30), "Таня", f"Согласна, голосую за {c('#0000FF', 'Светлану')}."),
        ScriptPost(at(14, 9, 15), "Дима", f"А я за {c('green', 'Гоша')}. Просто так."),
        ScriptPost(at(14, 10, 0), "Светлана", f"Я мирная! Мой голос — {red('Диму')}."),
        ScriptPost(at(14, 11, 20), "Гоша",
                   '[quote="Вася" post_id={vasya1}]Всем привет! Начнём со '
                   f"{red('Светлана')}, она слишком тихая.[/quote]\nНе верю Васе. Голосую "
                   f"{red('Диму')}."),
        ScriptPost(at(14, 12, 40), "Игорь", c("darkred", "Светлана")),
        ScriptPost(at(14, 14, 0), "Маша", f"{c('purple', 'Светлана')}, извини."),
        ScriptPost(at(14, 15, 30), "NightOwl", f"Голос: {c('orange', 'Диму')}"),
        ScriptPost(at(14, 16, 0), "Лена", f"Поддержу большинство: {red('Светлану')}"),
        ScriptPost(at(14, 17, 45), "Петя", c("blue", "Диму")),
        ScriptPost(at(14, 18, 30), "Ирина",
                   f"{c('black', 'Вася')} подозрителен, но голосую за {red('Светлану')}."),
        ScriptPost(at(14, 19, 10), "Коля", red("Светлана")),
    ]
    d2: list[ScriptPost | ScriptEdit] = [
        ScriptPost(at(14, 21, 30), "Маша", f"У меня есть информация. {red('Вася')}!"),
        ScriptPost(at(14, 22, 0), "Петя", f"Верю Маше: {red('Васю')}"),
        ScriptPost(at(15, 9, 0), "Вася", f"Маша врёт. {red('Дима')}"),
        ScriptPost(at(15, 10, 0), "Игорь", c("#AA0000", "Дима")),
        ScriptPost(at(15, 11, 0), "Лена", f"Пока так: {red('Маша')}"),
        ScriptPost(at(15, 12, 0), "Дима", f"Ну и ладно. {red('Вася')}"),
        ScriptPost(at(15, 13, 0), "NightOwl", "Не знаю, за кого голосовать. Подумаю."),
        ScriptPost(at(15, 15, 0), "Лена", f"Передумала: {red('Диму')}"),
        ScriptPost(at(15, 19, 40), "Гоша", f"Итак, {red('Вася')}", key="gosha2"),
        ScriptPost(at(15, 19, 59, 59), "Коля", f"В последнюю секунду: {red('Диму')}"),
        ScriptPost(at(15, 20, 0, 0), "Ирина", f"Не опоздала? {red('Вася')}"),
        ScriptEdit(at(15, 20, 0, 30), "gosha2", f"Итак, {red('Дима')}", reason="передумал"),
    ]
    d3: list[ScriptPost | ScriptEdit] = [
        ScriptPost(at(15, 21, 30), "Петя",
                   f"Маша перед смертью проверила Лену: мафия! {red('Лена')}"),
        ScriptPost(at(16, 10, 0), "Гоша", red("Лену")),
        ScriptPost(at(16, 11, 0), "Ирина", red("Лена")),
        ScriptPost(at(16, 12, 0), "Коля", f"{c('#008000', 'Лену')}, конечно."),
        ScriptPost(at(16, 13, 0), "NightOwl", c("#00AA00", "Лену")),
        ScriptPost(at(16, 14, 0), "Лена", f"Это ложь! {red('Петя')}"),
        ScriptPost(at(16, 15, 0), "Вася", red("Петю")),
        ScriptPost(at(17, 10, 0), "Игорь", red("Петя")),
    ]
    d4: list[ScriptPost | ScriptEdit] = [
        ScriptPost(at(17, 21, 30), "Петя", f"Я проверил Игоря — мафия. {red('Игорь')}"),
        ScriptPost(at(18, 9, 0), "NightOwl", red("Игоря")),
        ScriptPost(at(18, 10, 0), "Ирина", red("Игоря")),
        ScriptPost(at(18, 11, 0), "Коля", red("Игорь")),
        ScriptPost(at(18, 12, 0), "Гоша", c("blue", "Игоря")),
        ScriptPost(at(18, 13, 0), "Игорь", red("Петя")),
        ScriptPost(at(18, 14, 0), "Вася", red("Петю")),
    ]
    d5: list[ScriptPost | ScriptEdit] = [
        ScriptPost(at(18, 21, 30), "Петя", f"Остался Босс. {red('Вася')}"),
        ScriptPost(at(19, 9, 0), "Коля", red("Васю")),
        ScriptPost(at(19, 10, 0), "NightOwl", red("Вася")),
        ScriptPost(at(19, 11, 0), "Гоша", red("Вася")),
        ScriptPost(at(19, 12, 0), "Вася", red("Петя")),
    ]
    out: list[ScriptPost | ScriptEdit] = []
    for n, posts in enumerate((d1, d2, d3, d4, d5), start=1):
        out += [ScriptPost(p.at, p.author, p.body, p.key, n) if isinstance(p, ScriptPost) else p
                for p in posts]
    return out


MAILS: tuple[Mail, ...] = (
    # night 1
    Mail(at(14, 12, 0), "Игорь", "убить Колю\nистория: Колю нашли в сугробе у подъезда."),
    Mail(at(14, 13, 0), "Дима", "убить Таню"),
    Mail(at(14, 14, 0), "Ирина", "лечу Машу"),
    Mail(at(14, 15, 0), "Маша", "проверить Васю"),
    Mail(at(14, 16, 0), "Ирина <irina.doctor@mail.example>", "лечу Таню"),   # forged
    # night 2
    Mail(at(15, 10, 30), "Игорь", "убить Машу\nистория: Маша ушла в ночной магазин за хлебом "
         "и не вернулась."),
    Mail(at(15, 11, 0), "Вася", "заморозить Гошу"),
    Mail(at(15, 12, 0), "Ирина", "лечу Петю"),
    Mail(at(15, 13, 0), "Маша", "проверить Лену"),
    Mail(at(15, 14, 0), "Дима", "убить Петю"),
    Mail(at(15, 20, 0, 30), "Ирина", "лечу Машу"),                          # late
    # night 3 (the weekend)
    Mail(at(16, 18, 0), "Игорь", "убить Петю\nистория: На Петю упал рояль."),
    Mail(at(16, 19, 0), "Ирина", "лечу Петю"),
    Mail(at(17, 12, 0), "Петя", "проверить Игоря"),
    Mail(at(17, 13, 0), "Вася", "заморозить NightOwl"),
    # night 4
    Mail(at(18, 10, 0), "Игорь", "убить Петю\nистория: Петю увезли в лес."),
    Mail(at(18, 15, 0), "Вася", "убить Ирину\nистория: Ирину отравили её же лекарством."),
    Mail(at(18, 16, 0), "Ирина", "лечу Колю"),
    Mail(at(18, 17, 0), "Петя", "проверить Гошу"),
    # night 5
    Mail(at(19, 15, 0), "Вася", "убить Петю"),
)

#: What the demo game must come to (RULES R2, R3, R5, R6, R7): who died when, the winner.
EXPECTED = {
    1: {"lynched": ("Светлана", "civilian", "votes"), "killed": [("Таня", "civilian", "maniac")],
        "saved": False, "frozen": None, "winner": None},
    2: {"lynched": ("Дима", "maniac", "random"), "killed": [("Маша", "commissar", "mafia")],
        "saved": False, "frozen": "Гоша", "winner": None},
    3: {"lynched": ("Лена", "mafia", "votes"), "killed": [], "saved": True,
        "frozen": "NightOwl", "winner": None},
    4: {"lynched": ("Игорь", "mafia", "votes"), "killed": [("Ирина", "doctor", "mafia")],
        "saved": False, "frozen": None, "winner": None},
    5: {"lynched": ("Вася", "boss", "votes"), "killed": [], "saved": False, "frozen": None,
        "winner": "town"},
}


# ---------------------------------------------------------------------------------------------
# The simulated clock that plays the script
# ---------------------------------------------------------------------------------------------

class ScriptedClock(FakeClock):
    """A ``FakeClock`` with a timetable: ``sleep`` moves time forward and, on the way, runs
    each scheduled action at its own instant (the daemon sees nothing while it sleeps, so
    this is the same as the world acting in real time)."""

    def __init__(self, start: datetime) -> None:
        super().__init__(start)
        self._events: list[tuple[datetime, int, Callable[[], object]]] = []
        self._seq = 0

    def schedule(self, when: datetime, action: Callable[[], object]) -> None:
        self._seq += 1
        self._events.append((when, self._seq, action))
        self._events.sort(key=lambda e: (e[0], e[1]))

    def run_due(self) -> None:
        """Run the actions due at or before now."""
        while self._events and self._events[0][0] <= self.now():
            _, _, action = self._events.pop(0)
            action()

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        target = self.now() + timedelta(seconds=max(0.0, seconds))
        while self._events and self._events[0][0] <= target:
            when, _, action = self._events.pop(0)
            if when > self.now():
                self.set(when)
            action()
        self.set(target)


# ---------------------------------------------------------------------------------------------
# The demo world: the board, the mailbox, the game folder
# ---------------------------------------------------------------------------------------------

def _game_toml(board_url: str, day1_topic: str) -> str:
    def q(s: str) -> str:
        return json.dumps(s, ensure_ascii=False)

    lines = [
        "# The built-in demo game of scraper-mod (scraper-mod demo). A real game file: the",
        "# same keys a host writes (docs/game-file.md). The board and the mailbox are local.",
        "[game]",
        f"title = {q(TITLE)}",
        'timezone = "Europe/Moscow"',
        "start = 2024-03-13",
        'day_start = "21:00"',
        'deadline = "20:00"',
        "merge_weekends = true",
        'language = "ru"',
        f"host = {q(HOST)}",
        "random_list = [" + ", ".join(q(n) for n in RANDOM_LIST) + "]",
        "",
        "[forum]",
        f"url = {q(board_url)}",
        f"forum = {q(f'{board_url}viewforum.php?f={FORUM_ID}')}",
        'title_pattern = "День\\\\s*{n}\\\\b"',
        "min_delay = 0",
        "retries = 2",
        "",
        "[moves]",
        'source = "maildir"',
        'path = "moves"',
        "",
        "# A host keeps the defaults (every 5 minutes, every minute in the last 30); the demo",
        "# polls less often so that its week takes seconds.",
        "[schedule]",
        "poll_minutes = 60",
        "final_poll_minutes = 5",
        "final_window_minutes = 30",
        "grace_seconds = 60",
        "",
        "[mafia]",
        f"duty = {q(DUTY)}",
        "",
    ]
    for p in PLAYERS:
        lines += ["[[players]]", f"nick = {q(p.nick)}", f'role = "{p.role}"',
                  f"contact = {q(p.contact)}", f"forum_id = {p.user_id}", ""]
    lines += ["[[days]]", "number = 1", f"topic = {q(day1_topic)}", ""]
    return "\n".join(lines)


@dataclass
class DemoResult:
    """What the demo played: each day's result (CONTRACT resolve JSON), the winner, where."""

    folder: Path
    days: dict[int, dict] = field(default_factory=dict)
    newspapers: dict[int, str] = field(default_factory=dict)
    winner: str | None = None
    errors: list[str] = field(default_factory=list)
    board_requests: int = 0
    polls: int = 0
    seconds: float = 0.0

    def deaths(self) -> list[tuple[int, str, str, str]]:
        """(day, nick, role, how) in order: the jailed first, then the night's kills."""
        out = []
        for n, r in sorted(self.days.items()):
            if r.get("lynched"):
                out.append((n, r["lynched"]["player"], r["lynched"]["role"], r["lynched"]["by"]))
            out += [(n, k["player"], k["role"], k["by"]) for k in r.get("killed", [])]
        return out


class DemoWorld:
    """The board, the Maildir and the script, wired to one ``ScriptedClock``."""

    def __init__(self, folder: Path, clock: ScriptedClock) -> None:
        self.folder = folder
        self.clock = clock
        self.board = LocalBoard(language="ru", clock=clock, title="Мафия-клуб (демо)",
                                forum_id=FORUM_ID, forum_name="Мафия")
        self.board.add_user(HOST, HOST_ID, colour="AA0000", rank="Ведущий")
        for p in PLAYERS:
            self.board.add_user(p.nick, p.user_id)
        mailbox.Maildir(str(folder / "moves"), create=True)   # cur/, new/, tmp/
        self._delivered = 0
        self.post_ids: dict[str, int] = {}
        self.day_topics: dict[int, int] = {}
        self.news_topic: int | None = None

    # -- the host -------------------------------------------------------------------------
    def open_board(self) -> str:
        """The newspaper topic and day 1's topic; returns day 1's URL."""
        self.board.start()
        self.news_topic = self.board.add_topic(f"{TITLE} — Газета")
        self.board.add_post(HOST, HOST_ID, f"Здесь выходит газета игры «{TITLE}».",
                            self.clock.now(), topic=self.news_topic)
        return self.open_day(1)

    def open_day(self, n: int) -> str:
        """The host opens day n's topic with the day-start post (written by scraper-mod for
        days after the first)."""
        tid = self.board.add_topic(f"{TITLE} — День {n}")
        self.day_topics[n] = tid
        text = None
        prev = self.folder / "out" / f"day-{n - 1}" / day_start_name(n - 1)
        if n > 1 and prev.exists():
            text = prev.read_text(encoding="utf-8")
        if text is None:
            text = (f"[b]День {n}[/b] начинается. Голосуйте цветным ником до 20:00 "
                    "(по Москве); ночные ходы — письмом ведущему.")
        self.board.add_post(HOST, HOST_ID, text, self.clock.now(), topic=tid)
        return self.board.topic_url(tid)

    def publish_newspaper(self, n: int) -> None:
        path = self.folder / "out" / f"day-{n}" / "newspaper.bbcode"
        if path.exists() and self.news_topic is not None:
            self.board.add_post(HOST, HOST_ID, path.read_text(encoding="utf-8"),
                                self.clock.now(), topic=self.news_topic)

    # -- the players ----------------------------------------------------------------------
    def user_id(self, nick: str) -> int:
        return next(p.user_id for p in PLAYERS if p.nick == nick)

    def post(self, p: ScriptPost) -> None:
        body = p.body.format(**self.post_ids)
        pid = self.board.add_post(p.author, self.user_id(p.author), body, p.at,
                                  topic=self.day_topics[p.day])
        if p.key:
            self.post_ids[p.key] = pid

    def edit(self, e: ScriptEdit) -> None:
        self.board.edit_post(self.post_ids[e.key], e.body, edited_at=e.at, reason=e.reason)

    def mail(self, m: Mail) -> None:
        msg = EmailMessage()
        player = next((p for p in PLAYERS if p.nick == m.sender), None)
        msg["From"] = f"{player.nick} <{player.contact}>" if player else m.sender
        msg["To"] = f"{HOST} <host@demo.example>"
        msg["Subject"] = m.subject
        msg["Date"] = format_datetime(m.at)
        msg["Message-ID"] = f"<demo-{int(m.at.timestamp())}-{MAILS.index(m)}@demo.example>"
        msg.set_content(m.text)
        self.deliver(msg.as_bytes(), m.at)

    def deliver(self, raw: bytes, when: datetime) -> None:
        """Deliver as a mail delivery agent does at ``when``: write tmp/, rename into new/;
        the unique name starts with the delivery time (seconds, then ``M`` microseconds) and
        the file's mtime is that time too: the host's side reads its receive time there."""
        self._delivered += 1
        ts = when.timestamp()
        name = f"{int(ts)}.M{int(round((ts % 1) * 1e6)):06d}P{os.getpid()}Q{self._delivered}.demo"
        tmp = self.folder / "moves" / "tmp" / name
        tmp.write_bytes(raw)
        os.utime(tmp, (ts, ts))
        os.rename(tmp, self.folder / "moves" / "new" / name)

    def script(self) -> None:
        """Put the whole game on the clock's timetable."""
        c = self.clock
        for item in _posts():
            if isinstance(item, ScriptPost):
                c.schedule(item.at, partial(self.post, item))
            else:
                c.schedule(item.at, partial(self.edit, item))
        for m in MAILS:
            c.schedule(m.at, partial(self.mail, m))
        # the host: each newspaper at 20:30, the next day's topic at 21:00
        deadlines = {1: at(14, 20), 2: at(15, 20), 3: at(17, 20), 4: at(18, 20), 5: at(19, 20)}
        for n, dl in deadlines.items():
            c.schedule(dl + timedelta(minutes=30), partial(self.publish_newspaper, n))
            if n < DAYS:
                c.schedule(dl + timedelta(hours=1), partial(self.open_day, n + 1))

    def close(self) -> None:
        self.board.stop()


# ---------------------------------------------------------------------------------------------
# Running it
# ---------------------------------------------------------------------------------------------

def _prepare_folder(keep: str | Path | None) -> tuple[Path, bool]:
    if keep is None:
        return Path(tempfile.mkdtemp(prefix="scraper-mod-demo-")), True
    folder = Path(keep)
    if folder.exists() and any(folder.iterdir()):
        raise ScraperModError(f"{folder}: the folder is not empty",
                              hint="give the demo a new or empty folder")
    folder.mkdir(parents=True, exist_ok=True)
    return folder, False


def run_demo(*, keep: str | Path | None = None, out: Callable[[str], None] = print,
             verbose: bool = False) -> DemoResult:
    """Play the built-in game; ``out`` gets each line to show. Returns what was played."""

    started = _time.monotonic()
    folder, temporary = _prepare_folder(keep)
    clock = ScriptedClock(START)
    world = DemoWorld(folder, clock)
    result = DemoResult(folder=folder)
    ok = False
    handler = logging.FileHandler(folder / "run.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    # Everything the package logs (the daemon, the poller, the intake) goes to run.log;
    # to the terminal too only with -v.
    package_log = logging.getLogger("scraper_mod")
    old_propagate, old_level = package_log.propagate, package_log.level
    package_log.addHandler(handler)
    package_log.setLevel(logging.INFO)
    package_log.propagate = verbose
    try:
        day1 = world.open_board()
        (folder / "game.toml").write_text(_game_toml(world.board.url, day1), encoding="utf-8")
        out(f"scraper-mod demo: «{TITLE}», {len(PLAYERS)} players, played on a simulated clock "
            f"from {START:%a %d.%m.%Y %H:%M} (Moscow time)")
        out(f"  forum: a local phpBB 3.3 board at {world.board.url} ; moves: the Maildir "
            f"{folder / 'moves'} ; nothing leaves this machine")
        out(f"  game folder: {folder}{' (temporary)' if temporary else ''}")
        out("")
        out("$ scraper-mod deal GAME")
        dealt = open_game(folder)
        try:
            lines = deal_lines(dealt.game, deal_game(dealt))
        finally:
            dealt.close()
        for line in lines:
            out("  " + line.replace(str(folder), "GAME"))
        out("")
        world.script()
        ctx = open_game(folder, clock=clock)
        ctx.store.skip_syncs()  # a throw-away game

        def on_resolved(res: Resolution) -> None:
            data = ctx.store.resolution(res.day) or {}
            path = res.out_dir / "result.json"
            if path.exists():
                data = json.loads(path.read_text(encoding="utf-8"))
            result.days[res.day] = data
            news = res.out_dir / "newspaper.bbcode"
            text = news.read_text(encoding="utf-8") if news.exists() else "(no newspaper)"
            result.newspapers[res.day] = text
            stamp = clock.now().astimezone(MSK)
            out(f"━━━━ day {res.day} resolved at {stamp:%a %d.%m %H:%M:%S} · "
                f"out/day-{res.day}/newspaper.bbcode ━━━━")
            for line in text.rstrip("\n").splitlines():
                out(line)
            out("")

        try:
            report = Daemon(ctx, ops=LiveOps(), on_resolved=on_resolved).run(until=END)
        finally:
            ctx.close()
        result.winner = report.winner
        result.errors = list(report.errors)
        result.polls = report.polls
        result.board_requests = len(world.board.requests)
        clock.run_due()
        ok = True
    finally:
        world.close()
        if not ok:
            out(f"the demo stopped early; its game folder and run.log are in {folder}")
        package_log.removeHandler(handler)
        handler.close()
        package_log.propagate, package_log.level = old_propagate, old_level
    result.seconds = _time.monotonic() - started
    for line in summary_lines(result, temporary=temporary):
        out(line)
    if temporary:
        shutil.rmtree(folder, ignore_errors=True)
    return result


_HOW = {"votes": "jailed by votes", "random": "jailed by the random list",
        "mafia": "killed by the mafia", "maniac": "killed by the maniac"}


def summary_lines(result: DemoResult, *, temporary: bool) -> list[str]:
    """The one-screen summary: who died when, the winner, the figures."""
    lines = ["════ summary ════"]
    deadlines = {1: at(14, 20), 2: at(15, 20), 3: at(17, 20), 4: at(18, 20), 5: at(19, 20)}
    for n, r in sorted(result.days.items()):
        dl = deadlines.get(n)
        when = f"{dl:%a %d.%m}" if dl else "?"
        parts = []
        if r.get("lynched"):
            lyn = r["lynched"]
            parts.append(f"{lyn['player']} ({lyn['role']}) {_HOW.get(lyn['by'], lyn['by'])}")
        for k in r.get("killed", []):
            parts.append(f"{k['player']} ({k['role']}) {_HOW.get(k['by'], k['by'])}")
        if r.get("saved"):
            parts.append("the doctor saved someone")
        if r.get("frozen"):
            parts.append(f"{r['frozen']} frozen")
        lines.append(f"day {n} ({when}): " + "; ".join(parts or ["nobody died"]))
    if result.winner:
        lines.append(f"winner: {result.winner} (after {len(result.days)} days)")
    else:
        lines.append("the game did not end: see run.log")
    lines.append(f"{result.polls} polls, {result.board_requests} requests to the local board, "
                 f"{len(result.errors)} errors, {result.seconds:.1f} s")
    if result.errors:
        lines += [f"  error: {e}" for e in result.errors[:5]]
    if temporary:
        lines.append("(the demo's folder was temporary; run `scraper-mod demo DIR` to keep it "
                     "and read the posts, the host reports and run.log)")
    else:
        lines.append(f"the game folder, its posts (out/day-N/) and run.log: {result.folder}")
        lines.append(f"next: scraper-mod serve {result.folder}   # the host's page of this game")
    return lines
