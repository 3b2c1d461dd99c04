"""The vote history as an inline SVG chart, drawn on the server (no script, no CDN): each
candidate's count through the day as a step line, the deadline marked, and now when the day
is still open."""

from __future__ import annotations

from datetime import datetime, timedelta
from html import escape

from scraper_mod.game.day.tally import DayTally

from ..game.history.daychart import Step

W, H = 760, 280
LEFT, RIGHT, TOP, BOTTOM = 34, 190, 14, 30
PALETTE = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#bcbd22", "#7f7f7f")
LABELS = {"ru": {"deadline": "срок", "now": "сейчас", "title": "Голоса в течение дня"},
          "en": {"deadline": "deadline", "now": "now", "title": "Votes through the day"}}


def _ticks(start: datetime, end: datetime, tz) -> list[datetime]:
    span = (end - start).total_seconds() / 3600
    step = next(h for h in (1, 2, 3, 6, 12, 24, 48, 96, 10**6) if span / h <= 8)
    t = start.astimezone(tz).replace(minute=0, second=0, microsecond=0)
    out = []
    while t <= end:
        if t >= start and t.hour % min(step, 24) == 0:
            out.append(t)
        t += timedelta(hours=1)
    return out


def chart_svg(steps: list[Step], tally: DayTally, *, start: datetime, lang: str = "ru") -> str:
    """The chart's ``<svg>`` markup (every text escaped), or "" when nobody has voted yet.
    ``start`` is the day's start: the left edge; the deadline is the right edge."""
    if not steps:
        return ""
    words = LABELS.get(lang, LABELS["en"])
    tz = tally.tz
    end = max(tally.deadline, tally.as_of)
    x0, x1 = LEFT, W - RIGHT
    y0, y1 = H - BOTTOM, TOP
    span = max(1.0, (end - start).total_seconds())
    top = max(max(s.counts.values(), default=0) for s in steps) or 1

    def x(t: datetime) -> float:
        return round(x0 + (x1 - x0) * max(0.0, (t - start).total_seconds()) / span, 1)

    def y(n: int) -> float:
        return round(y0 - (y0 - y1) * n / top, 1)

    final = steps[-1].counts
    names = sorted({n for s in steps for n in s.counts},
                   key=lambda n: (-final.get(n, 0), n.casefold()))
    out = [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" '
           f'role="img" aria-label="{escape(words["title"])}">']
    for n in range(top + 1):                      # horizontal grid, one line per vote
        if top > 12 and n % 2:
            continue
        out.append(f'<line class="grid" x1="{x0}" y1="{y(n)}" x2="{x1}" y2="{y(n)}" '
                   f'stroke="#e3e6ea" stroke-width="1"/>')
        out.append(f'<text x="{x0 - 6}" y="{y(n) + 4}" text-anchor="end" font-size="11" '
                   f'fill="#555">{n}</text>')
    for t in _ticks(start, end, tz):
        out.append(f'<line x1="{x(t)}" y1="{y0}" x2="{x(t)}" y2="{y0 + 4}" stroke="#888"/>')
        out.append(f'<text x="{x(t)}" y="{y0 + 17}" text-anchor="middle" font-size="11" '
                   f'fill="#555">{t.astimezone(tz):%H:%M}</text>')
    out.append(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="#888"/>')
    dl = x(tally.deadline)
    out.append(f'<line class="deadline" x1="{dl}" y1="{y1 - 4}" x2="{dl}" y2="{y0}" '
               f'stroke="#b00020" stroke-width="1.5" stroke-dasharray="5 3"/>')
    out.append(f'<text x="{dl - 4}" y="{y1 + 8}" text-anchor="end" font-size="11" '
               f'fill="#b00020">{escape(words["deadline"])} '
               f'{tally.deadline.astimezone(tz):%H:%M}</text>')
    if tally.as_of < tally.deadline:
        nx = x(tally.as_of)
        out.append(f'<line class="now" x1="{nx}" y1="{y1}" x2="{nx}" y2="{y0}" stroke="#999" '
                   f'stroke-width="1" stroke-dasharray="2 3"/>')
    stop = x(tally.as_of)
    for i, name in enumerate(names):
        color = PALETTE[i % len(PALETTE)]
        # lines at the same count lie side by side, not on top of each other
        dy = round((i - (len(names) - 1) / 2) * min(2.5, 12 / len(names)), 1)
        d, count = [f"M{x(start)},{y(0) + dy}"], 0
        for s in steps:
            n = s.counts.get(name, 0)
            if n != count:
                d.append(f"H{x(s.at)}V{round(y(n) + dy, 1)}")
                count = n
        d.append(f"H{stop}")
        out.append(f'<path class="series" d="{"".join(d)}" fill="none" stroke="{color}" '
                   f'stroke-width="2.2" stroke-linejoin="round"><title>{escape(name)}: '
                   f'{count}</title></path>')
        ly = TOP + 6 + i * 18
        if ly < H - 8:
            out.append(f'<rect x="{x1 + 14}" y="{ly}" width="12" height="12" fill="{color}"/>')
            out.append(f'<text class="legend" x="{x1 + 32}" y="{ly + 10}" font-size="12" '
                       f'fill="#222">{escape(name)} — {final.get(name, 0)}</text>')
    out.append("</svg>")
    # issue 39: on a phone the chart scrolls in its box and its right side (the legend) and
    # the «срок» label are out of sight: the same in HTML under it, shown on a phone only
    out.append(f'<p class="chart-deadline">{escape(words["deadline"])} '
               f'{tally.deadline.astimezone(tz):%H:%M}</p>')
    out.append('<ul class="chart-legend">' + "".join(
        f'<li><span class="swatch" style="background:{PALETTE[i % len(PALETTE)]}"></span>'
        f'{escape(name)} — {final.get(name, 0)}</li>' for i, name in enumerate(names)) + "</ul>")
    return "\n".join(out)
