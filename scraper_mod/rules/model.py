"""Values shared by the whole rules core (docs/rules.md R4 roles, the options of every rule).

Everything here is a frozen dataclass or an enum; nothing does I/O.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime

from .notes import Note


class Side(str, enum.Enum):
    TOWN = "town"
    MAFIA = "mafia"
    ALONE = "alone"  # the Maniac


class Role(str, enum.Enum):
    """R4: the roles. Russian names in ``RUSSIAN``."""

    BOSS = "boss"            # Босс
    MAFIA = "mafia"          # обычный маф
    COMMISSAR = "commissar"  # Комиссар
    SERGEANT = "sergeant"    # Сержант
    DOCTOR = "doctor"        # Доктор
    MANIAC = "maniac"        # Маньяк
    VSB = "vsb"              # ВСБ, внебрачный сын босса
    CIVILIAN = "civilian"    # мирный, чиж
    # R14: roles of other houses (rules/roles.py holds what each one is and does)
    PUTANA = "putana"            # Путана, Любовница
    BODYGUARD = "bodyguard"      # Телохранитель
    LAWYER = "lawyer"            # Адвокат
    JOURNALIST = "journalist"    # Журналист
    SHERIFF = "sheriff"          # Шериф
    IMMORTAL = "immortal"        # Бессмертный
    MAYOR = "mayor"              # Мэр
    JUDGE = "judge"              # Судья
    KAMIKAZE = "kamikaze"        # Камикадзе

    @property
    def side(self) -> Side:
        """The role's side, from the catalogue (rules/roles.py fills ``ROLE_SIDES``)."""
        return ROLE_SIDES[self]

    @property
    def is_mafia(self) -> bool:
        return self.side is Side.MAFIA


#: each role's side, as the catalogue (rules/roles.py) says; filled when it is imported, which
#: the end of this module makes sure of
ROLE_SIDES: dict[Role, Side] = {}

ROLE_NAMES = {
    "ru": {
        Role.BOSS: "Босс", Role.MAFIA: "мафиози", Role.COMMISSAR: "Комиссар",
        Role.SERGEANT: "Сержант", Role.DOCTOR: "Доктор", Role.MANIAC: "Маньяк",
        Role.VSB: "ВСБ", Role.CIVILIAN: "мирный житель",
        Role.PUTANA: "Путана", Role.BODYGUARD: "Телохранитель", Role.LAWYER: "Адвокат",
        Role.JOURNALIST: "Журналист", Role.SHERIFF: "Шериф", Role.IMMORTAL: "Бессмертный",
        Role.MAYOR: "Мэр", Role.JUDGE: "Судья", Role.KAMIKAZE: "Камикадзе",
    },
    "en": {
        Role.BOSS: "Boss", Role.MAFIA: "mafioso", Role.COMMISSAR: "Commissar",
        Role.SERGEANT: "Sergeant", Role.DOCTOR: "Doctor", Role.MANIAC: "Maniac",
        Role.VSB: "VSB (the Boss's secret son)", Role.CIVILIAN: "civilian",
        Role.PUTANA: "Putana (the Mistress)", Role.BODYGUARD: "Bodyguard",
        Role.LAWYER: "Lawyer", Role.JOURNALIST: "Journalist", Role.SHERIFF: "Sheriff",
        Role.IMMORTAL: "Immortal", Role.MAYOR: "Mayor", Role.JUDGE: "Judge",
        Role.KAMIKAZE: "Kamikaze",
    },
}


class MoveKind(str, enum.Enum):
    """R5: night moves ("ходы")."""

    KILL = "kill"      # убийство (mafia) / maniac kill
    HEAL = "heal"      # лечение
    CHECK = "check"    # проверка
    FREEZE = "freeze"  # заморозка
    # R14
    BLOCK = "block"      # Путана: блокировать X
    GUARD = "guard"      # Телохранитель: охранять X
    DEFEND = "defend"    # Адвокат: защитить X
    COMPARE = "compare"  # Журналист: сравнить X и Y
    PARDON = "pardon"    # Судья: помиловать (no target)
    TAKE = "take"        # Камикадзе: забрать X (standing)


