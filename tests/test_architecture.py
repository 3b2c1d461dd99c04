"""The house rules that a reader of the code can check by eye, checked here on every module.

- ``scraper_mod/rules/`` is the pure core: it imports nothing of the project but itself and
  ``errors`` (including imports under ``TYPE_CHECKING``).
"""

from __future__ import annotations

import ast
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


def test_the_walk_resolves_relative_imports(tmp_path):
    src = "from ..forum.model import Post\nfrom . import names\nimport scraper_mod.store\n"
    path = PACKAGE / "rules" / "x.py"  # never written: only its place in the package matters
    mods = [m for _, m in _project_imports(path, ast.parse(src))]
    assert mods == ["scraper_mod.forum.model", "scraper_mod.rules.names", "scraper_mod.store"]
