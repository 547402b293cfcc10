"""Compaction seen from outside: `agentcli -p` (a real process) against the fake API.

stream-json (what the Agent SDK reads too) gets a `system/compact_boundary` line for
each automatic compaction, saying what was kept and summarised; `autoCompact: false`
in the settings turns the automatic one off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcli.engine.compaction import SUMMARY_REQUEST
from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli

PROMPT = "Never edit vendor/. Read every file in data/ and tell me what they say."
FILES = 12
LINES = "lorem ipsum dolor sit amet, consectetur adipiscing elit\n" * 110


def is_summary_request(body: dict[str, Any]) -> bool:
    return SUMMARY_REQUEST[:60] in json.dumps(body["messages"][-1])


def reading_model(project: Path):
    """One prompt answered by a Read of each data file in turn, then an answer; a
    summary whenever a compaction asks for one."""
    reads = [str(project / "data" / f"f{n}.txt") for n in range(FILES)]

    def answer(body: dict[str, Any]) -> Any:
        if is_summary_request(body):
            return reply(text("SUMMARY: read some files."))
        done = json.dumps(body["messages"]).count('"tool_result"')
        sent = [r for r in reads if r in json.dumps(body["messages"])]
        left = [r for r in reads if r not in sent]
        if left and done < FILES:
            return reply(tool_use("Read", {"file_path": left[0]}))
        return reply(text("They are all filler."))

    return answer


def make_project(tmp_path: Path, settings: dict[str, Any] | None = None) -> Path:
    root = tmp_path / "project"
    (root / "data").mkdir(parents=True)
    for n in range(FILES):
        (root / "data" / f"f{n}.txt").write_text(f"file {n}\n{LINES}")
    (root / "AGENTS.md").write_text("MEMORY: keep answers short.\n")
    if settings is not None:
        (root / ".agentcli").mkdir()
        (root / ".agentcli" / "settings.json").write_text(json.dumps(settings))
    return root


# A small window, so that a dozen reads fill it more than once; it must stay well above what
# every request carries whatever is compacted (the system prompt and the tool definitions,
# which grew with background shells, notebooks and PDFs), or a compaction cannot shrink it.
ENV = {"AGENTCLI_CONTEXT_WINDOW": "11000"}


def test_stream_json_has_a_compact_boundary_line_for_each_compaction(fake_api, tmp_path):
    project = make_project(tmp_path)
    fake_api.default = reading_model(project)

    done = agentcli(
        ["-p", PROMPT, "--output-format", "stream-json", "--verbose"], project, fake_api, env=ENV
    )

    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    boundaries = [x for x in lines if x.get("subtype") == "compact_boundary"]
    summaries = [r for r in fake_api.requests if is_summary_request(r.body)]
    assert len(summaries) >= 2 and len(boundaries) == len(summaries)
    for line in boundaries:
        assert line["type"] == "system" and line["session_id"]
        meta = line["compact_metadata"]
        assert meta["trigger"] == "auto" and meta["pre_tokens"] > meta["post_tokens"] > 0
        assert meta["kept_prompts"] == 1 and meta["summarized_messages"] > 0
        assert meta["files_read"] and all(f.startswith(str(project)) for f in meta["files_read"])
        assert meta["memory_files"] == [str(project / "AGENTS.md")]
        assert "Kept verbatim" in line["content"] and "first prompt" in line["content"]
    assert all(r.status == 200 for r in fake_api.requests)
    for index, request in enumerate(fake_api.requests[1:], start=1):
        if is_summary_request(fake_api.requests[index - 1].body):
            sent = json.dumps(request.body["messages"])
            assert json.dumps(PROMPT)[1:-1] in sent
    assert lines[-1]["type"] == "result" and lines[-1]["subtype"] == "success"


def test_auto_compact_false_in_the_settings_turns_the_automatic_one_off(fake_api, tmp_path):
    for key in ("autoCompact", "autoCompactEnabled"):  # ours, and Claude Code's name
        fake_api.reset()
        project = make_project(tmp_path / key, {key: False})
        fake_api.default = reading_model(project)

        args = ["-p", PROMPT, "--output-format", "stream-json", "--verbose"]
        done = agentcli(args, project, fake_api, env=ENV)

        assert done.returncode == 0, done.stderr
        assert '"compact_boundary"' not in done.stdout
        assert not [r for r in fake_api.requests if is_summary_request(r.body)]
        assert len(fake_api.requests) == FILES + 1  # every read, and the answer


# A window where the reads fit (no automatic compaction) but a split exists for /compact.
ROOMY = {"AGENTCLI_CONTEXT_WINDOW": "40000"}


def test_p_slash_compact_compacts_the_continued_session_and_the_next_run_goes_on_from_it(
    fake_api, tmp_path
):
    project = make_project(tmp_path)
    fake_api.default = reading_model(project)
    assert agentcli(["-p", PROMPT], project, fake_api, env=ROOMY).returncode == 0
    assert not [r for r in fake_api.requests if is_summary_request(r.body)]

    args = ["-p", "/compact the file names", "--continue", "--output-format", "stream-json"]
    args.append("--verbose")
    done = agentcli(args, project, fake_api, env=ROOMY)

    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [x["subtype"] for x in lines if x["type"] == "system"] == ["init", "compact_boundary"]
    meta = next(x for x in lines if x.get("subtype") == "compact_boundary")["compact_metadata"]
    assert meta["trigger"] == "manual" and meta["pre_tokens"] > meta["post_tokens"] > 0
    assert lines[-1]["type"] == "result" and lines[-1]["subtype"] == "success"
    summary = fake_api.requests[-1].body
    assert is_summary_request(summary) and "the file names" in json.dumps(summary["messages"])

    fake_api.default = lambda body: reply(text("Carry on."))
    later = agentcli(["-p", "what next?", "--continue"], project, fake_api, env=ROOMY)

    assert later.returncode == 0 and later.stdout.strip() == "Carry on.", later.stderr
    sent = fake_api.requests[-1].body["messages"]
    opening = json.dumps(sent[0])
    assert "SUMMARY: read some files." in opening and json.dumps(PROMPT)[1:-1] in opening
    assert json.dumps(sent[-1]).count("what next?") == 1


def test_p_slash_compact_of_a_new_session_says_there_is_nothing_to_compact(fake_api, tmp_path):
    project = make_project(tmp_path)

    done = agentcli(["-p", "/compact"], project, fake_api, env=ROOMY)

    assert done.returncode == 1 and done.stdout == ""
    assert "not enough history to compact" in done.stderr
    assert "Traceback" not in done.stderr and fake_api.requests == []


def test_p_slash_export_of_the_continued_session_writes_its_markdown(fake_api, tmp_path):
    project = make_project(tmp_path)
    fake_api.default = reading_model(project)
    assert agentcli(["-p", PROMPT], project, fake_api, env=ROOMY).returncode == 0
    asked = len(fake_api.requests)

    done = agentcli(["-p", "/export talk.md", "--continue"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert str(project / "talk.md") in done.stdout and len(fake_api.requests) == asked
    written = (project / "talk.md").read_text()
    assert written.startswith("# agentcli conversation")
    assert PROMPT in written and "They are all filler." in written
    assert f"**Read** `{project / 'data' / 'f0.txt'}`" in written
