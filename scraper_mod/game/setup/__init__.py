"""Opening a game: the game file, the game's context and board, a new game's set-up, sign-ups, the deal."""
