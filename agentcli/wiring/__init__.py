"""Options from argv and settings -> the one composition root that builds a QueryEngine."""
