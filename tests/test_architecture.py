"""The house rules that a reader of the code can check by eye, checked here on every module.

- ``scraper_mod/rules/`` is the pure core: it imports nothing of the project but itself and
  ``errors`` (including imports under ``TYPE_CHECKING``).
- Every module imports only the packages its package may import: the order of the diagram
  in ``docs/architecture.md`` (``ALLOWED``), imports under ``TYPE_CHECKING`` and inside
  functions included.
- SQL only in ``store.py``: no ``execute(`` call and no SQL statement in a string elsewhere.
- Imports of the project's own modules at the top of modules: inside a function only in
  ``cli/`` (lazy imports for a fast ``--help``) or with a reason in ``IN_FUNCTION_IMPORTS``.
- Types on every public function and method (parameters and return).
- No module over 600 lines and no function over 80 lines without a reason at its top: a
  ``# long: <why>`` comment (a module's within its first 80 lines, a function's right
  under its signature).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "scraper_mod"


def _modules(under: Path) -> list[Path]:
    return sorted(p for p in under.rglob("*.py") if ".venv" not in p.parts)


def _dotted(path: Path) -> list[str]:
    """The module's package path, e.g. ['scraper_mod', 'rules'] for rules/votes.py."""
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    return parts[:-1]


def _project_imports(path: Path, tree: ast.AST) -> list[tuple[int, str]]:
    """(line, absolute dotted name) of every import of a scraper_mod module in ``tree``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "scraper_mod" or alias.name.startswith("scraper_mod."):
                    found.append((node.lineno, alias.name))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _dotted(path)[: len(_dotted(path)) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod == "scraper_mod" or mod.startswith("scraper_mod."):
                if mod in ("scraper_mod", ".".join(_dotted(path))) and not node.module:
                    # ``from . import x`` / ``from .. import x``: the names are modules
                    found.extend((node.lineno, f"{mod}.{a.name}") for a in node.names)
                else:
                    found.append((node.lineno, mod))
    return found


def test_rules_import_nothing_of_the_project_but_rules_and_errors():
    bad = []
    for path in _modules(PACKAGE / "rules"):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, mod in _project_imports(path, tree):
            if not (mod.startswith("scraper_mod.rules") or mod == "scraper_mod.errors"):
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {mod}")
    assert bad == []
    # the walk sees the core's own imports (it would pass vacuously on a wrong path)
    votes = PACKAGE / "rules" / "votes.py"
    mods = {m for _, m in _project_imports(votes, ast.parse(votes.read_text("utf-8")))}
    assert {"scraper_mod.rules.names", "scraper_mod.rules.post"} <= mods


def test_rules_and_game_know_no_forum_engine():
    """Issue 31: the rules core and the services run on any engine: nothing of an engine's
    adapter (forum/smf/, forum/phpbb_board.py) is imported in rules/ or game/."""
    engine_mods = ("scraper_mod.forum.smf", "scraper_mod.forum.phpbb.board")
    bad = []
    for path in _modules(PACKAGE / "rules") + _modules(PACKAGE / "game"):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        bad += [f"{path.relative_to(PACKAGE.parent)}:{line} imports {mod}"
                for line, mod in _project_imports(path, tree) if mod.startswith(engine_mods)]
    assert bad == []
    seam = PACKAGE / "forum" / "engine.py"      # the walk sees such imports where they are
    mods = {m for _, m in _project_imports(seam, ast.parse(seam.read_text("utf-8")))}
    assert {"scraper_mod.forum.smf.board", "scraper_mod.forum.phpbb.board"} <= mods


def test_the_walk_resolves_relative_imports(tmp_path):
    src = "from ..forum.model import Post\nfrom . import names\nimport scraper_mod.store\n"
    path = PACKAGE / "rules" / "x.py"  # never written: only its place in the package matters
    mods = [m for _, m in _project_imports(path, ast.parse(src))]
    assert mods == ["scraper_mod.forum.model", "scraper_mod.rules.names", "scraper_mod.store"]


# -- the package order (docs/architecture.md) ------------------------------------------------

# package (a folder of scraper_mod/, or a module at its top; "scraper_mod" is its __init__,
# the version) -> the other packages of the project it may import. A package always may
# import its own modules. The diagram of docs/architecture.md draws this table.
_BASE = frozenset({"scraper_mod", "errors", "clock"})
_ADAPTED = _BASE | {"rules", "store", "morphology"}
_GAME = _ADAPTED | {"forum", "moves", "posts"}
ALLOWED: dict[str, frozenset[str]] = {
    "scraper_mod": frozenset(),
    "errors": frozenset(),
    "clock": frozenset(),
    "morphology": frozenset(),
    "store": frozenset({"errors"}),
    "rules": frozenset({"errors"}),
    "forum": _BASE | {"store"},
    "posts": _BASE | {"rules"},
    "moves": _ADAPTED | {"forum"},
    "game": _GAME,
    "daemon": _GAME | {"game"},
    "web": _GAME | {"game", "daemon"},
    "demo": _GAME | {"game", "daemon"},
    "cli": _GAME | {"game", "daemon", "web", "demo"},
    "__main__": frozenset({"cli"}),
}


def _package_of(name: str) -> str:
    """The package (an ``ALLOWED`` key) of a dotted module name, or of a name imported from
    ``scraper_mod`` itself (``from .. import __version__``: the package's __init__)."""
    parts = name.split(".")
    if len(parts) == 1:
        return "scraper_mod"
    top = parts[1]
    if (PACKAGE / top).is_dir() or (PACKAGE / f"{top}.py").is_file():
        return top
    return "scraper_mod"


def _package_of_path(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    if len(rel.parts) > 1:
        return rel.parts[0]
    return "scraper_mod" if rel.stem == "__init__" else rel.stem


def _order_violations(path: Path, tree: ast.AST) -> list[str]:
    """Each import of ``tree`` (the module at ``path``) that the package order forbids."""
    own = _package_of_path(path)
    if own not in ALLOWED:
        return [f"{path.relative_to(PACKAGE.parent)}: package {own!r} is not in the table "
                "(add it to ALLOWED and to the diagram of docs/architecture.md)"]
    bad = []
    for line, mod in _project_imports(path, tree):
        other = _package_of(mod)
        if other != own and other not in ALLOWED[own]:
            bad.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {mod} "
                       f"({own} may import {', '.join(sorted(ALLOWED[own])) or 'nothing'})")
    return bad


def test_every_module_follows_the_package_order():
    bad = []
    seen = set()
    for path in _modules(PACKAGE):
        seen.add(_package_of_path(path))
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        bad += _order_violations(path, tree)
    assert bad == []
    # every row is a package that exists (the table is the code's, not a wish list)
    assert seen == set(ALLOWED)


def test_the_package_order_has_no_cycle():
    order: list[str] = []
    left = dict(ALLOWED)
    while left:
        ready = [p for p, deps in left.items() if deps <= set(order)]
        assert ready, f"a cycle among {sorted(left)}"
        order += sorted(ready)
        for p in ready:
            del left[p]
    assert all(set(ALLOWED[p]) <= set(ALLOWED) for p in ALLOWED)
    assert order.index("rules") < order.index("game") < order.index("daemon") < order.index("cli")


def test_the_package_order_check_finds_a_bad_import():
    # a module of forum/ that reaches up into game/ (even for a type only), one of moves/ that
    # imports a post template, and one of posts/ that imports the daemon: each is named
    forum = PACKAGE / "forum" / "x.py"      # never written: only its place in the package matters
    src = ("from typing import TYPE_CHECKING\nfrom ..store import Store\nfrom .client import C\n"
           "if TYPE_CHECKING:\n    from ..game.context import GameContext\n")
    assert [b.split(" imports ")[1].split()[0]
            for b in _order_violations(forum, ast.parse(src))] == ["scraper_mod.game.context"]
    moves = PACKAGE / "moves" / "x.py"
    src = "from ..forum.pm import parse_pm_view\nfrom ..posts.render import render_text\n"
    assert len(_order_violations(moves, ast.parse(src))) == 1
    posts = PACKAGE / "posts" / "x.py"
    src = "def f():\n    import scraper_mod.daemon.work\n"
    assert ["scraper_mod.daemon.work (posts may import"
            in b for b in _order_violations(posts, ast.parse(src))] == [True]
    # a new package at the top needs its row first
    stray = PACKAGE / "newthing.py"
    assert "not in the table" in _order_violations(stray, ast.parse("x = 1\n"))[0]
    # and the table allows what the layers above do
    assert _order_violations(PACKAGE / "game" / "x.py", ast.parse(
        "from ..forum.client import ForumClient\nfrom .. import __version__\n")) == []


# -- SQL only in store.py --------------------------------------------------------------------

_SQL = re.compile(r"\b(SELECT\s.+\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|"
                  r"DELETE\s+FROM|CREATE\s+(TABLE|INDEX|VIEW)|DROP\s+TABLE|ALTER\s+TABLE|PRAGMA|"
                  r"BEGIN(\s+IMMEDIATE)?$|COMMIT$|ROLLBACK$)", re.S)
_EXECUTE = {"execute", "executemany", "executescript"}


def _sql_in(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                    ast.AsyncFunctionDef))
                  and n.body and isinstance(n.body[0], ast.Expr)
                  and isinstance(n.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in _EXECUTE):
            found.append((node.lineno, f".{node.func.attr}("))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docstrings and _SQL.search(node.value.strip())):
            found.append((node.lineno, node.value.strip()[:40]))
    return found


