import sys
sys.path.insert(0, "/tmp/uiexp")
from screen_text import screen_text
from pathlib import Path
from agentcli.permissions.types import PermissionMode
from agentcli.tools.registry import builtin_tools
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.ui.helpers import make_app, send, wait_for
import pytest

@pytest.mark.parametrize("size", [(40, 12), (80, 24)])
async def test_exp(tmp_path, size):
    target = tmp_path / "big.py"
    target.write_text("".join(f"line_{i} = {i}\n" for i in range(200)))
    old = target.read_text()
    new = "".join(f"line_{i} = {i * 2}\n" for i in range(200))
    provider = ScriptedProvider(
        Response([tool_use("Read", {"file_path": str(target)}, "toolu_r")]),
        Response([tool_use("Edit", {"file_path": str(target), "old_string": old, "new_string": new}, "toolu_e")]),
        Response([text("done")]),
    )
    tools = [builtin_tools().get("Read"), builtin_tools().get("Edit")]
    app = make_app(provider, tmp_path, tools, mode=PermissionMode.DEFAULT, cursor_blink=False)
    async with app.run_test(size=size) as pilot:
        await send(pilot, "edit")
        await wait_for(pilot, lambda: app.permission_prompt)
        await pilot.pause()
        await pilot.pause()
        print(screen_text(app))
