"""Adapters that let other programs run agentcli (harbor.py: Harbor's installed agent).

Nothing here is imported by agentcli itself: each module is imported only by the
program it adapts to, which brings its own dependencies (Harbor is the optional
extra `agentcli[harbor]`).
"""