def test_sql_only_in_store():
    bad = []
    for path in _modules(PACKAGE):
        if path == PACKAGE / "store.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        bad += [f"{path.relative_to(PACKAGE.parent)}:{line}: {what}"
                for line, what in _sql_in(tree)]
    assert bad == []
    # and the check finds the store's own SQL
    store = ast.parse((PACKAGE / "store.py").read_text(encoding="utf-8"))
    kinds = {what.split()[0] for _, what in _sql_in(store)}
    assert {".execute(", "SELECT", "INSERT", "CREATE", "PRAGMA", "BEGIN"} <= kinds


# -- imports at the top of modules -----------------------------------------------------------

# module (relative to scraper_mod/) -> why it imports the project inside a function
IN_FUNCTION_IMPORTS: dict[str, str] = {}


def _in_function_imports(path: Path, tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            sub = ast.Module(body=fn.body, type_ignores=[])
            found += _project_imports(path, sub)
    return sorted(set(found))


def test_project_imports_at_the_top_of_modules_outside_cli():
    bad = []
    for path in _modules(PACKAGE):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("cli/") or rel in IN_FUNCTION_IMPORTS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        bad += [f"{rel}:{line} imports {mod} inside a function"
                for line, mod in _in_function_imports(path, tree)]
    assert bad == []
    assert all(reason.strip() for reason in IN_FUNCTION_IMPORTS.values())
    # the walk sees cli/'s lazy imports (there are some, on purpose)
    cli = [m for p in _modules(PACKAGE / "cli")
           for m in _in_function_imports(p, ast.parse(p.read_text(encoding="utf-8")))]
    assert cli


# -- sizes -----------------------------------------------------------------------------------

MODULE_LINES, FUNCTION_LINES = 600, 80
_LONG = re.compile(r"^\s*# long: \S")


def _long_functions(tree: ast.AST, lines: list[str]) -> list[tuple[int, str, int]]:
    """(line, name, length) of functions over the limit without a ``# long:`` reason."""
    found = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = n.end_lineno - n.lineno + 1
            top = lines[n.lineno - 1:n.body[0].lineno]   # the signature down to the body
            if length > FUNCTION_LINES and not any(_LONG.match(x) for x in top):
                found.append((n.lineno, n.name, length))
    return found


def test_no_long_module_or_function_without_a_reason():
    bad = []
    for path in _modules(PACKAGE):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        rel = path.relative_to(PACKAGE.parent)
        if len(lines) > MODULE_LINES and not any(_LONG.match(x) for x in lines[:80]):
            bad.append(f"{rel}: {len(lines)} lines")
        bad += [f"{rel}:{line} {name}: {n} lines"
                for line, name, n in _long_functions(ast.parse(text), lines)]
    assert bad == []


def test_a_long_function_needs_its_reason_at_its_top():
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES))
    bare = f"def f():\n{body}\n"
    told = f"def f():\n    # long: a table written out\n{body}\n"
    late = f"def f():\n{body}\n    # long: too late\n"
    assert [n for _, n, _ in _long_functions(ast.parse(bare), bare.splitlines())] == ["f"]
    assert _long_functions(ast.parse(told), told.splitlines()) == []
    assert [n for _, n, _ in _long_functions(ast.parse(late), late.splitlines())] == ["f"]


