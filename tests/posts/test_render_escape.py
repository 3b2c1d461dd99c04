"""Player-controlled text (nicks, the murder story) comes out BBCode-inert (issue 6, R9.1).

A nick like ``[/b][url=http://x]y[/url]`` or ``[color=red]`` must read as itself in every
post and never open or close a tag or a link. Checked two ways: the tags of the rendered
posts are exactly those of the same day with harmless nicks, and the HTML phpBB would show
(``posts.bbcode.bbcode_to_html``) holds no link or color the players wrote.
"""

from __future__ import annotations

import dataclasses
import html
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from render_scenarios import SCENARIOS, scenario

from scraper_mod.game.results.rendering import code_table, render_day
from scraper_mod.posts.bbcode import bbcode_to_html
from scraper_mod.posts.render import ZWSP, bbcode_inert

EVIL = {
    "Вася": "[/b][url=http://x]y[/url]",
    "Big Joe": "[color=red]",
    "Лиса": "[/list][/quote][code]",
    "Кот": "www.evil.example [*]",
    "Игрок-7": "[size=200][b]BIG",
}
EVIL_STORY = "[/quote][url=http://evil.example]click[/url] [b]жирно http://x.example"
TAG = re.compile(r"\[/?(?:\*|[a-z]+)(?:=[^\]]*)?\]", re.I)


CODE_BODY = re.compile(r"\[code\].*?\[/code\]", re.S | re.I)


def tags(text: str) -> list[str]:
    """The tags phpBB sees: inside [code] nothing but its end is markup, so a code block's
    body (which may quote nicks byte for byte, e.g. the random list to hash) is skipped."""
    return TAG.findall(CODE_BODY.sub("[code][/code]", text))


def renamed(obj, mapping):
    """``obj`` with every string equal to a key of ``mapping`` replaced, all the way down."""
    if isinstance(obj, str):
        return mapping.get(obj, obj)
    if isinstance(obj, tuple):
        return tuple(renamed(x, mapping) for x in obj)
    if isinstance(obj, list):
        return [renamed(x, mapping) for x in obj]
    if isinstance(obj, dict):
        return {renamed(k, mapping): renamed(v, mapping) for k, v in obj.items()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {f.name: renamed(getattr(obj, f.name), mapping)
                   for f in dataclasses.fields(obj) if f.init}
        return dataclasses.replace(obj, **changes)
    return obj


def evil(name, lang):
    r = renamed(scenario(name, lang), EVIL)
    if r.result.story:
        r = dataclasses.replace(r, result=dataclasses.replace(r.result, story=EVIL_STORY))
    return r


def posts(files):
    return {k: v for k, v in files.items() if not k.endswith((".json", "host-report.txt"))}


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_evil_nicks_leave_the_markup_unchanged(name, lang):
    """The tags in every post are the template's own: the same as with harmless nicks."""
    plain = posts(render_day(scenario(name, lang)))
    bad = posts(render_day(evil(name, lang)))
    back = {v: k for k, v in EVIL.items()}
    for rel, text in bad.items():
        plain_rel = re.sub(r"[^/]+(?=\.txt$)", lambda m: back.get(m.group(0), m.group(0)), rel)
        if rel.startswith("pm/") and plain_rel == rel:
            plain_rel = next(k for k in plain if k.startswith("pm/") and k not in bad)
        assert tags(text) == tags(plain[plain_rel]), rel
        assert text.lower().count("[/code") == plain[plain_rel].lower().count("[/code"), rel


HTML_TAG = re.compile(r"<[^>]+>")


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_evil_nicks_show_as_text_in_what_phpbb_renders(name):
    """The HTML phpBB shows has the same elements as with harmless nicks, and the nicks
    read as written."""
    plain = posts(render_day(scenario(name, "ru")))
    bad = posts(render_day(evil(name, "ru")))
    for rel in ("newspaper.bbcode", "day-start.bbcode"):
        page = bbcode_to_html(bad[rel])
        assert HTML_TAG.findall(page) == HTML_TAG.findall(bbcode_to_html(plain[rel])), rel
        assert 'href="http://x"' not in page and 'href="http://www.evil' not in page
    paper = bbcode_to_html(bad["newspaper.bbcode"])
    visible = html.unescape(HTML_TAG.sub("", paper)).replace(ZWSP, "")
    for old, nick in EVIL.items():
        if old in scenario(name).alive_before:
            assert nick in visible, nick


def test_the_murder_story_cannot_leave_its_quote():
    files = render_day(evil("votes-lynch", "ru"))
    paper = files["newspaper.bbcode"]
    assert paper.count("[quote]") == 1 and paper.count("[/quote]") == 1
    page = bbcode_to_html(paper)
    block = re.search(r"<blockquote class=\"uncited\"><div>(.*?)</div></blockquote>", page,
                      re.S).group(1)
    assert html.unescape(block).replace(ZWSP, "") == EVIL_STORY
    assert "<a " not in block and "<strong" not in block


def test_code_table_keeps_columns_with_inert_nicks():
    r = evil("random-tie", "ru")
    lines = code_table(r.candidates, ("Кандидат", "Голоса", "Кто голосовал")).splitlines()
    col = [ln.replace(ZWSP, "").index("2") for ln in lines[1:3]]
    assert col[0] == col[1]
    assert "[/code]" not in "\n".join(lines)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]/=*\"bBiuUrlLcodeqtsizw.:@hp#1 \nЯя")) ,
               max_size=40))
