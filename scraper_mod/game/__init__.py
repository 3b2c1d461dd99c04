"""Services: opening a game, the game file, the day's tally, the resolution, the report."""
