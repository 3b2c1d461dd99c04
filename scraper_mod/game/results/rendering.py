"""``render_day(report)``: the texts of a day, ``{relative path: text}`` — ``newspaper.bbcode``,
``day-start.bbcode``, ``pm/<nick>.txt``, ``host-report.txt``, ``result.json`` — from the
Jinja2 templates in ``templates/`` (a game's own ``templates/`` first). Pure: the same report
gives the same bytes.
"""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Sequence, cast

import jinja2

from scraper_mod.errors import ConfigError
from scraper_mod.game.results.report import Candidate, DayReport, code_inert
from scraper_mod.game.results.wording import Formatter, pad_visible, visible_len
from scraper_mod.posts.dayfolder import DEPRECATED_DAY_START, day_start_name
from scraper_mod.posts.limits import cap_text, part_name, split_post
from scraper_mod.posts.notes import note_lines
from scraper_mod.posts.render import bbcode_inert, environment, render_text
from scraper_mod.rules.deal import safe_filename
from scraper_mod.rules.model import DayResult, Role
from scraper_mod.rules.moves import reason_texts as move_reason_texts

_CODE_WRAP = 44  # the voters column wraps at this many characters inside [code]


def code_table(candidates: Sequence[Candidate], headers: Sequence[str]) -> str:
    """The vote table as aligned monospace text for ``[code]`` (nicks made inert).

    Columns are sized by what a reader sees (zero-width spaces take no column); the voters
    column wraps onto continuation lines aligned under itself.
    """
    names = [bbcode_inert(c.target) for c in candidates]
    w1 = max([visible_len(headers[0])] + [visible_len(n) for n in names]) + 2
    w2 = max([visible_len(headers[1])] + [len(str(c.votes)) for c in candidates]) + 2
    pad = pad_visible
    lines = [(pad(headers[0], w1) + pad(headers[1], w2) + headers[2]).rstrip()]
    for c, name in zip(candidates, names):
        voters = [bbcode_inert(v.voter) + (" ×2" if v.double else "") for v in c.voters]
        rows: list[str] = []
        cur = ""
        for i, nick in enumerate(voters):
            piece = nick + ("," if i < len(voters) - 1 else "")
            if cur and visible_len(cur) + 1 + visible_len(piece) > _CODE_WRAP:
                rows.append(cur)
                cur = piece
            else:
                cur = f"{cur} {piece}" if cur else piece
        rows.append(cur)
        lines.append((pad(name, w1) + pad(str(c.votes), w2) + rows[0]).rstrip())
        for r in rows[1:]:
            lines.append(" " * (w1 + w2) + r)
    return "\n".join(lines)


def _template_context(r: DayReport) -> dict:
    # The night notes in the game's language (rules/ gives codes; the wording is in
    # templates/night-notes.toml, or the game's own copy), so a template prints res.notes.
    res = replace(r.result, notes=note_lines(r.result.notes, r.lang, folder=r.templates))
    opts = r.options
    fmt = Formatter(r.lang, r.tz, binary_checks=opts.check_result == "binary")
    mafia_deaths = [d for d in res.killed if d.by == "mafia"]
    alive_after = tuple(res.alive)
    last_word_until = r.newspaper_at + timedelta(hours=opts.last_word_hours)
    lynched = res.lynched
    lynched_votes = 0
    if lynched is not None:
        lynched_votes = next((c.votes for c in r.candidates if c.target == lynched.player), 0)
    counted_voters = sum(c.votes for c in r.candidates)
    weekend = r.next_day_merged and not _moved(r.next_deadline, r.next_deadline_regular)
    mafia_alive = sorted((n for n in alive_after if r.roles.get(n) and r.roles[n].is_mafia),
                         key=_order_key(r))
    orders = r.orders
    story, story_chars = cap_text(res.story, r.max_story_chars)   # player text, capped
    return {
        "r": r, "res": res, "fmt": fmt, "options": opts, "day": r.day, "next_day": r.day + 1,
        "title": r.title, "lynched": lynched, "lynch_by": r.lynch_by or (lynched.by if lynched
                                                                          else None),
        "lynched_votes": lynched_votes, "counted_voters": counted_voters,
        "tied": r.tied, "candidates": r.candidates, "not_voting": r.not_voting,
        "layout": r.vote_table,
        "killed": res.killed, "mafia_deaths": mafia_deaths, "story": story,
        "night_killed": tuple(d for d in res.killed if d.by != "kamikaze"),   # R14
        "taken": tuple(d for d in res.killed if d.by == "kamikaze"),
        "spared": res.spared,
        "story_chars": story_chars, "newspaper_parts": (),
        "saved": res.saved, "frozen": res.frozen,
        "freeze_public": opts.freeze_public,
        "vsb_announced": res.vsb_protected and opts.announce_vsb_protection,
        "alive": alive_after, "deaths": r.deaths, "last_word_until": last_word_until,
        "deadline": r.deadline, "deadline_moved": _moved(r.deadline, r.deadline_regular),
        "deadline_regular": r.deadline_regular,
        "next_deadline": r.next_deadline,
        "next_deadline_moved": _moved(r.next_deadline, r.next_deadline_regular),
        "next_deadline_regular": r.next_deadline_regular, "weekend": weekend,
        "newspaper_at": r.newspaper_at,
        "winner": res.winner, "reveal": r.reveal, "roles": r.roles,
        "all_players": sorted(r.roles, key=_order_key(r)),
        "mafia_alive": mafia_alive, "orders": orders, "moves": r.moves,
        "frozen_today": r.frozen_today,
        "late_voters": tuple(dict.fromkeys(x.author for x in r.rejected
                                           if x.reason in ("late", "late_unclear"))),
        "move_reasons": move_reason_texts(r.lang),
        "boss_alive": any(r.roles.get(n) is Role.BOSS for n in alive_after),
        "silent": tuple(n for n in r.alive_before if n not in dict(r.posts_by)),
        "code_table": lambda headers: code_table(r.candidates, headers),
        "code_inert": code_inert,
        "house": r.house,
        "howto": r.move_help, "howto_until": r.next_deadline,
    }


