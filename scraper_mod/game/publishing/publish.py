"""Publishing a day on the board (RULES R12): the newspaper, the next day's start, the PMs.

``publish_day(ctx, day)`` reads ``out/day-N/`` (what ``resolve`` wrote) and posts what the
board does not have yet, through the board's engine (``forum/engine.py``'s ``Board``, any
engine). Never twice (R12.2): each publication
has an identity (game, day, kind, recipient) and is recorded in the store as ``intended``
before its request and as ``done`` (with the post or PM id) after it. A publication found
``intended`` (a crash between the two) is first looked for on the board (the account's own
posts in the target topic, a topic of that title in the forum, the PM outbox and sentbox)
before it is posted again. A newspaper whose text changed (the day resolved again after a
correction) is edited on the board, with one line saying what changed.

What fails stays in ``out/day-N/``, is recorded ``failed`` with its one-line error (``status``
shows it, ``out/day-N/publish.txt`` lists it) and is tried again on the next publish.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import cast

from scraper_mod.errors import ConfigError, FetchError, ScraperModError
from scraper_mod.forum.engine import ENGINE_NAMES, READ_ONLY_ENGINES, Board, for_engine
from scraper_mod.forum.posting import plain
from scraper_mod.game.context import GameContext
from scraper_mod.game.night.movesource import FORUM_PM
from scraper_mod.game.publishing.publock import publishing
from scraper_mod.game.results.wording import Formatter
from scraper_mod.game.roster.slotbook import slot_users
from scraper_mod.game.setup.connect import game_board
from scraper_mod.posts.dayfolder import day_start_file, write_atomic
from scraper_mod.posts.limits import part_number
from scraper_mod.rules.deal import safe_filename

log = logging.getLogger(__name__)

AUTO_RETRY_SECONDS = 120.0   # `run` tries a failed publication again after this long

EDITED_IN_PLACE = ("newspaper", "signup")   # a changed text edits the post on the board
PM_KINDS = ("pm", "role-card", "reminder", "alert")    # sent as the board's private messages
#: a PM the board took but whose delivery could not be confirmed: never sent again (R12.2)
UNCONFIRMED = "unconfirmed"


@dataclass(frozen=True)
class Item:
    """One thing to post: its identity (day, kind, key), where it goes and its text."""

    day: int
    kind: str
    key: str            # the recipient in the identity: "results", "day-N", a nick
    to: str             # topic/forum URL or nick, as shown
    text: str
    subject: str = ""
    source: str = ""    # the out/ file it comes from

    @property
    def sha256(self) -> str:
        return hashlib.sha256(f"{self.subject}\n{self.text}".encode()).hexdigest()


@dataclass
class Outcome:
    kind: str
    to: str
    url: str | None
    status: str          # posted | already | failed | skipped
    error: str | None = None
    item: Item | None = None
    fresh: bool = True     # False: a failure not tried again yet (``retry_after``)

    def to_json(self) -> dict:
        return {"kind": self.kind, "to": self.to, "url": self.url, "status": self.status,
                "error": self.error}


def game_id(ctx: GameContext) -> str:
    """The game in a publication's identity: its title and start date."""
    return f"{ctx.game.title}@{ctx.game.start.isoformat()}"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _files_of_players(ctx: GameContext, folder: Path) -> list[tuple[str, Path]]:
    """(nick, file) for each player (newcomers too) whose file is in ``folder``, in file
    order: what is sent to a player is looked up by the player, never by a file's name (a
    file no player owns is left alone, never sent to a "nick" made of its name)."""
    found = []
    for p in slot_users(ctx):
        path = folder / f"{safe_filename(p.nick)}.txt"
        if path.is_file():
            found.append((p.nick, path))
    owned = {path.name for _, path in found}
    for f in folder.glob("*.txt") if folder.is_dir() else ():
        if f.name not in owned:
            log.warning("%s: no player's file; it is not sent", f)
    return sorted(found, key=lambda x: x[1].name)


