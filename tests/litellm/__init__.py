"""The OpenAI providers through LiteLLM's proxy (a real server) to the fake OpenAI server."""
