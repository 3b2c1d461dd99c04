"""The roles as data (RULES R4, R14): one catalogue entry per role, the seed's eight included.

Each ``RoleSpec`` says the role's id, its Russian and English names, its side, what its card
tells (``knows``), how a check shows it, and its night move (``MoveSpec``: the move's kind,
which targets it allows, its limits, and the step of R14.1 at which it acts). The resolution
(rules/night.py) and the move judge (rules/moves.py) read these entries; the move words the
grammar knows by default are ``MOVE_WORDS``. Adding a role is adding an entry here (and its
texts in templates/), plus an ``effect`` the night already knows.

Setups (R14.3): ``[roles] setup = {role = count}`` or ``preset = "name"`` (``PRESETS``), and
``[roles.words]`` (a house's own move words, added to the defaults). ``read_setup`` checks
them and words any problem as one line naming the key and the fix, in the game's language.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NoReturn

from .model import ROLE_SIDES, MoveKind, Role, Side

# R14.1: the steps of a resolution, in order
STEP_DAY = 1       # the count and the jailing: the Judge's pardon, the Kamikaze's taking
STEP_BLOCK = 2     # the freeze, then blocks
STEP_DEFEND = 3    # the Lawyer's defence
STEP_PROTECT = 4   # heals and guards, then kills; the Immortal's first attacked night
STEP_KILL = 4
STEP_CHECK = 5     # checks and comparisons


@dataclass(frozen=True)
class MoveSpec:
    """A role's night move.

    ``target``: ``other`` (a living player but the sender), ``any`` (a living player, the
    sender too), ``non_mafioso``, ``mafioso`` (a living mafioso but the sender), ``pair``
    (two living players but the sender), ``none``. ``effect`` is what the night does with it
    (rules/night.py): kill, heal, check, freeze, block, guard, defend, compare, pardon, take.
    """

    kind: MoveKind
    effect: str
    step: int
    target: str = "other"
    once_a_game: bool = False          # the Judge's pardon
    not_twice_running: bool = False    # the Putana's block
    standing: bool = False             # the Kamikaze's taking stays until changed
    example_ru: str = ""
    example_en: str = ""


@dataclass(frozen=True)
class RoleSpec:
    role: Role
    ru: str
    en: str
    side: Side
    moves: tuple[MoveSpec, ...] = ()
    single: bool = True                # at most one in a game
    knows: str = ""                    # "mafia" | "sergeant" | "commissar" | ""
    shown_as: Role | None = None       # the ВСБ's card and checks show «мирный»
    passive: str = ""                  # "immortal" | "mayor": acts without a move
    r14: bool = False                  # a role of R14 (its JSON fields appear when dealt)

    @property
    def id(self) -> str:
        return self.role.value

    @property
    def move_kinds(self) -> frozenset[MoveKind]:
        return frozenset(m.kind for m in self.moves)

    def move(self, kind: MoveKind) -> MoveSpec | None:
        return next((m for m in self.moves if m.kind is kind), None)


_KILL_M = MoveSpec(MoveKind.KILL, "kill", STEP_KILL, "non_mafioso",
                   example_ru="убиваю Васю", example_en="kill Vasya")
_FREEZE = MoveSpec(MoveKind.FREEZE, "freeze", STEP_BLOCK, "non_mafioso",
                   example_ru="замораживаю Васю", example_en="freeze Vasya")
_CHECK = MoveSpec(MoveKind.CHECK, "check", STEP_CHECK, example_ru="проверяю Васю",
                  example_en="check Vasya")

CATALOGUE: dict[Role, RoleSpec] = {s.role: s for s in (
    RoleSpec(Role.BOSS, "Босс", "Boss", Side.MAFIA, (_KILL_M, _FREEZE), knows="mafia"),
    RoleSpec(Role.MAFIA, "мафиози", "mafioso", Side.MAFIA, (_KILL_M,), single=False,
             knows="mafia"),
    RoleSpec(Role.COMMISSAR, "Комиссар", "Commissar", Side.TOWN, (_CHECK,), knows="sergeant"),
    RoleSpec(Role.SERGEANT, "Сержант", "Sergeant", Side.TOWN, (_CHECK,), knows="commissar"),
    RoleSpec(Role.DOCTOR, "Доктор", "Doctor", Side.TOWN, (
        MoveSpec(MoveKind.HEAL, "heal", STEP_PROTECT, "any", example_ru="лечу Машу",
                 example_en="heal Masha"),)),
    RoleSpec(Role.MANIAC, "Маньяк", "Maniac", Side.ALONE, (
        MoveSpec(MoveKind.KILL, "kill", STEP_KILL, example_ru="убиваю Васю",
                 example_en="kill Vasya"),)),
    RoleSpec(Role.VSB, "ВСБ", "VSB (the Boss's secret son)", Side.TOWN, single=False,
             shown_as=Role.CIVILIAN),
    RoleSpec(Role.CIVILIAN, "мирный житель", "civilian", Side.TOWN, single=False),
    # R14
    RoleSpec(Role.PUTANA, "Путана", "Putana (the Mistress)", Side.TOWN, (
        MoveSpec(MoveKind.BLOCK, "block", STEP_BLOCK, not_twice_running=True,
                 example_ru="блокирую Васю", example_en="block Vasya"),), r14=True),
    RoleSpec(Role.BODYGUARD, "Телохранитель", "Bodyguard", Side.TOWN, (
        MoveSpec(MoveKind.GUARD, "guard", STEP_PROTECT, example_ru="охраняю Машу",
                 example_en="guard Masha"),), r14=True),
    RoleSpec(Role.LAWYER, "Адвокат", "Lawyer", Side.MAFIA, (
        MoveSpec(MoveKind.DEFEND, "defend", STEP_DEFEND, "mafioso",
                 example_ru="защищаю Васю", example_en="defend Vasya"),),
             knows="mafia", r14=True),
    RoleSpec(Role.JOURNALIST, "Журналист", "Journalist", Side.TOWN, (
        MoveSpec(MoveKind.COMPARE, "compare", STEP_CHECK, "pair",
                 example_ru="сравниваю Васю и Машу", example_en="compare Vasya and Masha"),),
             r14=True),
    RoleSpec(Role.SHERIFF, "Шериф", "Sheriff", Side.TOWN, (
        MoveSpec(MoveKind.KILL, "kill", STEP_KILL, example_ru="застрелить Васю",
                 example_en="shoot Vasya"),), r14=True),
    RoleSpec(Role.IMMORTAL, "Бессмертный", "Immortal", Side.TOWN, passive="immortal",
             r14=True),
    RoleSpec(Role.MAYOR, "Мэр", "Mayor", Side.TOWN, passive="mayor", r14=True),
    RoleSpec(Role.JUDGE, "Судья", "Judge", Side.TOWN, (
        MoveSpec(MoveKind.PARDON, "pardon", STEP_DAY, "none", once_a_game=True,
                 example_ru="помиловать", example_en="pardon"),), r14=True),
    RoleSpec(Role.KAMIKAZE, "Камикадзе", "Kamikaze", Side.TOWN, (
        MoveSpec(MoveKind.TAKE, "take", STEP_DAY, standing=True,
                 example_ru="забрать Васю", example_en="take Vasya"),), r14=True),
)}

#: the default move words: stems matched against the start of a case-folded word (ё → е)
MOVE_WORDS: dict[MoveKind, tuple[str, ...]] = {
    MoveKind.KILL: ("убить", "убива", "убью", "убьем", "убей", "убийств", "kill", "застрел",
                    "стреля", "стрелять", "shoot", "murder", "замоч", "мочим", "мочу"),
    MoveKind.HEAL: ("лечи", "лечу", "лечим", "лечен", "вылеч", "heal", "спаса", "спасти",
                    "спасу", "спасем", "save", "protect"),
    MoveKind.CHECK: ("провер", "check", "investigat", "inspect"),
    MoveKind.FREEZE: ("замор", "морож", "мороз", "freez", "froze"),
    MoveKind.BLOCK: ("блокир", "блокну", "заблокир", "навещ", "навест", "block", "visit"),
    MoveKind.GUARD: ("охран", "прикры", "guard"),
    MoveKind.DEFEND: ("защит", "защищ", "defend"),
    MoveKind.COMPARE: ("сравн", "compare"),
    MoveKind.PARDON: ("помил", "pardon"),
    MoveKind.TAKE: ("забрать", "забира", "заберу", "забер", "take"),
}

ROLE_SIDES.update({r: s.side for r, s in CATALOGUE.items()})

SEED_ROLES = (Role.BOSS, Role.MAFIA, Role.COMMISSAR, Role.SERGEANT, Role.DOCTOR,
              Role.MANIAC, Role.VSB, Role.CIVILIAN)
ROLE_ORDER = tuple(CATALOGUE)


def spec(role: Role) -> RoleSpec:
    return CATALOGUE[role]


def moves_of(role: Role) -> frozenset[MoveKind]:
    return CATALOGUE[role].move_kinds


def is_r14(roles: Iterable[Role]) -> bool:
    """True when any R14 role is dealt (its JSON fields and texts then appear)."""
    return any(CATALOGUE[r].r14 for r in roles)


def kinds_dealt(roles: Iterable[Role]) -> frozenset[MoveKind]:
    """The move kinds of the dealt roles (the seed's four always: older games' answers)."""
    out = {MoveKind.KILL, MoveKind.HEAL, MoveKind.CHECK, MoveKind.FREEZE}
    for r in roles:
        out |= CATALOGUE[r].move_kinds
    return frozenset(out)


# -- setups -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Preset:
    name: str
    counts: Mapping[Role, int]   # civilians fill the rest
    players: tuple[int, int]     # the table it is meant for
    ru: str = ""
    en: str = ""


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("classic", {}, (5, 30), "классика: расклад по умолчанию (R4)",
           "the seed's setup (R4), by the number of players"),
    Preset("putana", {Role.BOSS: 1, Role.MAFIA: 1, Role.LAWYER: 1, Role.COMMISSAR: 1,
                      Role.DOCTOR: 1, Role.PUTANA: 1}, (10, 14),
           "Путана и Адвокат: 3 мафии, Комиссар, Доктор, Путана",
           "Putana and Lawyer: 3 mafia, Commissar, Doctor, Putana"),
    Preset("sheriff", {Role.BOSS: 1, Role.MAFIA: 2, Role.COMMISSAR: 1, Role.DOCTOR: 1,
                       Role.SHERIFF: 1, Role.PUTANA: 1, Role.BODYGUARD: 1}, (11, 14),
           "Шериф и Телохранитель: 3 мафии, Комиссар, Доктор, Шериф, Путана, Телохранитель",
           "Sheriff and Bodyguard: 3 mafia, Commissar, Doctor, Sheriff, Putana, Bodyguard"),
    Preset("city", {Role.BOSS: 1, Role.MAFIA: 1, Role.LAWYER: 1, Role.COMMISSAR: 1,
                    Role.DOCTOR: 1, Role.PUTANA: 1, Role.JOURNALIST: 1, Role.MAYOR: 1,
                    Role.JUDGE: 1, Role.KAMIKAZE: 1, Role.IMMORTAL: 1}, (13, 16),
           "Город: 3 мафии и девять ролей города",
           "City: 3 mafia and nine town roles"),
)}


@dataclass(frozen=True)
class RolesSetup:
    """``[roles]`` as read: ``counts`` (None: the seed's default setup by the number of
    players, or ``[deal]``), the preset's name, and the house's own move words."""

    counts: Mapping[Role, int] | None = None
    preset: str | None = None
    words: Mapping[MoveKind, tuple[str, ...]] = field(default_factory=dict)


Fail = Callable[[str, str, str], NoReturn]   # (key, English line, Russian line)


def _fill(counts: dict[Role, int], n: int | None) -> dict[Role, int]:
    """Civilians fill the rest of the table (when the number of players is known)."""
    out = {r: counts.get(r, 0) for r in ROLE_ORDER if counts.get(r, 0)}
    if n is not None and Role.CIVILIAN not in counts:
        rest = n - sum(out.values())
        if rest > 0:
            out[Role.CIVILIAN] = rest
    return out


def _toml_value(v: object) -> str:
    """A value as TOML writes it (``true``, ``"x"``, ``1.5``), for the error line."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(v)


