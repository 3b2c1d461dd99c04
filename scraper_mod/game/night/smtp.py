"""Sending a move's answer by SMTP (``[moves] smtp_*`` in game.toml)."""

from __future__ import annotations

import os
import smtplib
import ssl
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import TYPE_CHECKING

from scraper_mod.errors import MailboxError

if TYPE_CHECKING:
    from scraper_mod.game.night.intake import Answer
    from scraper_mod.game.setup.config import MovesConfig


SMTP_PASSWORD_ENV = "SCRAPER_MOD_SMTP_PASSWORD"


def send_answer(moves_config: MovesConfig, answer: Answer, *,
                ssl_context: ssl.SSLContext | None = None) -> None:
    """Send one answer by SMTP (``send_mail``)."""
    if not answer.to:
        raise MailboxError("the answer has no address to go to", source="smtp")
    send_mail(moves_config, answer.to, answer.subject, answer.text, ssl_context=ssl_context)


def send_mail(moves_config: MovesConfig, to: str, subject: str, text: str, *,
              ssl_context: ssl.SSLContext | None = None) -> None:
    """Send one plain-text mail by SMTP: ``[moves] smtp_host``, ``smtp_port``, ``smtp_from``;
    and, where the game file has them, ``smtp_security`` (none | starttls | ssl) and
    ``smtp_username`` with the password from ``SCRAPER_MOD_SMTP_PASSWORD`` (never logged)."""
    m = moves_config
    if not m.smtp_host:
        raise MailboxError("no SMTP server to send by", source="smtp",
                           hint="set [moves] smtp_host in game.toml")
    msg = EmailMessage()
    sender = m.smtp_from or f"scraper-mod@{m.smtp_host}"
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = format_datetime(datetime.now().astimezone())
    msg["Message-ID"] = make_msgid(domain=sender.rsplit("@", 1)[-1])
    msg.set_content(text)
    security = m.smtp_security
    username = m.smtp_username
    ctx = ssl_context or ssl.create_default_context()
    smtp: smtplib.SMTP
    if security == "ssl":
        smtp = smtplib.SMTP_SSL(m.smtp_host, m.smtp_port, timeout=30, context=ctx)
    else:
        smtp = smtplib.SMTP(m.smtp_host, m.smtp_port, timeout=30)
    with smtp:
        if security == "starttls":
            smtp.starttls(context=ctx)
        if username:
            password = os.environ.get(SMTP_PASSWORD_ENV)
            if not password:
                raise MailboxError("no SMTP password", source=f"smtp:{m.smtp_host}",
                                   hint=f"set the environment variable {SMTP_PASSWORD_ENV}")
            smtp.login(username, password)
        smtp.send_message(msg)
