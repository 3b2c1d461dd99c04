"""The host's actions on the page: each is a POST (with the CSRF token) that calls the same
service as its command and answers with what changed, in the game's language.

An action is one ``Action`` in ``ACTIONS``: its form fields and a function
``run(ctx, form, lang) -> list[str]`` (the lines saying what changed). Adding one — say
``decide`` or ``replace`` over ``game/roster/host.py`` — is a field list and a few lines calling the
service, registered with ``@action``; the page draws its form and the route runs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Mapping

from scraper_mod.game.day.days import move_deadline, open_day
from scraper_mod.game.publishing.publish import check_mode, day_to_publish, publish_day
from scraper_mod.game.results.wording import Formatter
from scraper_mod.game.roster.host import (
    Changed,
    decide_kill,
    decide_vote,
    list_decisions,
    replace_player,
    undo_decision,
)
from scraper_mod.game.setup.timearg import parse_time_arg

from ..errors import ConfigError
from ..game.context import GameContext
from .i18n import word

ActionFn = Callable[[GameContext, Mapping[str, str], str], list[str]]


@dataclass(frozen=True)
class Field:
    name: str
    label: str                 # an i18n key
    kind: str = "text"         # text | number | datetime
    default: Callable[[GameContext, int], str] | None = None   # (ctx, page day) -> value


@dataclass(frozen=True)
class Action:
    name: str                  # in the URL: /games/NAME/actions/<name>
    title: str                 # an i18n key
    fields: tuple[Field, ...]
    run: Callable[[GameContext, Mapping[str, str], str], list[str]]
    shown: Callable[[GameContext], bool] = lambda ctx: True


ACTIONS: dict[str, Action] = {}


def action(name: str, title: str, *fields: Field,
           shown: Callable[[GameContext], bool] = lambda ctx: True
           ) -> Callable[[ActionFn], ActionFn]:
    """Register ``run(ctx, form, lang) -> lines`` as the action ``name``."""
    def register(run):
        ACTIONS[name] = Action(name, title, tuple(fields), run, shown)
        return run
    return register


def int_field(form: Mapping[str, str], name: str, *, what: str = "the day's number") -> int:
    value = (form.get(name) or "").strip()
    try:
        return int(value)
    except ValueError:
        raise ConfigError(f"{name}: not a number: {value!r}", hint=f"give {what}",
                          ru=f"{name}: это не число: {value!r}") from None


def _when(fmt: Formatter, t) -> str:
    return f"{fmt.date(t)}, {fmt.time_s(t)} {fmt.zone(t)}"


def _page_day(ctx: GameContext, day: int) -> str:
    return str(day)


@action("move-deadline", "act_move",
        Field("day", "f_day", "number", _page_day), Field("time", "f_time", "text",
                                                          lambda ctx, d: ""))
def run_move(ctx: GameContext, form: Mapping[str, str], lang: str) -> list[str]:
    """``day move``: the same service, its result in the page's words."""
    moved = move_deadline(ctx, int_field(form, "day"), (form.get("time") or "").strip(),
                          name="time", force=(form.get("force") or "") in ("1", "on", "true"))
    fmt = Formatter(lang, ctx.game.timezone)
    lines = [word("moved_back" if moved.back_to_schedule else "moved_line", lang,
                  day=moved.day, before=_when(fmt, moved.before), after=_when(fmt, moved.after)),
             word("next_day_line", lang, day=moved.day + 1, start=_when(fmt, moved.next_start),
                  deadline=_when(fmt, moved.next_deadline))]
    if moved.in_past:
        lines.append(word("in_past_line", lang, day=moved.day))
    return lines


@action("open-day", "act_open",
        Field("day", "f_day", "number", _page_day), Field("url", "f_url", "text",
                                                          lambda ctx, d: ""))
