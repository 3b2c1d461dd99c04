"""SMF's posts use only the BBCode tags it renders (issue 39 item 5).

The templates write phpBB's BBCode. SMF 2.1 shows ``[size=150]`` (phpBB's percent) and
``[list=1]`` as raw text: its size takes 1–7 or a unit (``14pt``), its ordered list is
``[list type=decimal]``. ``smf_tags`` rewrites a post for SMF (``forum.engine.for_engine``
calls it for a post that goes to an SMF board). Pure: text in, text out.
"""

from __future__ import annotations

import re

__all__ = ["smf_tags", "SMF_LIST_TYPES"]

# phpBB's [list=X] -> SMF's list type
SMF_LIST_TYPES = {"1": "decimal", "a": "lower-alpha", "A": "upper-alpha", "i": "lower-roman",
                  "I": "upper-roman"}


def _smf_size(m: re.Match[str]) -> str:
    n = int(m[1])
    if 1 <= n <= 7:          # SMF's own scale already
        return m[0]
    return f"[size={max(8, min(36, round(n / 10)))}pt]"     # 150 % of 10pt -> 15pt


def _smf_list(m: re.Match[str]) -> str:
    kind = SMF_LIST_TYPES.get(m[1])
    return f"[list type={kind}]" if kind else "[list]"


def smf_tags(text: str) -> str:
    """``text`` with the tags SMF renders (see the module)."""
    text = re.sub(r"\[size=(\d+)\]", _smf_size, text)
    return re.sub(r"\[list=([^\]\s]+)\]", _smf_list, text)
