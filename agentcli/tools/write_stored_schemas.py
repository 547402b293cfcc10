"""Write `tools/stored_schemas.json` from the built-in tools' real input models.

    python -m agentcli.tools.write_stored_schemas

A script apart from stored_schemas.py, which the registry reads at start: it
needs the registry's list of tools, so living there it would close a circle
(registry -> stored_schemas -> registry).
"""

from __future__ import annotations

import sys

from agentcli.tools.registry import STORED_TOOLS
from agentcli.tools.stored_schemas import SCHEMA_FILE, current_entries, file_text


def main() -> int:
    text = file_text(current_entries(dict(STORED_TOOLS)))
    if SCHEMA_FILE.exists() and SCHEMA_FILE.read_text("utf-8") == text:
        print(f"{SCHEMA_FILE.name}: up to date")
        return 0
    SCHEMA_FILE.write_text(text, "utf-8")
    print(f"{SCHEMA_FILE.name}: written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
