"""Session persistence: append-only JSONL transcripts, loading with repair, listing.

The engine never imports textual, and neither does anything here.
"""
