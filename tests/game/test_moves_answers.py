"""The answers to night-move messages (RULES R5.1/R5.2: the sender is told at once), as golden
files: every status and reason a night of real mail produces, in Russian and English.

The expected texts live in fixtures/mail/answers/<lang>/<message>.txt. To regenerate them on
purpose after changing templates/move-answer.*: ``SCRAPER_MOD_REGEN_GOLDEN=1 python -m pytest
tests/game/test_moves_answers.py``, then read the diff."""

from __future__ import annotations

import os

import pytest
from servers.movegame import MAIL, deliver, mail, maildir, make_game, msk

from scraper_mod.clock import FakeClock
from scraper_mod.game.context import open_game
from scraper_mod.game.night.intake import poll_moves

REGEN = os.environ.get("SCRAPER_MOD_REGEN_GOLDEN") == "1"
GOLDEN = MAIL / "answers"

NIGHT = [
    ("01-multipart-alternative-utf8-qp.eml", "2024-04-09 12:03:15"),   # Boss: kill
    ("04-reply-gmail-en-attribution.eml", "2024-04-09 13:47:02"),      # duty: overridden, story
    ("02-html-only-cp1251-base64.eml", "2024-04-09 15:20:45"),         # Doctor: heal
    ("03-plain-koi8r-qp.eml", "2024-04-09 16:05:09"),                  # Commissar: check
    ("05-reply-ru-thunderbird.eml", "2024-04-09 18:30:00"),            # Boss: freeze
    ("10-malformed.eml", "2024-04-09 19:00:00"),                       # unreadable
    ("07-forged-sender.eml", "2024-04-09 19:10:00"),                   # unknown sender
    ("12-two-moves-mislabelled-charset.eml", "2024-04-09 19:59:58"),   # VSB: role cannot
]
EXTRA = [
    ("bigjoe@example.org", "убить Ёжика", "2024-04-09 19:20:00"),      # the VSB: invalid
    ("doc@example.org", "лечу Алексея", "2024-04-09 19:30:00"),         # replaces the heal
    ("doc@example.org", "лечу Петю", "2024-04-09 19:31:00"),            # unknown: heal stands
    ("nightowl@example.org", "проверить Big Joe", "2024-04-09 19:40:00"),  # not yet Commissar
    ("player7@example.org", "убить себя", "2024-04-09 19:45:00"),       # the Maniac: self
    ("masha@example.org", "Привет! Удачи всем.", "2024-04-09 19:50:00"),  # no move
    ("player7@example.org", "убить Машу", "2024-04-09 20:00:30"),       # late
]


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_answers_golden(tmp_path, lang):
    folder = make_game(tmp_path / "g", language=lang)
    md = maildir(folder / "moves")
    for name, when in NIGHT:
        deliver(md, (MAIL / name).read_bytes(), msk(when))
    for sender, body, when in EXTRA:
        deliver(md, mail(sender, body), msk(when))
    ctx = open_game(folder, clock=FakeClock(msk("2024-04-09 20:05:00")))
    try:
        rep = poll_moves(ctx)
    finally:
        ctx.close()
    assert len(rep.answers) == len(NIGHT) + len(EXTRA)
    got = {a.path.name: a.path.read_text(encoding="utf-8") for a in rep.answers}
    want_dir = GOLDEN / lang
    if REGEN:
        want_dir.mkdir(parents=True, exist_ok=True)
        for old in want_dir.glob("*.txt"):
            old.unlink()
        for name, text in got.items():
            (want_dir / name).write_text(text, encoding="utf-8")
    want = {p.name: p.read_text(encoding="utf-8") for p in sorted(want_dir.glob("*.txt"))}
    assert want, f"no golden answers in {want_dir}: run with SCRAPER_MOD_REGEN_GOLDEN=1"
    assert got == want