def results_target(ctx: GameContext) -> str | None:
    """The results topic URL: ``results_topic``, or the one opened in ``results_forum``."""
    pub = ctx.game.publish
    return pub.results_topic or ctx.store.get("results_topic_url")


def day_to_publish(ctx: GameContext, day: int | None = None) -> int:
    """The day ``publish`` posts: ``day``, or the last resolved one (none resolved: an error
    saying to resolve first)."""
    if day is not None:
        return day
    done = ctx.store.resolutions()
    if not done:
        raise ScraperModError("no day is resolved yet, so there is nothing to publish",
                              hint=f"scraper-mod resolve {ctx.game.folder}",
                              ru="ни один день ещё не подведён, публиковать нечего "
                                 f"(`scraper-mod resolve {ctx.game.folder}`)")
    return max(done)


def plan_day(ctx: GameContext, day: int) -> list[Item]:
    """What ``publish`` would post for day ``day`` from ``out/day-N/``, in order."""
    g, pub = ctx.game, ctx.game.publish
    folder = g.out_dir / f"day-{day}"
    if not folder.is_dir():
        raise ScraperModError(f"{folder}: no posts for day {day} yet",
                              hint=f"resolve the day first: scraper-mod resolve {g.folder} "
                                   f"--day {day}",
                              ru=f"{folder}: постов дня {day} ещё нет (сначала подведите "
                                 f"день: `scraper-mod resolve {g.folder} --day {day}`)")
    result = json.loads(_read(folder / "result.json") or "{}")
    items: list[Item] = []
    target = results_target(ctx) or pub.results_forum or "(no [publish] results_topic)"
    for part, path in newspaper_parts(folder):
        items.append(Item(day, "newspaper", "results" if part == 1 else f"results-{part}",
                          target, path.read_text(encoding="utf-8"),
                          subject=f"{g.title}. Итоги" if g.language == "ru" else
                          f"{g.title}. Results", source=str(path)))
    start_file = day_start_file(folder, day)
    start = _read(start_file)
    if start is not None and not result.get("winner"):
        if pub.day_topic == "open":
            items.append(Item(day, "day-topic", f"day-{day + 1}", g.forum.forum or
                              "(no [forum] forum)", start,
                              subject=pub.title_template.format(title=g.title, day=day + 1),
                              source=str(start_file)))
            if pub.vote_title_template:     # R2.17: the house votes in a topic of its own
                items.append(vote_topic_item(ctx, day + 1, after=day))
        else:
            items.append(Item(day, "day-start", f"day-{day + 1}",
                              ctx.topic_for_day(day) or f"(no topic for day {day})", start,
                              source=str(start_file)))
    if pub.private_messages and (folder / "pm").is_dir():
        for nick, f in _files_of_players(ctx, folder / "pm"):
            items.append(Item(day, "pm", nick, nick, f.read_text(encoding="utf-8"),
                              subject=f"{g.title}: день {day}" if g.language == "ru" else
                              f"{g.title}: day {day}", source=str(f)))
    if pub.private_messages and g.moves.source in FORUM_PM:
        items += _move_answers(ctx, day)
    if pub.lock_day_topic and ctx.topic_for_day(day):
        items.append(Item(day, "lock", f"day-{day}", cast(str, ctx.topic_for_day(day)), ""))
    return items