def read_setup(tbl: Mapping, *, players: int | None, fail: Fail) -> RolesSetup:
    # long: one check per kind of bad input R14/issue 37 names, each with its own words
    """Validate ``[roles]`` (R14.3). ``players``: how many the game file lists (None when
    they are not known yet). Every problem calls ``fail(key, english, russian)``."""
    known_keys = {"setup", "preset", "words"}
    for k in tbl:
        if k not in known_keys:
            fail(f"roles.{k}", f"unknown key (one of {', '.join(sorted(known_keys))})",
                 f"неизвестный ключ (допустимы: {', '.join(sorted(known_keys))})")
    ids = ", ".join(r.value for r in ROLE_ORDER)
    counts: dict[Role, int] | None = None
    preset = tbl.get("preset")
    if preset is not None:
        if "setup" in tbl:
            fail("roles.preset", "give either setup or preset, not both",
                 "укажите что-то одно: setup или preset")
        if not isinstance(preset, str) or preset not in PRESETS:
            names = ", ".join(PRESETS)
            fail("roles.preset", f"unknown preset {preset!r} (one of {names})",
                 f"неизвестный расклад {preset!r} (есть: {names})")
        p = PRESETS[preset]
        counts = None if not p.counts else dict(p.counts)
    raw = tbl.get("setup")
    if raw is not None:
        if not isinstance(raw, Mapping) or not raw:
            fail("roles.setup", "must be a table of role = count, e.g. "
                 "{ boss = 1, mafia = 2, commissar = 1, doctor = 1, putana = 1 }",
                 "должна быть таблица «роль = число», например "
                 "{ boss = 1, mafia = 2, commissar = 1, doctor = 1, putana = 1 }")
        counts = {}
        for key, v in raw.items():
            try:
                role = Role(key)
            except ValueError:
                fail(f"roles.setup.{key}", f"unknown role {key!r} (one of {ids})",
                     f"неизвестная роль {key!r} (есть: {ids})")
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                shown = _toml_value(v)    # as the host wrote it: true, "x", 1.5
                fail(f"roles.setup.{key}", f"must be a count of at least 1, not {shown} "
                     "(leave a role out to deal none)",
                     f"число должно быть не меньше 1, а не {shown} (роль, которой нет, "
                     "просто не пишите)")
            if v > 1 and CATALOGUE[role].single:
                fail(f"roles.setup.{key}", f"{v} of {key}: the rules allow one; write "
                     f"{key} = 1",
                     f"{key} = {v}: по правилам такая роль одна; напишите {key} = 1")
            counts[role] = v
    if counts is not None:
        total = sum(counts.values())
        if players is not None and total > players:
            fail("roles.setup" if raw is not None else "roles.preset",
                 f"{total} roles for {players} players: remove roles or add players",
                 f"ролей {total}, а игроков {players}: уберите роли или добавьте игроков")
        if players is not None and Role.CIVILIAN in counts and total != players:
            fail("roles.setup", f"the counts add up to {total} roles for {players} players "
                 "(leave civilian out to fill the rest)",
                 f"ролей {total}, а игроков {players} (не пишите civilian — мирные "
                 "заполнят остальное)")
        mafiosi = counts.get(Role.BOSS, 0) + counts.get(Role.MAFIA, 0)
        if counts.get(Role.LAWYER) and not mafiosi:
            fail("roles.setup.lawyer", "a Lawyer defends a mafioso, and this setup has no "
                 "boss or mafia: add them or drop the lawyer",
                 "Адвокат защищает мафиози, а в раскладе нет ни boss, ни mafia: добавьте "
                 "мафию или уберите lawyer")
        if not mafiosi and not counts.get(Role.LAWYER):
            fail("roles.setup", "the setup has no mafioso: add boss or mafia",
                 "в раскладе нет мафии: добавьте boss или mafia")
        counts = _fill(counts, players)
    words = _read_words(tbl.get("words"), counts, fail)
    return RolesSetup(counts=counts, preset=preset if isinstance(preset, str) else None,
                      words=words)


