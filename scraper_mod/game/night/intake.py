"""Night-move intake: fetch, store, judge, answer (issue 5; docs/rules.md R5).

``poll_moves(ctx)`` reads the configured source (every new message stored raw first), judges
each new message as things stood when it arrived, and writes its answer to the game's outbox
(``<game>/outbox/day-N/<message id>.txt``; sent by SMTP when ``[moves] smtp_host`` is set,
to players' addresses only: a stranger's message is answered in the outbox, never mailed, so
spam in the host's mailbox gets no replies).

``day_moves(ctx, day, as_of=...)`` re-judges a whole day from the stored raw messages, so any
day can be recomputed later; ``day_orders`` gives the ``NightOrders`` resolution acts on. The
day of a message is the game day its receive time falls in (``Calendar.day_at``): a message in
the hour after a deadline belongs to that day and is late; one sent up to a day before day 1
starts counts for day 1, and older mail is not part of the game (stored, never answered).
A second delivery of the same Message-ID is recognised and ignored (no answer, not judged).
"""

from __future__ import annotations

import logging
import smtplib
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

from scraper_mod.errors import ForumError, MailboxError, ScraperModError, size_text
from scraper_mod.forum.engine import parse_stored_pm, pm_engine_of
from scraper_mod.game.context import GameContext
from scraper_mod.game.night.movesource import source_for
from scraper_mod.game.night.smtp import send_answer
from scraper_mod.game.roster.slotbook import load_book, resolve_view, slot_users
from scraper_mod.moves.capped import MAX_MESSAGE_SIZE, MAX_MOVES_PER_MESSAGE, TOO_LARGE_EVENT
from scraper_mod.moves.grammar import Matcher, Words, parse_moves, text_has_code
from scraper_mod.moves.mail import decode_message, read_sender
from scraper_mod.moves.sources import PM_READ_EVENT, FetchReport, MoveSource
from scraper_mod.moves.targets import matcher_for
from scraper_mod.posts.bbcode import inert
from scraper_mod.posts.dayfolder import write_atomic
from scraper_mod.posts.render import render_text
from scraper_mod.rules.calendar import Calendar
from scraper_mod.rules.deal import effective_players
from scraper_mod.rules.model import Move, MoveKind, Player, Role
from scraper_mod.rules.moves import REASONS, MoveRequest, identify, judge_moves, orders_from_moves
from scraper_mod.rules.night import NightOrders
from scraper_mod.rules.roles import is_r14, kinds_dealt, move_words
from scraper_mod.rules.state import GameState, stored_state_json, with_named_duty
from scraper_mod.store import StoredMessage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Letter:
    """A stored message, read: who sent it, by which way, and what it says."""

    message_id: int            # the store's id
    received_at: datetime
    sender: str | None
    via: str                   # "mail" | "pm"
    header_id: str | None      # Message-ID, for duplicate deliveries
    subject: str
    text: str                  # subject + own text
    problem: str = ""          # "unreadable: ..." when it could not be decoded
    defects: tuple[str, ...] = ()  # MIME damage (a message with no readable move is unreadable)
    limit: str = ""            # the limit that stopped it: "size" (too large), "nesting"
    sender_id: int | None = None   # a PM author's forum member id, where the board shows it


@dataclass(frozen=True)
class Answer:
    """The answer to one message."""

    message_id: int
    day: int
    to: str | None
    player: str | None
    subject: str
    text: str
    path: Path
    sent: bool = False
    error: str = ""
    known_sender: bool = True  # False: the address is no player's; never mailed (no backscatter)


@dataclass(frozen=True)
class IntakeReport:
    """What one ``poll_moves`` did."""

    fetch: FetchReport
    answers: tuple[Answer, ...] = ()
    duplicates: tuple[int, ...] = ()
    errors: tuple[str, ...] = ()


# -- reading stored messages --------------------------------------------------------------------

