"""A real SMTP server for the tests: aiosmtpd's Controller on 127.0.0.1, keeping what it
receives (envelope sender, recipients, the parsed message)."""

from __future__ import annotations

import email
import email.policy
from dataclasses import dataclass, field

from aiosmtpd.controller import Controller


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    message: email.message.EmailMessage


@dataclass
class _Handler:
    inbox: list[Received] = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.original_content or envelope.content,
                                       policy=email.policy.default)
        self.inbox.append(Received(envelope.mail_from, list(envelope.rcpt_tos), msg))
        return "250 OK"


class SmtpServer:
    """``with SmtpServer() as smtp:`` — smtp.port, smtp.inbox."""

    def __init__(self, port: int | None = None) -> None:
        from .imap import free_port
        self.handler = _Handler()
        self.port = port or free_port()
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port)

    @property
    def inbox(self) -> list[Received]:
        return self.handler.inbox

    def __enter__(self) -> "SmtpServer":
        self.controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self.controller.stop()
