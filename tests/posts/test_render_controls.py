"""Issue 18 item 10 (the half about output): control and bidirectional characters quoted from
players (the murder story, a move's text, anything a template prints) never reach a post, a
PM, a move answer or the host report. U+202E turns the rest of a line around in browsers; a
newline or a carriage return splits a list line.
"""

from __future__ import annotations

import dataclasses
import os
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from render_scenarios import scenario
from servers.movegame import mail, make_game, msk

from scraper_mod.cli import main
from scraper_mod.game.results.resolve import render_day
from scraper_mod.posts.render import ZWSP, bbcode_inert

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
STORY = ("Нашли\u202e в парке\u2066 на скамейке\u200f,\r\nс газетой\x1b[31m в руках\x00.\ufeff"
         "\x07\x85")


def bad_chars(text: str) -> set[str]:
    return {f"U+{ord(ch):04X}" for ch in text
            if ch not in "\n\t" and ch not in (ZWSP, "\u200c", "\u200d")
            and unicodedata.category(ch) in ("Cc", "Cf")}


def test_neutralise_drops_controls_and_direction_marks_only():
    from scraper_mod.posts.render import neutralise
    assert neutralise(STORY) == "Нашли в парке на скамейке,\nс газетой[31m в руках."
    assert neutralise("строка 1\n\tстрока 2") == "строка 1\n\tстрока 2"
    assert neutralise("👨\u200d👩\u200d👧 Кот") == "👨\u200d👩\u200d👧 Кот"   # the joiners stay
    assert neutralise("Маша\u00a0Ш.") == "Маша\u00a0Ш."    # a no-break space stays
    assert neutralise(7) == 7 and neutralise(None) is None
    assert not bad_chars(neutralise(BIDI + "\x00\x1f\x7f\x9f\u2060\u206f"))
    assert bbcode_inert("\u202e[b]") == "[" + ZWSP + "b]"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_neutralise_keeps_every_other_character(s):
    from scraper_mod.posts.render import neutralise
    out = neutralise(s)
    assert not bad_chars(out)
    assert out == "".join(ch for ch in s if not bad_chars(ch))


def test_a_story_with_direction_controls_in_every_post_of_the_day():
    """The newspaper quotes the story, the host report too: neither carries one of its
    control characters, and the story's words all stay."""
    r = scenario("votes-lynch", "ru")
    r = dataclasses.replace(r, result=dataclasses.replace(r.result, story=STORY))
    files = render_day(r)
    for rel, text in files.items():
        if rel.endswith(".json"):
            continue
        assert not bad_chars(text), rel
    paper = files["newspaper.bbcode"].replace(ZWSP, "")
    assert "Нашли в парке на скамейке,\nс газетой[31m в руках." in paper


def test_a_move_answer_quoting_a_name_with_a_bidi_override(tmp_path, capsys):
    """An unknown target is quoted back to the player as written («убить Ко‮ля»): without
    the override."""
    game = make_game(tmp_path / "g", moves={"source": "queue", "path": "moves"})
    (game / "moves").mkdir()
    path = game / "moves" / "a.eml"
    path.write_bytes(mail("vasya@example.org", "убить Ко\u202eля\u200f"))
    t = msk("2024-04-09 12:00:00").timestamp()
    os.utime(path, (t, t))
    assert main(["moves", str(game), "--day", "1"]) == 0
    capsys.readouterr()
    (answer,) = (game / "outbox" / "day-1").iterdir()
    text = answer.read_text(encoding="utf-8")
    assert "убийство — «Коля»" in text
    assert not bad_chars(text)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_template_value_is_neutralised(lang):
    """Whatever a template prints (here the tally's nicks, as read from posts) goes through
    ``neutralise``: the environment's finalize."""
    from scraper_mod.posts.render import environment, neutralise
    env = environment()
    assert env.finalize is neutralise
    tmpl = env.from_string("{{ a }}|{{ b|bb }}|{{ n }}")
    assert tmpl.render(a="Вася\u202eабв", b="[b]\u2067x", n=3) == "Васяабв|[" + ZWSP + "b]x|3"
