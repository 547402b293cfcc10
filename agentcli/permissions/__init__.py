"""Modes and rules -> allow / ask / deny. The decision is pure; only "ask" reaches a person."""
