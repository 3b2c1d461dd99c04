"""The hosted mybb.ru boards (mybb.ru, 7bb.ru, rolka.me, fludilka.su, forumbb.ru, …), read only:
a closed fork of PunBB 1.2. ``MybbruBoard`` (board.py) reads posts through the board's public
JSON API (api.py) and, where the API is off, through the topic pages (pages.py); it does not
post (``can_post = False``): posting there is the host's, by hand. docs/engines.md."""
