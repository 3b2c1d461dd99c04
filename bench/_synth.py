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


@dataclass
class SynthPost:
    """One post of a synthetic topic: its BBCode source (LocalBoard renders it as phpBB)."""

    post_id: int
    author: str
    author_id: int
    posted_at: datetime                 # aware
    bbcode: str
    vote: str | None = None             # the colored nick in the own text, if any
    vote_color: str | None = None
    quotes: tuple[int, ...] = ()
    text: str = ""                      # plain text of the own body
    bold: tuple[str, ...] = ()


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
             vote_p: float = 0.35, vote_for: str | None = None) -> SynthPost:
        rng = self.rng
        ru = self.language == "ru" if rng.random() > 0.15 else self.language != "ru"
        chatter = rng.choice(_RU if ru else _EN).replace("{x}", rng.choice(alive))
        bb, text = [], []
        quotes: tuple[int, ...] = ()
        vote = color = None
        bold: tuple[str, ...] = ()
        if recent and rng.random() < 0.15:  # quote an earlier post, vote and all
            q = rng.choice(recent)
            quotes = (q.post_id,)
            bb.append(f'[quote="{q.author}" post_id={q.post_id} user_id={q.author_id}]'
                      f"{q.bbcode}[/quote]")
        bb.append(chatter)
        text.append(chatter)
        if rng.random() < 0.1:
            name = rng.choice(alive)
            bold = (name,)
            bb.append(f" [b]{name}[/b]")
            text.append(" " + name)
        if vote_for is not None or rng.random() < vote_p:
            vote = vote_for or rng.choice([p for p in alive if p != author] or alive)
            color = rng.choice(VOTE_COLORS)
            tail = rng.choice(_VOTE_TAIL_RU if ru else _VOTE_TAIL_EN)
            bb.append(f"\n[color={color}]{vote}[/color] {tail}".rstrip())
            text.append(f"\n{vote} {tail}".rstrip())
        p = SynthPost(self.next_id, author, self.uid(author), at, "".join(bb), vote, color,
                      quotes, "".join(text).strip(), bold=bold)
        self.next_id += 1
        return p

    def day(self, day: int, *, opens: datetime, closes: datetime, alive: list[str],
            posts: int, final: dict[str, str] | None = None) -> list[SynthPost]:
        """A day topic: the host's opening post, then ``posts - 1`` posts spread over the day,
        denser towards the deadline, all before ``closes``.

        ``final`` (voter -> target): in the last fifth of the day every vote a voter writes is
        his final one, and each voter writes it at least once, so the day's count is known."""
        rng = self.rng
        span = (closes - opens).total_seconds()
        opening = (f"[b]День {day}.[/b] Голосование открыто до дедлайна. Голос — ник игрока "
                   f"цветом. Живы: {', '.join(alive)}.")
        first = SynthPost(self.next_id, HOST, 2, opens, opening, text=opening)
        self.next_id += 1
        out = [first]
        times = sorted(opens + timedelta(seconds=span * (1 - rng.random() ** 1.6))
                       for _ in range(posts - 1))
        final = final or {}
        late = closes - timedelta(seconds=span / 5)
        pending = set(final)
        for at in times:
            at = min(at, closes - timedelta(seconds=1)).replace(microsecond=0)
            author = rng.choice(alive)
            vote_for = None
            if at >= late and author in final:
                if author in pending or rng.random() < 0.35:
                    vote_for = final[author]
                pending.discard(author)
            p = self.post(author, at, alive=alive, recent=out[-20:], vote_p=0 if (
                at >= late and author in final) else 0.35, vote_for=vote_for)
            out.append(p)
        gap = timedelta(seconds=max(1, span / 5) / (len(pending) + 1))
        at = late
        for author in sorted(pending):  # voters who had not yet written their last vote
            at = (at + gap).replace(microsecond=0)
            out.append(self.post(author, min(at, closes - timedelta(seconds=1)), alive=alive,
                                 recent=out[-20:], vote_for=final[author]))
        out.sort(key=lambda p: (p.posted_at, p.post_id))
        early = [i for i, p in enumerate(out) if 0 < i and p.posted_at < late]
        drop = set(rng.sample(early, min(len(early), max(0, len(out) - posts))))
        return [p for i, p in enumerate(out) if i not in drop]