def vote_topic_text(ctx: GameContext, day: int) -> str:
    """R2.17: the first post of day ``day``'s voting topic: where votes go, the window
    (R2.18) and the deadline."""
    g = ctx.game
    fmt = Formatter(g.language, g.timezone)
    deadline = ctx.calendar().deadline(day)
    opens = g.rules.voting_opens
    if g.language == "ru":
        lines = [f"[b]{g.title}. Голосование, день {day}[/b]", "",
                 "Голоса — только в этой теме: ник игрока цветом. Цветные ники в теме дня — "
                 "не голоса."]
        if opens:
            lines.append(f"Голосование открывается в {opens} и идёт до "
                         f"{fmt.time(deadline)} {fmt.zone(deadline)}; голос раньше не считается.")
        else:
            lines.append(f"Голоса принимаются до {fmt.when(deadline)} {fmt.zone(deadline)}.")
        if g.rules.pass_words:
            lines.append(f"Голос «{g.rules.pass_words[0]}» — голос ни за кого.")
    else:
        lines = [f"[b]{g.title}. Voting, day {day}[/b]", "",
                 "Votes go in this topic only: a player's nick in color. Colored nicks in the "
                 "day's topic are not votes."]
        if opens:
            lines.append(f"The vote opens at {opens} and runs until {fmt.time(deadline)} "
                         f"{fmt.zone(deadline)}; a vote before it does not count.")
        else:
            lines.append(f"Votes count until {fmt.when(deadline)} {fmt.zone(deadline)}.")
        if g.rules.pass_words:
            lines.append(f"«{g.rules.pass_words[0]}» is a vote for no one.")
    return "\n".join(lines) + "\n"


def vote_topic_item(ctx: GameContext, day: int, *, after: int) -> Item:
    """R2.17: opening day ``day``'s voting topic in ``[forum] forum`` (an item of day
    ``after``'s publication, right after the day's topic)."""
    g = ctx.game
    return Item(after, "vote-topic", f"vote-{day}", g.forum.forum or "(no [forum] forum)",
                vote_topic_text(ctx, day),
                subject=g.publish.vote_title_template.format(title=g.title, day=day))


def newspaper_parts(folder: Path) -> list[tuple[int, Path]]:
    """The newspaper's posts in ``out/day-N/``: ``newspaper.bbcode`` and, when it was split
    under the board's limit, ``newspaper-2.bbcode`` … in part order (2 before 10), each
    once; a part after a missing one is not posted (the day folder is written whole)."""
    found = {n: p for p in folder.glob("newspaper*.bbcode")
             if (n := part_number(p.name)) is not None and p.is_file()}
    out = []
    for n in range(1, len(found) + 1):
        if n not in found:
            break
        out.append((n, found[n]))
    return out


def _move_answers(ctx: GameContext, day: int) -> list[Item]:
    """The answers to night moves sent as the board's PMs (``outbox/day-N/*.txt``, written by
    the move intake as ``To:``, ``Subject:``, a blank line, the text), to players only."""
    folder = ctx.game.folder / ctx.game.moves.outbox / f"day-{day}"
    nicks = {p.nick for p in ctx.game.players}
    items = []
    for f in sorted(folder.glob("*.txt")) if folder.is_dir() else ():
        head, _, text = f.read_text(encoding="utf-8").partition("\n\n")
        fields = dict(line.split(": ", 1) for line in head.splitlines() if ": " in line)
        to = fields.get("To", "")
        if to in nicks:
            items.append(Item(day, "pm", f"answer/{f.stem}", to, text,
                              subject=fields.get("Subject", ""), source=str(f)))
    return items


def publish_move_answers(ctx: GameContext, day: int) -> list[Outcome]:
    """The answers to night moves sent by board PM, at once (R5.1: each move is answered at
    the next poll, not with the newspaper): on autopilot with ``private_messages``. The same
    publications ``plan_day`` lists, so nothing goes twice (R12.2)."""
    g, pub = ctx.game, ctx.game.publish
    if pub.mode != "auto" or not pub.private_messages or \
            g.moves.source not in ("forum_pm", "phpbb_pm"):
        return []
    items = _move_answers(ctx, day)
    return publish_items(ctx, items, retry_after=AUTO_RETRY_SECONDS) if items else []


def plan_role_cards(ctx: GameContext) -> list[Item]:
    folder = ctx.game.out_dir / "role-cards"
    if not folder.is_dir():
        raise ScraperModError(f"{folder}: no role cards", hint=f"deal first: scraper-mod deal "
                                                              f"{ctx.game.folder}",
                              ru=f"{folder}: карточек ролей нет (сначала раздайте роли: "
                                 f"`scraper-mod deal {ctx.game.folder}`)")
    subject = (f"{ctx.game.title}: ваша роль" if ctx.game.language == "ru"
               else f"{ctx.game.title}: your role")
    return [Item(0, "role-card", nick, nick, f.read_text(encoding="utf-8"), subject=subject,
                 source=str(f))
            for nick, f in _files_of_players(ctx, folder)]


