"""Resolving a day and the texts of its posts: the report, the rendering, the wording."""
