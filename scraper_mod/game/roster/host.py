"""The host's hand on a running game: replacements (RULES R10) and decisions (R11).

The functions the CLI (``replace``, ``decide``) and the host's page call:

- ``replace_player(ctx, old, new, at=...)``: NEW takes OLD's slot from the instant on;
- ``decide_vote(ctx, post_id, nick_or_none, why=...)``: how one post of a day's topic reads;
- ``decide_kill(ctx, nick, at=..., why=...)``: the host removes a player at an instant;
- ``list_decisions(ctx)``, ``undo_decision(ctx, k)``: what is in force; take one back.

Each checks everything first and raises one clear error with nothing changed (an unknown
player, a post in no day's topic, a time outside the game, an unknown K); then records the
decision in the store (undoing only marks it), writes the newcomer's role card, resolves
again every resolved day the decision touches (the resolution cascades to the later days)
and, on autopilot, lets the publish path edit what the board already shows. The rules apply
the decisions in force (``rules.slots``); nothing here decides a rule.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from scraper_mod.errors import ConfigError, RulesError, ScraperModError
from scraper_mod.forum.engine import post_id_shape
from scraper_mod.forum.merged import real_post_id
from scraper_mod.forum.poller import canonical_topic_url
from scraper_mod.game.context import GameContext
from scraper_mod.game.publishing.publish import auto_publish, plan_role_cards, publish_items
from scraper_mod.game.results.resolve import resolve_day_files
from scraper_mod.game.roster.slotbook import (
    Decision,
    book_of,
    day_of_instant,
    decisions,
    load_book,
    resolve_view,
    slot_code,
    slot_users,
)
from scraper_mod.game.setup.nickfiles import check_file_names
from scraper_mod.posts.dayfolder import write_atomic
from scraper_mod.posts.render import render_text
from scraper_mod.rules.deal import effective_duty, effective_players, role_card, safe_filename
from scraper_mod.rules.slots import Book
from scraper_mod.rules.state import GameState

__all__ = ["Changed", "replace_player", "decide_vote", "decide_kill", "list_decisions",
           "undo_decision", "Decision"]


@dataclass(frozen=True)
class Changed:
    """What one call changed: the decision ``k`` and its ``kind`` (replace|vote|kill|undo),
    a one-line ``summary``, the first ``day`` it touches, the resolved days written again
    (``rewritten``), the newcomer's role card (``card``) and the board's outcomes when the
    autopilot posted (``published``: "kind to status" lines)."""

    k: int
    kind: str
    summary: str
    day: int
    rewritten: tuple[int, ...] = ()
    card: Path | None = None
    published: tuple[str, ...] = ()


# -- checks --------------------------------------------------------------------------------

def _when(ctx: GameContext, at: datetime | None) -> datetime:
    """The instant of a replacement or removal: now by default; inside the game."""
    at = ctx.now() if at is None else at
    if at.tzinfo is None:
        at = at.replace(tzinfo=ctx.game.timezone)
    cal = ctx.calendar()
    start = cal.day_start(1)
    if at.astimezone(timezone.utc) < start.astimezone(timezone.utc):
        raise RulesError(f"{_local(ctx, at)} is before the game starts ({_local(ctx, start)})",
                         hint="give a time within the game with --at",
                         ru=f"{_local(ctx, at)} — ещё до начала игры ({_local(ctx, start)}); "
                            "нужно время внутри игры")
    over = {d: r for d, r in ctx.store.resolutions().items() if r.get("winner")}
    if over:
        end = cal.deadline(min(over))
        if at.astimezone(timezone.utc) >= end.astimezone(timezone.utc):
            raise RulesError(f"{_local(ctx, at)} is after the game ended (day {min(over)}, "
                             f"{_local(ctx, end)})", hint="give a time within the game with --at",
                             ru=f"{_local(ctx, at)} — уже после конца игры (день {min(over)}, "
                                f"{_local(ctx, end)}); нужно время внутри игры")
    return at


def _local(ctx: GameContext, t: datetime) -> str:
    return t.astimezone(ctx.game.timezone).isoformat(timespec="seconds")


def _slot_nick(ctx: GameContext, book: Book, nick: str, at: datetime) -> str:
    """The slot's nick at ``at`` for a player named by any nick he had; an unknown name is
    an error naming the players."""
    slot = book.slot_of(nick)
    if slot is None:
        names = ", ".join(s.nick_at(at) for s in book.slots)
        raise ConfigError(f"unknown player {nick!r}", path=str(ctx.game.path),
                          hint=f"the players are: {names}",
                          ru=f"такого игрока нет: {nick!r} (игроки: {names})")
    return slot.nick_at(at)


def _state_at(ctx: GameContext, book: Book, at: datetime):
    """The game state at ``at`` as the last resolution before it left it, named and with the
    removals as the book has them then."""
    day = day_of_instant(ctx, at)
    earlier = {d: r for d, r in ctx.store.resolutions().items() if d < day}
    if earlier and isinstance(earlier[max(earlier)].get("state"), dict):
        st = GameState.from_json(earlier[max(earlier)]["state"])
    else:
        st = ctx.initial_state()
    return resolve_view(ctx, st, day=day, cutoff=at, book=book)[0]


def _alive(ctx: GameContext, book: Book, nick: str, at: datetime) -> None:
    try:
        st = _state_at(ctx, book, at)
    except RulesError:      # no roles dealt yet: everyone is alive before day 1's end
        return
    if nick not in st.alive:
        raise RulesError(f"{nick!r} is out of the game at {_local(ctx, at)}",
                         hint="only a living player can be replaced or removed",
                         ru=f"игрок {nick!r} на {_local(ctx, at)} уже вне игры (заменить или "
                            "убрать можно только живого)")


def _new_nick(ctx: GameContext, book: Book, new: str) -> str:
    new = new.strip()
    if not new:
        raise ConfigError("the newcomer's nick is empty", ru="не указан ник новичка")
    for ch in new:
        if unicodedata.category(ch) in ("Cc", "Cf") and ch != "\u200d":
            raise ConfigError(f"{new!r} holds the control character U+{ord(ch):04X}",
                              hint="write the nick as the board shows it",
                              ru=f"в нике {new!r} управляющий символ U+{ord(ch):04X} "
                                 "(напишите ник так, как его показывает форум)")
    if book.slot_of(new) is not None:
        raise ConfigError(f"{new!r} already plays (or played) in this game",
                          hint="a newcomer must be another forum user",
                          ru=f"ник {new!r} уже есть в этой игре (новичок — другой "
                             "пользователь форума)")
    if ctx.game.host and ctx.game.host.casefold() == new.casefold():
        raise ConfigError(f"{new!r} is the host", hint="the host cannot take a slot",
                          ru=f"{new!r} — ведущий: ему не занять место игрока")
    # the newcomer's role card and messages get a file of their own (issue 26, item 3)
    check_file_names([p.nick for p in slot_users(ctx, book)] + [new], str(ctx.game.path))
    return new


def _why(why: str) -> str:
    why = " ".join((why or "").split())
    if not why:
        raise ConfigError("a decision needs its reason", hint="give --why TEXT",
                          ru="у решения должна быть причина")
    return why


def _post_day(ctx: GameContext, post_id: int) -> int:
    """The day whose topic holds post ``post_id`` (as stored by the polls)."""
    days = {d.number for d in ctx.game.days} | {int(k) for k in
                                                 ctx.store.get("day_topics", {})}
    for day in sorted(days):
        # (a piece of a merged post, forum/merged.py, is in its post's topic)
        for topic in (ctx.topic_for_day(day), ctx.vote_topic_for_day(day)):   # R2.17
            if topic and real_post_id(post_id) in ctx.store.known_post_ids(
                    canonical_topic_url(topic)):
                return day
    raise RulesError(f"post {post_id} is in no day's topic of this game (as stored)",
                     hint=f"check the post id ({post_id_shape()}), or poll the day first: "
                          f"scraper-mod poll {ctx.game.folder}",
                     ru=f"поста {post_id} нет ни в одной теме дня этой игры (проверьте номер: "
                        f"{post_id_shape('ru')}, или сначала scraper-mod poll "
                        f"{ctx.game.folder})")


# -- the services --------------------------------------------------------------------------

def list_decisions(ctx: GameContext) -> list[Decision]:
    """Every replacement and decision, numbered, in force or undone."""
    return decisions(ctx)


def replace_player(ctx: GameContext, old: str, new: str, *, at: datetime | None = None,
                   contact: str | None = None, why: str = "") -> Changed:
    """R10: ``new`` takes the slot ``old`` plays from ``at`` (default: now)."""
    at = _when(ctx, at)
    rows = decisions(ctx)
    book = book_of(ctx.game.players, rows)
    now_nick = _slot_nick(ctx, book, old, at)
    if now_nick.casefold() != old.strip().casefold():
        raise RulesError(f"{old!r} does not play at {_local(ctx, at)}: the slot is "
                         f"{now_nick!r}'s then", hint=f"replace {now_nick!r}",
                         ru=f"на {_local(ctx, at)} место {old!r} уже у игрока {now_nick!r}: "
                            f"заменять надо его")
    new = _new_nick(ctx, book, new)
    _alive(ctx, book, now_nick, at)
    _check_book(ctx, rows, Decision(0, "replace", ctx.now(), at=at, nick=now_nick, new=new,
                                    contact=contact, why=why))
    k = ctx.store.add_host_decision("replace", made_at=ctx.now(), at=at, nick=now_nick,
                                    new=new, contact=contact or None, why=" ".join(why.split()))
    ctx.store.log_event("replace", {"k": k, "old": now_nick, "new": new,
                                    "at": at.isoformat()}, at=ctx.now())
    card = _role_card(ctx, new, at)
    day = day_of_instant(ctx, at)
    rewritten, published = _apply(ctx, day, k, card_for=new if card else None)
    return Changed(k, "replace", f"{new} takes {now_nick}'s slot from {_local(ctx, at)}",
                   day, rewritten, card, published)


def decide_vote(ctx: GameContext, post_id: int, nick: str | None, *, why: str) -> Changed:
    """R11.1: post ``post_id`` reads as a vote for ``nick``, or (None) as no vote."""
    why = _why(why)
    day = _post_day(ctx, post_id)
    rows = decisions(ctx)
    book = book_of(ctx.game.players, rows)
    target = None
    if nick is not None:
        target = _slot_nick(ctx, book, nick, ctx.calendar().deadline(day))
    k = ctx.store.add_host_decision("vote", made_at=ctx.now(), post_id=post_id, new=target,
                                    why=why)
    ctx.store.log_event("decide_vote", {"k": k, "post_id": post_id, "target": target},
                        at=ctx.now())
    rewritten, published = _apply(ctx, day, k)
    what = f"a vote for {target}" if target else "no vote"
    return Changed(k, "vote", f"post {post_id} (day {day}) reads as {what}", day, rewritten,
                   None, published)


def decide_kill(ctx: GameContext, nick: str, *, at: datetime | None = None,
                why: str) -> Changed:
    """R11.2: the host removes ``nick`` from the game at ``at`` (default: now)."""
    why = _why(why)
    at = _when(ctx, at)
    rows = decisions(ctx)
    book = book_of(ctx.game.players, rows)
    who = _slot_nick(ctx, book, nick, at)
    _alive(ctx, book, who, at)
    k = ctx.store.add_host_decision("kill", made_at=ctx.now(), at=at, nick=who, why=why)
    ctx.store.log_event("decide_kill", {"k": k, "player": who, "at": at.isoformat()},
                        at=ctx.now())
    day = day_of_instant(ctx, at)
    rewritten, published = _apply(ctx, day, k)
    return Changed(k, "kill", f"{who} is removed from the game at {_local(ctx, at)}", day,
                   rewritten, None, published)


def undo_decision(ctx: GameContext, k: int) -> Changed:
    """R11.3: take decision ``k`` back (it stays listed, marked undone)."""
    rows = decisions(ctx)
    found = next((d for d in rows if d.k == k), None)
    if found is None:
        raise RulesError(f"there is no decision {k}",
                         hint=f"see the numbers with: scraper-mod decide {ctx.game.folder} list",
                         ru=f"решения №{k} нет (номера: scraper-mod decide "
                            f"{ctx.game.folder} list)")
    if found.undone_at is not None:
        raise RulesError(f"decision {k} was already taken back "
                         f"({_local(ctx, found.undone_at)})",
                         ru=f"решение №{k} уже отменено ({_local(ctx, found.undone_at)})")
    rest = [d for d in rows if d.k != k]
    try:
        book_of(ctx.game.players, rest)
    except RulesError as e:
        raise RulesError(f"decision {k} cannot be taken back alone: {e.message}",
                         hint="take back the later replacement of that slot first",
                         ru=f"решение №{k} не отменить отдельно: {e.message} (сначала "
                            "отмените более позднюю замену на этом месте)") from None
    if found.kind == "vote":
        day = _post_day(ctx, found.post_id or 0)
    else:
        day = day_of_instant(ctx, found.at or found.made_at)
    ctx.store.undo_host_decision(k, at=ctx.now())
    ctx.store.log_event("decide_undo", {"k": k}, at=ctx.now())
    rewritten, published = _apply(ctx, day, None)
    return Changed(k, "undo", f"decision {k} ({found.kind}) taken back", day, rewritten, None,
                   published)


# -- effects -------------------------------------------------------------------------------

def _check_book(ctx: GameContext, rows: list[Decision], new: Decision) -> None:
    """The book with ``new`` added must hold (a chain names the slot's nick at its time)."""
    book_of(ctx.game.players, [*rows, new])


def _apply(ctx: GameContext, day: int, k: int | None, *, card_for: str | None = None
           ) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Resolve again from ``day`` when it is resolved (cascading to the later days), then,
    on autopilot, publish what changed (an edit of a posted newspaper) and the new card."""
    resolved = ctx.store.resolutions()
    rewritten: tuple[int, ...] = ()
    if resolved and day <= max(resolved):
        first = min(d for d in resolved if d >= day)
        try:
            out = resolve_day_files(ctx, first, force=True, offline=True)
        except ScraperModError:
            if k is not None:       # the decision could not be applied: it is not in force
                ctx.store.undo_host_decision(k, at=ctx.now())
            raise
        rewritten = (first, *out.rewritten)
    published: list[str] = []
    if ctx.game.publish.mode == "auto":
        outcomes = list(auto_publish(ctx))
        if card_for and ctx.game.publish.private_messages:
            items = [i for i in plan_role_cards(ctx) if i.to == card_for]
            outcomes += publish_items(ctx, items)
        published = [f"{o.kind} {o.to} {o.status}" + (f": {o.error}" if o.error else "")
                     for o in outcomes]
    return rewritten, tuple(published)


def _role_card(ctx: GameContext, new: str, at: datetime) -> Path | None:
    """R10.3: the newcomer's role card, in ``out/role-cards/`` like the dealt ones (sent
    the same way: ``publish --role-cards`` or the autopilot); None before roles are dealt."""
    book = load_book(ctx)
    deal = ctx.store.get("deal")
    if any(p.role is None for p in effective_players(ctx.game, deal)):
        return None
    st = _state_at(ctx, book, at)
    duty = st.duty or effective_duty(ctx.game, deal)
    card = role_card(new, st.roles, duty=book.nick_at(duty, at) if duty else None,
                     code=slot_code(ctx, book, new), title=ctx.game.title)
    text = render_text("role-card", ctx.game.language, "txt", **card)
    path = ctx.game.out_dir / "role-cards" / f"{safe_filename(new)}.txt"
    write_atomic(path, text)
    return path
