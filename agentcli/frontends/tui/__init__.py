"""The Textual app. Only this package (and agentcli.commands' handlers) import textual."""
