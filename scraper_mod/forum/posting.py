"""What every engine's writer shares: the board's answer to a post (``Posted``), its refusal
(``PostRefused``), reading a form as a browser would, and matching a sent text with the
board's rendering of it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import lxml.html

from ..errors import ForumError
from .fetched import FetchResult


class PostRefused(ForumError):
    """The board refused a post, an edit, a PM or a lock; ``kind`` says why, ``transient``
    whether the same request may succeed later with a fresh form."""

    def __init__(self, kind: str, message: str, *, url: str, hint: str = "",
                 transient: bool = False) -> None:
        self.kind = kind
        self.transient = transient
        super().__init__(message, url=url, hint=hint)


@dataclass(frozen=True)
class Posted:
    """What the board answered to a post or a PM: its id and its URL."""

    id: int | None
    url: str | None


def html_doc(body: bytes) -> Any:
    try:
        return lxml.html.document_fromstring(body) if body and body.strip() else None
    except (ValueError, lxml.etree.ParserError):
        return None


@dataclass
class Form:
    action: str
    fields: dict[str, str]


def read_form(result: FetchResult, form_id: str = "postform") -> Form | None:
    """A form's action and the fields a browser would send (hidden, text, textarea)."""
    doc = html_doc(result.body)
    if doc is None:
        return None
    forms = doc.xpath(f"//form[@id='{form_id}']")
    if not forms:
        return None
    f = forms[0]
    fields: dict[str, str] = {}
    for inp in f.xpath(".//input[@name]"):
        kind = (inp.get("type") or "text").lower()
        if kind in ("hidden", "text"):
            fields[inp.get("name")] = inp.get("value", "")
        elif kind == "checkbox" and inp.get("checked") is not None:
            fields[inp.get("name")] = inp.get("value", "on")
    for ta in f.xpath(".//textarea[@name]"):
        fields[ta.get("name")] = ta.text or ""
    return Form(action=urljoin(result.url, f.get("action") or result.url), fields=fields)


def plain(text: str) -> str:
    """A post's words without BBCode and spacing, to match a source with the board's text."""
    text = re.sub(r"\[/?[a-zA-Z*][^\]]*\]", " ", text)
    return " ".join(text.split())


def same_text(source: str, on_board: str) -> bool:
    """The board shows the text that was sent (its first 120 plain characters, spacing left
    out: «[b]Итоги[/b]: …» is shown «Итоги: …», its tags taken out leave «Итоги : …»)."""
    a, b = "".join(plain(source).split()), "".join(plain(on_board).split())
    n = min(len(a), len(b), 120)
    return n > 0 and a[:n] == b[:n]


def same_subject(shown: str, sent: str) -> bool:
    """A subject as a board's list shows it is the one sent: the same words, or the sent one
    cut short by the board (SMF keeps 100 characters and lists fewer, with «...»)."""
    a, b = " ".join(shown.split()), " ".join(sent.split())
    if a == b:
        return True
    cut = a.rstrip(".… ").rstrip()
    return len(cut) >= 10 and b.startswith(cut)
