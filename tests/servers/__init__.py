"""Real servers on 127.0.0.1 for the tests (IMAP: pymap; SMTP: aiosmtpd) and the move-test
game folder."""
