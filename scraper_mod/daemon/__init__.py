"""The daemons: ``run GAME`` (one game, ``daemon/scheduler.py``) and ``run FOLDER`` (many games,
``daemon/many.py``), with the per-board politeness of ``daemon/boards.py``."""
