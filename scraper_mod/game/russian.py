"""Russian all through for a Russian game (issue 39 item 4): the error lines the host reads
(the command line's `ошибка: …`, the host's page's error box).

A game whose ``[game] language`` is "ru" (the default) gets its errors as ``ошибка: …`` in
Russian only: the raiser's own Russian line (``ScraperModError.ru``) where it gives one, else
the common messages of the game file's reader translated here, a board that does not answer,
a file the system refuses, a bug; the English text, and any exception's text, goes to the log
(shown with ``-v``). An error with no Russian line yet keeps its English one (a Russian line
that hid what to fix would be worse): the raisers gain ``ru=`` lines one by one.
"""

from __future__ import annotations

import errno
import logging
import re
import tomllib
from pathlib import Path

from ..errors import ConfigError, FetchError, ScraperModError

__all__ = ["game_language", "russian_error", "russian_unexpected", "russian_os_error",
           "error_in"]

log = logging.getLogger(__name__)


def game_language(game: object) -> str | None:
    """The language of the game the command names ("ru", "en"), None when there is no game
    file to read (a folder of games reads as its first game's; unreadable: Russian, the
    default)."""
    if not isinstance(game, (str, Path)) or not str(game):
        return None
    try:
        path = Path(game)
        if path.is_dir():
            path = path / "game.toml"
        if not path.is_file():
            return "ru" if path.suffix == ".toml" or not path.suffix else None
        with path.open("rb") as f:
            data = tomllib.loads(f.read(1 << 20).decode("utf-8-sig"))
    except (OSError, ValueError):       # unreadable, not UTF-8, not TOML: the default
        return "ru"
    g = data.get("game")
    lang = g.get("language", "ru") if isinstance(g, dict) else "ru"
    return lang if lang in ("ru", "en") else "ru"


# the game file reader's messages (game/setup/config.py), English -> Russian
_READER: list[tuple[str, str]] = [
    (r"^unknown key$", "неизвестный ключ"),
    (r"^must be true or false, not (.+)$", r"нужно true или false, а не \1"),
    (r"^must be a whole number, not (.+)$", r"нужно целое число, а не \1"),
    (r"^must be a table$", "нужна таблица"),
    (r"^must be a list of strings$", "нужен список строк"),
    (r"^must be (a string|text), not (.+)$", r"нужна строка, а не \2"),
    (r"^must be a number, not (.+)$", r"нужно число, а не \1"),
    (r"^must be one of (.+), not (.+)$", r"нужно одно из: \1, а не \2"),
    (r"^out of range: (.+)$", r"вне допустимых пределов: \1"),
    (r"^must be a date like (\S+), not (.+)$", r"нужна дата вида \1, а не \2"),
    (r'^must be a time as "HH:MM", not (.+)$', r'нужно время "ЧЧ:ММ", а не \1'),
    (r'^must be a time of day "HH:MM" in game time, not (.+)$',
     r'нужно время дня "ЧЧ:ММ" по времени игры, а не \1'),
    (r"^must be a day number from 1 to (\d+)$", r"нужен номер дня от 1 до \1"),
    (r"^day (\d+) is listed twice$", r"день \1 указан дважды"),
    (r"^is the day's topic itself$", "это сама тема дня"),
    (r"^not a \w+ topic address: (.+)$", r"это не адрес темы форума: \1"),
    (r"^cannot read: not UTF-8 text \(byte (\d+)\)$",
     r"файл не читается: это не текст в UTF-8 (байт \1)"),
]
_HINTS: list[tuple[str, str]] = [
    (r"^known keys: (.+)$", r"известные ключи: \1"),
    (r'^e\.g\. voting_opens = "20:00"; "" for no voting window$',
     'например voting_opens = "20:00"; "" — без окна голосования'),
    (r"^save game\.toml as UTF-8 \(not windows-1251 or UTF-16\)$",
     "сохраните game.toml в UTF-8 (не windows-1251 и не UTF-16)"),
    (r"^the voting topic is a topic of its own; leave vote_topic out when the house votes in "
     r"the day's topic$",
     "голосование — отдельная тема; если голосуют в теме дня, уберите vote_topic"),
]


def _translate(text: str, table: list[tuple[str, str]]) -> str | None:
    for pattern, ru in table:
        if re.match(pattern, text):
            return re.sub(pattern, ru, text)
    return None


def russian_error(e: ScraperModError) -> str | None:
    """The error's line in Russian only (see the module), the English to the log; None when
    no Russian line says as much as the English one (then the English line is kept: a
    Russian line that hides what to fix would be worse)."""
    if e.ru:
        log.debug("the error in English: %s", e)
        return e.ru
    if isinstance(e, ConfigError):
        where = "".join(f"{x}: " for x in (e.path, e.key) if x)
        bare = e.message[len(where):] if e.message.startswith(where) else e.message
        msg = _translate(bare, _READER)
        hint = _translate(e.hint, _HINTS) if e.hint else ""
        if msg is not None and (hint or not e.hint):
            log.debug("the error in English: %s", e)
            return where + msg + (f" ({hint})" if hint else "")
        return None
    if isinstance(e, FetchError) and getattr(e, "url", None):
        log.debug("the error in English: %s", e)
        return ("форум не ответил" + (f" ({e.url})" if getattr(e, "url", None) else "")
                + ": проверьте адрес в [forum] url и сеть, повторите позже; подробности — "
                  "с ключом -v")
    return None


def error_in(e: ScraperModError, lang: str) -> str:
    """The error's line for a host who reads ``lang`` (the page's error box and alerts): the
    Russian one for "ru" (see russian_error), else the English."""
    return (russian_error(e) if lang == "ru" else None) or str(e)


def russian_unexpected() -> str:
    """A bug's line: no exception text (it is in the log)."""
    return ("непредвиденная ошибка в scraper-mod: запустите команду ещё раз с ключом -v и "
            "пришлите вывод разработчикам")


_ERRNO = {errno.ENOENT: "нет такого файла или папки", errno.EACCES: "нет прав доступа",
          errno.EPERM: "нет прав доступа", errno.ENOSPC: "диск заполнен",
          errno.EROFS: "файловая система только для чтения",
          errno.EISDIR: "это папка, а не файл", errno.ENOTDIR: "это файл, а не папка"}


def russian_os_error(e: OSError) -> str:
    """A file the system refused, in Russian (the system's own text to the log)."""
    log.debug("the error in English: %s", e)
    where = f"{e.filename}: " if e.filename else ""
    why = _ERRNO.get(e.errno or 0, "файл недоступен")
    return (f"{where}{why} (проверьте, что путь существует, в него можно писать и диск не "
            "заполнен)")
