"""Issue 18: a fuzz test (hypothesis) of the mail and queue readers, with nesting, sizes and
encodings. Whatever mail arrives, reading it gives a move, an «unreadable» or a «too large»,
never an exception; nothing over the size limit is stored whole; the move of a mail read
whole is found. Bounded: a few dozen examples per property, well under 20 s in all.
"""

from __future__ import annotations

import base64
import os
import quopri
import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from servers.movegame import msk

from scraper_mod.errors import MailboxError
from scraper_mod.game.night.intake import read_letter
from scraper_mod.moves.capped import TOO_LARGE_EVENT
from scraper_mod.moves.mail import MAX_MIME_DEPTH, decode_message, mime_depth
from scraper_mod.moves.sources import MaildirSource, QueueSource
from scraper_mod.store import Store

MOVE = "лечу Машу"
CHARSETS = ["utf-8", "koi8-r", "windows-1251", "utf-16"]   # utf-16: not a mail charset
ENCODINGS = ["8bit", "base64", "quoted-printable", "7bit"]


@st.composite
def leaf(draw) -> tuple[bytes, bool]:
    """A text part: (its bytes, whether it says MOVE readably)."""
    charset = draw(st.sampled_from(CHARSETS))
    cte = draw(st.sampled_from(ENCODINGS))
    html = draw(st.booleans())
    words = draw(st.text(max_size=30))
    text = f"{MOVE}\n{words}" if not html else f"<p>{MOVE}</p><p>{words}</p>"
    try:
        body = text.encode(charset)
    except UnicodeEncodeError:
        body = text.encode("utf-8", "replace")
        charset = "utf-8"
    if cte == "base64":
        body = base64.encodebytes(body)
    elif cte == "quoted-printable":
        body = quopri.encodestring(body)
    elif cte == "7bit":
        body = body.decode("ascii", "replace").encode("ascii", "replace")
    kind = "html" if html else "plain"
    head = (f"Content-Type: text/{kind}; charset={charset}\r\n"
            f"Content-Transfer-Encoding: {cte}\r\n\r\n").encode()
    readable = charset != "utf-16" and cte != "7bit" and not html
    return head + body + b"\r\n", readable


@st.composite
def tree(draw) -> tuple[bytes, int, bool]:
    """A MIME body: (bytes, nesting depth, whether its first text/plain part says MOVE).
    Nested 0 to 40 levels deep (multipart/mixed, /alternative, message/rfc822), one in ten
    1,000 levels deeper still."""
    part, readable = draw(leaf())
    depth = draw(st.integers(0, 40))
    for i in range(depth):
        kind = draw(st.sampled_from(["mixed", "alternative", "rfc822"]))
        if kind == "rfc822":
            part = (b"Content-Type: message/rfc822\r\n\r\nFrom: a@b.example\r\nSubject: fwd\r\n"
                    + part)
            readable = False       # a forwarded message is not the sender's own text
            continue
        b = f"=_{i}_{draw(st.integers(0, 999))}".encode()
        extra = b""
        if draw(st.booleans()):     # a sibling: an attachment
            extra = (b"--" + b + b"\r\nContent-Type: application/octet-stream\r\n"
                     b"Content-Disposition: attachment\r\n\r\n" + os.urandom(20) + b"\r\n")
        part = (b'Content-Type: multipart/' + kind.encode() + b'; boundary="' + b + b'"\r\n\r\n'
                + b"--" + b + b"\r\n" + part + extra + b"--" + b + b"--\r\n")
    if draw(st.integers(0, 9)) == 0:    # now and then a mail bomb: 1,000 levels more
        for i in range(1000):
            b = f"=_bomb{i}".encode()
            part = (b'Content-Type: multipart/mixed; boundary="' + b + b'"\r\n\r\n--' + b
                    + b"\r\n" + part + b"--" + b + b"--\r\n")
        depth += 1000
    return part, depth, readable


def mail_bytes(body: bytes) -> bytes:
    return (b"From: doc@example.org\r\nTo: host@example.org\r\nSubject: x\r\n"
            b"Message-ID: <fuzz@example.org>\r\nMIME-Version: 1.0\r\n") + body


@settings(max_examples=80, deadline=None)
@given(tree())
def test_any_nesting_and_encoding_reads_or_is_refused(t):
    body, depth, readable = t
    raw = mail_bytes(body)
    assert mime_depth(raw) >= min(depth, MAX_MIME_DEPTH + 1)
    try:
        m = decode_message(raw, label="fuzz")
    except MailboxError as e:
        assert depth > MAX_MIME_DEPTH or "binary" in e.message, e.message
        return
    assert depth <= MAX_MIME_DEPTH
    assert m.sender == "doc@example.org"
    if readable:
        assert MOVE in m.text


def store_and_read(make_source, put, raw: bytes):
    """Put ``raw`` in a fresh source folder, fetch it into a fresh store, read it back."""
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d) / "moves"
        put(folder, raw)
        store = Store(":memory:")
        try:
            src = make_source(folder)
            rep = src.fetch_new(store, now=msk("2024-04-09 13:00:00"))
            (msg,) = store.messages()
            big = {e["message"]: e for _, _, e in store.events(TOO_LARGE_EVENT)}
            return rep, msg, read_letter(msg, too_large=big.get(msg.id), max_size=src.max_size)
        finally:
            store.close()


def put_queue(folder: Path, raw: bytes) -> None:
    folder.mkdir()
    (folder / "m.eml").write_bytes(raw)


def put_maildir(folder: Path, raw: bytes) -> None:
    for sub in ("cur", "new", "tmp"):
        (folder / sub).mkdir(parents=True)
    t = msk("2024-04-09 12:00:00").timestamp()
    path = folder / "new" / f"{int(t)}.M1P1.fuzz"
    path.write_bytes(raw)
    os.utime(path, (t, t))


SOURCES = {
    "queue": (lambda f, n: QueueSource(f, max_size=n), put_queue),
    "maildir": (lambda f, n: MaildirSource(f, max_size=n,
                                           since=msk("2024-04-09 12:00:00") - timedelta(days=1)),
                put_maildir),
}


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tree(), st.sampled_from(sorted(SOURCES)), st.integers(0, 3000),
       st.sampled_from([1024, 2048, 4096]), st.binary(max_size=64))
def test_the_queue_and_maildir_readers_with_any_size(t, kind, padding, limit, junk):
    """Any mail, padded to any size, with junk (NUL bytes included) appended: the source
    stores at most ``limit`` bytes, the reader gives a letter, too large ones say so, and a
    letter that could be read names its sender."""
    body, depth, _ = t
    raw = mail_bytes(body) + b"x" * padding + junk
    make, put = SOURCES[kind]
    rep, msg, letter = store_and_read(lambda f: make(f, limit), put, raw)
    assert len(msg.raw) == min(len(raw), limit)
    if len(raw) > limit:
        assert letter.limit == "size" and letter.problem.startswith("unreadable")
        assert any("max_message_size" in e for e in rep.errors)
    elif depth > MAX_MIME_DEPTH:
        assert letter.limit == "nesting" or "binary data" in letter.problem, letter.problem
    assert letter.sender == "doc@example.org"     # from the header block, whatever the body
