"""The daemon of ``run GAME`` and ``run FOLDER``: one daemon (``daemon/many.py``'s ``Host``;
one game is the folder case with one game), each game's jobs (``daemon/scheduler.py``'s
``Daemon``), its work (``daemon/work.py``, the autopilot ``daemon/autopilot.py``), with the
per-board politeness of ``daemon/boards.py``."""
