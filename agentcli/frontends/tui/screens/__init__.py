"""Screens shown over the conversation (the session picker)."""
