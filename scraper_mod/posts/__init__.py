"""Posts: wording (plurals, dates, zones, night notes), Jinja2 rendering, the BBCode preview,
the atomic day folder. Text in, text out: publishing on the board is ``game.publish``."""