def _read_words(raw: object, counts: Mapping[Role, int] | None, fail: Fail
                ) -> dict[MoveKind, tuple[str, ...]]:
    if raw is None:
        return {}
    kinds = ", ".join(k.value for k in MoveKind)
    if not isinstance(raw, Mapping):
        fail("roles.words", "must be a table of move = [words], e.g. block = [\"блокирую\"]",
             "должна быть таблица «ход = [слова]», например block = [\"блокирую\"]")
    out: dict[MoveKind, tuple[str, ...]] = {}
    for key, v in raw.items():
        try:
            kind = MoveKind(key)
        except ValueError:
            fail(f"roles.words.{key}", f"unknown move {key!r} (one of {kinds})",
                 f"неизвестный ход {key!r} (есть: {kinds})")
        if not isinstance(v, list) or not all(isinstance(w, str) and w.strip() for w in v):
            fail(f"roles.words.{key}", "must be a list of words, e.g. [\"блокирую\"]",
                 "нужен список слов, например [\"блокирую\"]")
        out[kind] = tuple(fold_stem(w) for w in v)
    dealt = kinds_dealt(counts or {r: 1 for r in SEED_ROLES})
    for kind, ws in out.items():
        for w in ws:
            for other, stems in (*out.items(), *MOVE_WORDS.items()):
                if other is kind or other not in dealt:
                    continue
                clash = next((s for s in stems if w.startswith(s) or s.startswith(w)), None)
                if clash is not None:
                    fail(f"roles.words.{kind.value}",
                         f"the word {w!r} is also a word of the move {other.value} "
                         f"({clash!r}): a message would read as both; choose another word",
                         f"слово {w!r} совпадает со словом хода {other.value} ({clash!r}): "
                         "ход читался бы двояко; выберите другое слово")
    return out


def fold_stem(word: str) -> str:
    return word.strip().casefold().replace("ё", "е")


def move_words(setup_words: Mapping[MoveKind, tuple[str, ...]] | None = None,
               kinds: Iterable[MoveKind] | None = None) -> dict[MoveKind, tuple[str, ...]]:
    """The grammar's words: the defaults of ``kinds`` (all when None) plus the house's."""
    want = set(kinds) if kinds is not None else set(MOVE_WORDS)
    out = {k: v for k, v in MOVE_WORDS.items() if k in want}
    for k, ws in (setup_words or {}).items():
        out[k] = tuple(dict.fromkeys((*ws, *out.get(k, ()))))
    return out
