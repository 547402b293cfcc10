"""Theme .tcss files shipped with the package (see agentcli/ui/themes.py)."""
