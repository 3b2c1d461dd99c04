"""Publishing on the board: the newspaper, the next day, the PMs; one publisher at a time; out/ written atomically."""
