"""A game's one client and its one ``Board``, made from the game's ``[forum]`` settings.

The services never build a client or pick an engine themselves: ``game/context.py``'s
``GameContext`` asks this module once (``client_for`` on the game's clock, ``engine_for``
from the game file or, when the game file and its addresses name none, the board's front page)
and keeps the ``Board`` it gets for every read and write of the game.
"""

from __future__ import annotations

import time
from datetime import tzinfo
from typing import TYPE_CHECKING, Any, Callable, Iterable
from urllib.parse import urljoin

from ..clock import Clock, SystemClock
from .client import ForumClient
from .engine import Board, Engine, engine_named, engine_of, open_board

if TYPE_CHECKING:
    import requests

__all__ = ["client_for", "engine_for", "board_for", "OLD_PM_SOURCE"]

OLD_PM_SOURCE = "phpbb_pm"      # ``[moves] source``'s old name for the board's PMs (phpBB's)


def client_for(settings: Any, clock: Clock | None = None, *, topic_url: str | None = None,
               session: requests.Session | None = None) -> ForumClient:
    """A ``ForumClient`` for a game's ``[forum]`` ``settings`` (url, username, the pace and
    the limits) on the game's clock; with no ``[forum] url``, on the board of ``topic_url``."""
    base = settings.url
    if not base and topic_url:
        base = urljoin(topic_url, "./")
    if clock is None:
        clock = SystemClock()
    if isinstance(clock, SystemClock):
        monotonic: Callable[[], float] = time.monotonic
    else:
        game_clock = clock
        monotonic = lambda: game_clock.now().timestamp()  # noqa: E731 - a simulated clock
    return ForumClient(session, base_url=base or "", username=settings.username,
                       min_delay=settings.min_delay, full_scan_delay=settings.full_scan_delay,
                       timeout=settings.timeout, retries=settings.retries,
                       max_page_size=settings.max_page_size,
                       request_time_limit=settings.request_time_limit,
                       page_time_limit=settings.page_time_limit,
                       sleep=clock.sleep, monotonic=monotonic, now=clock.now)


def engine_for(settings: Any, client: ForumClient, *, moves_source: str | None = None,
               addresses: Iterable[str | None] = ()) -> Engine:
    """A game's engine: ``[forum] engine``, else phpBB for the old PM source name, else the
    one the game's ``addresses`` name (its forum, its topics), else the board's front page
    tells it (one GET through ``client``)."""
    if settings.engine is not None:
        return engine_of(client, settings.engine)
    if moves_source == OLD_PM_SOURCE:
        return "phpbb"
    found = engine_named(None, [settings.forum, *addresses])
    return found if found is not None else engine_of(client)


def board_for(settings: Any, client: ForumClient, *, board_tz: tzinfo,
              moves_source: str | None = None, addresses: Iterable[str | None] = ()) -> Board:
    """A game's ``Board`` on ``client``: the engine ``engine_for`` names, in the board's zone
    (the game's ``board_tz``)."""
    engine = engine_for(settings, client, moves_source=moves_source, addresses=addresses)
    return open_board(client, engine, board_tz=board_tz)
