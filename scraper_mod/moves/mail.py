"""Decoding a night-move message: real mail as players' clients write it (pure, no I/O).

``decode_message(raw)`` turns the raw bytes stored by a source into a ``MailText``: the sender's
address, the Message-ID, the decoded subject and the sender's *own* text. It copes with
multipart/alternative (the text/plain part preferred), HTML-only mail (tags stripped),
quoted-printable and base64 bodies in koi8-r, windows-1251 or UTF-8 (a wrong or missing charset
label is recovered by trying those), encoded-word subjects, and drops what the sender did not
write himself: quoted lines (``> ...``), the quote that follows «On ... wrote:» /
«... написал(а):», forwarded messages (below «---------- Forwarded message ---------» /
«-------- Пересылаемое сообщение --------») and a signature after ``-- ``.

A message that cannot be read at all (not mail, no text, MIME parts nested deeper than
``MAX_MIME_DEPTH``) raises ``MailboxError`` naming the message; ``read_sender(raw)`` still
finds its From address in the header block alone, so the sender can be answered.

The nesting is measured before the ``email`` package sees the message (``mime_depth``, one
pass over the lines, no recursion): the package parses nested parts recursively, and a 64 KB
mail of 1,000 nested parts would otherwise end in a ``RecursionError``.
"""

from __future__ import annotations

import email
import email.header
import email.policy
import html
import re
from dataclasses import dataclass
from datetime import datetime
from email.message import Message
from email.utils import getaddresses, parsedate_to_datetime
from typing import cast

from ..errors import MailboxError

_CYRILLIC_8BIT = {"windows-1251": "cp1251", "cp1251": "cp1251", "cp-1251": "cp1251",
                  "koi8-r": "koi8-r", "koi8r": "koi8-r", "koi8-u": "koi8-r"}


@dataclass(frozen=True)
class MailText:
    """What a move message says and who sent it."""

    sender: str | None          # the From address, lower-cased; None when missing
    sender_name: str            # the display name, '' if none
    message_id: str | None      # the Message-ID header without <>, or None
    subject: str
    text: str                   # the sender's own words (quotes, forwards, signature removed)
    date_header: datetime | None  # what the sender's client wrote: shown, never used for lateness
    defects: tuple[str, ...] = ()  # MIME damage found in the body (bad base64, no end boundary)

    @property
    def full_text(self) -> str:
        """Subject and own text, as the grammar reads them."""
        return f"{self.subject}\n{self.text}" if self.subject else self.text


#: the deepest nesting of MIME parts (multipart and message/* parts) read; real mail has 3
#: (mixed > related > alternative), a forwarded message inside another adds 2 each time
MAX_MIME_DEPTH = 20


def decode_message(raw: bytes, *, label: str = "") -> MailText:
    """Decode raw RFC 822 bytes (or a bare text file from a queue) into a ``MailText``."""
    if not raw or not raw.strip():
        raise MailboxError("empty message", message_id=label or None)
    if b"\x00" in raw[:65536]:
        raise MailboxError("binary data, not a message", message_id=label or None,
                           hint="a queue file must be a text message")
    if not _looks_like_mail(raw):
        # A queue file written by a form or a bot may be plain text without headers.
        return MailText(sender=None, sender_name="", message_id=None, subject="",
                        text=strip_quotes(_decode_bytes(raw, None)), date_header=None)
    depth = mime_depth(raw, stop_at=MAX_MIME_DEPTH)
    if depth > MAX_MIME_DEPTH:
        raise MailboxError(f"MIME parts nested more than {MAX_MIME_DEPTH} deep, not read",
                           message_id=label or None,
                           hint="no mail client writes that; the sender is answered that the "
                                "message could not be read")
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
    except Exception as e:  # the email package raises many kinds on broken input
        raise MailboxError(f"not readable as mail: {e}", message_id=label or None) from None
    try:
        return _read(msg)
    except MailboxError:
        raise
    except Exception as e:  # damage the email package does not survive
        raise MailboxError(f"not readable as mail: {type(e).__name__}: {e}",
                           message_id=label or None) from None


