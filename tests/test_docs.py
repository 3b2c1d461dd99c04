"""The docs are the project's own and stay true (issue 25): every rule number the code, its
messages and the templates cite is defined in docs/rules.md; every key the game file accepts
is in docs/game-file.md; nothing cites a document the project does not hold; the README stays
a short manual. Each check is a function run on the real files and on a synthetic bad input,
so each can be seen to fail."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from scraper_mod.errors import ConfigError
from scraper_mod.game.setup.config import parse_game
from scraper_mod.rules.model import Role

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README_MAX_LINES = 250

#: the shared documents the project was first written against; it must hold its own (spelt in
#: two halves so that a grep for them finds only real citations)
OUTSIDE_DOCS = ("RULES" ".md", "CONTRACT" ".md")
#: docs that other changes of issue 25 are writing now; once they are merged this set is empty
BEING_WRITTEN = {"docs/architecture.md", "docs/performance.md"}

_TEXT = {".py", ".j2", ".toml", ".md", ".txt", ".html", ".js", ".css", ".json", ".cfg"}
_CITED_RULE = re.compile(r"(?<![A-Za-z0-9_])R(\d+)(?:\.(\d+))?(?![0-9])")
_DEFINED_RULE = re.compile(r"\*\*R(\d+\.\d+)\*\*")
_RULE_HEADING = re.compile(r"^## R(\d+)\.", re.MULTILINE)
_DOCS_PATH = re.compile(r"(?<![\w/.-])docs/[\w./-]+?\.md\b")
_MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _text_files(*roots: Path) -> list[Path]:
    out = []
    for root in roots:
        paths = [root] if root.is_file() else sorted(root.rglob("*"))
        out += [p for p in paths if p.is_file() and p.suffix in _TEXT
                and "__pycache__" not in p.parts]
    return out


# -- the checks -------------------------------------------------------------------------------

def cited_rules(texts: list[str]) -> set[str]:
    """Every rule number (``R5``, ``R5.2``) the texts cite."""
    return {f"R{m[1]}.{m[2]}" if m[2] else f"R{m[1]}"
            for t in texts for m in _CITED_RULE.finditer(t)}


def undefined_rules(cited: set[str], rules_md: str) -> list[str]:
    """The cited numbers that docs/rules.md does not define: ``R5.2`` by a ``**R5.2**`` item,
    ``R5`` by a ``## R5.`` heading."""
    defined = {f"R{n}" for n in _RULE_HEADING.findall(rules_md)}
    defined |= {f"R{n}" for n in _DEFINED_RULE.findall(rules_md)}
    return sorted(cited - defined, key=lambda r: [int(x) for x in r[1:].split(".")])


def dead_citations(files: dict[str, str], exists) -> list[str]:
    """``file: what`` for each citation of a document the project does not hold: the shared
    RULES/CONTRACT files, a ``docs/….md`` path, or a Markdown link of a .md file to a
    relative target. ``files`` maps a path (relative to the root) to its text; ``exists`` says
    whether a root-relative path exists."""
    problems = []
    for name, text in files.items():
        for outside in OUTSIDE_DOCS:
            if outside in text:
                problems.append(f"{name}: cites {outside}")
        targets = set(_DOCS_PATH.findall(text))
        if name.endswith(".md"):
            folder = Path(name).parent
            for link in _MD_LINK.findall(text):
                link = link.split("#")[0]
                if link and not re.match(r"^[a-z]+:", link):
                    targets.add((folder / link).as_posix())
        for target in sorted(targets):
            norm = Path(target).as_posix()
            if not exists(norm) and norm not in BEING_WRITTEN:
                problems.append(f"{name}: cites {norm}, which does not exist")
    return problems


def game_file_keys() -> dict[str, set[str]]:
    """Every key the game file accepts, table by table (``""`` for the top level), as the
    loader itself names them: an unknown key in each table is refused with the known keys in
    the error's hint. ``deal`` takes a key per role."""
    base = {"game": {"start": "2024-03-14"}}
    probes = {"": None, "game": None, "players": [{"nick": "A"}], "mafia": {}, "rules": {},
              "days": [{"number": 1}], "forum": {}, "moves": {}, "schedule": {},
              "publish": {}}
    keys: dict[str, set[str]] = {}
    for table, body in probes.items():
        doc = copy.deepcopy(base)
        if table == "":
            doc["zz_unknown"] = 1
        elif table == "game":
            doc["game"]["zz_unknown"] = 1
        elif isinstance(body, list):
            doc[table] = [dict(body[0], zz_unknown=1)]
        else:
            doc[table] = {"zz_unknown": 1}
        with pytest.raises(ConfigError) as e:
            parse_game(doc, path=Path("game.toml"))
        assert e.value.key is not None and e.value.key.endswith("zz_unknown"), str(e.value)
        hint = e.value.hint
        assert hint.startswith("known keys: "), hint
        keys[table] = set(hint.removeprefix("known keys: ").split(", "))
    keys["deal"] = {r.value for r in Role}
    return keys


def undocumented_keys(keys: dict[str, set[str]], game_file_md: str) -> list[str]:
    """``table.key`` for each accepted key docs/game-file.md does not name as `` `key` `` in
    its table's section (a section per table, headed `` `[table]` `` or `` `[[table]]` ``; a
    top-level key that is no table, such as ``reserve``, headed `` `key` ``)."""
    sections: dict[str, str] = {}
    for part in re.split(r"^## ", game_file_md, flags=re.MULTILINE)[1:]:
        heading, _, body = part.partition("\n")
        m = re.search(r"`\[?\[?(\w+)\]?\]?`", heading)
        if m:
            sections[m[1]] = body
    missing = [f"[{t}] (no section)" for t in sorted(keys.get("", set())) if t not in sections]
    for table, names in sorted(keys.items()):
        if table == "":
            continue
        body = sections.get(table, "")
        missing += [f"{table}.{k}" for k in sorted(names) if f"`{k}`" not in body]
    return missing