# -- types on public functions ---------------------------------------------------------------

# module (relative to scraper_mod/) -> why its public functions may lack types
UNTYPED_MODULES: dict[str, str] = {}


def _untyped_public(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, name) of module-level functions and methods of public classes whose name has
    no leading underscore (``__init__`` included) with a parameter or the return untyped."""
    items: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            items.append((node, False))
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            items += [(m, True) for m in node.body
                      if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    found = []
    for fn, method in items:
        if fn.name.startswith("_") and fn.name != "__init__":
            continue
        a = fn.args
        params = a.posonlyargs + a.args + a.kwonlyargs
        if method and params and params[0].arg in ("self", "cls"):
            params = params[1:]
        params += [p for p in (a.vararg, a.kwarg) if p is not None]
        if any(p.annotation is None for p in params) or (
                fn.returns is None and fn.name != "__init__"):
            found.append((fn.lineno, fn.name))
    return found


def test_public_functions_have_types():
    bad = []
    for path in _modules(PACKAGE):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in UNTYPED_MODULES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bad += [f"{rel}:{line} {name}" for line, name in _untyped_public(tree)]
    assert bad == []
    assert all(reason.strip() for reason in UNTYPED_MODULES.values())  # none today


def test_the_types_check_sees_a_missing_type():
    src = ("def f(x: int) -> int: ...\ndef g(x) -> int: ...\ndef h(x: int): ...\n"
           "def _private(x): ...\nclass C:\n    def __init__(self, x) -> None: ...\n"
           "    def m(self, *a: int, **k) -> None: ...\n")
    assert [n for _, n in _untyped_public(ast.parse(src))] == ["g", "h", "__init__", "m"]


# -- the board seam: no engine outside forum/ (issue 35) ---------------------------------------

# an engine's name or one of its addresses; forum/ (each engine's package and the seam) and
# demo/ (the local imitation of a board) are the only places that know them
ENGINE_WORDS = re.compile(r"phpbb|\bsmf|smf_|fluxbb|mybb|pmsnew|viewtopic|viewforum|index\.php\?(?:topic|board|msg)"
                          r"|[?;&]msg=|ucp\.php|mcp\.php|memberlist|posting\.php", re.I)
ENGINE_PACKAGES = ("forum", "demo")
# the documented old value of ``[moves] source`` (the board's PMs), kept for old game files
OLD_VALUES = ("phpbb_pm",)
# the command line's help texts may name the engines (the host reads them): the keywords
# of argparse whose strings are shown, in cli/ only
HELP_KEYWORDS = ("help", "description", "epilog", "usage")
TEMPLATES = PACKAGE.parent / "templates"


def _help_lines(tree: ast.AST) -> set[int]:
    """The lines of the strings given to argparse as help texts (``help=``, ``description=``)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in HELP_KEYWORDS:
            lines.update(range(node.value.lineno, (node.value.end_lineno or 0) + 1))
    return lines