def _read(msg: Message) -> MailText:
    sender, name = _sender(msg)
    subject = _header(msg, "Subject")
    mid = _header(msg, "Message-ID").strip().strip("<>").strip() or None
    date = None
    try:
        if msg.get("Date"):
            date = parsedate_to_datetime(str(msg["Date"]))
    except (TypeError, ValueError, IndexError):
        date = None
    body = _body_text(msg)
    defects = tuple(sorted({type(d).__name__ for part in msg.walk() for d in part.defects
                            if type(d).__name__ in _BODY_DEFECTS}))
    return MailText(sender=sender, sender_name=name, message_id=mid,
                    subject=" ".join(subject.split()), text=strip_quotes(body), date_header=date,
                    defects=defects)


_BODY_DEFECTS = {"InvalidBase64CharactersDefect", "InvalidBase64PaddingDefect",
                 "InvalidBase64LengthDefect", "StartBoundaryNotFoundDefect",
                 "CloseBoundaryNotFoundDefect", "MultipartInvariantViolationDefect"}
_HEADER_LINE = re.compile(rb"^[A-Za-z][A-Za-z0-9-]*:[ \t]")


_CONTENT_TYPE = re.compile(rb"(?i)^content-type[ \t]*:(.*)$")
_NESTING_TYPE = re.compile(rb"(?i)^[ \t]*(multipart|message)[ \t]*/")
_BOUNDARY = re.compile(rb'(?i)(?:^|[;\s])boundary[ \t]*=[ \t]*(?:"([^"]*)"|([^\s;]+))')


def mime_depth(raw: bytes, *, stop_at: int = MAX_MIME_DEPTH) -> int:
    """How deep a message's MIME parts are nested, counted without recursion (``stop_at``:
    stop counting once deeper than that).

    Every ``Content-Type: multipart/...`` or ``message/...`` header opens a level; a
    multipart's delimiter line (``--boundary``) closes whatever was opened inside it, its
    closing line (``--boundary--``) the multipart too. Headers are looked for on every line,
    so a body quoting such headers can only make the count larger, never smaller."""
    open_levels: list[bytes | None] = []   # a multipart's boundary; None: a message/* part
    deepest = 0
    lines = raw.split(b"\n")
    i = 0
    while i < len(lines):
        line = lines[i].rstrip(b"\r")
        i += 1
        if line.startswith(b"--") and open_levels:
            _close_levels(open_levels, line)
            continue
        m = _CONTENT_TYPE.match(line)
        if m is None:
            continue
        value = m.group(1)
        while i < len(lines) and lines[i][:1] in (b" ", b"\t"):   # a folded header
            value += b" " + lines[i].strip()
            i += 1
        kind = _NESTING_TYPE.match(value)
        if kind is None:
            continue
        b = _BOUNDARY.search(value) if kind.group(1).lower() == b"multipart" else None
        open_levels.append((b.group(1) if b.group(1) is not None else b.group(2)) if b else None)
        deepest = max(deepest, len(open_levels))
        if deepest > stop_at:
            break
    return deepest


def _close_levels(open_levels: list[bytes | None], line: bytes) -> None:
    """A ``--boundary`` line of an open multipart: the levels inside it end (and the
    multipart itself on ``--boundary--``)."""
    for j in range(len(open_levels) - 1, -1, -1):
        b = open_levels[j]
        if b is None or not line.startswith(b"--" + b):
            continue
        rest = line[2 + len(b):].rstrip(b" \t")
        if rest in (b"", b"--"):
            del open_levels[j + (0 if rest == b"--" else 1):]
            return


def read_sender(raw: bytes) -> str | None:
    """The From address of a message that cannot be read whole (binary, nested too deep,
    over the size limit), from its header block alone; None when there is none."""
    head = raw[:65536].replace(b"\x00", b"")
    if not _looks_like_mail(head):
        return None
    end = re.search(rb"\r?\n\r?\n", head)
    head = head[:end.start()] + b"\r\n\r\n" if end else head
    try:
        msg = email.message_from_bytes(head, policy=email.policy.default)
        return _sender(msg)[0]
    except Exception:  # the email package raises many kinds on broken headers
        return None