def read_letter(msg: StoredMessage, *, too_large: dict | None = None,
                max_size: int = MAX_MESSAGE_SIZE, pm: dict | None = None,
                board_tz: tzinfo | None = None) -> Letter:
    """Decode one stored message (mail, a queue file, or a forum PM's page).

    ``too_large``: the ``message_too_large`` event of a message stored in part (over the
    size limit at its source); ``max_size``: the limit for a PM's text. A message that cannot
    be read keeps the From address of its header block (``read_sender``), so the sender is
    answered. A PM: ``pm`` is what the board's adapter read when it fetched it (its
    ``PM_READ_EVENT``: the page is not parsed again); a PM stored without it is read from its
    page in ``board_tz``, the board's zone (the game's)."""
    if pm_engine_of(msg.source) is not None:
        if pm is not None and "text" in pm:
            return _pm_letter(msg, pm.get("author"), pm.get("subject") or "", pm["text"],
                              max_size, pm.get("author_id"))
        return _read_pm(msg, max_size, board_tz)
    if too_large is not None:
        return Letter(msg.id, msg.received_at, read_sender(msg.raw), "mail", None, "", "",
                      problem=f"unreadable: {too_large.get('size')} bytes, over the message "
                              f"size limit of {too_large.get('limit')}", limit="size")
    try:
        mail = decode_message(msg.raw, label=f"{msg.source} {msg.key}")
    except MailboxError as e:
        return Letter(msg.id, msg.received_at, read_sender(msg.raw), "mail", None, "", "",
                      problem=f"unreadable: {e.message}",
                      limit="nesting" if "nested" in e.message else "")
    return Letter(msg.id, msg.received_at, mail.sender, "mail", mail.message_id,
                  mail.subject, mail.full_text, defects=mail.defects)


def _read_pm(msg: StoredMessage, max_size: int = MAX_MESSAGE_SIZE,
             board_tz: tzinfo | None = None) -> Letter:
    try:
        pm = parse_stored_pm(msg.source, msg.raw, key=msg.key, received_at=msg.received_at,
                             **({"board_tz": board_tz} if board_tz is not None else {}))
    except ForumError as e:
        return Letter(msg.id, msg.received_at, None, "pm", None, "", "",
                      problem=f"unreadable: {e.message}")
    return _pm_letter(msg, pm.author, pm.subject or "", pm.text, max_size, pm.author_id)


def _pm_letter(msg: StoredMessage, author: str | None, subject: str, body: str,
               max_size: int, sender_id: int | None = None) -> Letter:
    text = f"{subject}\n{body}" if subject else body
    if len(text.encode("utf-8")) > max_size:
        return Letter(msg.id, msg.received_at, author, "pm", None, subject, "",
                      problem=f"unreadable: the PM's text is over the message size limit of "
                              f"{max_size}", limit="size", sender_id=sender_id)
    return Letter(msg.id, msg.received_at, author, "pm", None, subject, text,
                  sender_id=sender_id)


def requests_from_letter(letter: Letter, players: tuple[Player, ...], match: Matcher, *,
                         max_moves: int = MAX_MOVES_PER_MESSAGE,
                         words: Words | None = None) -> list[MoveRequest]:
    """The move requests of one message (one with ``kind=None`` when it holds no move), its
    first ``max_moves`` moves at most."""
    return _letter_requests(letter, players, match, max_moves, words)[0]


def game_words(ctx: GameContext) -> Words | None:
    """R14: the move words of the game: the defaults of the dealt roles' moves plus the
    house's ``[roles.words]``; None (the seed's four moves) when only the seed's roles play."""
    g = ctx.game
    dealt = {r for r in (g.roles.counts or {})}
    dealt |= {p.role for p in effective_players(g, ctx.store.get("deal")) if p.role}
    if not is_r14(dealt) and not g.roles.words:
        return None
    return move_words(g.roles.words, kinds_dealt(dealt))


def _letter_requests(letter: Letter, players: tuple[Player, ...], match: Matcher,
                     max_moves: int, words: Words | None = None
                     ) -> tuple[list[MoveRequest], bool]:
    """``requests_from_letter``, and whether moves after the first ``max_moves`` were left
    unread."""
    if letter.problem:
        return [MoveRequest(letter.message_id, letter.received_at, letter.sender,
                            problem="unreadable", via=letter.via,
                            sender_id=letter.sender_id)], False
    parsed = parse_moves(letter.text, match, limit=max_moves, words=words)
    if letter.defects and not parsed.moves:
        return [MoveRequest(letter.message_id, letter.received_at, letter.sender,
                            problem="unreadable", via=letter.via,
                            sender_id=letter.sender_id)], False
    sender = identify(letter.sender, players, via=letter.via, sender_id=letter.sender_id)
    has_code = frozenset(p.nick for p in players if p.code and text_has_code(letter.text, p.code))
    common: dict[str, Any] = dict(story=parsed.story, codes=parsed.codes, has_code=has_code,
                                  via=letter.via, sender_id=letter.sender_id)
    if not parsed.moves:
        return [MoveRequest(letter.message_id, letter.received_at, letter.sender, **common)], False
    out = []
    for i, m in enumerate(parsed.moves):
        target = m.target
        if m.self_ref:
            target = sender.nick if sender else None
        out.append(MoveRequest(letter.message_id, letter.received_at, letter.sender,
                               kind=m.kind, target=target, written=m.written,
                               problem=m.problem, index=i, target2=m.target2, **common))
    return out, parsed.truncated


