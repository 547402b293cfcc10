"""Neutral types every layer shares: the abort signal, token usage and its price,
the shape of a conversation's messages. Nothing here imports the rest of agentcli."""