@dataclass(frozen=True)
class Player:
    """A player of the game file. ``role`` is None until dealt."""

    nick: str
    role: Role | None = None
    contact: str | None = None
    aliases: tuple[str, ...] = ()
    alive: bool = True
    code: str | None = None  # secret code from the role card (issue 5), when the game uses codes
    forum_id: int | None = None


@dataclass(frozen=True)
class RuleOptions:
    """Every option docs/rules.md marks switchable, with its default. Keys match ``[rules]``."""

    # R1.3
    merge_weekends: bool = True
    weekend_days: tuple[str, ...] = ("sat",)  # deadlines on these weekdays are skipped
    # R2.2
    vote_colors: tuple[str, ...] = ()  # empty: any color not in excluded_colors
    excluded_colors: tuple[str, ...] = ("#000000", "black", "#333333", "#222222", "#111111",
                                        "#1c1c1c", "#282828", "#303030", "#2f2f2f",
                                        "#0f0f0f", "#0a0a0a", "#050505", "#101010")
    bold_votes: bool = False
    # R2.4
    ambiguous_post: str = "none"  # "none" | "last"
    # R2.7
    edited_votes: str = "versions"  # "versions" | "never"
    # R2.8
    self_votes: bool = True
    # R2.12-R2.16: house rules of other communities (docs/rules-house.md), all off by default
    tie_break: str = "random_list"  # "random_list" | "earliest" (R2.12)
    vote_changes: int = -1          # R2.13: changes a day, -1 unlimited
    vote_change_limits: tuple[tuple[str, int], ...] = ()  # R2.13: ("HH:MM" from, changes)
    final_vote_words: tuple[str, ...] = ()  # R2.14
    majority_ends_day: bool = False         # R2.15
    non_voter_votes: int = 0                # R2.16
    non_voter_removal_after: int = 0        # R2.16
    # R2.17-R2.21 (docs/rules-house.md), all off by default; R2.17's topic is [[days]] vote_topic
    voting_opens: str = ""                  # R2.18: "HH:MM", the voting window's opening
    pass_words: tuple[str, ...] = ()        # R2.19: words of a vote for no one («пас»)
    tie_jails_no_one: bool = False          # R2.19: a tie jails no one (no random list)
    edit_is_change: bool = False            # R2.20: an edited vote post is a change (R2.13)
    vote_min_words: int = 0                 # R2.21: characters of own words besides the nick
    # R3.3
    tie_scope: str = "all_alive"  # "all_alive" | "tied_only"
    # R5.2
    mafia_consensus: bool = False
    announce_vsb_protection: bool = False
    # R5.4
    freeze_public: bool = True
    frozen_immune_to_random: bool = False
    # R5.5
    check_result: str = "exact"  # "exact" | "binary"
    allow_rechecks: bool = True
    # R5.6
    doctor_self_heals: int = 1
    doctor_same_patient_twice: bool = True
    # R6
    lynch_first: bool = True  # False: the lynch is simultaneous with the night
    # R7
    maniac_must_die_for_town: bool = False
    # R8.1
    last_word_hours: int = 12
    # R9.1
    table_bbcode: bool = False
    vote_table: str = "list"  # "list" | "code" | "table": the newspaper's vote table layout


@dataclass(frozen=True)
class Vote:
    """One counted-or-not vote event fed to the tally (R2): voter, target, instant, post."""

    voter: str
    target: str
    at: datetime
    post_id: int
    decided: bool = False  # R11.1: the host's decision made this vote
    final: bool = False    # R2.14: the post holds one of the host's words for a final vote
    edited: bool = False   # R2.20: the vote stands in an edited version of its post


# R2.19: the target of a pass vote («пас»): a vote for no one; never a forum nick (brackets)
NO_ONE = "(никто)"


