"""The one Russian plural (posts/plural.py), used by the posts, the tally and LocalBoard."""

from __future__ import annotations

import pytest

from scraper_mod.demo import localboard, localboard_pages
from scraper_mod.game.day import tally
from scraper_mod.game.results import wording
from scraper_mod.posts.plural import plural_ru, ru_plural_word

# The forms a Russian reader expects, written out by hand for 0–30 and 100–130.
ONE = {1, 21, 101, 121}
FEW = {2, 3, 4, 22, 23, 24, 102, 103, 104, 122, 123, 124}


@pytest.mark.parametrize("n", list(range(0, 31)) + list(range(100, 131)))
def test_vote_forms_0_to_30_and_100_to_130(n):
    want = "голос" if n in ONE else "голоса" if n in FEW else "голосов"
    assert plural_ru(n, "голос", "голоса", "голосов") == f"{n} {want}"


def test_eleven_to_fourteen_take_the_many_form():
    assert [plural_ru(n, "голос", "голоса", "голосов") for n in (11, 12, 13, 14, 111, 112)] == [
        "11 голосов", "12 голосов", "13 голосов", "14 голосов", "111 голосов", "112 голосов"]


def test_every_reader_uses_the_one_function():
    assert tally.plural_ru is plural_ru
    assert wording.plural_ru is plural_ru
    assert localboard_pages.ru_plural_word is ru_plural_word
    assert not hasattr(localboard, "_ru_plural")
    assert not hasattr(localboard_pages, "_ru_plural")


def test_the_posts_formatter_words_russian_and_english():
    ru = wording.Formatter.__new__(wording.Formatter)
    ru.lang = "ru"
    assert ru.plural(12, "голос", "голоса", "голосов") == "12 голосов"
    assert ru.plural(22, "голос", "голоса", "голосов") == "22 голоса"
    en = wording.Formatter.__new__(wording.Formatter)
    en.lang = "en"
    assert en.plural(1, "vote", "votes") == "1 vote" and en.plural(11, "vote", "votes") == "11 votes"
