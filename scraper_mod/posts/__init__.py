"""Posts: wording (plurals, dates, zones, night notes), Jinja2 rendering, the BBCode preview,
the atomic day folder, and publishing the resolved day on the board (publish.py, RULES R12)."""
