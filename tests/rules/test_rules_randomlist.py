"""The host's random list (docs/rules.md R3.1, R3.2)."""

from __future__ import annotations

import hashlib
import random

import pytest

from scraper_mod.errors import RulesError
from scraper_mod.rules.randomlist import (
    commitment,
    commitment_text,
    draw_random_list,
    new_salt,
    pick_random,
    verify_commitment,
)

NICKS = ["Вася", "Маша_2", "Big Joe", "Алексей", "NightOwl", "Игрок-7", "Ёжик в тумане",
         "doc_Holiday"]


def test_R3_1_draw_is_a_permutation_of_all_players():
    order = draw_random_list(NICKS)
    assert sorted(order) == sorted(NICKS) and len(order) == len(NICKS)


def test_R3_1_draw_uses_injected_rng_reproducibly():
    a = draw_random_list(NICKS, rng=random.Random(7))
    b = draw_random_list(NICKS, rng=random.Random(7))
    assert a == b and a != NICKS


def test_R3_1_draw_defaults_to_system_randomness():
    """R3.1: secrets.SystemRandom; 40 draws of 8 players are not all the same order."""
    orders = {tuple(draw_random_list(NICKS)) for _ in range(40)}
    assert len(orders) > 30


def test_R3_1_duplicate_nick_rejected():
    with pytest.raises(RulesError, match="twice"):
        draw_random_list(["Вася", "Вася"])


def test_R3_1_commitment_is_sha256_of_documented_text():
    """R3.1: the commitment is the SHA-256 of the header, the salt and one nick per line."""
    order = ["Маша_2", "Вася", "Ёжик в тумане"]
    salt = "00112233445566778899aabbccddeeff"
    text = commitment_text(order, salt)
    assert text == ("scraper-mod random list v1\n00112233445566778899aabbccddeeff\n"
                    "Маша_2\nВася\nЁжик в тумане\n")
    expected = hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert commitment(order, salt) == expected
    assert verify_commitment(order, salt, expected.upper())
    assert not verify_commitment(["Вася", "Маша_2", "Ёжик в тумане"], salt, expected)
    assert commitment(order, "другая соль") != expected


def test_R3_1_salt_is_fresh_and_long():
    s1, s2 = new_salt(), new_salt()
    assert s1 != s2 and len(s1) == 32 and int(s1, 16) >= 0


def test_R3_1_line_break_in_nick_rejected():
    with pytest.raises(RulesError, match="line break"):
        commitment(["a\nb"], "salt")


def test_R3_2_pick_first_alive_at_or_after_cursor():
    order = ["A", "B", "C", "D"]
    assert pick_random(order, 0, {"A", "C"}) == ("A", 1)
    assert pick_random(order, 1, {"A", "C"}) == ("C", 3)
    assert pick_random(order, 2, {"C"}) == ("C", 3)


def test_R3_2_pick_wraps_to_the_top():
    """R3.2: at the end of the list the cursor wraps to the top."""
    order = ["A", "B", "C", "D"]
    assert pick_random(order, 3, {"A", "B"}) == ("A", 1)
    assert pick_random(order, 3, {"D"}) == ("D", 0)
    assert pick_random(order, 9, {"C"}) == ("C", 3)  # cursor taken modulo the length


def test_R3_2_nobody_eligible_is_an_error():
    with pytest.raises(RulesError, match="no player"):
        pick_random(["A", "B"], 0, {"Z"})
    with pytest.raises(RulesError, match="empty"):
        pick_random([], 0, {"A"})
