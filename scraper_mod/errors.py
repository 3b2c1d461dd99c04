"""Every error scraper-mod raises on purpose.

The tree::

    ScraperModError                 anything the CLI turns into one ``error: ...`` line
    +-- ConfigError                 game.toml: carries the file and the key
    +-- ForumError                  the board: carries the URL
    |   +-- ParseError              a page that is not a readable topic page
    |   +-- TopicNotFoundError      "The requested topic does not exist."
    |   +-- LoginRequiredError      the board wants a logged-in user
    |   +-- BoardDisabledError      "Sorry but this board is currently unavailable."
    |   +-- NotABoardPageError      a page that is not the board's at all (challenge, proxy)
    |   +-- FetchError              network errors, 5xx, 429 after every retry
    +-- MailboxError                a move source: carries the source and the message
    +-- StorageError                the SQLite state file
    +-- RulesError                  a request the rules cannot answer (a day before its deadline)

Each exception builds its message from the data it carries, and says what to check;
``size_text`` words a byte count for such messages («8 MiB»).
"""

from __future__ import annotations

import re

#: a board's session id in a link or a form: ``sid=<32 hex>``, ``PHPSESSID=<id>`` (and any
#: ``…sessid=``/``sesc=`` value) and a session check in links (``;<random name>=<32 hex>``),
#: whichever engine's: written nowhere (issue 40)
_SESSION_IDS = re.compile(r"(?i)((?:^|[?&;\s])(?:sid|phpsessid|sesc|sessid)=)[0-9a-z,-]{16,128}"
                          r"|(?<=;)([0-9a-f]{5,12}=)[0-9a-f]{32}(?![0-9a-z])")


def scrub_secrets(text: str) -> str:
    """``text`` with the value of every board session id taken out (``sid=``, ``PHPSESSID=``
    stay, empty): an error line, a log line or the state file never carries one."""
    if "=" not in text:
        return text
    return _SESSION_IDS.sub(lambda m: m.group(1) or m.group(2), text)


class ScraperModError(Exception):
    """Base of every error scraper-mod raises on purpose."""

    hint: str = ""
    ru: str | None = None     # the whole line in Russian, where the raiser gives one

    def __init__(self, message: str, *, hint: str = "", ru: str | None = None) -> None:
        self.message = scrub_secrets(message)
        if hint:
            self.hint = scrub_secrets(hint)
        if ru:
            self.ru = scrub_secrets(ru)
        super().__init__(self.__str__())

    def __str__(self) -> str:  # pragma: no cover - trivial
        return f"{self.message} ({self.hint})" if self.hint else self.message

    def in_language(self, lang: str) -> str:
        """The line in ``lang``: the Russian one for "ru" where there is one (the host's page
        of a game in Russian, issue 27 item 2), else the English."""
        return self.ru if lang == "ru" and self.ru else str(self)


class ConfigError(ScraperModError):
    """A game file that cannot be used: names the file and the key."""

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None,
                 hint: str = "", ru: str | None = None) -> None:
        self.path = path
        self.key = key
        where = ""
        if path:
            where = f"{path}: "
        if key:
            where += f"{key}: "
        super().__init__(where + message, hint=hint, ru=where + ru if ru else None)


class ForumError(ScraperModError):
    """A problem with the board; carries the URL."""

    def __init__(self, message: str, *, url: str | None = None, hint: str = "") -> None:
        url = scrub_secrets(url) if url else url
        self.url = url
        super().__init__(f"{url}: {message}" if url else message, hint=hint)


class ParseError(ForumError):
    """The page could not be read as the board's topic page."""


class TopicNotFoundError(ForumError):
    """The board says the topic does not exist."""

    hint = "check the topic URL in game.toml ([[days]] topic)"


class LoginRequiredError(ForumError):
    """The board asks for a login to show the page."""

    hint = "set [forum] username and the SCRAPER_MOD_FORUM_PASSWORD environment variable"


class BoardDisabledError(ForumError):
    """The board is switched off by its admin."""

    hint = "the board is disabled; try again later"


class NotABoardPageError(ForumError):
    """The response is not the board's page (a proxy error, a bot challenge...)."""

    hint = "check [forum] url; a bot challenge or proxy may be in the way"


class FetchError(ForumError):
    """The request failed after every retry."""

    hint = "check that the board is reachable"


class MailboxError(ScraperModError):
    """A move source could not be read; carries the source and message."""

    def __init__(self, message: str, *, source: str | None = None,
                 message_id: str | None = None, hint: str = "", ru: str | None = None) -> None:
        self.source = source
        self.message_id = message_id
        where = f"{source}: " if source else ""
        where_ru = where + (f"письмо {message_id}: " if message_id else "")
        if message_id:
            where += f"message {message_id}: "
        super().__init__(where + message, hint=hint, ru=where_ru + ru if ru else None)


class StorageError(ScraperModError):
    """The SQLite state file cannot be used."""

    def __init__(self, message: str, *, path: str | None = None, hint: str = "") -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message, hint=hint)


class RulesError(ScraperModError):
    """The rules cannot answer what was asked (e.g. resolving a day before its deadline)."""


def size_text(n: int) -> str:
    """A byte count as people read it: ``8 MiB``, ``1.5 MiB``, ``512 KiB``, ``900 bytes``."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) or v >= 100 else f"{v:.1f} {unit}"
    return f"{n} bytes"
