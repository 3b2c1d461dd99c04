"""Body markup the captured topic does not use (spoilers, code, nested quotes, guests...),
put into a real prosilver 3.3.15 page in place of post 64's body, exactly as phpBB 3.3 renders
the BBCode (s9e text formatter output; the board's [spoiler] BBCode as the README gives it)."""

from __future__ import annotations

import pytest
from test_parser_helpers import page

from scraper_mod.forum.model import Hidden
from scraper_mod.forum.phpbb.parse import parse_topic_page

ORIGINAL = '<div class="content">Всем привет! Первый день, голосуем наугад?</div>'


def _post64(content_html: str, *, replace: dict[str, str] | None = None):
    body, url, fetched_at = page("prosilver-ru", "guest_viewtopic_t4_start0.html")
    text = body.decode("utf-8")
    assert ORIGINAL in text
    text = text.replace(ORIGINAL, f'<div class="content">{content_html}</div>')
    for old, new in (replace or {}).items():
        assert old in text
        text = text.replace(old, new)
    tp = parse_topic_page(text.encode("utf-8"), url=url, fetched_at=fetched_at)
    return next(p for p in tp.posts if p.post_id == 64)


def test_spoiler_is_not_own_colour():
    p = _post64('Смотрите: <div class="spoiler"><div class="spoiler-title"><strong>Спойлер</strong>'
                '</div><div class="spoiler-body"><span style="color:#FF0000">Вася</span></div>'
                '</div>Мой голос: <span style="color:#0000ff">Маша_2</span>')
    assert [(c.color, c.text) for c in p.colored] == [("#0000FF", "Маша_2")]
    assert p.hidden == (Hidden("#FF0000", "Вася", "spoiler", None),)
    assert p.bold == ()                       # the spoiler's own title is not the author's bold
    assert p.text == "Смотрите:\nМой голос: Маша_2"


def test_code_block_is_neither_text_nor_colour():
    p = _post64('Пример: <div class="codebox"><p>Код: <a href="#" onclick="selectCode(this); '
                'return false;">Выделить всё</a></p><pre><code>[color=red]Вася[/color]</code></pre>'
                '</div>Конец.')
    assert p.colored == () and p.hidden == ()
    assert p.text == "Пример:\nКонец."


def test_nested_quotes_and_quote_ids():
    p = _post64(
        '<blockquote cite="./viewtopic.php?p=70#p70"><div><cite><a href="./memberlist.php?mode='
        'viewprofile&amp;u=61">Алексей</a> писал(а): <a href="./viewtopic.php?p=70#p70" '
        'data-post-id="70"></a><span class="responsive-hide">09 апр 2024, 09:25</span></cite>'
        '<blockquote cite="./viewtopic.php?p=68#p68"><div><cite>Ёжик в тумане писал(а): '
        '<a href="./viewtopic.php?p=68#p68" data-post-id="68"></a></cite><span style="color:'
        '#ff0000">Вася</span></div></blockquote>Согласен: <strong class="text-strong"><span '
        'style="color:#FF0000">Вася</span></strong></div></blockquote>А я за <span style="color:'
        'red">NightOwl</span>')
    assert p.quotes == (70, 68)
    assert [(c.color, c.text) for c in p.colored] == [("red", "NightOwl")]
    assert p.hidden == (Hidden("#FF0000", "Вася", "quote", 68),
                        Hidden("#FF0000", "Вася", "quote", 70),
                        Hidden(None, "Вася", "quote", 70))
    assert p.text == "А я за NightOwl"


def test_quote_without_post_id():
    p = _post64('<blockquote class="uncited"><div><span style="color:#FF0000">Вася</span></div>'
                '</blockquote>Нет.')
    assert p.quotes == ()
    assert p.hidden == (Hidden("#FF0000", "Вася", "quote", None),)
    assert p.colored == () and p.text == "Нет."


@pytest.mark.parametrize("html,want", [
    ('<span style="color:#f00">Вася</span>', ("#FF0000", "Вася")),          # short hex
    ('<span style="color: RED;">Вася</span>', ("red", "Вася")),             # spaces, upper case
    ('<span style="color:rgb(255, 0, 0)">Вася</span>', ("#FF0000", "Вася")),
    ('<span style="font-size:150%;line-height:116%"><span style="color:#00AA00">Вася</span>'
     '</span>', ("#00AA00", "Вася")),                                        # [size][color]
    ('<span style="color:#FF0000">Вас<em class="text-italics">я</em></span>', ("#FF0000", "Вася")),
])
def test_colour_forms(html, want):
    p = _post64(f"Голос: {html}")
    assert [(c.color, c.text) for c in p.colored] == [want]