def run_open(ctx: GameContext, form: Mapping[str, str], lang: str) -> list[str]:
    """``day open``: the same service."""
    opened = open_day(ctx, int_field(form, "day"), (form.get("url") or "").strip())
    if opened.changed_topic:
        return [word("reopened_line", lang, day=opened.day, previous=opened.previous,
                     topic=opened.topic)]
    return [word("opened_line", lang, day=opened.day, topic=opened.topic)]


def _last_resolved(ctx: GameContext, day: int) -> str:
    done = ctx.store.resolutions()
    return str(max(done)) if done else ""


@action("publish", "act_publish", Field("day", "f_day", "number", _last_resolved),
        shown=lambda ctx: ctx.game.publish.mode != "off" and bool(ctx.store.resolutions()))
def run_publish(ctx: GameContext, form: Mapping[str, str], lang: str) -> list[str]:
    """``publish`` (review mode): the same service; one line per post, as the command."""
    day = day_to_publish(ctx, int_field(form, "day") if (form.get("day") or "").strip()
                         else None)
    check_mode(ctx)
    outcomes = publish_day(ctx, day)
    if not outcomes:
        return [word("nothing_to_publish", lang)]
    return [f"{o.status}: {o.kind} → {o.to}" + (f" {o.url}" if o.url else "")
            + (f" — {o.error}" if o.error else "") for o in outcomes]


# --- the host's decisions (R10, R11): the services of `replace` and `decide` ------------------

def _text(form: Mapping[str, str], name: str) -> str:
    return " ".join((form.get(name) or "").split())


def _at(ctx: GameContext, form: Mapping[str, str]) -> datetime | None:
    value = _text(form, "at")
    return parse_time_arg(value, ctx.game.timezone, name="at") if value else None


def _changed(done: Changed, lang: str) -> list[str]:
    lines = [word("decision_line", lang, k=done.k, summary=done.summary)]
    if done.rewritten:
        lines.append(word("rewritten_line", lang,
                          days=", ".join(str(d) for d in done.rewritten)))
    if done.card is not None:
        lines.append(word("card_line", lang, path=done.card.name))
    lines += [word("board_line", lang, what=p) for p in done.published]
    return lines


@action("decide-vote", "act_decide_vote", Field("post", "f_post", "number"),
        Field("nick", "f_vote_nick"), Field("why", "f_why"))
def run_decide_vote(ctx: GameContext, form: Mapping[str, str], lang: str) -> list[str]:
    """``decide GAME vote POST_ID NICK|none --why``: the same service (R11.1)."""
    nick = _text(form, "nick")
    done = decide_vote(ctx, int_field(form, "post", what="the post's number (its #p link)"),
                       None if nick.casefold() in ("", "none") else nick, why=_text(form, "why"))
    return _changed(done, lang)


@action("decide-kill", "act_decide_kill", Field("nick", "f_nick"), Field("at", "f_at"),
        Field("why", "f_why"))
def run_decide_kill(ctx: GameContext, form: Mapping[str, str], lang: str) -> list[str]:
    """``decide GAME kill NICK [--at] --why``: the same service (R11.2)."""
    done = decide_kill(ctx, _text(form, "nick"), at=_at(ctx, form), why=_text(form, "why"))
    return _changed(done, lang)


@action("replace", "act_replace", Field("old", "f_old"), Field("new", "f_new"),
        Field("at", "f_at"), Field("why", "f_why"))
def run_replace(ctx: GameContext, form: Mapping[str, str], lang: str) -> list[str]:
    """``replace GAME OLD NEW [--at]``: the same service (R10)."""
    done = replace_player(ctx, _text(form, "old"), _text(form, "new"), at=_at(ctx, form),
                          why=_text(form, "why"))
    return _changed(done, lang)


@action("undo-decision", "act_undo", Field("k", "f_k", "number"),
        shown=lambda ctx: bool(list_decisions(ctx)))
def run_undo(ctx: GameContext, form: Mapping[str, str], lang: str) -> list[str]:
    """``decide GAME undo K``: the same service (R11.3)."""
    return _changed(undo_decision(ctx, int_field(form, "k", what="the decision's number "
                                                  "(decide list)")), lang)
