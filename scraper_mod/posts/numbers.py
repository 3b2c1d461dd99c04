"""Lists of numbers as people read them: «1–851» for a run, not 851 numbers in one line."""

from __future__ import annotations

from typing import Iterable


def number_ranges(numbers: Iterable[int]) -> str:
    """``1, 2, 5–9, 12``: runs of three or more consecutive numbers as «first–last»
    (an en dash), the rest one by one, in ascending order, each number once."""
    nums = sorted(set(numbers))
    parts: list[str] = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{nums[i]}–{nums[j]}")
        else:
            parts.extend(str(n) for n in nums[i:j + 1])
        i = j + 1
    return ", ".join(parts)


__all__ = ["number_ranges"]
