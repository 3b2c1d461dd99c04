"""Synthetic game data for the benches: realistic Russian and English posts with colored votes.

Nothing here is saved in the repository; each bench makes what it needs from a seeded
``random.Random``, so every run measures the same data.

A day's chatter looks like a real game topic: the host's opening post, players arguing, votes
written as ``[color=#FF0000]Nick[/color]`` (sometimes ``red``/``darkred``/blue), vote changes,
quotes of earlier votes (which are not votes), bold names (not votes), the odd edit.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

NICKS = (
    "Вася", "Маша_2", "Big Joe", "Алексей", "NightOwl", "Игрок-7", "Ёжик в тумане",
    "doc_Holiday", "Лиса Алиса", "Котофей", "Sniper", "Дед Мазай", "Мирный_Житель", "Хомяк",
    "Tanya K.", "Барон", "Шерлок", "Red Fox", "Незнайка", "Ольга-Петровна", "Гоша", "Mr. Smith",
    "Снегирь", "Катюша",
)
HOST = "admin"

_RU = (
    "Всем привет! Кто что думает?", "Я пока посмотрю, рано делать выводы.",
    "Подозрительно тихо сегодня.", "Мне не нравится, как {x} уходит от ответа.",
    "Вчерашний рэндом всё спутал.", "Голос прежний.", "Зачем голосовать «для затравки»?",
    "{x}, объясни свой голос, пожалуйста.", "Паровоз поехал, я пас.",
    "Думаю, маф среди тех, кто молчит.", "Согласен с предыдущим оратором.",
    "Доктор, не подведи ночью :)", "Если я мирный, то вы все пожалеете.",
    "Кто-нибудь заметил, что {x} голосует синим?", "Ну вот, опять всё сначала.",
)
_EN = (
    "Morning all. Any leads?", "I'll wait and see for now.", "Too quiet today.",
    "I don't like how {x} dodges the question.", "Yesterday's random ruined everything.",
    "My vote stays.", "{x}, explain your vote please.", "The train has left, I'm out.",
    "Mafia is among the quiet ones, I bet.", "Agreed with the above.",
)
_VOTE_TAIL_RU = ("— слишком бодрый.", "— цепляется к словам.", "— просто так.", "", "!",
                 "— ответка :)", "— передумал в последний момент.", "— подтверждаю.")
_VOTE_TAIL_EN = ("then.", "— too eager.", "", "— just a hunch.", "for now.")
VOTE_COLORS = ("#FF0000", "#FF0000", "#FF0000", "red", "darkred", "#0000FF", "#ff0000")
_HTML_COLOR = {"red": "red", "darkred": "darkred"}


@dataclass
class SynthPost:
    """One post of a synthetic topic, as BBCode and as phpBB would render its body."""

    post_id: int
    author: str
    author_id: int
    posted_at: datetime                 # aware
    bbcode: str
    html: str
    vote: str | None = None             # the colored nick in the own text, if any
    vote_color: str | None = None
    quotes: tuple[int, ...] = ()
    text: str = ""                      # plain text of the own body
    edited_at: datetime | None = None
    edit_count: int = 0
    bold: tuple[str, ...] = ()


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@dataclass
class TopicWriter:
    """Writes the posts of one or more day topics; post ids run on across topics."""

    rng: random.Random
    players: list[str]
    language: str = "ru"
    next_id: int = 1000
    user_ids: dict[str, int] = field(default_factory=dict)

    def uid(self, nick: str) -> int:
        if nick == HOST:
            return 2
        return self.user_ids.setdefault(nick, 58 + len(self.user_ids))

    def post(self, author: str, at: datetime, *, alive: list[str], recent: list[SynthPost],
             vote_p: float = 0.35) -> SynthPost:
        rng = self.rng
        ru = self.language == "ru" if rng.random() > 0.15 else self.language != "ru"
        chatter = rng.choice(_RU if ru else _EN).replace("{x}", rng.choice(alive))
        bb, html, text = [], [], []
        quotes: tuple[int, ...] = ()
        vote = color = None
        bold: tuple[str, ...] = ()
        if recent and rng.random() < 0.15:  # quote an earlier post, vote and all
            q = rng.choice(recent)
            quotes = (q.post_id,)
            bb.append(f'[quote="{q.author}" post_id={q.post_id} user_id={q.author_id}]'
                      f"{q.bbcode}[/quote]")
            html.append(f'<blockquote cite="./viewtopic.php?p={q.post_id}#p{q.post_id}"><div>'
                        f"<cite>{_esc(q.author)} писал(а):</cite>{q.html}</div></blockquote>")
        bb.append(chatter)
        html.append(_esc(chatter))
        text.append(chatter)
        if rng.random() < 0.1:
            name = rng.choice(alive)
            bold = (name,)
            bb.append(f" [b]{name}[/b]")
            html.append(f' <strong class="text-strong">{_esc(name)}</strong>')
            text.append(" " + name)
        if rng.random() < vote_p:
            vote = rng.choice([p for p in alive if p != author] or alive)
            color = rng.choice(VOTE_COLORS)
            tail = rng.choice(_VOTE_TAIL_RU if ru else _VOTE_TAIL_EN)
            bb.append(f"\n[color={color}]{vote}[/color] {tail}".rstrip())
            html.append(f'<br>\n<span style="color:{color}">{_esc(vote)}</span> {_esc(tail)}'.rstrip())
            text.append(f"\n{vote} {tail}".rstrip())
        p = SynthPost(self.next_id, author, self.uid(author), at, "".join(bb), "".join(html),
                      vote, color, quotes, "".join(text).strip(), bold=bold)
        self.next_id += 1
        if rng.random() < 0.03:
            p.edited_at = at + timedelta(minutes=rng.randint(1, 30))
            p.edit_count = 1
        return p

    def day(self, day: int, *, opens: datetime, closes: datetime, alive: list[str],
            posts: int) -> list[SynthPost]:
        """A day topic: the host's opening post, then ``posts - 1`` posts spread over the day,
        denser towards the deadline, all before ``closes``."""
        rng = self.rng
        span = (closes - opens).total_seconds()
        opening = (f"[b]День {day}.[/b] Голосование открыто до дедлайна. Голос — ник игрока "
                   f"цветом. Живы: {', '.join(alive)}.")
        first = SynthPost(self.next_id, HOST, 2, opens, opening, _esc(opening),
                          text=opening)
        self.next_id += 1
        out = [first]
        times = sorted(opens + timedelta(seconds=span * (1 - rng.random() ** 1.6))
                       for _ in range(posts - 1))
        for at in times:
            at = min(at, closes - timedelta(seconds=1)).replace(microsecond=0)
            out.append(self.post(rng.choice(alive), at, alive=alive, recent=out[-20:]))
        return out
