"""Slash commands: an open registry of records, and the built-in commands."""
