"""Sign-ups (issue 29, docs/signup.md): the sign-up topic read through the forum reader into
the game's state (every page stored before it is read, every post version kept), counted by
``rules.signup``, written to ``out/signup.bbcode`` and, when asked, into ``game.toml``
(``[[players]]`` and the top-level ``reserve = [...]``, by tomlkit: the host's comments, order and other
keys stay). ``take_from_reserve`` is ``replace --from-reserve``'s half of the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import tomlkit
from tomlkit.items import AoT

from scraper_mod.errors import ConfigError, ScraperModError
from scraper_mod.forum.client import ForumClient
from scraper_mod.forum.poller import PollReport, canonical_topic_url, poll_topic, stored_posts
from scraper_mod.game.context import GameContext
from scraper_mod.game.setup.config import Game, parse_game
from scraper_mod.posts.dayfolder import write_atomic
from scraper_mod.posts.render import render_text
from scraper_mod.rules.signup import Sighting, SignupList, count_signups

SIGNUP_FILE = "signup.bbcode"


@dataclass(frozen=True)
class SignupRead:
    topic: str
    poll: PollReport
    result: SignupList
    ids: dict[str, int]          # nick -> the board's user id, where the board gives it
    bbcode: Path                 # out/signup.bbcode


def sightings(ctx: GameContext, topic: str) -> list[Sighting]:
    """Every stored version of every post of the sign-up topic as a ``Sighting``: a first
    version stood from its writing (or its edit, when first seen edited), a later one from
    its edit time (a silent edit: from when it was first seen); a deleted post ends there."""
    host = {n for n in (ctx.game.host, ctx.game.forum.username) if n}
    out: list[Sighting] = []
    seen: set[int] = set()
    key = canonical_topic_url(topic)
    stored = list(stored_posts(ctx.store, key))
    # when each post was written, as exactly as known: the second the board's feed gives
    # (some boards' pages show minutes), else the end of the shown minute (never on time by up to
    # 59 s after the close, issue 40)
    written: dict[int, datetime] = {}
    for post, _ in stored:
        if post.precision == "second":
            written[post.post_id] = post.posted_at
        elif post.precision == "minute" and post.post_id not in written:
            written[post.post_id] = post.latest
    for post, first_seen in stored:
        edited = _edited_by(post.edited_at, first_seen) if post.edit_count else None
        if post.post_id not in seen:
            posted = written.get(post.post_id, post.posted_at)
            at = max(edited, posted) if edited else posted
        else:
            at = max(edited, post.posted_at) if edited else first_seen
        seen.add(post.post_id)
        user = str(post.author_id) if post.author_id else f"nick:{post.author}"
        out.append(Sighting(post.post_id, user, post.author, at, post.text,
                            host=post.author in host))
    del_at = ctx.store.deleted_posts(key)
    for pid, when in sorted(del_at.items()):
        last = next((s for s in reversed(out) if s.post_id == pid), None)
        if last is not None:
            out.append(Sighting(pid, last.user, last.nick, when, "", host=last.host,
                                deleted=True))
    return out


def _edited_by(edited_at: datetime | None, first_seen: datetime) -> datetime | None:
    """The latest instant an edit can have been made: the board's «Last edited» notice shows
    the minute (its end, then), never after the edit was first seen. None: no notice."""
    if edited_at is None:
        return None
    if edited_at.second == 0 and edited_at.microsecond == 0:
        edited_at += timedelta(seconds=59)
    return min(edited_at, first_seen)


def signup_topic(game: Game, url: str | None) -> str:
    """The sign-up topic: the command's URL, else ``[signup] topic``."""
    url = url or game.signup.topic
    if not url:
        raise ConfigError("no sign-up topic", path=str(game.path), key="signup.topic",
                          hint="give its URL: scraper-mod signup GAME URL, or set "
                               "[signup] topic")
    return canonical_topic_url(url)


def read_signups(ctx: GameContext, url: str | None, *, players: int | None = None,
                 close: datetime | None = None, late_to_reserve: bool | None = None,
                 client: ForumClient | None = None) -> SignupRead:
    """Read the whole sign-up topic (a full scan: edits and deletions too), count it and
    write ``out/signup.bbcode``."""
    g = ctx.game
    topic = signup_topic(g, url)
    n = players or g.signup.players
    if not n:
        raise ConfigError("how many play is not given", path=str(g.path),
                          key="signup.players", hint="--players N, or [signup] players = N")
    board = None
    if client is None:          # the game's own board (a test may give another client)
        client, board = ctx.topic_client(topic), ctx.topic_board(topic)
    report = poll_topic(client, ctx.store, topic, now=ctx.now, full=True, board_tz=g.timezone,
                        board=board)
    found = sightings(ctx, topic)
    result = count_signups(found, n, marks=g.signup.marks, close=close or g.signup.close,
                           late_to_reserve=(g.signup.late_to_reserve if late_to_reserve is None
                                            else late_to_reserve))
    ids = {nick: int(u) for nick, u in result.users.items() if u.isdigit()}
    path = g.out_dir / SIGNUP_FILE
    write_atomic(path, render_signup(g, result))
    return SignupRead(topic, report, result, ids, path)


