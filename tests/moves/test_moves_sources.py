"""Move sources (issue 5): every message stored raw with the host side's receive time before
it is interpreted; Maildir and queue folders; unreadable mailboxes and messages; a dropped
IMAP connection loses nothing and the next poll resumes after the last stored UID."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone

import pytest
from servers.imap import PASSWORD, USER, Proxy, PymapServer
from servers.movegame import MAIL, deliver, mail, maildir, msk

from scraper_mod.errors import MailboxError
from scraper_mod.moves.sources import ImapSource, MaildirSource, QueueSource, parse_internaldate
from scraper_mod.store import Store

NOW = datetime(2024, 4, 9, 17, 30, tzinfo=timezone.utc)


@pytest.fixture
def store():
    s = Store(":memory:")
    yield s
    s.close()


# -- Maildir --------------------------------------------------------------------------------

def test_maildir_stores_raw_with_delivery_time_and_marks_stored(tmp_path, store):
    md = maildir(tmp_path / "moves")
    raw = (MAIL / "01-multipart-alternative-utf8-qp.eml").read_bytes()
    deliver(md, raw, msk("2024-04-09 12:03:15"))
    src = MaildirSource(md)
    rep = src.fetch_new(store, now=NOW)
    assert len(rep.new) == 1 and rep.ok
    (m,) = store.messages()
    assert m.raw == raw                                  # byte for byte
    assert m.received_at == msk("2024-04-09 12:03:15")   # not the Date header (12:03:10)
    assert os.listdir(md / "new") == []
    (name,) = os.listdir(md / "cur")
    assert name.endswith(":2,S")
    assert os.stat(md / "cur" / name).st_mtime == msk("2024-04-09 12:03:15").timestamp()
    # a second poll stores nothing again
    assert src.fetch_new(store, now=NOW).new == ()
    assert len(store.messages()) == 1


def test_maildir_duplicate_delivery_is_stored_twice_raw(tmp_path, store):
    """Two deliveries of one Message-ID are two files: both are stored (nothing is lost);
    the intake recognises the second as a duplicate (test_moves_cli)."""
    md = maildir(tmp_path / "moves")
    raw = mail("doc@example.org", "лечу Машу", message_id="dup-1@example.org")
    deliver(md, raw, msk("2024-04-09 12:00:00"))
    deliver(md, raw, msk("2024-04-09 12:00:05"))
    rep = MaildirSource(md).fetch_new(store, now=NOW)
    assert len(rep.new) == 2


def test_maildir_already_read_messages_in_cur_are_stored_too(tmp_path, store):
    md = maildir(tmp_path / "moves")
    p = deliver(md, mail("doc@example.org", "лечу Машу"), msk("2024-04-09 12:00:00"))
    os.rename(p, md / "cur" / (p.name + ":2,S"))        # the host read it in his mail client
    rep = MaildirSource(md).fetch_new(store, now=NOW)
    assert len(rep.new) == 1
    assert store.messages()[0].received_at == msk("2024-04-09 12:00:00")


def _age(md, seconds: float) -> None:
    """Set the mtimes of new/ and cur/ ``seconds`` into the past (a folder last changed then)."""
    for sub in ("new", "cur"):
        t = os.stat(md / sub).st_mtime - seconds
        os.utime(md / sub, (t, t))


def test_maildir_is_read_at_every_poll_whatever_its_folders_times_say(tmp_path, store):
    """Each poll lists the folder: a delivery on a file system whose folder times lag (the
    folders' mtimes unchanged by it) is read at the next poll, as is a message the host read
    in his mail client (moved to cur/) before the poll stored it; nothing is stored twice."""
    md = maildir(tmp_path / "moves")
    deliver(md, mail("doc@example.org", "лечу Машу"), msk("2024-04-09 12:00:00"))
    src = MaildirSource(md)
    assert len(src.fetch_new(store, now=NOW).new) == 1
    _age(md, 5)
    for _ in range(2):
        rep = src.fetch_new(store, now=NOW)
        assert (rep.new, rep.seen, rep.errors) == ((), 1, ())
    times = [os.stat(md / sub).st_mtime for sub in ("new", "cur")]
    deliver(md, mail("boss@example.org", "убиваю Васю"), msk("2024-04-09 12:05:00"))
    for sub, t in zip(("new", "cur"), times):       # the folder times lag: unchanged
        os.utime(md / sub, (t, t))
    assert len(src.fetch_new(store, now=NOW).new) == 1
    p = deliver(md, mail("cop@example.org", "проверяю Машу"), msk("2024-04-09 12:06:00"))
    os.rename(p, md / "cur" / (p.name + ":2,S"))
    assert len(MaildirSource(md).fetch_new(store, now=NOW).new) == 1
    assert len(store.messages()) == 3
    # another state file has read nothing: every message is stored for it
    other = Store(":memory:")
    assert len(MaildirSource(md).fetch_new(other, now=NOW).new) == 3
    other.close()


def test_maildir_with_a_problem_is_listed_every_poll(tmp_path, store, monkeypatch):
    """A message that could not be read is retried (and said) at every poll, however old
    the folder: a read with errors never settles it."""
    import scraper_mod.moves.maildir as sources
    md = maildir(tmp_path / "moves")
    deliver(md, mail("doc@example.org", "лечу Машу"), msk("2024-04-09 12:00:00"))
    real = sources.read_capped
    monkeypatch.setattr(sources, "read_capped", lambda *a: (_ for _ in ()).throw(
        PermissionError(13, "Permission denied")))
    _age(md, 5)
    for _ in range(2):
        rep = MaildirSource(md).fetch_new(store, now=NOW)
        assert rep.new == () and "Permission denied" in rep.errors[0]
    monkeypatch.setattr(sources, "read_capped", real)
    assert len(MaildirSource(md).fetch_new(store, now=NOW).new) == 1


def test_maildir_missing_or_not_a_maildir_is_a_clear_error(tmp_path, store):
    with pytest.raises(MailboxError, match="no such Maildir folder.*check \\[moves\\] path"):
        MaildirSource(tmp_path / "nope").fetch_new(store, now=NOW)
    (tmp_path / "plain").mkdir()
    with pytest.raises(MailboxError, match="not a Maildir: no cur or new/"):
        MaildirSource(tmp_path / "plain").fetch_new(store, now=NOW)


def test_maildir_unreadable_message_is_reported_and_retried(tmp_path, store):
    md = maildir(tmp_path / "moves")
    deliver(md, mail("doc@example.org", "лечу Машу"), msk("2024-04-09 12:00:00"))
    broken = md / "new" / "1712653000.M1P1.broken"
    broken.symlink_to(tmp_path / "gone")                 # the file vanished: unreadable
    src = MaildirSource(md)
    rep = src.fetch_new(store, now=NOW)
    assert len(rep.new) == 1
    assert len(rep.errors) == 1 and "1712653000.M1P1.broken: cannot read" in rep.errors[0]
    broken.unlink()
    deliver(md, mail("alexey@example.org", "проверить Big Joe"), msk("2024-04-09 12:01:00"),
            name="1712653000.M1P1.broken")
    rep = src.fetch_new(store, now=NOW)
    assert len(rep.new) == 1 and rep.ok


# -- queue folder ---------------------------------------------------------------------------

def test_queue_arrival_time_mtime_and_sidecar_and_done_folder(tmp_path, store):
    q = tmp_path / "queue"
    q.mkdir()
    a = q / "form-001.eml"
    a.write_bytes(mail("doc@example.org", "лечу Машу"))
    t = msk("2024-04-09 19:59:59").timestamp()
    os.utime(a, (t, t))
    b = q / "bot-002.txt"
    b.write_bytes(mail("alexey@example.org", "проверить Big Joe"))
    (q / "bot-002.txt.meta.json").write_text(json.dumps(
        {"received_at": "2024-04-09T19:00:00+03:00"}))
    rep = QueueSource(q).fetch_new(store, now=NOW)
    assert len(rep.new) == 2 and rep.ok
    got = {m.key.split("#")[0]: m.received_at for m in store.messages()}
    assert got == {"form-001.eml": msk("2024-04-09 19:59:59"),
                   "bot-002.txt": msk("2024-04-09 19:00:00")}
    assert sorted(os.listdir(q / "done")) == ["bot-002.txt", "bot-002.txt.meta.json",
                                               "form-001.eml"]
    assert [p for p in os.listdir(q) if p != "done"] == []


def test_queue_bad_sidecar_leaves_the_file_for_the_next_poll(tmp_path, store):
    q = tmp_path / "queue"
    q.mkdir()
    (q / "m1.txt").write_bytes(mail("doc@example.org", "лечу Машу"))
    (q / "m1.txt.meta.json").write_text("{not json")
    rep = QueueSource(q).fetch_new(store, now=NOW)
    assert rep.new == () and "m1.txt: unreadable sidecar m1.txt.meta.json" in rep.errors[0]
    assert (q / "m1.txt").exists() and store.messages() == []


def test_queue_reused_file_name_is_a_new_message(tmp_path, store):
    q = tmp_path / "queue"
    q.mkdir()
    src = QueueSource(q)
    (q / "move.txt").write_bytes(mail("doc@example.org", "лечу Машу"))
    src.fetch_new(store, now=NOW)
    (q / "move.txt").write_bytes(mail("doc@example.org", "лечу Алексея"))
    assert len(src.fetch_new(store, now=NOW).new) == 1
    assert len(store.messages()) == 2 and len(os.listdir(q / "done")) == 2


def test_queue_missing_folder(tmp_path, store):
    with pytest.raises(MailboxError, match="no such queue folder"):
        QueueSource(tmp_path / "q").fetch_new(store, now=NOW)


# -- IMAP -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def imap():
    pytest.importorskip("pymap", reason="pymap, the test IMAP server, is not installed "
                                         "(pip install -e '.[test]')")
    with PymapServer(tls=False) as srv:
        yield srv


def _source(port, folder, **kw):
    return ImapSource("127.0.0.1", port=port, username=USER, folder=folder, security="none",
                      password=PASSWORD, **kw)


def test_imap_dropped_connection_loses_nothing_and_resumes(imap, store):
    imap.create("drop")
    uids = imap.append_many("drop", [
        (mail("doc@example.org", f"лечу Машу {i}", message_id=f"d{i}@x"),
         msk(f"2024-04-09 12:0{i}:00")) for i in range(5)])
    with Proxy(imap.port) as proxy:
        src = _source(proxy.port, "drop")
        proxy.drop_when(f"FETCH {uids[2]} ".encode())
        with pytest.raises(MailboxError) as e:
            src.fetch_new(store, now=NOW)
        assert "connection dropped after 2 new message(s)" in str(e.value)
        assert f"the next poll resumes after UID {uids[1]}" in str(e.value)
        assert PASSWORD not in str(e.value)
        assert len(store.messages()) == 2
        assert store.source_state(src.name)["last_uid"] == uids[1]
        proxy.drop_when(None)
        rep = src.fetch_new(store, now=NOW)
    assert len(rep.new) == 3
    msgs = store.messages()
    assert [m.received_at for m in msgs] == [msk(f"2024-04-09 12:0{i}:00") for i in range(5)]
    assert len({m.key for m in msgs}) == 5


def test_imap_unreachable_server_and_missing_folder(imap, store):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(MailboxError, match="cannot connect.*check \\[moves\\] host"):
        _source(port, "INBOX").fetch_new(store, now=NOW)
    with pytest.raises(MailboxError, match="no such folder"):
        _source(imap.port, "Nope").fetch_new(store, now=NOW)


def test_imap_password_from_environment_never_shown(imap, store, monkeypatch):
    monkeypatch.delenv("SCRAPER_MOD_IMAP_PASSWORD", raising=False)
    src = ImapSource("127.0.0.1", port=imap.port, username=USER, folder="INBOX",
                     security="none")
    with pytest.raises(MailboxError, match="no IMAP password.*SCRAPER_MOD_IMAP_PASSWORD"):
        src.fetch_new(store, now=NOW)
    monkeypatch.setenv("SCRAPER_MOD_IMAP_PASSWORD", "wrong-Pa55")
    with pytest.raises(MailboxError) as e:
        src.fetch_new(store, now=NOW)
    assert "login refused" in str(e.value) and "wrong-Pa55" not in str(e.value)
    assert "wrong-Pa55" not in repr(src)
    monkeypatch.setenv("SCRAPER_MOD_IMAP_PASSWORD", PASSWORD)
    assert src.fetch_new(store, now=NOW).ok


def test_imap_uidvalidity_change_reads_the_folder_again(imap, store):
    imap.create("uv")
    imap.append("uv", mail("doc@example.org", "лечу Машу", message_id="uv1@x"),
                msk("2024-04-09 12:00:00"))
    src = _source(imap.port, "uv")
    assert len(src.fetch_new(store, now=NOW).new) == 1
    imap.delete("uv")
    imap.create("uv")
    imap.append("uv", mail("doc@example.org", "лечу Машу", message_id="uv1@x"),
                msk("2024-04-09 12:00:00"))
    rep = src.fetch_new(store, now=NOW)
    assert len(rep.new) == 1   # stored again under the new UIDVALIDITY; the intake dedupes
    assert len({m.key.split("/")[0] for m in store.messages()}) == 2


def test_parse_internaldate():
    assert parse_internaldate(b'1 (UID 7 INTERNALDATE " 9-Apr-2024 19:59:58 +0300" BODY[] {5}') \
        == msk("2024-04-09 19:59:58")
    assert parse_internaldate(b"1 (UID 7)") is None


def test_maildir_delivery_time_survives_a_copy_of_the_folder(tmp_path, store):
    """R5.1: the time that counts is the delivery; a restored backup (new mtimes) keeps the
    delivery agent's time in the file names."""
    md = maildir(tmp_path / "moves")
    p = deliver(md, mail("doc@example.org", "лечу Машу"), msk("2024-04-09 19:59:59.250000"))
    later = msk("2024-04-10 09:00:00").timestamp()
    os.utime(p, (later, later))                       # cp without -p
    MaildirSource(md).fetch_new(store, now=NOW)
    assert store.messages()[0].received_at == msk("2024-04-09 19:59:59.250000")


def test_maildir_delivery_time_from_name_or_mtime():
    from scraper_mod.moves.sources import delivery_time
    t = msk("2024-04-09 19:59:58").timestamp()
    assert delivery_time("1712681998.M123456P4242.mx", 0) == msk("2024-04-09 19:59:58.123456")
    assert delivery_time("1712681998.4242_1.mx", t + 0.7) == msk("2024-04-09 19:59:58.7")
    assert delivery_time("1712681998.4242_1.mx", t + 3600) == msk("2024-04-09 19:59:58")
    assert delivery_time("msg-from-a-script", t) == msk("2024-04-09 19:59:58")


def test_imap_folder_with_a_russian_name(imap, store):
    from scraper_mod.moves.sources import imap_folder_name
    assert imap_folder_name("Ходы") == "&BCUEPgQ0BEs-"      # RFC 3501 modified UTF-7
    assert imap_folder_name("A&B") == "A&-B"
    imap.create(imap_folder_name("Ходы"))
    imap.append(imap_folder_name("Ходы"), mail("doc@example.org", "лечу Машу"),
                msk("2024-04-09 12:00:00"))
    assert len(_source(imap.port, "Ходы").fetch_new(store, now=NOW).new) == 1


def test_mail_from_before_the_game_is_never_stored(tmp_path, imap, store):
    """The host's everyday mailbox: mail older than a day before day 1 stays out of the game's
    state file (privacy, and nothing to judge)."""
    since = msk("2024-04-07 21:00:00")
    imap.create("everyday")
    imap.append_many("everyday", [
        (mail("friend@example.net", "Привет!"), msk("2023-12-31 23:00:00")),
        (mail("doc@example.org", "лечу Машу"), msk("2024-04-09 12:00:00"))])
    rep = _source(imap.port, "everyday", since=since).fetch_new(store, now=NOW)
    assert len(rep.new) == 1 and store.messages()[0].received_at == msk("2024-04-09 12:00:00")
    md = maildir(tmp_path / "md")
    old = deliver(md, mail("friend@example.net", "Привет!"), msk("2024-01-01 10:00:00"))
    deliver(md, mail("doc@example.org", "лечу Машу"), msk("2024-04-09 12:00:00"))
    assert len(MaildirSource(md, since=since).fetch_new(store, now=NOW).new) == 1
    assert old.exists()   # left alone, not even marked


def test_queue_never_follows_a_symbolic_link(tmp_path, store):
    """Issue 18 item 4: a link in the queue folder to a system file (here a file outside the
    folder holding a secret) is reported, never read into the state, and left in place; the
    real message beside it is read as usual."""
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$very-secret-hash:19000:0:99999:7:::\n")
    q = tmp_path / "queue"
    q.mkdir()
    (q / "evil.eml").symlink_to(secret)
    (q / "good.eml").write_bytes(mail("doc@example.org", "лечу Машу"))
    rep = QueueSource(q).fetch_new(store, now=NOW)
    assert len(rep.new) == 1
    assert [m.key.split("#")[0] for m in store.messages()] == ["good.eml"]
    assert all(b"very-secret-hash" not in m.raw for m in store.messages())
    assert any("evil.eml" in e and "symbolic link" in e for e in rep.errors)
    assert (q / "evil.eml").is_symlink() and not (q / "done" / "evil.eml").exists()
    assert secret.read_text().startswith("root:")