#: how long before day 1 starts a message still counts for day 1 (role cards sent early)
EARLY_MARGIN = timedelta(days=1)


def message_day(calendar: Calendar, received_at: datetime) -> int:
    """The game day a message belongs to (the day whose deadline it is due at); day 1 for a
    message up to a day before day 1 starts; 0 for older mail, which is not part of the game
    (a host's everyday mailbox holds years of it): stored, but never judged or answered."""
    day = calendar.day_at(received_at)
    if day >= 1:
        return day
    return 1 if received_at >= calendar.day_start(1) - EARLY_MARGIN else 0


def _read_once(ctx: GameContext, head: tuple, too_large: dict | None,
               max_size: int, pm: dict | None = None) -> Letter | None:
    """The letter of the stored message ``head`` (``Store.message_heads``), read once per game
    (``GameContext.letters``): a stored message never changes, so one read with the same
    head and limits reads the same. None when it is no longer in the store."""
    how = (head, too_large, max_size, pm is not None)
    hit = ctx.letters.get(head[0])
    if hit is not None and hit[0] == how:
        return hit[1]
    msg = ctx.store.message(head[0])
    if msg is None:
        return None
    letter = read_letter(msg, too_large=too_large, max_size=max_size, pm=pm,
                         board_tz=ctx.game.timezone)
    ctx.letters[head[0]] = (how, letter)
    return letter


def _letters(ctx: GameContext, *, as_of: datetime | None = None) -> tuple[list[Letter], list[int]]:
    """Every stored message (up to ``as_of``), read, without second deliveries."""
    seen: set[str] = set()
    letters: list[Letter] = []
    dups: list[int] = []
    store = ctx.store
    # messages stored in part, over the size limit at their source (sources.add_capped)
    too_large = {d.get("message"): d for _, _, d in store.events(TOO_LARGE_EVENT)}
    max_size = ctx.game.moves.max_message_size
    account = (ctx.game.forum.username or "").strip().casefold()
    # the PMs as the board's adapter read them when they were fetched (read once)
    pms = {d.get("message"): d for _, _, d in store.events(PM_READ_EVENT)}
    for head in store.message_heads():
        if as_of is not None and head[3] > as_of:
            continue
        letter = _read_once(ctx, head, too_large.get(head[0]), max_size, pms.get(head[0]))
        if letter is None:
            continue
        if letter.via == "pm" and account and (letter.sender or "").strip().casefold() == \
                account:
            # the account's own PM (the host's alert sent to the same inbox): never a move
            dups.append(head[0])
            continue
        if letter.header_id:
            # the same sender's Message-ID: a second delivery (a stranger cannot suppress a
            # player's move by reusing its Message-ID)
            key = f"{(letter.sender or '').casefold()}|{letter.header_id.casefold()}"
            if key in seen:
                dups.append(head[0])
                continue
            seen.add(key)
        letters.append(letter)
    return letters, dups


# -- judging a day ------------------------------------------------------------------------------

def state_before_day(ctx: GameContext, day: int) -> GameState:
    """The game state at the start of ``day``'s night: the state kept with the last earlier
    resolution (``state`` / ``state_after`` / ``after`` in its stored data) when there is one;
    else the game file's (with the roles, duty and list ``scraper-mod deal`` drew for what
    it leaves out), with the alive list of a bare stored resolution JSON if any."""
    g = ctx.game
    earlier = {d: v for d, v in ctx.store.resolutions().items() if d < day}
    base = ctx.initial_state()
    if not earlier:
        return base
    data = earlier[max(earlier)]
    v = stored_state_json(data)
    if v is not None:
        return with_named_duty(GameState.from_json(v), g.duty)
    result = data.get("result", data) if isinstance(data, dict) else {}
    if isinstance(result.get("alive"), list):
        alive = frozenset(result["alive"])
        commissar = base.commissar
        if commissar not in alive:
            commissar = result.get("promoted") or (base.sergeant if base.sergeant in alive
                                                  else None)
        return base.evolve(alive=alive, commissar=commissar)
    return base