def render_signup(game: Game, result: SignupList) -> str:
    """The list as a BBCode post («Список игроков», numbered, then «Запас»)."""
    text = render_text("signup", game.language, "bbcode", title=game.title,
                       players=result.players, reserve=result.reserve)
    return "\n".join(ln.rstrip() for ln in text.split("\n")).strip("\n") + "\n"


# -- game.toml ---------------------------------------------------------------------------

def _load_doc(game: Game) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(game.path.read_text(encoding="utf-8-sig"))
    except (OSError, tomlkit.exceptions.ParseError) as e:
        raise ConfigError(f"cannot read: {e}", path=str(game.path)) from None


def _save_doc(game: Game, doc: tomlkit.TOMLDocument) -> None:
    """Check the changed file as ``load_game`` would, then replace it in one rename."""
    text = tomlkit.dumps(doc)
    parse_game(tomlkit.parse(text).unwrap(), path=game.path)
    write_atomic(game.path, text)


def _set_reserve(doc: tomlkit.TOMLDocument, reserve: list[str]) -> None:
    """The top-level ``reserve = [...]`` (tomlkit puts a new one before the first table)."""
    fresh = "reserve" not in doc
    doc["reserve"] = reserve
    if fresh:
        doc["reserve"].comment("written by scraper-mod signup; replace --from-reserve takes "
                               "from it")


def write_players(ctx: GameContext, read: SignupRead, *, force: bool = False,
                  skip: tuple[str, ...] = ()) -> list[str]:
    """Put the players into ``[[players]]`` and the reserve into ``reserve = [...]``;
    returns what changed, one line each. A player already in the file keeps his table (role,
    contact, aliases); one no longer signed up is dropped. Refused after ``deal`` when the
    players change, unless ``force``."""
    g = ctx.game
    res = read.result
    players = [n for n in res.players if n not in skip]
    reserve = [n for n in res.reserve if n not in skip]
    old = [p.nick for p in g.players]
    if old != players and ctx.store.get("deal") is not None and not force:
        raise ScraperModError("the roles are dealt already: the players are not changed",
                              hint="--force changes them anyway (deal again afterwards)")
    doc = _load_doc(g)
    tables = {str(t.get("nick")): t for t in doc.get("players", [])}
    aot = AoT([])
    for nick in players:
        t = tables.get(nick) or tomlkit.table()
        t["nick"] = nick
        if nick in read.ids and "forum_id" not in t:
            t["forum_id"] = read.ids[nick]
        aot.append(t)
    if "players" in doc:
        doc["players"] = aot
    else:
        doc.add("players", aot)
    _set_reserve(doc, reserve)
    _save_doc(g, doc)
    lines = [f"players ({len(players)}): {', '.join(players)}",
             f"reserve ({len(reserve)}): {', '.join(reserve) or '-'}"]
    if skip:
        lines.append(f"left out by --skip: {', '.join(skip)}")
    return lines


def first_in_reserve(ctx: GameContext, playing: set[str]) -> str:
    """The first ``reserve`` player not in ``playing`` (the file's players and
    every newcomer so far)."""
    game = ctx.game
    choice = next((n for n in game.reserve
                   if n not in playing and n not in {p.nick for p in game.players}), None)
    if choice is None:
        raise ConfigError("the reserve is empty (or all of it plays already)",
                          path=str(game.path), key="reserve",
                          hint="name the newcomer: scraper-mod replace GAME OLD NEW")
    return choice


def drop_from_reserve(game: Game, nick: str) -> None:
    """Take ``nick`` off ``reserve`` in game.toml (comments and order kept)."""
    doc = _load_doc(game)
    _set_reserve(doc, [n for n in game.reserve if n != nick])
    _save_doc(game, doc)


def newcomers(ctx: GameContext) -> set[str]:
    """Every nick a replacement in force brought in (they play already)."""
    return {d["new"] for d in ctx.store.host_decisions()
            if d["kind"] == "replace" and d["new"] and d["undone_at"] is None}