def readme_problems(text: str) -> list[str]:
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    return [f"README.md has {lines} lines (at most {README_MAX_LINES})"] \
        if lines > README_MAX_LINES else []


# -- on the project ---------------------------------------------------------------------------

def test_every_cited_rule_is_defined_in_rules_md():
    texts = [p.read_text(encoding="utf-8")
             for p in _text_files(ROOT / "scraper_mod", ROOT / "templates")]
    cited = cited_rules(texts)
    assert {"R2.6", "R5.2", "R12.2", "R6"} <= cited   # the scan does find the citations
    assert undefined_rules(cited, (DOCS / "rules.md").read_text(encoding="utf-8")) == []


def test_nothing_cites_a_document_the_project_does_not_hold():
    paths = _text_files(ROOT / "scraper_mod", ROOT / "templates", ROOT / "tests",
                        ROOT / "bench", DOCS, ROOT / "README.md", ROOT / "CHANGELOG.md")
    # this file's own bad examples are not citations
    files = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in paths
             if p != Path(__file__).resolve()}
    assert "README.md" in files and "docs/rules.md" in files
    assert dead_citations(files, lambda rel: (ROOT / rel).exists()) == []


def test_every_game_file_key_is_in_game_file_md():
    keys = game_file_keys()
    assert {"forum", "rules", "players", "publish"} <= keys[""]
    assert {"tie_scope", "last_word_hours"} <= keys["rules"]
    assert {"max_page_size", "min_delay"} <= keys["forum"]
    doc = (DOCS / "game-file.md").read_text(encoding="utf-8")
    assert undocumented_keys(keys, doc) == []


def test_readme_is_a_short_manual():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_problems(text) == []
    for page in ("game-file.md", "rules.md", "commands.md", "security.md"):
        assert f"(docs/{page})" in text, f"the README does not link docs/{page}"


# -- each check fails on a bad input ----------------------------------------------------------

def test_an_undefined_rule_is_found():
    rules_md = "## R2. Votes\n- **R2.6** The cutoff.\n"
    cited = cited_rules(["see R2.6 and R2.7 (R2); not HTTP/2 nor UTF8R3, but R9"])
    assert cited == {"R2.6", "R2.7", "R2", "R9"}
    assert undefined_rules(cited, rules_md) == ["R2.7", "R9"]


def test_a_dead_citation_is_found():
    files = {
        "scraper_mod/a.py": '"""Votes (' + OUTSIDE_DOCS[0] + ' R2); see docs/gone.md."""',
        "docs/x.md": "[rules](rules.md), [gone](missing.md#top), [web](https://example.org/a.md)",
        "README.md": "[ok](docs/x.md) [perf](docs/performance.md)",
    }
    have = {"docs/x.md", "docs/rules.md", "README.md"}
    assert dead_citations(files, have.__contains__) == [
        f"scraper_mod/a.py: cites {OUTSIDE_DOCS[0]}",
        "scraper_mod/a.py: cites docs/gone.md, which does not exist",
        "docs/x.md: cites docs/missing.md, which does not exist",
    ]


def test_an_undocumented_key_is_found():
    doc = ("## `[forum]`\n| `url` | none |\n\n## `[[players]]`\n| `nick` | |\n"
           "## `[deal]`\n`boss`\n")
    keys = {"": {"forum", "players", "moves"}, "forum": {"url", "min_delay"},
            "players": {"nick"}, "moves": {"source"}, "deal": {"boss", "vsb"}}
    assert undocumented_keys(keys, doc) == ["[moves] (no section)", "deal.vsb",
                                            "forum.min_delay", "moves.source"]


def test_a_long_readme_is_refused():
    assert readme_problems("line\n" * README_MAX_LINES) == []
    assert readme_problems("line\n" * (README_MAX_LINES + 1)) == [
        f"README.md has {README_MAX_LINES + 1} lines (at most {README_MAX_LINES})"]


def unnamed_rules(rules_md: str, test_texts: list[str]) -> list[str]:
    """The numbered rules (``**R5.2**``) of docs/rules.md that no test names (``R5.2`` in a
    test's name, docstring or comment; ``R5_2`` in a test's name counts too)."""
    defined = {f"R{n}" for n in _DEFINED_RULE.findall(rules_md)}
    named = cited_rules(test_texts)
    named |= {f"R{m[1]}.{m[2]}" for t in test_texts
              for m in re.finditer(r"R(\d{1,2})_(\d{1,2})(?!\d)", t)}
    return sorted(defined - named, key=lambda r: [int(x) for x in r[1:].split(".")])


def test_every_rule_of_rules_md_is_named_by_a_test():
    """Every numbered rule the project states in docs/rules.md is named by a test."""
    tests = [p.read_text(encoding="utf-8") for p in _text_files(ROOT / "tests")
             if p.suffix == ".py" and p != Path(__file__).resolve()]
    assert unnamed_rules((DOCS / "rules.md").read_text(encoding="utf-8"), tests) == []


def test_an_unnamed_rule_is_found():
    rules = "## R1. Votes\n- **R1.1** A vote.\n- **R1.2** Another.\n- **R1.3** A third.\n"
    assert unnamed_rules(rules, ["def test_R1_1_votes(): ...", '"""R1.3: a third"""']) == ["R1.2"]