def test_any_text_through_bb_renders_as_itself(s):
    """Property: whatever a player writes, after ``bb`` phpBB shows it as plain text."""
    inert = bbcode_inert(s)
    post = f"«{inert}»"                   # inside a post (phpBB trims a whole message)
    page = bbcode_to_html(post)
    assert page.replace("<br>\n", "\n") == html.escape(post, quote=False)
    assert inert.replace(ZWSP, "") == s


def test_a_nick_that_would_close_the_code_block_is_made_inert_there():
    from scraper_mod.game.results.report import RandomReveal, code_inert
    text = RandomReveal(order=("a[/CODE][b]x", "b"), salt="s").text
    inside = code_inert(text)
    assert "[/CODE]" not in inside and inside.replace(ZWSP, "") == text
    page = bbcode_to_html(f"[code]{inside}[/code]")
    assert page.count("</code>") == 1 and "<strong" not in page
    plain = RandomReveal(order=("[b]Вася", "Маша"), salt="s").text
    assert code_inert(plain) == plain          # byte for byte, so the hash can be checked


NICK_CHARS = st.sampled_from(list("[]/=*\"'bBiuUrlLcodeqtsizw.:@hp#1 Яя<>&"))


@settings(max_examples=60, deadline=None)
@given(nick=st.text(alphabet=NICK_CHARS, min_size=1, max_size=24).filter(
    lambda s: s.strip() and s not in scenario("votes-lynch").roles),
    story=st.text(alphabet=NICK_CHARS, max_size=40),
    name=st.sampled_from(["votes-lynch", "random-tie", "town-wins"]))
def test_any_nick_and_story_leave_the_markup_unchanged(nick, story, name):
    """Property: whatever nick a player picks and whatever story the mafia writes, the posts
    carry exactly the template's tags, and phpBB shows the nick as written."""
    plain = scenario(name, "ru")
    bad = renamed(plain, {"Вася": nick})
    if bad.result.story:
        bad = dataclasses.replace(bad, result=dataclasses.replace(bad.result, story=story or "."))
    a, b = posts(render_day(plain)), posts(render_day(bad))
    for rel in ("newspaper.bbcode", "day-start.bbcode"):
        assert tags(b[rel]) == tags(a[rel]), rel
        page = bbcode_to_html(b[rel])
        assert HTML_TAG.findall(page) == HTML_TAG.findall(bbcode_to_html(a[rel])), rel