# -- finding a publication on the board after a crash --------------------------------------

def _for_board(board: Board, item: Item) -> Item:
    """The item as the board's engine renders it (issue 39: each engine's own tags)."""
    text = for_engine(item.text, getattr(board, "engine", None))
    return item if text == item.text else replace(item, text=text)


def _find_on_board(ctx: GameContext, board: Board, item: Item) -> tuple[int | None, str | None] | None:
    """(id, url) of a publication already on the board, else None: only what this account
    posted, with the text that was sent (a player's topic of the same title, or another
    message of the same subject to the same player, is never taken for it)."""
    item = _for_board(board, item)
    if item.kind in PM_KINDS:
        mid = board.find_pm(item.to, item.subject, item.text)
        return (mid, board.pm_url(mid)) if mid else None
    if item.kind in ("day-topic", "vote-topic") or (item.kind == "newspaper"
                                                    and not results_target(ctx)):
        forum = ctx.game.forum.forum if item.kind != "newspaper" else \
            ctx.game.publish.results_forum
        fid = board.forum_id_of(cast(str, forum))
        found = board.find_topic(fid, item.subject, item.text) if fid is not None else None
        if found is None:
            return None
        if item.kind == "newspaper":
            ctx.store.put("results_topic_url", board.topic_url(found[0]))
            return found[1], board.post_url(found[1])
        return found[0], board.topic_url(found[0])
    topic = board.topic_id_of(item.to)
    if topic is None:
        return None
    pid = board.find_reply(topic, item.text)
    return (pid, board.post_url(pid)) if pid else None


# -- posting -------------------------------------------------------------------------------

def _changed_line(ctx: GameContext, old: str | None, new: str) -> str:
    added = [ln.strip() for ln in new.splitlines() if ln.strip()
             and ln.strip() not in {x.strip() for x in (old or "").splitlines()}]
    what = plain(added[0])[:150] if added else ""
    if ctx.game.language == "ru":
        return f"\n\n[i]Исправлено ведущим: {what or 'итоги пересчитаны после поправки'}.[/i]"
    return f"\n\n[i]Corrected by the host: {what or 'the results were recounted'}.[/i]"


def _need_topic(board: Board, url: str | None, key: str, what: str, ctx: GameContext) -> int:
    tid = board.topic_id_of(url or "")
    if tid is None:
        raise ConfigError(f"{url or 'nothing'} is not a topic of the board "
                          f"({board.topic_url(123)}) for {what}",
                          path=str(ctx.game.path), key=key,
                          hint="give the topic's address as the board shows it",
                          ru=f"{url or '(пусто)'} — не адрес темы этого форума "
                             f"({board.topic_url(123)}) (укажите адрес темы так, как его "
                             "показывает форум)")
    return tid


def _need_forum(board: Board, url: str | None, key: str, what: str, ctx: GameContext) -> int:
    fid = board.forum_id_of(url or "")
    if fid is None:
        raise ConfigError(f"{url or 'nothing'} is not a forum of the board "
                          f"({board.forum_url(2)}) for {what}",
                          path=str(ctx.game.path), key=key,
                          hint="give the forum's address as the board shows it",
                          ru=f"{url or '(пусто)'} — не адрес раздела этого форума "
                             f"({board.forum_url(2)}) (укажите адрес раздела так, как его "
                             "показывает форум)")
    return fid