def _order_key(r: DayReport):
    order = {n: i for i, n in enumerate(r.roles)}
    return lambda n: (order.get(n, len(order)), n)


def _moved(actual: datetime | None, regular: datetime | None) -> bool:
    return actual is not None and regular is not None and actual != regular


@functools.lru_cache(maxsize=8)
def _environment_with(folder: str) -> jinja2.Environment:
    """The templates with a game's own ``templates/`` folder tried first."""
    base = environment()
    return base.overlay(loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(folder),
                                                    cast(jinja2.BaseLoader, base.loader)]))


def _render(kind: str, lang: str, ext: str, ctx: dict, overrides: str | None = None) -> str:
    if overrides and Path(overrides).is_dir():
        name = f"{kind}.{lang}.{ext}.j2"
        try:
            text = _environment_with(overrides).get_template(name).render(**ctx)
        except jinja2.TemplateError as e:
            where = getattr(e, "filename", None) or name
            line = getattr(e, "lineno", None)
            raise ConfigError(f"template {where}{f', line {line}' if line else ''}: {e}",
                              hint="fix the template, or remove it from the game's "
                                   "templates/ folder to use the default") from None
    else:
        text = render_text(kind, lang, ext, **ctx)
    # One trailing newline, no trailing spaces: stable bytes whatever the template's ends.
    lines = [ln.rstrip() for ln in text.split("\n")]
    return "\n".join(lines).strip("\n") + "\n"


def pm_recipients(r: DayReport) -> dict[str, list[tuple[str, dict]]]:
    """Who gets which private message (R9.3): ``{nick: [(template kind, extra context)]}``.

    * the check result to the player who checked and the same text to the Sergeant of that
      night (R5.5), and a promotion notice to a promoted Sergeant (R6.5);
    * the mafia's news to every mafioso alive after the night.
    """
    res = r.result
    out: dict[str, list[tuple[str, dict]]] = {}
    for c in res.checks:
        # as rules.night.check_recipients: the checker (even dead tonight) and the Sergeant
        # if he was alive when the day began
        recipients = [c.by]
        if c.other is None and r.sergeant and r.sergeant in r.alive_before \
                and r.sergeant != c.by:   # R14: a comparison goes to the Journalist alone
            recipients.append(r.sergeant)
        for nick in recipients:
            out.setdefault(nick, []).append(("check", {"check": c, "recipient": nick}))
    if res.promoted:
        entry = ("check", {"check": None, "recipient": res.promoted})
        lst = out.setdefault(res.promoted, [])
        if not any(k == "check" for k, _ in lst):  # a check text carries the notice itself
            lst.append(entry)
    mafia_after = [n for n in res.alive if r.roles.get(n) and r.roles[n].is_mafia]
    for nick in sorted(mafia_after, key=_order_key(r)):
        out.setdefault(nick, []).append(("mafia-news", {"recipient": nick}))
    if res.frozen and res.frozen in res.alive and not res.winner:
        # R5.4: the frozen player is always told; with freeze_public off he is the only one
        out.setdefault(res.frozen, []).append(("frozen", {"recipient": res.frozen}))
    return out


def render_day(r: DayReport) -> dict[str, str]:
    """Every file of ``out/day-N/`` for this report: ``{relative path: text}``."""
    ctx = _template_context(r)
    lang = r.lang
    recipients = pm_recipients(r)
    ctx["pm_list"] = [(nick, [kind for kind, _ in parts], r.contacts.get(nick))
                      for nick, parts in sorted(recipients.items(),
                                                key=lambda x: _order_key(r)(x[0]))]
    files = newspaper_files(r, ctx)
    ctx["newspaper_parts"] = tuple((name, len(text)) for name, text in files.items())
    files |= {
        DEPRECATED_DAY_START: _render("day-start", lang, "bbcode", ctx, r.templates),
        "host-report.txt": _render("host-report", lang, "txt", ctx, r.templates),
        "result.json": result_json(r.result),
    }
    for nick, parts in recipients.items():
        texts = []
        for kind, extra in parts:
            texts.append(_render(kind, lang, "txt", {**ctx, **extra}, r.templates))
        files[f"pm/{safe_filename(nick)}.txt"] = "\n".join(texts)
    files[day_start_name(r.day)] = files[DEPRECATED_DAY_START]
    return dict(sorted(files.items()))


def newspaper_files(r: DayReport, ctx: dict) -> dict[str, str]:
    """The newspaper as one post, or split under the board's limit (``[forum]
    max_post_chars``): ``newspaper.bbcode``, ``newspaper-2.bbcode`` …, posted in that order."""
    def mark(where: str, part: int, parts: int) -> str:
        return _render("newspaper-continued", r.lang, "bbcode",
                       {**ctx, "where": where, "part": part, "parts": parts},
                       r.templates).rstrip("\n")
    paper = _render("newspaper", r.lang, "bbcode", ctx, r.templates)
    return {part_name("newspaper", "bbcode", i): text for i, text in
            enumerate(split_post(paper, r.max_post_chars, mark=mark), start=1)}


def result_json(result: DayResult) -> str:
    """CONTRACT's resolve JSON: the contract's key order, UTF-8, a trailing newline."""
    return json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n"
