"""The scheduler that runs one game: poll, take moves, resolve, open the next day."""