def _looks_like_mail(raw: bytes) -> bool:
    first = raw.lstrip(b"\r\n").split(b"\n", 1)[0]
    return bool(_HEADER_LINE.match(first)) or first.startswith(b"From ")


def _header(msg: Message, name: str) -> str:
    """A header's decoded value; a header the email package cannot parse is decoded from
    its raw form instead."""
    try:
        v = msg.get(name)
        return "" if v is None else str(v)
    except Exception:  # the email package raises many kinds on broken headers
        pass
    for key, raw in msg.raw_items():
        if key.lower() == name.lower():
            try:
                return "".join(_decode_bytes(b, cs) if isinstance(b, bytes) else b
                               for b, cs in email.header.decode_header(str(raw)))
            except Exception:
                return str(raw)
    return ""


#: comments nested deeper than this in an address header are not parsed (the parsers recurse)
_MAX_PARENS = 16


def _paren_depth(value: str) -> int:
    depth = deepest = 0
    for ch in value:
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth = max(0, depth - 1)
    return deepest


def _sender(msg: Message) -> tuple[str | None, str]:
    for name in ("From", "Sender", "Reply-To"):
        if any(k.lower() == name.lower() and _paren_depth(str(v)) > _MAX_PARENS
               for k, v in msg.raw_items()):
            continue
        raw = _header(msg, name)
        if not raw:
            continue
        pairs = getaddresses([raw])
        for display, addr in pairs:
            addr = addr.strip()
            if "@" in addr:
                return addr.lower(), display.strip()
    return None, ""


def _decode_bytes(data: bytes, charset: str | None) -> str:
    """Bytes in a declared charset; a wrong or missing label is recovered by trying
    UTF-8, then windows-1251 / koi8-r whichever reads as more Russian."""
    if charset:
        cs = charset.lower().strip()
        if cs in _CYRILLIC_8BIT:
            # clients mislabel koi8-r as windows-1251 and back: take whichever reads as Russian
            declared = _CYRILLIC_8BIT[cs]
            other = "koi8-r" if declared == "cp1251" else "cp1251"
            a, b = data.decode(declared, errors="replace"), data.decode(other, errors="replace")
            return b if _russianness(b) > _russianness(a) + 2 else a
        if cs in ("utf-8", "utf8", "us-ascii", "ascii"):
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError:
                pass
        else:
            try:
                return data.decode(cs)
            except (LookupError, UnicodeDecodeError):
                pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    candidates = [data.decode(cs, errors="replace") for cs in ("cp1251", "koi8-r")]
    return max(candidates, key=_russianness)


def _russianness(s: str) -> int:
    # koi8-r misread as cp1251 (and the reverse) gives mostly upper-case Cyrillic letters;
    # real Russian text is mostly lower case.
    lower = sum(1 for ch in s if "а" <= ch <= "я" or ch == "ё")
    upper = sum(1 for ch in s if "А" <= ch <= "Я" or ch == "Ё")
    return lower * 2 - upper


