"""A game folder for the move tests: the players of the phpBB fixture board (users 58-65),
day 1 from Monday 8 April 2024 21:00 MSK to Tuesday 9 April 20:00 MSK, with the roles the
phpBB PM fixtures assume (Вася the Boss, Big Joe the duty mafioso, ...)."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent.parent
MAIL = ROOT / "fixtures" / "mail"
MSK = ZoneInfo("Europe/Moscow")

PLAYERS = [
    # nick, role, contact, aliases, code
    ("Вася", "boss", "vasya@example.org", ["Василий", "Vasya"], "BOSS-11"),
    ("Маша_2", "civilian", "masha@example.org", ["Маша", "Masha"], "MSH-22"),
    ("Big Joe", "mafia", "bigjoe@example.org", ["Джо"], "BJ-33"),
    ("Алексей", "commissar", "alexey@example.org", [], "ALX-44"),
    ("NightOwl", "sergeant", "nightowl@example.org", ["Сова"], "OWL-55"),
    ("Игрок-7", "maniac", "player7@example.org", [], "P7-66"),
    ("Ёжик в тумане", "vsb", "ezhik@example.org", ["Ёжик"], "EZH-77"),
    ("doc_Holiday", "doctor", "doc@example.org", ["Док"], "KR7-QZ"),
]


def _toml(v) -> str:
    return json.dumps(v, ensure_ascii=False)


def make_game(folder: Path, *, moves: dict | None = None, rules: dict | None = None,
              language: str = "ru", duty: str = "Big Joe") -> Path:
    """Write ``folder/game.toml``; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    moves = {"source": "maildir", "path": "moves"} if moves is None else moves
    lines = [
        "[game]", 'title = "Игра 2"', 'timezone = "Europe/Moscow"', "start = 2024-04-08",
        'day_start = "21:00"', 'deadline = "20:00"', f"language = {_toml(language)}",
        'host = "admin"',
        "random_list = " + _toml([p[0] for p in PLAYERS]), "",
        "[forum]", 'url = "http://127.0.0.1:9/"', "",
        "[moves]", *(f"{k} = {_toml(v)}" for k, v in moves.items()), "",
        "[rules]", *(f"{k} = {_toml(v)}" for k, v in (rules or {}).items()), "",
        "[mafia]", f"duty = {_toml(duty)}", "",
    ]
    for nick, role, contact, aliases, code in PLAYERS:
        lines += ["[[players]]", f"nick = {_toml(nick)}", f"role = {_toml(role)}",
                  f"contact = {_toml(contact)}", f"aliases = {_toml(aliases)}",
                  f"code = {_toml(code)}", ""]
    (folder / "game.toml").write_text("\n".join(lines), encoding="utf-8")
    return folder


def msk(text: str) -> datetime:
    """'2024-04-09 19:59:58' in Moscow time."""
    return datetime.fromisoformat(text).replace(tzinfo=MSK)


def maildir(folder: Path) -> Path:
    for sub in ("cur", "new", "tmp"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    return folder


def deliver(md: Path, raw: bytes, when: datetime, *, name: str | None = None) -> Path:
    """Deliver ``raw`` into a Maildir's new/ as a delivery agent would, at ``when``."""
    ts = when.timestamp()
    name = name or f"{int(ts)}.M{int(ts * 1e6) % 1000000}P4242Q{len(os.listdir(md / 'new'))}.mx"
    path = md / "new" / name
    path.write_bytes(raw)
    os.utime(path, (ts, ts))
    return path


def mail(sender: str, body: str, *, subject: str = "ход", message_id: str | None = None,
         charset: str = "utf-8") -> bytes:
    """A small plain-text message (8bit)."""
    import hashlib
    mid = message_id or hashlib.sha1(f"{sender}|{subject}|{body}".encode()).hexdigest()[:16] \
        + "@example.org"
    head = (f"From: {sender}\r\nTo: host@example.org\r\nSubject: {subject}\r\n"
            f"Message-ID: <{mid}>\r\nDate: Tue, 9 Apr 2024 12:00:00 +0300\r\nMIME-Version: 1.0\r\n"
            f"Content-Type: text/plain; charset={charset}\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
    from email.header import Header
    head = head.replace(f"Subject: {subject}", "Subject: " + Header(subject, "utf-8").encode())
    return head.encode("ascii") + body.replace("\n", "\r\n").encode(charset)