def day_requests(ctx: GameContext, day: int, *, as_of: datetime | None = None) -> list[MoveRequest]:
    """Every move request received for ``day`` (up to ``as_of``)."""
    cal = ctx.calendar()
    book = load_book(ctx)   # R10: newcomers send and are named from their instant on
    letters, _ = _letters(ctx, as_of=as_of)
    window = _day_window(cal, day)
    words = game_words(ctx)
    out: list[MoveRequest] = []
    for letter in letters:
        if window is not None and not window[0] <= _utc(letter.received_at) < window[1]:
            continue  # not this day's (message_day would say so, more slowly)
        if message_day(cal, letter.received_at) == day:
            players = slot_users(ctx, book, at=letter.received_at)
            out.extend(requests_from_letter(letter, players, _matcher(ctx, players),
                                            max_moves=ctx.game.moves.max_moves_per_message,
                                            words=words))
    return out


def _utc(t: datetime) -> datetime:
    return t.astimezone(timezone.utc)


def _day_window(cal, day: int) -> tuple[datetime, datetime] | None:
    """UTC bounds holding every instant ``message_day`` gives ``day``: from the day's start
    (less ``EARLY_MARGIN`` on day 1) up to the next day's start; None when unknown."""
    if day < 1:
        return None
    try:
        return (_utc(cal.day_start(day)) - (EARLY_MARGIN if day == 1 else timedelta(0)),
                _utc(cal.day_start(day + 1)))
    except ScraperModError:
        return None


def _matcher(ctx: GameContext, players: tuple[Player, ...]) -> Matcher:
    """``matcher_for(players)``, built once per player list while the game is open."""
    try:
        return ctx.remember(("matcher", tuple(players)), lambda: matcher_for(players))
    except TypeError:  # unhashable players: build it
        return matcher_for(players)


def day_moves(ctx: GameContext, day: int, *, as_of: datetime | None = None,
              state: GameState | None = None) -> list[Move]:
    """The day's night moves, judged (R5), from the stored raw messages. ``state``: the
    state the night starts from, as ``slotbook.resolve_view`` gives it (R10, R11)."""
    deadline = ctx.calendar().deadline(day)
    if state is None:
        state = resolve_view(ctx, state_before_day(ctx, day), day=day, cutoff=deadline)[0]
    g = ctx.game
    book = load_book(ctx)
    return judge_moves(day_requests(ctx, day, as_of=as_of), state=state,
                       deadline=deadline, options=g.rules, players=slot_users(ctx, book),
                       require_code=g.moves.require_code, book=None if book.empty else book)


def day_orders(ctx: GameContext, day: int, *, as_of: datetime | None = None,
               state: GameState | None = None) -> NightOrders:
    """The night's orders for resolution (R5.2 mafia choice, R5.3-R5.6)."""
    if state is None:   # as day_moves judges on it (R10, R11)
        state = resolve_view(ctx, state_before_day(ctx, day), day=day,
                             cutoff=ctx.calendar().deadline(day))[0]
    return orders_from_moves(day_moves(ctx, day, as_of=as_of, state=state), state, ctx.game.rules)


# -- polling and answering ----------------------------------------------------------------------

def poll_moves(ctx: GameContext, *, source: MoveSource | None = None,
               send: bool = True) -> IntakeReport:
    """Fetch new messages into the store, judge each, write (and send) its answer."""
    source = source or source_for(ctx.game, board_factory=lambda: ctx.board)
    now = ctx.now()
    try:
        fetch = source.fetch_new(ctx.store, now=now)
    except MailboxError:
        # what was stored before the source failed (a dropped IMAP link) is answered now;
        # the error still reaches the caller
        try:
            answer_pending(ctx, send=send)
        except ScraperModError as e:
            log.warning("answering after a failed read: %s", e)
        raise
    for err in fetch.errors:
        ctx.store.log_event("move_source_error", {"source": source.name, "error": err}, at=now)
    answers, dups, errors = answer_pending(ctx, send=send)
    return IntakeReport(fetch=fetch, answers=tuple(answers), duplicates=tuple(dups),
                        errors=tuple(errors))


def outbox_dir(ctx: GameContext) -> Path:
    return ctx.game.folder / ctx.game.moves.outbox


