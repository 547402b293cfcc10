"""After a compaction the files a shell command changed are among those the agent
changed (engine/compaction_files.py), as the file tools' are.

The session is run by the engine with the real Read, Edit and Bash tools and a
scripted model; Bash really runs the command. Each test compacts, then reads
what the carried message says back, as the next compaction would.
"""

from __future__ import annotations

from agentcli.engine.carry_over import read_back
from agentcli.engine.compaction import Compactor
from agentcli.tools.bash import BashTool
from agentcli.tools.edit import EditTool
from agentcli.tools.read import ReadTool
from tests.engine.harness import make_engine, run_turn
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use


def engine_on(tmp_path, *script: Response):
    provider = ScriptedProvider(*script)
    compactor = Compactor(window=200_000, threshold=0.9, keep_tokens=10)
    compactor.auto = False
    tools = [ReadTool(), EditTool(), BashTool()]
    return make_engine(provider, tools, tmp_path, session=True, compactor=compactor), provider


def project(tmp_path):
    files = {name: tmp_path / name for name in ("config.py", "notes.md", "old.txt", "edited.py")}
    for name, path in files.items():
        path.write_text(f"{name} as it was\n")
    return files


SUMMARY = Response([text("THE SUMMARY")])
NOTHING = Response([text("Nothing to do.")])


def reads(*paths) -> Response:
    return Response([tool_use("Read", {"file_path": str(p)}) for p in paths])


async def compacted_changes(engine) -> list[str]:
    outcome = await engine.compact()
    assert outcome.ok, outcome.message
    return read_back(engine.messages[0]).files_changed


async def test_files_a_command_changed_or_removed_are_named_as_changed(tmp_path):
    files = project(tmp_path)
    edit = {
        "file_path": str(files["edited.py"]),
        "old_string": "as it was",
        "new_string": "as the agent left it",
    }
    command = "echo more >> config.py && rm old.txt"
    engine, provider = engine_on(
        tmp_path,
        reads(*files.values()),
        Response([tool_use("Edit", edit)]),
        Response([tool_use("Bash", {"command": command})]),
        Response([text("Done.")]),
        NOTHING,
        SUMMARY,
    )
    await run_turn(engine, "tidy the project")
    await run_turn(engine, "and now?")  # (a second prompt: something to keep)

    changed = await compacted_changes(engine)

    assert str(files["config.py"]) in changed and str(files["old.txt"]) in changed
    assert changed.count(str(files["edited.py"])) == 1  # by Edit, not again as "on disk"
    assert str(files["notes.md"]) not in changed  # read, never changed
    assert provider.invalid == []


async def test_without_a_shell_command_the_disk_is_not_asked(tmp_path):
    """A file changed while no command ran (the person's editor) is not the agent's."""
    files = project(tmp_path)
    engine, _ = engine_on(
        tmp_path, reads(files["config.py"]), Response([text("Read it.")]), NOTHING, SUMMARY
    )
    await run_turn(engine, "look at the config")
    await run_turn(engine, "and now?")
    files["config.py"].write_text("the person changed it\n")

    assert await compacted_changes(engine) == []


async def test_what_one_compaction_found_the_next_carries(tmp_path):
    files = project(tmp_path)
    engine, _ = engine_on(
        tmp_path,
        reads(files["config.py"]),
        Response([tool_use("Bash", {"command": "echo more >> config.py"})]),
        Response([text("Done.")]),
        NOTHING,
        SUMMARY,
        NOTHING,
        SUMMARY,
    )
    await run_turn(engine, "change the config")
    await run_turn(engine, "and now?")
    assert str(files["config.py"]) in await compacted_changes(engine)
    await run_turn(engine, "anything else?")

    assert str(files["config.py"]) in await compacted_changes(engine)
