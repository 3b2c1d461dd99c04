"""What is posted: publishing the resolved day on the board (publish.py, RULES R12)."""