def answer_pending(ctx: GameContext, *, send: bool = True
                   ) -> tuple[list[Answer], list[int], list[str]]:
    """Write an answer for every stored message that has none yet; send unsent ones.

    Messages that need nothing more (answered and mailed or never to be mailed, second
    deliveries, mail from before the game) are remembered as settled, so an idle poll reads
    nothing."""
    store = ctx.store
    settled = set(store.get("settled_messages", []))
    if all(mid in settled for mid in store.message_ids()):
        return [], [], []
    letters, dups = _letters(ctx)
    settled.update(dups)
    cal = ctx.calendar()
    judge = _DayJudge(ctx, letters)
    answered = set(store.get("answered_messages", []))
    sent = set(store.get("sent_answers", []))
    out: list[Answer] = []
    errors: list[str] = []
    g = ctx.game
    for letter in letters:
        mid = letter.message_id
        if mid in settled:
            continue
        day = message_day(cal, letter.received_at)
        if day == 0:
            settled.add(mid)
            continue
        try:
            requests, cut = judge.read(letter)
            answer = build_answer(ctx, letter, day,
                                  moves=judge.moves(day, as_of=letter.received_at),
                                  requests=requests, moves_cut=cut)
        except ScraperModError as e:
            errors.append(f"message {mid}: {e}")
            continue
        if mid not in answered:
            write_atomic(answer.path, _answer_file(answer))
            answered.add(mid)
            store.put("answered_messages", sorted(answered))
        mailable = bool(g.moves.smtp_host and answer.to and answer.known_sender
                        and letter.via != "pm")
        if send and mailable and mid not in sent:
            try:
                send_answer(g.moves, answer)
                sent.add(mid)
                store.put("sent_answers", sorted(sent))
                answer = _replace(answer, sent=True)
            except (OSError, smtplib.SMTPException, MailboxError) as e:
                errors.append(f"answer to message {mid} not sent: {e}")
                answer = _replace(answer, error=str(e))
        if not mailable or mid in sent:
            settled.add(mid)
        out.append(answer)
    store.put("settled_messages", sorted(settled))
    return out, dups, errors


def _replace(a: Answer, **kw) -> Answer:
    return replace(a, **kw)


class _DayJudge:
    """Judges days as of given instants, reading and parsing each message once."""

    def __init__(self, ctx: GameContext, letters: list[Letter]) -> None:
        self.ctx = ctx
        self.cal = ctx.calendar()
        self.book = load_book(ctx)              # R10, R11
        self.players = slot_users(ctx, self.book)
        self.letters = letters
        self._requests: dict[int, tuple[list[MoveRequest], bool]] = {}
        self._states: dict[int, GameState] = {}
        self.words = game_words(ctx)
        self._days = {letter.message_id: message_day(self.cal, letter.received_at)
                      for letter in letters}

    def requests(self, letter: Letter) -> list[MoveRequest]:
        return self.read(letter)[0]

    def read(self, letter: Letter) -> tuple[list[MoveRequest], bool]:
        """The message's requests, and whether moves past the limit were left unread."""
        if letter.message_id not in self._requests:
            players = slot_users(self.ctx, self.book, at=letter.received_at)     # R10, R2.3
            self._requests[letter.message_id] = _letter_requests(
                letter, players, _matcher(self.ctx, players),
                self.ctx.game.moves.max_moves_per_message, self.words)
        return self._requests[letter.message_id]

    def moves(self, day: int, *, as_of: datetime) -> list[Move]:
        reqs: list[MoveRequest] = []
        for letter in self.letters:
            if letter.received_at <= as_of and self._days[letter.message_id] == day:
                reqs.extend(self.requests(letter))
        if day not in self._states:
            self._states[day] = resolve_view(self.ctx, state_before_day(self.ctx, day), day=day,
                                             cutoff=self.cal.deadline(day))[0]
        g = self.ctx.game
        return judge_moves(reqs, state=self._states[day], deadline=self.cal.deadline(day),
                           options=g.rules, players=self.players,
                           require_code=g.moves.require_code,
                           book=None if self.book.empty else self.book)


