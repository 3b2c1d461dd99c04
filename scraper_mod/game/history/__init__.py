"""A game's history and a forum's memory (docs/memory.md).

- ``daychart``: a day's vote count through the day, step by step (the host's page's chart);
- ``record``: the record of a finished game, rebuilt from what the game stores;
- ``oldgame``: the same record from the short file a host writes for an older game;
- ``stats``: statistics and ratings over every record of a forum; ``statstext`` words them.
"""
