"""scraper-mod: hosts forum mafia games beside a phpBB board."""

__version__ = "0.1.0"