def _engine_words(path: Path, text: str) -> list[str]:
    """``path:line: word`` of each engine word in a file's text (names, strings, comments)."""
    allowed: set[int] = set()
    if path.suffix == ".py" and path.parent.name == "cli":
        allowed = _help_lines(ast.parse(text))
    found = []
    for i, line in enumerate(text.splitlines(), 1):
        for old in OLD_VALUES:
            line = line.replace(old, "")
        m = ENGINE_WORDS.search(line)
        if m and i not in allowed:
            found.append(f"{path.relative_to(PACKAGE.parent)}:{i}: {m.group(0)}")
    return found


def test_no_engine_word_outside_forum_and_demo():
    """Issue 35: the game reaches its board only through its ``Board``: outside forum/ and
    demo/ no name, string or comment names phpBB, SMF or one of their addresses (the old value
    ``phpbb_pm`` and the command line's help texts aside); nor do the host's page's script and
    the post templates."""
    files = [p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".js", ".html", ".css")
             and ".venv" not in p.parts and p.relative_to(PACKAGE).parts[0]
             not in ENGINE_PACKAGES]
    files += sorted(TEMPLATES.glob("*.j2"))
    bad = [hit for p in sorted(files) for hit in _engine_words(p, p.read_text("utf-8"))]
    assert bad == []
    # the scan sees what it looks for (it would pass vacuously on a wrong path or pattern)
    assert len(files) > 100 and any(p.suffix == ".js" for p in files)
    seam = PACKAGE / "forum" / "engine.py"
    assert _engine_words(seam, seam.read_text("utf-8"))
    cli = PACKAGE / "cli" / "posts.py"
    source = cli.read_text("utf-8")
    assert ENGINE_WORDS.search(source) and not _engine_words(cli, source)  # help texts only
    assert _engine_words(cli, source + "\nx = 'viewtopic.php?t=1'\n")
    assert not _engine_words(cli, 'source = "phpbb_pm"\n')


