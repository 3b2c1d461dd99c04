"""scraper-mod: hosts forum mafia games beside a forum board."""

__version__ = "0.1.0"
