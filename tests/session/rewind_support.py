"""Three prompts that edit and create files, against the fake Messages API.

Shared by the rewind tests of the engine, the command line and the app:
`run_three_prompts()` leaves a session whose second prompt is the one to
rewind to, with the project's files as they were just before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agentcli.engine.query_engine import QueryEngine
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from agentcli.session.loader import LoadedSession
from agentcli.tools.edit import EditTool
from agentcli.tools.read import ReadTool
from agentcli.tools.write import WriteTool
from tests.engine.harness import answer_questions, make_engine
from tests.fakeapi import reply, text, tool_use

# Bytes a text round trip would change: CRLF, no final newline, non-UTF-8.
BINARY = b"line one\r\nline two\r\n\xff\xfe no newline at the end"


@dataclass
class Session:
    engine: QueryEngine
    root: Path
    prompt_ids: list[str] = field(default_factory=list)
    before_second: dict[str, bytes | None] = field(default_factory=dict)  # name -> content
    messages_before_second: int = 0

    def files(self) -> dict[str, bytes | None]:
        return {name: _content(self.root / name) for name in self.before_second}


def make_session_engine(server, root: Path, resumed: LoadedSession | None = None) -> QueryEngine:
    provider = AnthropicProvider(
        api_key="test-key", base_url=server.base_url, retry=RetryPolicy(max_retries=0)
    )
    return make_engine(
        provider,
        [ReadTool(), EditTool(), WriteTool()],
        root,
        model="claude-sonnet-5-5",
        session=True,
        resumed=resumed,
    )


async def send(engine: QueryEngine, prompt: str) -> str:
    """Run one prompt to its end; its prompt id."""
    before = set(engine.prompt_ids())
    async for event in engine.submit_message(prompt):
        answer_questions(event)
    (new,) = set(engine.prompt_ids()) - before
    return new


async def run_three_prompts(server, root: Path) -> Session:
    a, data, new, deep = root / "a.py", root / "data.bin", root / "new.py", root / "pkg" / "c.py"
    a.write_text("value = 1\n")
    data.write_bytes(BINARY)
    data.chmod(0o755)
    engine = make_session_engine(server, root)
    session = Session(engine, root)
    edit = {"file_path": str(a), "old_string": "value = 1", "new_string": "value = 2"}
    server.enqueue(reply(tool_use("Read", {"file_path": str(a)}), tool_use("Edit", edit)))
    server.enqueue(reply(text("Set value to 2.")))
    session.prompt_ids.append(await send(engine, "set value to 2"))

    session.before_second = {n: _content(root / n) for n in ("a.py", "data.bin", "new.py")}
    session.before_second["pkg/c.py"] = None
    session.messages_before_second = len(engine.messages)
    edit = {"file_path": str(a), "old_string": "value = 2", "new_string": "value = 3"}
    server.enqueue(
        reply(
            tool_use("Edit", edit),
            tool_use("Read", {"file_path": str(data)}),
            tool_use("Write", {"file_path": str(new), "content": "print('new')\n"}),
        )
    )
    server.enqueue(reply(tool_use("Write", {"file_path": str(data), "content": "replaced"})))
    server.enqueue(reply(text("Value 3, new.py, data.bin replaced.")))
    session.prompt_ids.append(await send(engine, "value 3 and a new file\nsecond line"))

    edit = {"file_path": str(a), "old_string": "value = 3", "new_string": "value = 4"}
    server.enqueue(
        reply(
            tool_use("Edit", edit),
            tool_use("Write", {"file_path": str(deep), "content": "deep\n"}),
        )
    )
    server.enqueue(reply(text("Value 4 and pkg/c.py.")))
    session.prompt_ids.append(await send(engine, "value 4 and pkg/c.py"))
    return session


def _content(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None
