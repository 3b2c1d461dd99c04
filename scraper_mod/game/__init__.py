"""Services: opening a game, the game file, the deal, the day's tally, the night-move intake
(judging, answers), the resolution, the report, the host's decisions, publishing on the board.
Everything here may use the adapters (``forum/``, ``moves/``, ``posts/``) and the rules; none of
them imports ``game/`` (docs/architecture.md)."""
