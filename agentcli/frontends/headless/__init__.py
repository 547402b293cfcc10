"""`agentcli -p`: one prompt, answered in text, json or stream-json, then exit."""