# -- whole games: players, votes that decide the day, night moves by mail ----------------------
GAME_NICKS = NICKS[:20] + (
    "Бармалей", "Winnie", "Колобок", "Пятачок", "Karlsson", "Фрекен Бок", "Dr. Watson",
    "Moriarty", "Тигра", "Кощей", "Buratino", "Айболит", "Муми-тролль", "Gandalf",
    "Простоквашин", "Леопольд", "Чебурашка", "Mr. Smith", "Снегирь", "Катюша",
)
KEY_ROLES = ("boss", "mafia", "mafia", "commissar", "sergeant", "doctor", "maniac", "vsb")


@dataclass(frozen=True)
class SynthPlayer:
    nick: str
    role: str
    contact: str
    forum_id: int


def game_players(n: int) -> list[SynthPlayer]:
    """``n`` players: the default setup (three mafiosi, Commissar, Sergeant, Doctor, Maniac,
    ВСБ) and civilians, with mail contacts and forum ids."""
    if not 8 <= n <= len(GAME_NICKS):
        raise ValueError(f"players: 8 to {len(GAME_NICKS)}")
    roles = list(KEY_ROLES) + ["civilian"] * (n - len(KEY_ROLES))
    return [SynthPlayer(nick, role, f"player{i + 1}@example.org", 58 + i)
            for i, (nick, role) in enumerate(zip(GAME_NICKS, roles))]


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def game_toml(*, title: str, start: str, players: list[SynthPlayer], random_list: list[str],
              forum_url: str, topics: dict[int, str], min_delay: float,
              full_scan_delay: float | None = None, moves_path: str = "moves",
              publish: str = "", username: str | None = None) -> str:
    """A game.toml (docs/game-file.md) for a synthetic game; ``publish``: a ``[publish]``
    table's lines (the autopilot), if any."""
    duty = next(p.nick for p in players if p.role == "mafia")
    lines = [
        "[game]", f"title = {_toml_str(title)}", 'timezone = "Europe/Moscow"',
        f"start = {start}", 'day_start = "21:00"', 'deadline = "20:00"',
        "merge_weekends = false", 'language = "ru"', 'host = "admin"',
        "random_list = [" + ", ".join(_toml_str(n) for n in random_list) + "]", "",
        "[forum]", f"url = {_toml_str(forum_url)}", f"min_delay = {min_delay}",
        *([f"username = {_toml_str(username)}"] if username else []),
        *([f"full_scan_delay = {full_scan_delay}"] if full_scan_delay is not None else []), "",
        "[moves]", 'source = "maildir"', f"path = {_toml_str(moves_path)}", "",
        "[mafia]", f"duty = {_toml_str(duty)}", "",
        *(["[publish]", publish, ""] if publish else []),
    ]
    for p in players:
        lines += ["[[players]]", f"nick = {_toml_str(p.nick)}", f'role = "{p.role}"',
                  f'contact = "{p.contact}"', f"forum_id = {p.forum_id}", ""]
    for n, url in sorted(topics.items()):
        lines += ["[[days]]", f"number = {n}", f"topic = {_toml_str(url)}", ""]
    return "\n".join(lines)


def move_mail(player: SynthPlayer, text: str, at: datetime, *, n: int) -> bytes:
    """A night move as the host's mailbox receives it (plain UTF-8 mail)."""
    from email.message import EmailMessage
    from email.utils import format_datetime
    m = EmailMessage()
    m["From"] = f"{player.nick} <{player.contact}>"
    m["To"] = "host@example.org"
    m["Subject"] = "Ход"
    m["Date"] = format_datetime(at)
    m["Message-ID"] = f"<move-{n}-{player.forum_id}@example.org>"
    m.set_content(text)
    return bytes(m)


