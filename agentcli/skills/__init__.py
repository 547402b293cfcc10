"""Skills: folders of instructions (SKILL.md and its files) the model loads when a task needs them."""