def _post(ctx: GameContext, board: Board, item: Item) -> tuple[int | None, str | None]:
    item = _for_board(board, item)
    pub = ctx.game.publish
    if item.kind == "newspaper":
        target = results_target(ctx)
        if target:
            return _as_pair(board.reply(_need_topic(board, target, "publish.results_topic",
                                                    "the newspaper", ctx), item.text))
        fid = _need_forum(board, pub.results_forum, "publish.results_forum", "the newspaper",
                          ctx)
        tid, posted = board.new_topic(fid, item.subject, item.text)
        if tid:
            ctx.store.put("results_topic_url", board.topic_url(tid))
        return posted.id, posted.url
    if item.kind in ("day-topic", "vote-topic"):
        fid = _need_forum(board, ctx.game.forum.forum, "forum.forum", "the next day's topic",
                          ctx)
        tid, posted = board.new_topic(fid, item.subject, item.text)
        return tid, board.topic_url(tid) if tid else posted.url
    if item.kind in ("day-start", "majority"):    # majority: R2.15's notice (game/day/majority.py)
        return _as_pair(board.reply(_need_topic(board, item.to, f"days[{item.day}].topic",
                                                "the day start" if item.kind == "day-start"
                                                else "the majority notice", ctx), item.text))
    if item.kind == "tally":        # a count during the day (game/day/daytime.py)
        return _as_pair(board.reply(_need_topic(board, item.to, f"days[{item.day}].topic",
                                                "the vote count", ctx), item.text))
    if item.kind in PM_KINDS:
        member = _member_id(ctx, board, item.to)
        if member is not None:      # R12.5: to the player's member id, not a display name
            return _as_pair(board.send_pm(item.to, item.subject, item.text,
                                          member_id=member))
        return _as_pair(board.send_pm(item.to, item.subject, item.text))
    if item.kind == "signup":   # the sign-up list (issue 29), in the sign-up topic
        return _as_pair(board.reply(_need_topic(board, item.to, "signup.topic",
                                                "the sign-up list", ctx), item.text))
    if item.kind == "lock":
        board.lock(_need_topic(board, item.to, f"days[{item.day}].topic", "locking", ctx))
        return None, item.to
    raise ValueError(item.kind)


def _member_id(ctx: GameContext, board: Board, nick: str) -> int | None:
    """The forum member id a PM to ``nick`` goes to (the player's ``forum_id`` from the game
    file, else None): a board whose display names change sends by it, the others by the nick."""
    return next((p.forum_id for p in ctx.game.players
                 if p.nick == nick and p.forum_id is not None), None)


def _as_pair(posted) -> tuple[int | None, str | None]:
    return posted.id, posted.url


def _after_done(ctx: GameContext, item: Item, pid: int | None, url: str | None) -> None:
    if item.kind == "day-topic" and url:
        ctx.set_topic_for_day(item.day + 1, url)
        ctx.store.log_event("day_opened", {"day": item.day + 1, "topic": url,
                                           "title": item.subject, "by": "publish"},
                            at=ctx.now())
    if item.kind == "vote-topic" and url:     # R2.17
        ctx.set_vote_topic_for_day(item.day + 1, url)
        ctx.store.log_event("vote_topic_opened", {"day": item.day + 1, "topic": url,
                                                  "title": item.subject, "by": "publish"},
                            at=ctx.now())


def publish_items(ctx: GameContext, items: list[Item], *, board: Board | None = None,
                  retry_after: float = 0.0) -> list[Outcome]:
    """Post each item the board does not have yet (see the module docstring); an item that
    failed less than ``retry_after`` seconds ago is left for later (``run``'s polls). One
    publisher at a time per game (``publock``): another one is refused in one line."""
    with publishing(ctx.game.folder):
        return _publish_items(ctx, items, board=board, retry_after=retry_after)


