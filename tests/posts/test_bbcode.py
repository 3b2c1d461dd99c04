"""The one BBCode renderer (posts/bbcode.py) against a real phpBB 3.3.15 (issue 11).

fixtures/phpbb/bbcode-3.3.15 holds what the real board showed for 64 posts: every tag the
templates write and their edge cases, and whole scenario days as scraper-mod renders them
(see its README; capture.py made it). The preview, the host's web page and LocalBoard all
render with this one function, so the preview of a newspaper is what LocalBoard shows.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from render_scenarios import SCENARIOS, scenario

from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.forum.phpbb.links import PAGE_LINKS
from scraper_mod.game.results.rendering import render_day
from scraper_mod.posts.bbcode import STOCK_TAGS, bbcode_to_html
from scraper_mod.posts.preview import preview_files

ROOT = Path(__file__).resolve().parents[2]
CAPTURE = ROOT / "fixtures" / "phpbb" / "bbcode-3.3.15"
CASES = json.loads((CAPTURE / "cases.json").read_text(encoding="utf-8"))


def post_bodies(page: str) -> dict[int, str]:
    """Each post's ``<div class="content">`` inner HTML, by post id, as the page has it."""
    out = {}
    for m in re.finditer(r'<div id="p(\d+)" class="post', page):
        start = page.index('<div class="content">', m.end()) + len('<div class="content">')
        depth, at = 1, start
        while depth:
            opening, closing = page.find("<div", at), page.find("</div>", at)
            if opening != -1 and opening < closing:
                depth, at = depth + 1, opening + 4
            else:
                depth, at = depth - 1, closing + 6
        out[int(m.group(1))] = page[start:at - 6]
    return out


def real_bodies() -> dict[int, str]:
    out: dict[int, str] = {}
    for f in sorted(CAPTURE.glob("topic_start*.html")):
        out.update(post_bodies(f.read_text(encoding="utf-8")))
    return out


REAL = real_bodies()


class _Addr:
    server_address = ("127.0.0.1", 8033)   # pages rendered without serving (test_localboard)


@pytest.mark.parametrize("post_id", sorted(int(k) for k in CASES["posts"]))
def test_each_post_renders_as_the_real_board_showed_it(post_id):
    """The capture's board is stock phpBB (board language en, no custom BBCode)."""
    source = CASES["posts"][str(post_id)]
    assert bbcode_to_html(source, lang="en", custom=(), links=PAGE_LINKS) == REAL[post_id], source


def test_every_tag_the_templates_write_is_captured():
    """Each tag a template writes was posted on the real board (the board's own table tags
    too: a stock board shows them as text, which the capture holds)."""
    written = set()
    for t in (ROOT / "templates").glob("*.bbcode.j2"):
        written |= {m.lower() for m in re.findall(r"\[/?(\*|[a-z]+)", t.read_text("utf-8"))}
    written -= {"forum", "nick"}          # placeholders in the prose, not tags
    sources = "\n".join(CASES["posts"].values()).lower()
    for tag in written:
        assert f"[{tag}" in sources, tag
    assert written - {"table", "tr", "td"} <= STOCK_TAGS
    assert "[table]" in REAL[next(int(k) for k, v in CASES["posts"].items()
                                  if v.startswith("[s]x[/s] [table]"))]


def test_what_the_capture_shows_about_phpbb():
    """The facts the renderer follows, read from the real pages (not from the renderer)."""
    by_source = {v: REAL[int(k)] for k, v in CASES["posts"].items()}
    assert by_source["[b]a[/b] [i]b[/i] [u]c[/u]"] == (
        '<strong class="text-strong">a</strong> <em class="text-italics">b</em> '
        '<span style="text-decoration:underline">c</span>')
    assert by_source["[b]open"] == '<strong class="text-strong">open</strong>'
    assert by_source["close[/b]"] == "close[/b]"
    assert by_source["[url=javascript:alert(1)]x[/url]"] == "[url=javascript:alert(1)]x[/url]"
    assert by_source["<script>alert(1)</script> & \"q\" 'a' &amp;"] == (
        "&lt;script&gt;alert(1)&lt;/script&gt; &amp; \"q\" 'a' &amp;amp;")
    assert by_source["[list]\n[*]a\n[*]b\n[/list]\nafter"] == (
        "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\nafter")
    assert "[size=abc]x[/size]" in CASES["refused"]


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_preview_of_a_day_is_what_localboard_shows(name, lang):
    """The newspaper and the day start: the body of the preview page equals the post's body
    on a LocalBoard topic page in the same language (a board with the table tags the game
    says it has, for the newspaper's table layout)."""
    report = scenario(name, lang)
    files = render_day(report)
    pages = preview_files(files, lang=lang)
    tags = ("spoiler", "table") if report.options.table_bbcode else ("spoiler",)
    board = LocalBoard(language=lang, custom_bbcodes=tags,
                       clock=lambda: datetime(2024, 3, 20, tzinfo=timezone.utc))
    board._server = _Addr()
    topic = board.add_topic("Итоги")
    ids = {rel: board.add_post("admin", 2, files[rel],
                               datetime(2024, 3, 15, 18, i, tzinfo=timezone.utc))
           for i, rel in enumerate(("newspaper.bbcode", f"day-{report.day + 1}-start.bbcode"))}
    shown = post_bodies(board.render_topic(topic))
    for rel, post_id in ids.items():
        page = pages[f"preview/{rel.rsplit('.', 1)[0]}.html"]
        body = page.split('<div class="content">', 1)[1].rsplit("</div>\n</div>", 1)[0]
        assert body == shown[post_id], rel
        assert "[b]" not in body and '<strong class="text-strong">' in body


PIECES = ["[b]", "[/b]", "[i]", "[/i]", "[u]", "[size=150]", "[/size]", "[color=red]",
          "[/color]", "[url=http://a.example/]", "[url]", "[/url]", "[list]", "[list=1]",
          "[/list]", "[*]", "[quote]", '[quote="Вася"]', "[/quote]", "[code]", "[/code]",
          "[spoiler]", "[/spoiler]", "[table]", "[tr]", "[td]", "[/td]", "[/tr]", "[/table]",
          "\n", " ", "x", "Вася", "<b>", "&", '"', "www.a.example", "a@b.example", ":)"]
ALLOWED = re.compile(r"</?(strong|em|span|a|ul|ol|li|blockquote|div|cite|p|pre|code|i|img|"
                     r"table|tr|td|br)[ >]")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_any_markup_renders_without_error_into_known_elements(pieces):
    """Property: whatever tags a post holds, in whatever order, the renderer gives HTML made
    only of the elements phpBB uses for them, and never a raw ``<b>`` of the text."""
    out = bbcode_to_html("".join(pieces), custom=("spoiler", "table"), links=PAGE_LINKS)
    for tag in re.findall(r"</?[a-z]+[ >]", out):
        assert ALLOWED.match(tag), (pieces, tag)
    assert "<b>" not in out