def test_background_colour_and_group_colour_are_not_votes():
    p = _post64('<span style="background-color:#FF0000">Вася</span> и <a href="./memberlist.php?'
                'mode=viewprofile&amp;u=2" style="color: #AA0000;" class="username-coloured">admin'
                '</a>')
    assert p.colored == ()
    assert p.text == "Вася и admin"


def test_nested_colours_split_into_fragments():
    p = _post64('<span style="color:#FF0000">за <span style="color:#0000FF">Вася</span> и '
                'Маша_2</span>')
    assert [(c.color, c.text) for c in p.colored] == [
        ("#FF0000", "за"), ("#0000FF", "Вася"), ("#FF0000", "и Маша_2")]


def test_smilies_and_line_breaks_in_text():
    p = _post64('Привет <img class="smilies" src="./images/smilies/icon_e_smile.gif" width="15" '
                'height="15" alt=":)" title="Улыбка"><br>\nвторая строка<br>\n<br>\nчетвёртая')
    assert p.text == "Привет :)\nвторая строка\n\nчетвёртая"


def test_guest_post_has_no_user_id():
    link = '<a href="./memberlist.php?mode=viewprofile&amp;u=58" class="username">Вася</a>'
    p = _post64("Я гость.", replace={
        f"{link}\t\t\t\t\t\t\t</dt>\n\n\t\t\t\t\t\t\t\t\t\n\t\t<dd class=\"profile-posts\">"
        f"<strong>Сообщения:</strong> <a href=\"./search.php?author_id=58&amp;sr=posts\">":
        "<span class=\"username\">Гость Петя</span>\t\t\t\t\t\t\t</dt>\n\n\t\t\t\t\t\t\t\t\t\n\t\t"
        "<dd class=\"profile-posts\"><strong>Сообщения:</strong> <a href=\"./search.php?"
        "author_id=58&amp;sr=posts\">",
        f"<strong>{link}</strong> &raquo; </span><time datetime=\"2024-04-08T18:07:12+00:00\">":
        "<strong><span class=\"username\">Гость Петя</span></strong> &raquo; </span><time "
        "datetime=\"2024-04-08T18:07:12+00:00\">",
    })
    assert (p.author, p.author_id) == ("Гость Петя", None)


def test_posts_found_when_markup_differs_from_the_usual_bytes():
    """A post written another way than the usual '<div id="pN" class="post' bytes
    (attributes swapped, as another template engine might) still counts."""
    body, url, fetched_at = page("prosilver-ru", "guest_viewtopic_t4_start0.html")
    odd = body.replace(b'<div id="p64" class="post has-profile bg1">',
                       b'<div class="post has-profile bg1" id="p64">')
    assert odd != body
    tp = parse_topic_page(odd, url=url, fetched_at=fetched_at)
    assert [p.post_id for p in tp.posts] == list(range(63, 88))
    assert tp.posts[1].text == "Всем привет! Первый день, голосуем наугад?"


@pytest.mark.parametrize("html", ['<span style="font-weight:bold">Вася</span>',
                                  '<span style="font-weight: 700">Вася</span>',
                                  '<b>Вася</b>', '<strong class="text-strong">Вася</strong>'])
def test_bold_forms(html):
    p = _post64(f"Подозреваю {html}.")
    assert p.bold == ("Вася",) and p.colored == ()


def test_windows_1251_page():
    """Old Russian boards send windows-1251: the same page in that charset reads the same."""
    body, url, fetched_at = page("subsilver2-port-gorski-ru", "guest_viewtopic_t4_start0.html")
    text = body.decode("utf-8").replace('<meta charset="utf-8" />',
                                        '<meta http-equiv="content-type" content="text/html; '
                                        'charset=windows-1251" />')
    cp = text.encode("cp1251", errors="xmlcharrefreplace")     # «—» has a cp1251 byte
    a = parse_topic_page(body, url=url, fetched_at=fetched_at)
    b = parse_topic_page(cp, url=url, fetched_at=fetched_at)
    assert [p.content_key() for p in b.posts] == [p.content_key() for p in a.posts]
    assert b.title == a.title == "День 1 — голосование"
