"""The host's page (docs/commands.md "The host's page"): a Flask app over the same services the
commands use. ``create_app`` builds it; ``scraper-mod serve`` runs it under waitress."""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app"]