def build_answer(ctx: GameContext, letter: Letter, day: int, *, moves: list[Move] | None = None,
                 requests: list[MoveRequest] | None = None,
                 moves_cut: bool | None = None) -> Answer:
    """The answer to one message, judged as things stood when it arrived (``moves``: the
    day's moves judged as of its arrival, and ``requests``: the message's own, when the
    caller has them; ``moves_cut``: whether moves past ``max_moves_per_message`` were left
    unread)."""
    g = ctx.game
    cal = ctx.calendar()
    if moves is None:
        moves = day_moves(ctx, day, as_of=letter.received_at)
    mine = [m for m in moves if m.message_id == letter.message_id]
    # the judge keeps each message's moves in the order written: pair them with what was
    # written, to quote a target that matched no one
    if requests is None or moves_cut is None:
        requests, moves_cut = _letter_requests(letter, g.players, matcher_for(g.players),
                                               g.moves.max_moves_per_message, game_words(ctx))
    written = [r.written for r in requests]
    items = []
    for i, m in enumerate(mine):
        previous = None
        if m.status == "counted" and m.kind is not None:
            earlier = [x for x in moves if x.player == m.player and x.kind is m.kind
                       and x.message_id != m.message_id and x.reason == "replaced"]
            previous = earlier[-1].target if earlier else None
        standing = None
        if m.status == "invalid" and m.kind is not None:
            st = [x for x in moves if x.player == m.player and x.kind is m.kind
                  and x.status == "counted"]
            standing = st[-1].target if st else None
        kind = m.kind.value if m.kind else None
        target = m.target
        if m.kind is MoveKind.COMPARE and m.target2:     # R14: «сравнение — X и Y»
            target = f"{m.target} {'и' if g.language == 'ru' else 'and'} {m.target2}"
        if m.kind is MoveKind.KILL and m.role is Role.SHERIFF:
            kind = "shoot"
        items.append({"kind": kind, "target": target,
                      "status": m.status, "reason": m.reason, "previous": previous,
                      "standing": standing,
                      "written": written[i] if i < len(written) and not m.target else ""})
    player = None
    p = identify(letter.sender, g.players, via=letter.via, sender_id=letter.sender_id)
    if p is not None and mine and mine[0].status != "unknown_sender":
        player = p.nick
    story = next((m.story for m in mine if m.story), None)
    subject_shown = letter.subject
    if letter.via == "pm":      # the board parses the answer as BBCode: the player's words inert
        items = [{**it, "written": inert(str(it["written"])) if it.get("written") else
                  it.get("written")} for it in items]
        story = inert(story) if story else story
        subject_shown = inert(letter.subject)

    def local(t: datetime, fmt: str) -> str:
        return t.astimezone(g.timezone).strftime(fmt) + " " + _zone_label(g)
    text = render_text(
        "move-answer", g.language, "txt", title=g.title, day=day, player=player,
        sender=letter.sender or "", items=items, story=story,
        # R9.6: no ISO dates for players: "14.03 в 12:00 МСК", the deadline "15.03, 20:00 МСК";
        # the seconds only in the deadline's own minute, where they decide
        received=local(letter.received_at, ("%d.%m в " if g.language == "ru" else "%d.%m ")
                       + ("%H:%M:%S" if abs(letter.received_at - cal.deadline(day))
                          < timedelta(minutes=1) else "%H:%M")),
        deadline=local(cal.deadline(day), "%d.%m, %H:%M"),
        subject=subject_shown, reasons=REASONS,
        # what stopped the reading: a limit (issue 18), worded for the player by the template
        problem=letter.limit, size_limit=size_text(g.moves.max_message_size),
        moves_cut=g.moves.max_moves_per_message if moves_cut else 0)
    subject = ("Re: " + letter.subject if letter.subject and not
               letter.subject.lower().startswith("re:") else letter.subject) or \
        (f"{g.title}: ответ на ваш ход" if g.language == "ru" else f"{g.title}: your night move")
    path = outbox_dir(ctx) / f"day-{day}" / f"{letter.message_id:06d}.txt"
    return Answer(letter.message_id, day, letter.sender, player, subject, text, path,
                  known_sender=p is not None)


def _zone_label(game) -> str:
    if game.timezone.key == "Europe/Moscow":
        return "МСК" if game.language == "ru" else "Moscow time"
    return game.timezone.key


def _answer_file(a: Answer) -> str:
    return f"To: {a.to or '?'}\nSubject: {a.subject}\n\n{a.text}"


__all__ = ["poll_moves", "day_moves", "day_orders", "day_requests", "state_before_day",
           "read_letter", "requests_from_letter", "message_day", "IntakeReport", "Answer",
           "Letter", "build_answer", "send_answer"]