_STORIES = ("Его нашли утром у реки, рядом лежала шляпа.",
            "Тихо зашли, тихо вышли. Никто ничего не слышал.",
            "Последнее, что он видел, — улыбка официанта.")


@dataclass
class ScriptedDay:
    """What a synthetic day is meant to produce: the lynch and the night's moves as mail."""

    day: int
    lynch: str
    night_target: str | None                 # killed by mafia and maniac, healed: no death
    moves: list[tuple[SynthPlayer, str]]     # (sender, text)
    frozen: str | None = None


def script_game(rng: random.Random, players: list[SynthPlayer], days: int) -> list[ScriptedDay]:
    """A game that lasts exactly ``days`` days and ends with the town's win: the town jails
    civilians (and the ВСБ) first and the three mafiosi on the last three days; every night the
    mafia and the Maniac shoot the same player and the Doctor heals him, so nobody dies at
    night; the Boss freezes a civilian, the Commissar checks someone.

    Needs ``len(players) >= days + 4`` (R7.2: the mafia must never catch up) and enough
    civilians to jail before the mafiosi."""
    by_role: dict[str, list[SynthPlayer]] = {}
    for p in players:
        by_role.setdefault(p.role, []).append(p)
    fodder = [p.nick for p in by_role.get("civilian", [])] + [p.nick for p in by_role["vsb"]]
    mafia = [p.nick for p in by_role["boss"] + by_role["mafia"]]
    if days < 4 or len(fodder) < days - 3 or len(players) < days + 4:
        raise ValueError(f"{len(players)} players cannot make a {days}-day game")
    rng.shuffle(fodder)
    lynches = fodder[: days - 3] + [mafia[1], mafia[2], mafia[0]]  # the Boss last
    alive = {p.nick for p in players}
    duty = by_role["mafia"][0]
    boss, doctor = by_role["boss"][0], by_role["doctor"][0]
    commissar, maniac = by_role["commissar"][0], by_role["maniac"][0]
    alive.discard("")
    out = []
    for d in range(1, days + 1):
        lynch = lynches[d - 1]
        alive.discard(lynch)
        civil = sorted(n for n in alive if n in fodder) or sorted(
            {by_role["sergeant"][0].nick, commissar.nick} & alive)
        moves: list[tuple[SynthPlayer, str]] = []
        target = frozen = None
        if d < days:  # the last day ends the game at the lynch; the night does not matter
            target = rng.choice(civil)
            frozen = rng.choice([n for n in civil if n != target] or civil)
            checked = rng.choice(sorted(alive - {commissar.nick}))
            if duty.nick in alive:
                moves.append((duty, f"убить {target}\nистория: {rng.choice(_STORIES)}"))
            if boss.nick in alive:
                moves.append((boss, f"заморозить {frozen}"))
            moves += [(doctor, f"лечу {target}"), (maniac, f"убить {target}"),
                      (commissar, f"проверить {checked}")]
        out.append(ScriptedDay(d, lynch, target, moves, frozen))
    return out


def final_votes(rng: random.Random, alive: list[str], lynch: str,
                frozen: str | None = None) -> dict[str, str]:
    """Each alive voter's last vote: about four in five for ``lynch``, the rest scattered, and
    always enough for ``lynch`` to lead alone once the frozen voter (R5.4) is left out."""
    votes = {}
    for v in alive:
        others = [n for n in alive if n not in (v, lynch)]
        votes[v] = lynch if (v != lynch and rng.random() < 0.8) or not others else rng.choice(others)

    def short() -> bool:
        counts: dict[str, int] = {}
        for v, t in votes.items():
            if v != frozen:
                counts[t] = counts.get(t, 0) + 1
        best_other = max((c for t, c in counts.items() if t != lynch), default=0)
        return counts.get(lynch, 0) <= best_other

    for v in alive:
        if not short():
            break
        if v not in (lynch, frozen) and votes[v] != lynch:
            votes[v] = lynch
    return votes
