"""What every hosted game gets besides polling and resolving: the autopilot and the day's
work on the board (docs/daytime.md), the same for ``run GAME`` and for each game of
``run FOLDER``.

* ``GameOps``: ``LiveOps`` that, on ``[publish] mode = "auto"``, first posts what a resolved
  day still owes the board (the newspaper, the next day's topic, the PMs, the lock: a failure
  is retried on each poll), answers counts on request, posts the majority notice (R2.15),
  alerts the host to new problems, and runs the scheduled counts and reminders. Each step of
  a poll stands alone: an internal error in one (a bug) is logged with its traceback, told
  to the host (alert kind ``internal``) and the remaining steps still run.
* ``note_start`` / ``note_stop``: the game marked running in its state file; found marked at
  a start, the last run crashed (``kill -9``, a reboot): logged and told to the host.
* ``preflight``: what must be right before a game is run (``game/setup/newgame.py``'s checks).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from datetime import datetime

from scraper_mod.game.day import daytime
from scraper_mod.game.day.majority import post_majority_notice
from scraper_mod.game.publishing.publish import (
    AUTO_RETRY_SECONDS,
    Outcome,
    auto_publish,
    pending_days,
    plan_day,
    publish_items,
    publish_move_answers,
)
from scraper_mod.game.setup.connect import game_board
from scraper_mod.game.setup.newgame import setup_problems

from ..errors import LoginRequiredError, ScraperModError
from ..forum.client import ForumClient
from ..game.context import GameContext
from ..game.results.wording import Formatter
from ..game.russian import russian_error
from .work import LiveOps, PollResult

# what a publication is, in Russian (the store's kinds): alerts and `status`
KINDS_RU = {"newspaper": "газета", "day-topic": "тема следующего дня",
            "day-start": "начало следующего дня", "vote-topic": "тема голосования",
            "pm": "личное сообщение", "role-card": "карточка роли", "lock": "закрытие темы",
            "tally": "подсчёт голосов", "reminder": "напоминание о ходах",
            "majority": "объявление о большинстве", "alert": "оповещение ведущего",
            "answer": "ответ на ход"}

__all__ = ["GameOps", "RUNNING_KEY", "check_login", "note_start", "note_stop", "preflight"]

log = logging.getLogger("scraper_mod.run")

RUNNING_KEY = "daemon_running"   # set while `run` runs the game: found set at a start, it crashed


class GameOps(LiveOps):
    """The real work of one hosted game, autopilot included (module docstring)."""

    def __init__(self, client: ForumClient | None = None, *,
                 logger: logging.Logger | logging.LoggerAdapter | None = None) -> None:
        super().__init__(client=client)
        self.log = logger or log

    def poll(self, ctx: GameContext, day: int, *, full: bool) -> PollResult:
        self._step(ctx, day, "publication", lambda: self.publish(ctx))
        try:
            res = super().poll(ctx, day, full=full)
        except ScraperModError:
            raise                    # the board or the mailbox: the daemon says it, retries
        except Exception:            # a bug: the day's other steps still run, then it is said
            if not full:
                self._after_poll(ctx, day)
            raise
        if not full:
            self._after_poll(ctx, day)
        return res

    def _after_poll(self, ctx: GameContext, day: int) -> None:
        self._step(ctx, day, "majority notice", lambda: post_majority_notice(ctx, day))
        # R5.1: each move sent by the board's PM is answered at the next poll (issue 40)
        self._step(ctx, day, "move answers",
                   lambda: self._report(ctx, publish_move_answers(ctx, day)))
        self._step(ctx, day, "counts on request",
                   lambda: self._report(ctx, daytime.answer_requests(ctx, day)))
        self._step(ctx, day, "alerts", lambda: daytime.alert_new_problems(ctx, day))

    def _step(self, ctx: GameContext, day: int | None, name: str,
              func: Callable[[], object]) -> None:
        """Run one step of a poll; its failure is said and never stops the next step."""
        try:
            func()
        except ScraperModError as e:
            msg = f"day {day}: the {name} step failed: {e}; tried again at the next poll"
            self.log.error("%s", msg)
            why = russian_error(e)
            _event(ctx, msg, f"день {day}: шаг «{_STEPS_RU.get(name, name)}» не удался"
                             + (f": {why}" if why else " (подробности — в run.log)")
                             + "; повтор при следующем чтении форума")
        except Exception as e:  # noqa: BLE001 - a bug in one step never stops the others
            msg = (f"day {day}: internal error in the {name} step (please report it): {e!r}; "
                   "the poll goes on")
            self.log.exception("%s", msg)
            ru = (f"день {day}: внутренняя ошибка на шаге «{_STEPS_RU.get(name, name)}» "
                  "(подробности — в run.log); чтение форума идёт дальше")
            _event(ctx, msg, ru)
            self.alert(ctx, "internal", msg, day, detail_ru=ru)

    def publish(self, ctx: GameContext) -> None:
        """``auto_publish``, and an alert for each publication that failed just now."""
        self._report(ctx, auto_publish(ctx))

    def publish_newspapers(self, ctx: GameContext) -> None:
        """Right after a resolution (in the deadline job), on autopilot: the newspaper only.
        The day's other posts (the next day's topic, the PMs, the lock) follow at the game's
        next poll, at once: on a board that hosts many games with one deadline, every
        game's re-scan and newspaper come before any game's PMs."""
        if ctx.game.publish.mode != "auto":
            return
        outcomes: list[Outcome] = []
        for day in pending_days(ctx):
            try:
                items = [i for i in plan_day(ctx, day) if i.kind == "newspaper"]
            except ScraperModError:
                continue                 # said by the full publication at the next poll
            outcomes += publish_items(ctx, items, retry_after=AUTO_RETRY_SECONDS)
        self._report(ctx, outcomes)

    def chores(self, ctx: GameContext, day: int) -> None:
        self._report(ctx, daytime.run_chores(ctx, day))

    def next_chore_at(self, ctx: GameContext, day: int, now: datetime) -> datetime | None:
        return daytime.next_chore_at(ctx, day, now)

    def alert(self, ctx: GameContext, kind: str, detail: str, day: int | None, *,
              detail_ru: str | None = None) -> str:
        """Tell the host (``daytime.alert``); ``detail_ru``: the line a Russian game's host
        reads (issue 39 item 4: the English one goes to the log only)."""
        try:
            return daytime.alert(ctx, kind, detail, day=day, detail_ru=detail_ru)
        except Exception as e:  # noqa: BLE001 - an alert is never why the game stops
            self.log.warning("the host could not be alerted (%s): %r", kind, e)
            return "failed"

    def _report(self, ctx: GameContext, outcomes: list[Outcome]) -> None:
        for o in outcomes:
            if o.status == "posted" and o.kind in ("tally", "reminder"):
                self.log.info("posted the %s to %s: %s", o.kind, o.to, o.url or "")
            if o.status != "failed" or not o.fresh or o.kind == "alert":
                continue
            self.log.error("could not post %s to %s: %s (it stays in out/ and is tried "
                           "again)", o.kind, o.to, o.error)
            # one refused login stops the run's posting (issue 40): the host is told so
            refused = getattr(ctx.client, "login_refused", None)
            what = f"{KINDS_RU.get(o.kind, o.kind)} для {o.to}"
            daytime.alert(ctx, "login" if refused is not None else "publish",
                          str(refused) if refused is not None else
                          f"{o.kind} to {o.to}: {o.error}",
                          day=o.item.day if o.item else None,
                          detail_ru=(_login_ru(ctx, refused) + f"; не отправлено: {what}"
                                     if refused is not None else
                                     f"не отправлено: {what} (причина — в run.log)"))


# a poll's steps (GameOps._step), in Russian
_STEPS_RU = {"publication": "публикация", "majority notice": "объявление о большинстве",
             "move answers": "ответы на ходы", "counts on request": "подсчёты по просьбе",
             "alerts": "оповещения ведущего"}


def _login_ru(ctx: GameContext, e: object) -> str:
    """A refused login, in Russian: the error's own Russian line, or the account's name."""
    why = russian_error(e) if isinstance(e, ScraperModError) else None
    return why or (f"форум не принял вход учётной записи {ctx.game.forum.username or ''}"
                   .rstrip() + "; в этом запуске ничего не публикуется")


def _event(ctx: GameContext, msg: str, ru: str | None = None) -> None:
    try:
        ctx.store.log_event("error", {"message": msg, **({"ru": ru} if ru else {})},
                            at=ctx.now())
    except ScraperModError:
        pass


def note_start(ctx: GameContext, ops: GameOps) -> None:
    """Mark the game running; if the last run never said it stopped, it crashed (a
    ``kill -9``, a reboot): log it and tell the host."""
    before = ctx.store.get(RUNNING_KEY)
    ctx.store.put(RUNNING_KEY, {"pid": os.getpid(), "since": ctx.now().isoformat()})
    if before:
        msg = (f"the last run (pid {before.get('pid')}, since {before.get('since')}) did not "
               "stop cleanly: restarted after a crash")
        ops.log.warning("%s", msg)
        ops.alert(ctx, "restart", msg, None, detail_ru=_restart_ru(ctx, before))


def check_login(ctx: GameContext, ops: GameOps) -> None:
    """Where the run posts or reads the board's PMs, log in once at the start: a refused
    login is told at once (the log, the host's alert) and never tried again in this run
    (issue 40: a wrong password tried once per PM got the account locked out). The board
    being down is no reason to stop: the run tries again at its steps."""
    g = ctx.game
    posts = g.publish.mode == "auto"
    reads_pms = g.moves.source in ("forum_pm", "phpbb_pm")
    if not g.forum.url or not g.forum.username or not (posts or reads_pms):
        return
    try:
        game_board(ctx).login()
    except LoginRequiredError as e:
        ops.log.error("the board refused the login: %s; nothing is posted in this run "
                      "until it is restarted with the right password", e)
        ops.alert(ctx, "login", str(e), None, detail_ru=_login_ru(ctx, e))
    except ScraperModError as e:
        ops.log.warning("the login could not be checked now: %s", e)


def _restart_ru(ctx: GameContext, before: dict) -> str:
    """The crashed run, in Russian: its process and since when (in the game's time)."""
    since = before.get("since")
    try:
        fmt = Formatter("ru", ctx.game.timezone)
        when = f", запущен {fmt.date(datetime.fromisoformat(since))}" \
               f" в {fmt.time(datetime.fromisoformat(since))} " \
               f"{fmt.zone(datetime.fromisoformat(since))}" if since else ""
    except (TypeError, ValueError):
        when = ""
    return (f"прошлый запуск (процесс {before.get('pid')}{when}) не завершился штатно: "
            "перезапуск после сбоя")


def note_stop(ctx: GameContext) -> None:
    """A clean stop: no crash to tell at the next start."""
    ctx.store.put(RUNNING_KEY, None)


def preflight(ctx: GameContext, *, strict: bool = True) -> list[str]:
    """What must be right before the daemon starts (raises the first such problem, naming
    the file and key), and what is worth a warning (the checks of game/setup/newgame.py).
    ``strict=False`` (a game of ``run FOLDER``, which has always started a game taken over
    midway): those problems are warnings too."""
    problems = setup_problems(ctx)
    fatal = [p for p in problems if p.fatal]
    if fatal and strict:
        raise fatal[0].error()
    lang = ctx.game.language
    warnings = [p.in_language(lang) for p in problems]
    if not ctx.game.moves.source:
        warnings.append("в game.toml нет [moves] source: ночные ходы читаться не будут"
                        if lang == "ru" else
                        "no [moves] source in game.toml: night moves will not be read")
    ctx.calendar().deadline(1)   # a bad moved deadline fails here, clearly
    return warnings
