"""A real IMAP server for the tests: pymap (PyPI, pure Python, in-memory ``dict`` backend),
run as a subprocess on 127.0.0.1, plus a TCP proxy in front of it that can terminate TLS
(for implicit-TLS IMAPS, which pymap itself does not offer) and drop the connection on cue.

pymap offers STARTTLS with the test certificate beside this file (``test-cert.pem``, a
self-signed certificate for 127.0.0.1/localhost, valid for a century) or plain IMAP with
``--no-tls``.
"""

from __future__ import annotations

import imaplib
import socket
import ssl
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
CERT = HERE / "test-cert.pem"
KEY = HERE / "test-key.pem"
USER = "host@example.org"
PASSWORD = "s3cret-imap-pass"


def client_context() -> ssl.SSLContext:
    """An SSL context that trusts the test certificate."""
    ctx = ssl.create_default_context(cafile=str(CERT))
    return ctx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen | None = None, timeout: float = 20.0) -> None:
    """Until something accepts connections on 127.0.0.1:port (the server's start-up)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the IMAP server exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.02)  # start-up only: the server is another process
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


# pymap hashes the test password with 500 000 PBKDF2 rounds (0.8 s a login): a test server
# needs no such strength, so it starts with 1 000.
_LAUNCH = ("import pysasl.hashing, pymap.config; "
           "pymap.config.BuiltinHash = lambda: pysasl.hashing.BuiltinHash(rounds=1000); "
           "from pymap.main import main; main()")


class PymapServer:
    """``with PymapServer(tls=True) as srv:`` — srv.port, srv.append(folder, raw, when)."""

    def __init__(self, *, tls: bool = True) -> None:
        self.tls = tls
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> "PymapServer":
        args = [sys.executable, "-c", _LAUNCH,
                "--host", "127.0.0.1", "--port", str(self.port)]
        if self.tls:
            args += ["--cert", str(CERT), "--key", str(KEY)]
        else:
            args += ["--no-tls"]
        args += ["dict", "--demo-user", USER, "--demo-password", PASSWORD]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_port(self.port, self.proc)
        return self

    def __exit__(self, *exc) -> None:
        if self.proc is not None:
            self.proc.kill()  # in-memory: nothing to save
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc.stderr.close()

    # -- feeding the mailbox, as a mail server's delivery would ------------------------------
    def admin(self) -> imaplib.IMAP4:
        c = imaplib.IMAP4("127.0.0.1", self.port, timeout=10)
        if self.tls:
            c.starttls(ssl_context=client_context())
        c.login(USER, PASSWORD)
        return c

    def create(self, folder: str) -> None:
        with self.admin() as c:
            c.create(f'"{folder}"')

    def delete(self, folder: str) -> None:
        with self.admin() as c:
            c.delete(f'"{folder}"')

    def append(self, folder: str, raw: bytes, when: datetime) -> int:
        """Deliver a message with INTERNALDATE ``when``; returns its UID."""
        return self.append_many(folder, [(raw, when)])[0]

    def append_many(self, folder: str, items: list[tuple[bytes, datetime]]) -> list[int]:
        """Deliver several messages over one connection; returns their UIDs."""
        uids = []
        with self.admin() as c:
            for raw, when in items:
                typ, data = c.append(f'"{folder}"', None, imaplib.Time2Internaldate(when), raw)
                assert typ == "OK", data
                # [APPENDUID <uidvalidity> <uid>]
                code = data[0].decode()
                uids.append(int(code.split("APPENDUID", 1)[1].split("]")[0].split()[1]))
        return uids


class Proxy:
    """A TCP proxy on 127.0.0.1 to ``upstream_port``; ``tls=True`` serves TLS to the client
    (implicit IMAPS) and speaks plain to the upstream. ``drop_when(b"...")``: close the
    connection as soon as the client sends bytes containing that marker (a dropped link)."""

    def __init__(self, upstream_port: int, *, tls: bool = False) -> None:
        self.upstream_port = upstream_port
        self.tls = tls
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.marker: bytes | None = None
        self.drops = 0
        self._stop = False
        self._conns: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> "Proxy":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop = True
        try:
            self.sock.close()
        except OSError:
            pass
        for c in self._conns:
            _close(c)

    def drop_when(self, marker: bytes | None) -> None:
        self.marker = marker

    def _serve(self) -> None:
        ctx = None
        if self.tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(str(CERT), str(KEY))
        while not self._stop:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            try:
                if ctx is not None:
                    client = ctx.wrap_socket(client, server_side=True)
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except (OSError, ssl.SSLError):
                _close(client)
                continue
            self._conns += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False),
                             daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, from_client: bool) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if from_client and self.marker is not None and self.marker in data:
                    self.drops += 1
                    break
                dst.sendall(data)
        except (OSError, ssl.SSLError):
            pass
        _close(src)
        _close(dst)


def _close(s: socket.socket) -> None:
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        s.close()
    except OSError:
        pass


__all__ = ["PymapServer", "Proxy", "client_context", "USER", "PASSWORD", "CERT"]
