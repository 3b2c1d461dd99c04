"""The night: moves taken in from their sources, judged, stored and answered."""
