"""What a person or a program drives the engine through: tui, headless, sdk, acp."""
