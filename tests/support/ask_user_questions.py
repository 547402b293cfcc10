"""The two questions the app's, the SDK's and ACP's tests of AskUserQuestion ask: a single choice and a
multiSelect one, so each front end is tried on both kinds."""

from __future__ import annotations

QUESTIONS = [
    {
        "question": "Which library?",
        "header": "Library",
        "options": [
            {"label": "httpx", "description": "async and sync"},
            {"label": "requests", "description": "the classic"},
        ],
    },
    {
        "question": "Which checks?",
        "header": "Checks",
        "multiSelect": True,
        "options": [
            {"label": "lint", "description": "ruff"},
            {"label": "types", "description": "mypy"},
            {"label": "tests", "description": "pytest"},
        ],
    },
]
