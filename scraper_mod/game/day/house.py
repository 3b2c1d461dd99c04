"""What the house rules (RULES R2.12-R2.16, rules/house.py) add to a day's count for people:
the host report's lines, each naming the post it concerns, and the majority (R2.15) as the
count, the newspaper and the day topic's notice show it.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from scraper_mod.rules.house import HOUSE_REASONS
from scraper_mod.rules.model import Vote

if TYPE_CHECKING:   # the count imports this module
    from scraper_mod.game.day.tally import DayTally

__all__ = ["house_lines", "majority_view", "newspaper_house"]

_LINES = {
    "final": {"ru": "окончательный голос: пост {post_id} ({voter} → {target})",
              "en": "final vote: post {post_id} ({voter} → {target})"},
    "majority": {"ru": "большинство набрано в {hm} — голосование окончено: пост {post_id} "
                       "({voter} → {target})",
                 "en": "majority reached at {hm}, the vote is over: post {post_id} "
                       "({voter} → {target})"},
    "penalty": {"ru": "{nick}: +{n} за неголосование",
                "en": "{nick}: +{n} for not voting"},
    "earliest": {"ru": "ничья ({tied}): садится тот, кто раньше набрал итоговое число "
                       "голосов — {player}, в {hm}",
                 "en": "a tie ({tied}): the one who reached the final count first is "
                       "jailed: {player}, at {hm}"},
}


def _line(code: str, lang: str, **fields: Any) -> str:
    return _LINES[code]["ru" if lang == "ru" else "en"].format(**fields)


def house_lines(t: "DayTally", lang: str) -> list[str]:
    """The host report's lines for the house rules of the count ``t`` (none by default)."""
    hm = lambda at: at.astimezone(t.tz).strftime("%H:%M")  # noqa: E731
    out = [_line("final", lang, post_id=v.post_id, voter=v.voter, target=v.target)
           for v in t.tally.votes if v.final]
    m = t.tally.majority
    if m is not None:
        out.append(_line("majority", lang, hm=hm(m.at), post_id=m.post_id, voter=m.voter,
                         target=m.target))
    out += [_line("penalty", lang, nick=c.target, n=c.penalty)
            for c in t.tally.counts if c.penalty]
    if t.lynch is not None and t.lynch.earliest is not None:
        out.append(_line("earliest", lang, tied=", ".join(t.lynch.tied),
                         player=t.lynch.player, hm=hm(t.lynch.earliest)))
    return out


def majority_view(m: Vote | None, local: Callable[[datetime], datetime],
                  link: Callable[[int | None], str | None]) -> dict | None:
    """R2.15 for the templates: who, when (game time), the post and its link."""
    if m is None:
        return None
    return {"target": m.target, "voter": m.voter, "post_id": m.post_id,
            "hm": local(m.at).strftime("%H:%M"), "day": local(m.at).strftime("%d.%m"),
            "url": link(m.post_id)}


def newspaper_house(t: "DayTally") -> dict:
    """R2.12, R2.15 for the newspaper: the majority (game time, the post's link) and the
    time the tie's winner reached his count; empty by default."""
    local = lambda at: at.astimezone(t.tz)  # noqa: E731
    out: dict = {}
    m = majority_view(t.tally.majority, local, t.link)
    if m is not None:
        out["majority"] = m
    if t.lynch is not None and t.lynch.earliest is not None:
        out["earliest"] = local(t.lynch.earliest).strftime("%H:%M")
    refused = [{"author": r.author, "reason": r.reason, "post_id": r.post_id,
                "url": t.link(r.post_id)}
               for r in t.tally.rejected if r.reason in HOUSE_REASONS]
    if refused:    # R2.13-R2.15: each vote the house rules did not count, with its post
        out["refused"] = refused
    return out
