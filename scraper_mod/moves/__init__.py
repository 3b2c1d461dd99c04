"""Night moves as they arrive (issue 5; docs/rules.md R5): players send their night moves
privately; this package is where they come from and how they are read. Collecting them all
day, judging each and answering the sender is the service ``game.intake`` (with
``game.movesource``, the source a game file names, and ``game.smtp``, mailed answers).

- ``sources``  where moves arrive: a Maildir, an IMAP folder, a queue folder, the host's board
  private messages; each message is stored raw with the host side's receive time first;
- ``capped``   reading a message within ``[moves] max_message_size`` (the sources use it);
- ``mail``     decoding real mail (MIME, charsets, HTML, quotes and forwards removed);
- ``grammar``  the move grammar, Russian and English («убить Васю», "kill Vasya", «история: …»,
  «код: …»);
- ``targets``  target names matched like votes (``rules.names``).

The game file's ``[moves]`` table::

    source = "maildir"        # maildir | imap | queue | forum_pm (old name: phpbb_pm)
    path = "moves"            # the Maildir or queue folder, relative to the game folder
    host = "imap.example.org" # imap: host, port, username, folder, security (ssl|starttls|none);
    username = "host@example.org"   # the password from SCRAPER_MOD_IMAP_PASSWORD
    require_code = false      # true: a move must carry the player's secret code (``code``)
    outbox = "outbox"         # answers: <game>/outbox/day-N/<message>.txt
    smtp_host = "localhost"   # when set, answers to players are also mailed (smtp_port, smtp_from)
    max_message_size = 1_048_576   # bytes read of one message at most (docs/security.md)
    max_moves_per_message = 20     # moves read from one message at most

``forum_pm`` (any engine the board has; ``phpbb_pm`` is its old name) reads the inbox of the ``[forum]`` user over the same logged-in session as the
forum reader (password from SCRAPER_MOD_FORUM_PASSWORD).
"""
