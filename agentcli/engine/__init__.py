"""The execution loop. Never imports textual."""