def _publish_items(ctx: GameContext, items: list[Item], *, board: Board | None,
                   retry_after: float) -> list[Outcome]:
    gid = game_id(ctx)
    out: list[Outcome] = []
    for item in items:
        rec = ctx.store.publication(gid, item.day, item.kind, item.key)
        to = item.to
        waits = _previous_part(item)
        if waits and (ctx.store.publication(gid, item.day, item.kind, waits) or {}).get(
                "status") != "done":
            # the parts of a split newspaper go in order, each after the one before is on
            # the board (never a second results topic, never part 3 above part 2)
            out.append(Outcome(item.kind, to, None, "skipped",
                               f"waits for the newspaper's part before it ({waits})", item))
            continue
        if rec and rec["status"] == "done":
            if item.kind in EDITED_IN_PLACE and rec["sha256"] != item.sha256 and rec["post_id"]:
                try:
                    w = board = board or game_board(ctx)
                    old = ctx.store.get(_published_key(item))
                    w.edit(rec["post_id"], item.text + (_changed_line(ctx, old, item.text)
                                                        if item.kind == "newspaper" else ""))
                except ScraperModError as e:
                    out.append(Outcome(item.kind, to, rec["url"], "failed", str(e), item))
                    continue
                _record(ctx, item, "done", rec["post_id"], rec["url"])
                out.append(Outcome(item.kind, to, rec["url"], "posted", None, item))
            else:
                out.append(Outcome(item.kind, to, rec["url"], "already", None, item))
            continue
        if (rec and rec["error"] and retry_after
                and (ctx.now() - datetime.fromisoformat(rec["updated_at"])).total_seconds()
                < retry_after):
            out.append(Outcome(item.kind, to, None, "failed", rec["error"], item, fresh=False))
            continue
        try:
            w = board = board or game_board(ctx)
            found = _find_on_board(ctx, w, item) if rec and rec["status"] in (
                "intended", UNCONFIRMED) else None
            if found is not None:
                _record(ctx, item, "done", *found)
                _after_done(ctx, item, *found)
                out.append(Outcome(item.kind, to, found[1], "already", None, item))
                continue
            if rec and rec["status"] == UNCONFIRMED:
                # R12.2: a PM the board may have delivered is never sent blind again
                out.append(Outcome(item.kind, to, None, "failed", rec["error"], item,
                                   fresh=False))
                continue
            _record(ctx, item, "intended", None, None)
            pid, url = _post(ctx, w, item)
        except ScraperModError as e:
            msg = str(e)
            # the board down or a 5xx after the request: it may have the post, so it stays
            # "intended" (looked for on the board next time); a refusal is "failed"
            now = ctx.store.publication(gid, item.day, item.kind, item.key)
            ambiguous = (isinstance(e, FetchError) or getattr(e, "kind", "") == "unconfirmed") \
                and now is not None and now["status"] == "intended"
            status = "intended" if ambiguous else "failed"
            if item.kind in PM_KINDS and getattr(e, "kind", "") == "unconfirmed":
                # R12.2: the board took the form but its sent folder does not show the PM:
                # looked for again, never sent blind again; the host is told
                status = UNCONFIRMED
                msg = (f"{msg} (не отправляется повторно: проверьте отправленные личные "
                       f"сообщения)" if ctx.game.language == "ru" else
                       f"{msg} (not sent again: check the account's sent PMs)")
            ctx.store.set_publication(gid, item.day, item.kind, item.key,
                                      status=status, sha256=item.sha256, at=ctx.now(),
                                      error=msg)
            log.warning("%s to %s failed: %s", item.kind, to, msg)
            out.append(Outcome(item.kind, to, None, "failed", msg, item))
            continue
        _record(ctx, item, "done", pid, url)
        _after_done(ctx, item, pid, url)
        log.info("posted %s to %s: %s", item.kind, to, url)
        out.append(Outcome(item.kind, to, url, "posted", None, item))
    return out


def _record(ctx: GameContext, item: Item, status: str, pid: int | None, url: str | None) -> None:
    ctx.store.set_publication(game_id(ctx), item.day, item.kind, item.key, status=status,
                              sha256=item.sha256, at=ctx.now(), post_id=pid, url=url)
    if status == "done" and item.kind == "newspaper":
        ctx.store.put(_published_key(item), item.text)


def _previous_part(item: Item) -> str | None:
    """The key of the newspaper part that must be on the board before ``item``, if any."""
    if item.kind != "newspaper" or not item.key.startswith("results-"):
        return None
    part = int(item.key.rsplit("-", 1)[1])
    return "results" if part == 2 else f"results-{part - 1}"


