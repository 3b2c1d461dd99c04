"""--preview: the posts as phpBB 3.3 would show them (issue 6), through the one BBCode renderer
(posts/bbcode.py; every expected string below is what the real phpBB 3.3.15 of
fixtures/phpbb/bbcode-3.3.15 showed for the same BBCode)."""

from __future__ import annotations

from render_scenarios import scenario

from scraper_mod.game.results.rendering import render_day
from scraper_mod.posts.preview import bbcode_to_html, preview_files, preview_page


def test_stock_tags_become_phpbb_html():
    assert bbcode_to_html("[b]a[/b] [i]b[/i] [u]c[/u]") == (
        '<strong class="text-strong">a</strong> <em class="text-italics">b</em> '
        '<span style="text-decoration:underline">c</span>')
    assert bbcode_to_html("[size=150]x[/size]") == \
        '<span style="font-size:150%;line-height:116%">x</span>'
    assert bbcode_to_html("[color=#FF0000]Вася[/color]") == \
        '<span style="color:#FF0000">Вася</span>'
    assert bbcode_to_html("[url=https://f.example/viewtopic.php?p=4#p4]Вася[/url]") == \
        '<a href="https://f.example/viewtopic.php?p=4#p4" class="postlink">Вася</a>'
    assert bbcode_to_html("[list]\n[*]a\n[*]b\n[/list]") == \
        "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"
    assert bbcode_to_html("[list=a][*]x[*]y[/list]") == \
        '<ol style="list-style-type:lower-alpha"><li>x</li><li>y</li></ol>'
    assert bbcode_to_html('[quote="Вася"]hi[/quote]', lang="en") == \
        "<blockquote><div><cite>Вася wrote:</cite>hi</div></blockquote>"
    assert bbcode_to_html('[quote="Вася"]hi[/quote]') == \
        "<blockquote><div><cite>Вася писал(а):</cite>hi</div></blockquote>"
    assert bbcode_to_html("[quote]story\nline two[/quote]\nafter") == (
        '<blockquote class="uncited"><div>story<br>\nline two</div></blockquote>\nafter')


def test_code_keeps_its_content_as_text():
    out = bbcode_to_html("text\n[code]Кандидат  Голоса\n[b]x[/b] <i> &amp;\n  indented[/code]"
                         "\nafter", lang="en")
    assert out == ('text\n<div class="codebox"><p>Code: <a href="#" onclick="selectCode(this); '
                   'return false;">Select all</a></p><pre><code>Кандидат  Голоса\n'
                   '[b]x[/b] &lt;i&gt; &amp;amp;\n  indented</code></pre></div>\nafter')


def test_html_is_escaped_and_bad_markup_stays_literal():
    assert bbcode_to_html("<script>alert(1)</script> & \"q\" 'a'") == \
        "&lt;script&gt;alert(1)&lt;/script&gt; &amp; \"q\" 'a'"
    assert bbcode_to_html("[url=javascript:alert(1)]x[/url]") == \
        "[url=javascript:alert(1)]x[/url]"
    assert bbcode_to_html("[color=red\" onmouseover=\"x]a[/color]") == \
        "[color=red\" onmouseover=\"x]a[/color]"
    assert bbcode_to_html("close[/b]") == "close[/b]"
    assert bbcode_to_html("[*]not in a list") == "[*]not in a list"
    assert bbcode_to_html("[blink]x[/blink]") == "[blink]x[/blink]"


def test_a_tag_left_open_is_closed_as_phpbb_closes_it():
    assert bbcode_to_html("[b]open") == '<strong class="text-strong">open</strong>'
    assert bbcode_to_html("[size=200][b]BIG") == ('<span style="font-size:200%;line-height:'
                                                  '116%"><strong class="text-strong">BIG'
                                                  '</strong></span>')


def test_bare_links_and_mail_are_autolinked_like_phpbb():
    assert bbcode_to_html("see http://a.example/x now, www.a.example and mail a@b.example") == (
        'see <a href="http://a.example/x" class="postlink">http://a.example/x</a> now, '
        '<a href="http://www.a.example" class="postlink">www.a.example</a> and mail '
        '<a href="mailto:a@b.example">a@b.example</a>')


def test_newspaper_preview_reads_like_the_board():
    files = render_day(scenario("votes-lynch"))
    pages = preview_files(files)
    assert sorted(pages) == sorted(
        ["preview/newspaper.html", f"preview/day-{scenario('votes-lynch').day + 1}-start.html",
         "preview/host-report.html", "preview/index.html"]
        + [f"preview/pm-{k[3:-4]}.html" for k in files if k.startswith("pm/")])
    assert '<a href="newspaper.html">newspaper</a>' in pages["preview/index.html"]
    paper = pages["preview/newspaper.html"]
    assert paper.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in paper
    assert '<strong class="text-strong">Маша_2</strong>' in paper
    assert ('<a href="https://forum.example.org/viewtopic.php?p=31#p31" class="postlink">'
            "Игрок-7</a> (12:36)") in paper
    assert '<blockquote class="uncited"><div>Его нашли утром в парке' in paper
    assert "[b]" not in paper and "[list]" not in paper


def test_code_layout_preview_and_page_title_escaped():
    files = render_day(scenario("random-tie"))
    page = preview_files(files)["preview/newspaper.html"]
    assert ('<div class="codebox"><p>Код: <a href="#" onclick="selectCode(this); return '
            'false;">Выделить всё</a></p><pre><code>Кандидат') in page
    assert "<title>&lt;b&gt;</title>" in preview_page("x", title="<b>")
    report = preview_files(files)["preview/host-report.html"]
    assert "<pre><code>Отчёт ведущему" in report
