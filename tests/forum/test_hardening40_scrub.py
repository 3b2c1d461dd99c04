"""Issue 40, item 14: the board's session id never reaches the state file or an error line
(docs/security.md): phpBB's ``sid=``, SMF's ``PHPSESSID=`` and SMF's session check in a link
(``;<random name>=<session id>``), as the boards write them."""

from __future__ import annotations

from datetime import datetime, timezone

from scraper_mod.errors import ForumError, scrub_secrets
from scraper_mod.forum.posting import PostRefused
from scraper_mod.forum.session import scrub_body, scrub_url
from scraper_mod.store import Store

PHPBB_SID = "0123456789abcdef0123456789abcdef"
SMF_SID = "k1v4ml9qj2s3p8e6a0b5c7d9f1"
SMF_CHECK = "5f2a9c0e7b1d3f4a6c8e0b2d4f6a8c0e"
URLS = [f"http://board.test/viewtopic.php?f=3&t=7&sid={PHPBB_SID}",
        f"http://smf.test/index.php?PHPSESSID={SMF_SID}&topic=2.0",
        f"http://smf.test/index.php?action=lock;topic=2.0;sa=lock;f8e8c240={SMF_CHECK}"]
SECRETS = (PHPBB_SID, SMF_SID, SMF_CHECK)


def clean(text: str) -> bool:
    return not any(s in text for s in SECRETS)


def test_error_lines_never_carry_a_session_id():
    for url in URLS:
        e = PostRefused("no-permission", f"refused at {url}", url=url, hint=f"see {url}")
        assert clean(str(e)) and clean(e.url or "") and "http://" in str(e)
        assert clean(str(ForumError("down", url=url)))
    assert scrub_secrets(URLS[1]) == "http://smf.test/index.php?PHPSESSID=&topic=2.0"
    assert scrub_url(URLS[2]).endswith(";sa=lock;f8e8c240=")


def test_the_state_file_never_carries_a_session_id(tmp_path):
    at = datetime(2024, 4, 9, 12, tzinfo=timezone.utc)
    store = Store(tmp_path / "state.sqlite")
    try:
        store.put("poller/last", {"url": URLS[1]})
        store.log_event("alert", {"detail": f"failed: {URLS[0]}"}, at=at)
        store.set_publication("g", 1, "lock", "day-1", status="failed", sha256="", at=at,
                              url=URLS[2], error=f"refused: {URLS[2]}")
        store.close()
        raw = (tmp_path / "state.sqlite").read_bytes()
        assert not any(s.encode() in raw for s in SECRETS)
    finally:
        store.close()


def test_stored_smf_pages_lose_phpsessid():
    body = (f'<a href="http://smf.test/index.php?PHPSESSID={SMF_SID}&amp;topic=2.0">'
            "День 1</a>").encode()
    assert SMF_SID.encode() not in scrub_body(body) and b"topic=2.0" in scrub_body(body)
