"""phpBB topic pages (viewtopic) and topic lists (viewforum) read into plain values.

The modules, one job each: ``html`` (bytes to an lxml tree, charsets), ``kinds`` (what a page
without posts stands for), ``pages`` (page-level parts: the scan, title, pagination, lock,
zone), ``posts`` (the posts of each markup family), ``edits`` (edit notices), ``markup``
(colours, bold, quotes, signatures in a body), ``topic`` (the entry points).

Pure: bytes in, ``TopicPage`` out; one lxml parse per page and cheap tree walks (no
BeautifulSoup), because the poller parses every page it fetches.

Markup families (see ``fixtures/phpbb/``):

* **prosilver** (phpBB 3.0-3.3 and prosilver-based styles such as AllanStyle): posts are
  ``div#pNNN.post``; author and time in ``p.author`` (3.2.9+ has ``<time datetime>`` with the
  UTC instant to the second); body ``div.content``; ``div.notice`` edit notice;
  ``div.signature``; quotes ``<blockquote>`` (3.2+: ``cite="…?p=NN"`` / ``data-post-id``).
* **subsilver2** (phpBB 3.0 and the 3.2/3.3 community port): each post is a group of table
  rows starting at ``<a name="pNNN">``; ``b.postauthor``; ``<b>Posted:</b> DATE``; body
  ``div.postbody``, signature a second ``div/span.postbody`` after ``_________________``;
  quotes ``div.quotetitle`` + ``div.quotecontent``; edit notice in a ``td.row3`` table.
* **subSilver** (phpBB 2.0): rows starting at ``<a name="NNN">`` in ``span.name``; time in
  ``span.postdetails`` ("Posted: …"); body ``span.postbody`` cells, quotes ``td.quote``,
  signature after ``_________________`` in the same cell, edit notice in ``span.gensmall``.

What a post holds (``forum/model.py``):

* ``colored``: each ``[color]`` run of the author's own words (outside quotes, spoilers, code
  and signatures) in document order; hex colours as ``#RRGGBB`` upper case (``#f00`` and
  ``rgb()`` too), named colours lower case; nested colours split into their runs; a user
  name's group colour (``username-coloured``) and ``background-color`` are not colours.
* ``bold``: bold runs of the own words (``<strong>``, ``<b>``, ``font-weight:bold``).
* ``hidden``: coloured and bold runs that are *not* the author's own visible words, with
  where they stand: "quote" (with the quoted post id when the board gives it), "spoiler",
  "code" or "signature" (``color`` None for bold).
* ``quotes``: ids of quoted posts, outer before inner, each once.
* ``text``: the own words as plain text; ``<br>`` is a line break, a block (a removed quote
  included) one line break, empty lines collapse to one.
* times: ``posted_at`` == ``earliest``; see ``dates.py`` for the ranges.

What a page may lack, and what is returned then:

* no ``<time datetime>`` (everything but prosilver 3.2.9+): the shown date in ``board_tz``
  with precision "minute" (or "relative" for «N минут назад»);
* no user ids (guests, deleted users, static mirrors whose links were rewritten): ``author_id``
  None; no topic id in any link: ``topic_id`` None; quotes without a post id (phpBB 3.0, 2.0):
  not listed in ``quotes`` (their text still goes to ``hidden`` with ``quoted_post_id`` None).
* ``locked`` is read from the reply button (prosilver 3.3: «Тема закрыта» with a lock icon,
  3.0/3.1: ``div.locked-icon``, subsilver2 and phpBB 2: a ``…locked…`` button image); a
  viewer who may not reply gets no button, and the topic then reads as not locked.
* the time zone: phpBB shows dates in the viewer's zone; pass it as ``board_tz``.
  ``declared_timezone(body)`` reads the zone the page states in its footer («Часовой пояс»,
  "All times are UTC+03:00", "GMT + 1 Hour"), which ``parse_topic_file`` uses.
"""

from __future__ import annotations

from scraper_mod.forum.html import MOSCOW, parse_html
from scraper_mod.forum.markup import BodyParts, color_as_written, walk_body
from scraper_mod.forum.phpbb.parse.kinds import classify_error_page
from scraper_mod.forum.phpbb.parse.pages import declared_timezone
from scraper_mod.forum.phpbb.parse.topic import (
    TopicLink,
    parse_forum_page,
    parse_topic_file,
    parse_topic_page,
)

__all__ = ["parse_topic_page", "parse_forum_page", "parse_topic_file", "TopicLink",
           "declared_timezone", "parse_html", "classify_error_page", "walk_body", "BodyParts",
           "color_as_written", "MOSCOW"]
