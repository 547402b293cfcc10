"""Settings files and the paths agentcli writes to."""