def _part_text(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if payload is None:
        p = part.get_payload()
        return p if isinstance(p, str) else ""
    return _decode_bytes(cast(bytes, payload), part.get_content_charset())


def _body_text(msg: Message) -> str:
    plain: list[str] = []
    htmls: list[str] = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        disp = _header(part, "Content-Disposition").lower()
        if disp.startswith("attachment"):
            continue
        ctype = part.get_content_type()
        if ctype == "text/plain":
            plain.append(_part_text(part))
        elif ctype == "text/html":
            htmls.append(_part_text(part))
        elif ctype == "message/rfc822":
            # an attached (forwarded) message is not the sender's own text
            continue
    if plain:
        return "\n".join(plain)
    if htmls:
        return "\n".join(html_to_text(h) for h in htmls)
    if msg.get_content_maintype() == "text" and not msg.is_multipart():
        return _part_text(msg)
    return ""


_BLOCK = re.compile(r"(?is)<\s*(br|/p|p|/div|div|/li|li|/tr|tr|/h\d|h\d|/blockquote)\b[^>]*>")
_DROP = re.compile(r"(?is)<(script|style|head|title)\b.*?</\1\s*>")
_QUOTE_BLOCK = re.compile(r"(?is)<blockquote\b.*?</blockquote\s*>")
_GMAIL_QUOTE = re.compile(r"(?is)<div[^>]*class=\"?[^\">]*(gmail_quote|moz-cite-prefix)[^>]*>.*\Z")
_TAG = re.compile(r"(?s)<[^>]*>")
_COMMENT = re.compile(r"(?s)<!--.*?-->")


def html_to_text(markup: str) -> str:
    """Text of an HTML mail body: quotes (blockquote, Gmail/Thunderbird quote blocks),
    scripts and styles dropped, block tags turned into line breaks, entities decoded."""
    s = _COMMENT.sub("", markup)
    s = _DROP.sub("", s)
    # nested blockquotes: remove innermost first until none is left
    while True:
        t = _QUOTE_BLOCK.sub("\n", s)
        if t == s:
            break
        s = t
    s = _GMAIL_QUOTE.sub("\n", s)
    s = _BLOCK.sub("\n", s)
    s = _TAG.sub("", s)
    s = html.unescape(s).replace("\xa0", " ")
    lines = [ln.strip() for ln in s.splitlines()]
    return "\n".join(lines).strip()


_ATTRIBUTION = re.compile(
    r"(?i)(^\s*on\b.{0,200}\bwrote:\s*$)|(написал[аи]?\s*(\(а\))?\s*:\s*$)|(пишет:\s*$)"
    r"|(^.{0,120}\d{1,2}:\d\d.{0,120}<[^<>@\s]+@[^<>\s]+>\s*:\s*$)")
_FORWARD = re.compile(
    r"(?i)^\s*-{2,}\s*(forwarded message|original message|пересылаемое сообщение|"
    r"пересланное сообщение|исходное сообщение|переадресованное сообщение)\s*-{2,}\s*$"
    r"|^\s*begin forwarded message:\s*$")
_OUTLOOK_HEADER = re.compile(r"(?i)^\s*(from|от|de)\s*:\s*.+$")


def strip_quotes(text: str) -> str:
    """The sender's own lines: no ``>`` quotes, nothing after an attribution line
    («On ... wrote:», «... написал(а):»), a forward marker, an Outlook-style quoted header
    block, or the signature separator ``-- ``."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    out: list[str] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.rstrip() == "--" or line == "-- ":
            break
        if _FORWARD.match(line):
            break
        if _ATTRIBUTION.search(line):
            break
        # a two-line attribution: "On Tue, 9 Apr 2024 at 19:00, Вася\n<vasya@x> wrote:"
        if i + 1 < len(lines) and re.match(r"(?i)^\s*on\b", line) \
                and re.search(r"(?i)wrote:\s*$", lines[i + 1]):
            break
        if line.lstrip().startswith(">"):
            continue
        # Outlook: a "From:/От:" line followed by Sent/Отправлено starts the quoted original
        if _OUTLOOK_HEADER.match(line) and i + 1 < len(lines) and re.match(
                r"(?i)^\s*(sent|date|отправлено|дата)\s*:", lines[i + 1]):
            break
        out.append(line.rstrip())
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return "\n".join(out)


def sender_matches(sender: str | None, contact: str | None) -> bool:
    """Address compare, case-insensitive, ignoring a display name and angle brackets."""
    if not sender or not contact:
        return False
    a = getaddresses([sender])[0][1] or sender
    b = getaddresses([contact])[0][1] or contact
    return a.strip().lower() == b.strip().lower()


__all__ = ["MailText", "decode_message", "mime_depth", "read_sender", "MAX_MIME_DEPTH",
           "html_to_text", "strip_quotes", "sender_matches"]