@dataclass(frozen=True)
class Move:
    """One night move as judged (R5). ``status``: counted|replaced|late|invalid|unknown_sender."""

    player: str
    role: Role | None
    kind: MoveKind | None
    target: str | None
    received_at: datetime
    status: str
    reason: str = ""
    message_id: int | None = None
    story: str | None = None  # the duty mafioso's murder story
    target2: str | None = None  # R14: the second player of a comparison


@dataclass(frozen=True)
class Death:
    player: str
    role: Role
    by: str  # "votes" | "random" | "mafia" | "maniac" | "sheriff" | "kamikaze" (R14)


@dataclass(frozen=True)
class HostKilled:
    """R11.2: a player the host removed from the game ("убит ведущим") at ``at``."""

    player: str
    role: Role
    at: datetime
    why: str = ""
    no_vote_days: int = 0  # R2.16: removed for this many game days in a row without a vote


@dataclass(frozen=True)
class Replaced:
    """R10: ``new`` took ``old``'s slot at ``at`` (nicks as the users are called)."""

    old: str
    new: str
    at: datetime


@dataclass(frozen=True)
class CheckResult:
    by: str
    target: str
    result: str  # the role shown: exact role id ("civilian" for the VSB), or "mafia"/"not_mafia"
    other: str | None = None  # R14: a Journalist's comparison; result "same" | "different"

    def to_json(self) -> dict:
        target: str | list[str] = self.target if self.other is None else [self.target,
                                                                          self.other]
        return {"by": self.by, "target": target, "result": self.result}


@dataclass(frozen=True)
class DayResult:
    """The outcome of one game day (R6); ``to_json``: docs/commands.md's ``resolve`` JSON."""

    day: int
    lynched: Death | None
    killed: tuple[Death, ...] = ()
    saved: bool = False
    frozen: str | None = None
    checks: tuple[CheckResult, ...] = ()
    promoted: str | None = None
    alive: tuple[str, ...] = ()
    winner: str | None = None  # "town" | "mafia" | "maniac"
    story: str | None = None   # the mafia's murder story, when someone died by the mafia
    vsb_protected: bool = False  # the mafia aimed at the VSB (reported, never published by default)
    # for the host report: rules.notes.Note values (plain strings from older stored states)
    notes: tuple[Note | str, ...] = field(default=())
    host_kills: tuple[HostKilled, ...] = ()    # R11.2, removed during this day
    replacements: tuple[Replaced, ...] = ()    # R10, made during this day
    # R14, only with its roles dealt (``r14``), so the seed's JSON stays as it was
    r14: bool = False
    blocked: tuple[str, ...] = ()    # players the Putana blocked (their move void)
    pardoned: bool = False           # the Judge cancelled the day's jailing
    spared: str | None = None        # whom the pardon spared (for the newspaper)
    survived: bool = False           # the Immortal's first attacked night (unnamed)
    guarded: tuple[str, ...] = ()    # Bodyguards who died in someone's place

    def to_json(self) -> dict:
        return {
            "day": self.day,
            "lynched": None if self.lynched is None else {
                "player": self.lynched.player, "role": self.lynched.role.value,
                "by": self.lynched.by},
            "killed": [{"player": d.player, "role": d.role.value, "by": d.by}
                       for d in self.killed],
            "saved": self.saved,
            "frozen": self.frozen,
            "checks": [c.to_json() for c in self.checks],
            "promoted": self.promoted,
            "alive": list(self.alive),
            "winner": self.winner,
            "host_kills": [{"player": k.player, "role": k.role.value,
                            "at": k.at.isoformat(), "why": k.why} for k in self.host_kills],
            "replacements": [{"old": r.old, "new": r.new, "at": r.at.isoformat()}
                             for r in self.replacements],
            **({"blocked": list(self.blocked), "pardoned": self.pardoned,
                "survived": self.survived, "guarded": list(self.guarded)}
               if self.r14 else {}),
        }


# The catalogue of roles (R14) fills ROLE_SIDES; it imports this module's names, defined above.
from . import roles as _roles  # noqa: E402,F401