# -- per-game state lives on the game (issue 35) ------------------------------------------------

# module (relative to scraper_mod/) -> why it may keep a cache of its own
CACHES_ALLOWED = {
    "game/results/rendering.py": "the template environment of a game's own templates/ folder: built "
                         "from files, the same for every game that shares the folder",
    "posts/bbcode.py": "the compiled pattern of a set of BBCode tags: no game's value",
    "posts/render.py": "the package's own template environment: no game's value",
}


def _module_caches(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, name) of functools caches on module-level functions and of module-level
    names holding a cache (a name with "cache" bound to a dict)."""
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in ("lru_cache", "cache"):
                    found.append((node.lineno, node.name))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and "cache" in t.id.lower() and isinstance(
                        node.value, (ast.Dict, ast.Call)):
                    found.append((node.lineno, t.id))
    return found


def test_no_module_level_cache_of_a_games_values():
    """What a game derives (the move matcher of its players, the name index of its names,
    its wordings) is kept on its ``GameContext`` (``memo``), not in a module: two games in one
    process never share or evict each other's values."""
    bad = []
    for sub in ("game", "posts", "moves"):
        for path in _modules(PACKAGE / sub):
            rel = path.relative_to(PACKAGE).as_posix()
            if rel in CACHES_ALLOWED:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            bad += [f"{rel}:{line} {name}" for line, name in _module_caches(tree)]
    assert bad == []
    src = ("import functools\n_cache: dict = {}\n@functools.lru_cache(maxsize=8)\n"
           "def f(x): ...\n@lru_cache\ndef g(x): ...\n")
    assert [n for _, n in _module_caches(ast.parse(src))] == ["_cache", "f", "g"]