def _published_key(item: Item) -> str:
    """Where the text of a posted newspaper (part) is kept, for the line an edit adds."""
    key = f"published_text/{item.day}/{item.kind}"
    return key if item.key == "results" else f"{key}/{item.key}"


def check_mode(ctx: GameContext) -> None:
    if ctx.game.forum.engine in READ_ONLY_ENGINES:
        ru = (f"scraper-mod не пишет на форум {ENGINE_NAMES.get(ctx.game.forum.engine, '')} (он его только читает): "
              "опубликуйте тексты из out/day-N/ вручную")
        raise ConfigError(ru if ctx.game.language == "ru" else
                          f"scraper-mod does not post on a {ENGINE_NAMES.get(ctx.game.forum.engine, '')} board (it only reads it)", path=str(ctx.game.path),
                          key="forum.engine", ru=ru,
                          hint="" if ctx.game.language == "ru" else
                          "post the texts of out/day-N/ on the board by hand")
    if ctx.game.publish.mode == "off":
        raise ConfigError('posting on the board is off', path=str(ctx.game.path),
                          key="publish.mode", hint='set mode = "review" (post on `scraper-mod '
                                                   'publish`) or "auto" in [publish]',
                          ru='публикация на форуме выключена (укажите mode = "review" — '
                             'публиковать по `scraper-mod publish` — или "auto" в [publish])')


def publish_day(ctx: GameContext, day: int, *, board: Board | None = None,
                retry_after: float = 0.0) -> list[Outcome]:
    """Publish day ``day`` and write ``out/day-N/publish.txt`` with the outcomes."""
    outcomes = publish_items(ctx, plan_day(ctx, day), board=board, retry_after=retry_after)
    write_report(ctx, day, outcomes)
    return outcomes


def write_report(ctx: GameContext, day: int, outcomes: list[Outcome]) -> None:
    lines = [f"{o.status:8} {o.kind:10} {o.to}" + (f"  {o.url}" if o.url else "")
             + (f"\n         error: {o.error}" if o.error else "") for o in outcomes]
    folder = ctx.game.out_dir / f"day-{day}"
    if folder.is_dir():
        write_atomic(folder / "publish.txt", "\n".join(lines) + "\n")


def pending_days(ctx: GameContext) -> list[int]:
    """Resolved days with something not yet on the board (or never tried)."""
    gid = game_id(ctx)
    days = []
    for day in sorted(ctx.store.resolutions()):
        recs = {(r["kind"], r["recipient"]): r for r in ctx.store.publications(gid, day)}
        try:
            items = plan_day(ctx, day)
        except ScraperModError:
            continue
        if any(recs.get((i.kind, i.key), {}).get("status") != "done"
               or (i.kind == "newspaper" and recs[(i.kind, i.key)]["sha256"] != i.sha256)
               for i in items):
            days.append(day)
    return days


def failures(ctx: GameContext) -> list[dict]:
    """Publications that failed last time (for ``status`` and the host)."""
    return [r for r in ctx.store.publications(game_id(ctx))
            if r["status"] in ("failed", UNCONFIRMED)
            or (r["status"] == "intended" and r["error"])]


def auto_publish(ctx: GameContext) -> list[Outcome]:
    """``run`` in mode auto: publish every resolved day the board does not fully have yet
    (right after a resolution, and again on each poll while something failed). Never raises
    for the board: a failure is an outcome, the game goes on (R12.3)."""
    if ctx.game.publish.mode != "auto":
        return []
    outcomes: list[Outcome] = []
    for day in pending_days(ctx):
        try:
            outcomes += publish_day(ctx, day, retry_after=AUTO_RETRY_SECONDS)
        except ScraperModError as e:
            log.warning("day %d: publishing failed: %s", day, e)
            outcomes.append(Outcome("newspaper", f"day {day}", None, "failed", str(e)))
    for o in outcomes:
        if not o.fresh:     # still waiting for its retry: said before
            continue
        if o.status == "failed":
            log.error("could not post %s to %s: %s (it stays in out/ and is tried again)",
                      o.kind, o.to, o.error)
    return outcomes
