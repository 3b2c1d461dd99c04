"""The host's hand on the players: slots, replacements and decisions."""
