"""Real pages of older phpBB versions and styles (fixtures/phpbb/other-versions/README.md).

The expected values below were read off the raw HTML with plain regular expressions (not with
the parser) and checked by eye; the shown dates are turned into instants with the standard
library's strptime in the zone each page declares in its footer.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from test_parser_helpers import OTHER

from scraper_mod.forum.phpbb.parse import declared_timezone, parse_topic_file, parse_topic_page

EN_12H = "%a %b %d, %Y %I:%M %p"
PLUS1 = timezone(timedelta(hours=1))

PAGES = {
    "2.0.x-subSilver-en-oldclassiccar.html": dict(
        style="subsilver", tz=PLUS1, fmt=EN_12H,           # "All times are GMT + 1 Hour"
        topic_id=12591, title="Classic Car Rescue - C5", page=6, page_count=9,
        next_href="viewtopic.php?t=12591&postdays=0&postorder=asc&start=90",
        url="http://www.oldclassiccar.co.uk/forum/phpbb/phpBB2/viewtopic.php?t=12591&start=75",
        posts=[(87755, "Churchill Johnson", 1877, "Tue Oct 09, 2012 10:12 pm"),
               (87761, "riley541", 560, "Wed Oct 10, 2012 7:51 am"),
               (87768, "Journer", 2478, "Wed Oct 10, 2012 3:39 pm"),
               (87780, "ukdave2002", 17, "Thu Oct 11, 2012 7:21 am"),
               (87781, "riley541", 560, "Thu Oct 11, 2012 7:59 am"),
               (87824, "peterwpg", 440, "Fri Oct 12, 2012 2:48 pm"),
               (87831, "D4B", 1858, "Fri Oct 12, 2012 4:52 pm"),
               (87841, "47p2", 47, "Fri Oct 12, 2012 9:21 pm"),
               (87843, "Rick", 15, "Fri Oct 12, 2012 10:31 pm"),
               (87847, "scott_budds", 792, "Fri Oct 12, 2012 11:53 pm"),
               (87854, "Churchill Johnson", 1877, "Sat Oct 13, 2012 9:53 am"),
               (87869, "MikeEdwards", 2060, "Sat Oct 13, 2012 5:58 pm"),
               (87876, "Rick", 15, "Sat Oct 13, 2012 8:16 pm"),
               (87878, "gresham flyer", 681, "Sat Oct 13, 2012 9:33 pm"),
               (87886, "victor 101", 990, "Sun Oct 14, 2012 8:10 am")]),
    "3.0.x-prosilver-en-ilovephilosophy.html": dict(
        style="prosilver", tz=PLUS1, fmt=EN_12H,            # "All times are UTC [ DST ]"
        topic_id=194998, title="Biological Will", page=2, page_count=10,
        next_href="viewtopic.php?f=1&t=194998&start=50",
        url="http://www.ilovephilosophy.com/viewtopic.php?f=1&t=194998&start=25",
        posts=[(2729870, "Jakob", 5996, "Sun May 26, 2019 4:34 pm"),
               (2729871, "promethean75", 43701, "Sun May 26, 2019 4:43 pm"),
               (2729874, "Urwrongx1000", 42956, "Sun May 26, 2019 5:25 pm"),
               (2729875, "Jakob", 5996, "Sun May 26, 2019 5:28 pm"),
               (2729876, "Jakob", 5996, "Sun May 26, 2019 5:32 pm"),
               (2729877, "Jakob", 5996, "Sun May 26, 2019 5:33 pm"),
               (2729878, "Urwrongx1000", 42956, "Sun May 26, 2019 5:34 pm"),
               (2729880, "Jakob", 5996, "Sun May 26, 2019 5:39 pm"),
               (2729881, "Urwrongx1000", 42956, "Sun May 26, 2019 5:42 pm"),
               (2729884, "Jakob", 5996, "Sun May 26, 2019 5:48 pm"),
               (2729885, "Jakob", 5996, "Sun May 26, 2019 5:55 pm"),
               (2729886, "Jakob", 5996, "Sun May 26, 2019 6:00 pm"),
               (2729887, "Jakob", 5996, "Sun May 26, 2019 6:03 pm"),
               (2729888, "Jakob", 5996, "Sun May 26, 2019 6:04 pm"),
               (2729891, "Artimas", 41855, "Sun May 26, 2019 6:38 pm"),
               (2729894, "Jakob", 5996, "Sun May 26, 2019 7:23 pm"),
               (2729897, "Artimas", 41855, "Sun May 26, 2019 7:42 pm"),
               (2729898, "Jakob", 5996, "Sun May 26, 2019 7:57 pm"),
               (2729899, "Artimas", 41855, "Sun May 26, 2019 8:02 pm"),
               (2730367, "Silhouette", 520, "Fri May 31, 2019 7:29 pm"),
               (2730389, "promethean75", 43701, "Sat Jun 01, 2019 1:09 am"),
               (2730390, "promethean75", 43701, "Sat Jun 01, 2019 1:23 am"),
               (2730437, "Urwrongx1000", 42956, "Sat Jun 01, 2019 5:46 pm"),
               (2730441, "Artimas", 41855, "Sat Jun 01, 2019 6:58 pm"),
               (2730442, "promethean75", 43701, "Sat Jun 01, 2019 7:20 pm")]),
    # a static mirror: links rewritten to viewtopic-NNNNN.php, so no topic or user ids
    "3.0.x-subsilver2-en-dildano-artwork-p1.html": dict(
        style="subsilver2", tz=PLUS1, fmt=EN_12H,
        topic_id=None, title="Artwork", page=1, page_count=2, next_href="viewtopic-35177.php",
        url="http://www.dildano.co.uk/phpBB3/viewtopic-14801.php",
        posts=[(24, "Nick", None, "Sun Sep 27, 2009 4:13 pm"),
               (29, "bearblock", None, "Mon Sep 28, 2009 7:29 pm"),
               (34, "Nick", None, "Thu Oct 01, 2009 11:46 am"),
               (42, "grilgamesh", None, "Wed Oct 14, 2009 2:05 pm"),
               (43, "tim", None, "Wed Oct 14, 2009 3:13 pm"),
               (44, "Girugamesh", None, "Wed Oct 14, 2009 8:55 pm"),
               (53, "grilgamesh", None, "Fri Oct 16, 2009 2:24 pm"),
               (57, "bearblock", None, "Fri Oct 16, 2009 6:32 pm"),
               (61, "grilgamesh", None, "Mon Oct 19, 2009 7:33 pm"),
               (77, "vinegarmouse", None, "Sun Oct 25, 2009 11:22 pm")]),
    "3.0.x-subsilver2-en-dildano-imagetennis-p2.html": dict(
        style="subsilver2", tz=PLUS1, fmt=EN_12H,
        topic_id=None, title="(anyone for) image tennis?", page=2, page_count=4,
        next_href="viewtopic-29336.php", url="http://www.dildano.co.uk/phpBB3/viewtopic-11270.php",
        posts=[(65, "Bean", None, "Mon Oct 19, 2009 11:54 pm"),
               (67, "grilgamesh", None, "Wed Oct 21, 2009 9:11 pm"),
               (68, "bearblock", None, "Wed Oct 21, 2009 10:13 pm"),
               (94, "Bean", None, "Thu Oct 29, 2009 8:21 pm"),
               (95, "tim", None, "Thu Oct 29, 2009 10:43 pm"),
               (102, "orta", None, "Fri Oct 30, 2009 8:32 pm"),
               (105, "bearblock", None, "Sun Nov 01, 2009 6:45 pm"),
               (106, "orta", None, "Sun Nov 01, 2009 7:56 pm"),
               (107, "bearblock", None, "Sun Nov 01, 2009 9:09 pm"),
               (115, "Bean", None, "Fri Nov 06, 2009 12:02 am")]),
    "3.2.x-AllanStyle-SUBSILVER-en-dostips.html": dict(
        style="prosilver", tz=timezone(timedelta(hours=-6)), fmt="%d %b %Y %H:%M",
        topic_id=774, title="ECHO. FAILS to give text or blank line - Instead use ECHO/", page=1,
        page_count=3, next_href="viewtopic897b.html?f=3&t=774&start=15",
        url="https://www.dostips.com/forum/viewtopic05a1.html?p=6152",
        posts=[(2527, "alan_b", 592, "09 Dec 2009 11:19"),
               (2533, "avery_larry", 735, "10 Dec 2009 12:35"),
               (2535, "alan_b", 592, "10 Dec 2009 16:22"),
               (2537, "DosItHelp", 5, "11 Dec 2009 00:01"),
               (2538, "alan_b", 592, "11 Dec 2009 06:40"),
               (4505, "jeb", 417, "10 Aug 2010 12:20"),
               (4552, "alan_b", 592, "12 Aug 2010 11:25"),
               (4554, "jeb", 417, "12 Aug 2010 12:17"),
               (4555, "alan_b", 592, "12 Aug 2010 14:35"),
               (6152, "amel27", 1470, "18 Jan 2011 07:42"),
               (6163, "jeb", 417, "18 Jan 2011 16:45"),
               (6170, "amel27", 1470, "19 Jan 2011 03:03"),
               (6188, "jeb", 417, "19 Jan 2011 21:10"),
               (6191, "amel27", 1470, "20 Jan 2011 04:54"),
               (6192, "jeb", 417, "20 Jan 2011 06:10")]),
}


@pytest.fixture(scope="module")
def parsed():
    out = {}
    for name, want in PAGES.items():
        body = (OTHER / name).read_bytes()
        out[name] = parse_topic_page(body, url=want["url"], board_tz=declared_timezone(body))
    return out


@pytest.mark.parametrize("name", PAGES)
def test_declared_zone(name):
    tz = declared_timezone((OTHER / name).read_bytes())
    assert tz.utcoffset(datetime(2020, 1, 1)) == PAGES[name]["tz"].utcoffset(None)


@pytest.mark.parametrize("name", PAGES)
def test_page_fields(parsed, name):
    tp, want = parsed[name], PAGES[name]
    from urllib.parse import urljoin
    assert (tp.style, tp.topic_id, tp.title, tp.page, tp.page_count, tp.locked) == (
        want["style"], want["topic_id"], want["title"], want["page"], want["page_count"], False)
    assert tp.next_url == urljoin(want["url"], want["next_href"])


@pytest.mark.parametrize("name", PAGES)
def test_posts_ids_authors_times(parsed, name):
    tp, want = parsed[name], PAGES[name]
    got = [(p.post_id, p.author, p.author_id) for p in tp.posts]
    assert got == [(i, a, u) for i, a, u, _ in want["posts"]]
    for post, (_, _, _, shown) in zip(tp.posts, want["posts"]):
        start = datetime.strptime(shown, want["fmt"]).replace(tzinfo=want["tz"])
        assert post.precision == "minute"          # no <time datetime> before 3.2.9
        assert post.posted_at == post.earliest == start
        assert post.latest == start + timedelta(seconds=59)


def _post(parsed, name, pid):
    return next(p for p in parsed[name].posts if p.post_id == pid)


def test_phpbb2_signature_and_quotes(parsed):
    name = "2.0.x-subSilver-en-oldclassiccar.html"
    p = _post(parsed, name, 87768)
    assert p.text.startswith("For such a **** programme it certainly gets a lot of attention.")
    assert p.text.endswith("in my opinion they can do no wrong...lol")
    assert "Iron sharpens iron" not in p.text                 # signature after ____
    p = _post(parsed, name, 87841)                            # red ROVER in the signature
    assert p.colored == ()
    assert [(h.color, h.text, h.where) for h in p.hidden if h.color] == [
        ("red", "ROVER", "signature")]
    p = _post(parsed, name, 87755)                            # quote of riley541
    assert "Make your opinion known" not in p.text
    assert p.text.startswith("Not wishing to knock anyone")
    p = _post(parsed, name, 87781)                            # quotes nested four deep
    assert "Make your opinion known" not in p.text
    assert p.text.startswith("Which is why, having watched the first programme")


def test_prosilver30_edits_and_signatures(parsed):
    name = "3.0.x-prosilver-en-ilovephilosophy.html"
    p = _post(parsed, name, 2729877)
    assert (p.edited_by, p.edit_count, p.edit_reason) == ("Jakob", 2, None)
    assert p.edited_at == datetime(2019, 5, 26, 17, 35, tzinfo=PLUS1)
    p = _post(parsed, name, 2729880)
    assert (p.edited_by, p.edit_count) == ("Jakob", 1)
    assert p.edited_at == datetime(2019, 5, 26, 17, 42, tzinfo=PLUS1)
    assert sum(1 for q in parsed[name].posts if q.edit_count) == 2
    # Artimas's coloured signature is not his post's colour
    for q in parsed[name].posts:
        assert q.colored == ()
        if q.author == "Artimas":
            assert [h.color for h in q.hidden if h.color] == [
                "#FF4000", "#FFFF00", "#40BF00", "#00BFFF", "#4000FF", "#800080"]
            assert {h.where for h in q.hidden} == {"signature"}
    assert _post(parsed, name, 2729871).text == "https://vocaroo.com/i/s0WJlPuchytm"


def test_subsilver2_30_colours_and_quotes(parsed):
    p = _post(parsed, "3.0.x-subsilver2-en-dildano-artwork-p1.html", 77)
    assert [c.color for c in p.colored] == [
        "#FF0000", "#FF8040", "#FFBF00", "#FF8040", "#00BFBF", "#8000FF", "#FF40BF", "#0040BF",
        "#BF8040", "#00BF80", "#FF4040", "#8040BF", "#FF8080"]
    assert [c.text for c in p.colored][:4] == ["I", "done", "a", "album"]
    name = "3.0.x-subsilver2-en-dildano-imagetennis-p2.html"
    p = _post(parsed, name, 67)                              # "bearblock wrote:" quote
    assert "krod mandoon" not in p.text and "bearblock wrote" not in p.text
    assert p.text.startswith("it was more the flaming sword of fire")
    p = _post(parsed, name, 68)                              # nameless "Quote:"
    assert "what would beat a beard" not in p.text
    assert p.text.startswith("of course! i was thinking")
    assert "last.fm" not in p.text                           # signature span.postbody
    p = _post(parsed, name, 102)
    assert p.colored == () and [(h.color, h.where) for h in p.hidden] == [
        ("#4080FF", "signature")]


def test_allanstyle_32_code_quotes_colour_edit(parsed):
    name = "3.2.x-AllanStyle-SUBSILVER-en-dostips.html"
    tz = PAGES[name]["tz"]
    p = _post(parsed, name, 4554)
    assert (p.edited_by, p.edit_count) == ("jeb", 1)
    assert p.edited_at == datetime(2011, 1, 27, 17, 22, tzinfo=tz)
    assert p.colored[0].color == "#FF0000" and p.colored[0].text.startswith("EDIT: I fixed")
    p = _post(parsed, name, 6191)                            # coloured text inside a quote
    assert p.colored == ()
    assert [(h.color, h.text, h.where) for h in p.hidden] == [("#FF4000", "!str:0=)!", "quote")]
    assert "It shows that the command-token" not in p.text
    p = _post(parsed, name, 6188)
    assert [(c.color, c.text) for c in p.colored] == [
        ("#FF4000", "!str:0=)!"),
        ("#FF8000", "But your ideas shows me a new behaviour of the delayed expansion.")]
    assert "SETLOCAL EnableDelayedExpansion" not in p.text    # code block
    # the moderators' group colour (username-coloured) is never a post colour
    assert all(c.color != "#00AA00" for q in parsed[name].posts for c in q.colored)


def test_parse_topic_file_reads_declared_zone():
    tp = parse_topic_file(OTHER / "3.2.x-AllanStyle-SUBSILVER-en-dostips.html")
    assert tp.posts[0].posted_at == datetime(2009, 12, 9, 11, 19,
                                             tzinfo=timezone(timedelta(hours=-6)))
