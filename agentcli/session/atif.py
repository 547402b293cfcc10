"""A saved session as an ATIF trajectory (Harbor's Agent Trajectory Interchange Format).

`agentcli export --format atif SESSION` and the Harbor agent
(agentcli/integrations/harbor.py) both write what this returns: plain JSON
that Harbor's `Trajectory` model (ATIF-v1.8, extra fields forbidden) accepts.
agentcli never imports Harbor; tests validate the output with Harbor's model.

The transcript's records are read directly (records.py), not through the
loader, since each step needs its record's meta (model, usage) and timestamp.
The mapping:
- a person's prompt (a user record that is not only tool results) -> a `user` step;
- a compaction's summary -> a `system` step;
- each assistant message -> an `agent` step: its text as `message`, its thinking
  as `reasoning_content`, its tool calls as `tool_calls`, and the tool results
  of the user record that follows as its `observation`; its recorded usage as
  `metrics` (prompt_tokens counts cached and cache-written tokens, as Harbor's
  own Claude Code adapter does), priced by the model catalog when known;
- `final_metrics`: the sums (the cost only when every priced step is known);
- each subagent's own transcript (`<session>/subagents/*.jsonl`) -> an embedded
  trajectory in `subagent_trajectories`, named by its agent id; the session's
  `final_metrics` count its requests too (`extra.main_conversation`: without them).

What a resume or rewind changed is honoured: kept copies of messages after a
compaction are not repeated, and a rewound prompt and what followed it are
dropped (the file keeps them; the trajectory shows the conversation as it went on).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from agentcli import __version__
from agentcli.core.pricing import add_cost, cost_usd
from agentcli.core.usage import Usage
from agentcli.session import records

SCHEMA_VERSION = "ATIF-v1.8"
AGENT_NAME = "agentcli"


# The final metrics a subagent adds to its session's.
TOTALS = ("total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_cost_usd")


class AtifError(Exception):
    """The transcript cannot be exported; the message says why."""


def export_file(path: Path) -> dict[str, Any]:
    """The trajectory of the transcript at `path`."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise AtifError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise AtifError(f"{path}: is a folder, not a transcript") from None
    except OSError as exc:
        raise AtifError(f"{path}: cannot read it: {exc.strerror}") from None
    found = trajectory(transcript_records(raw, path), path)
    subagents = _subagent_trajectories(path)
    if subagents:
        found["subagent_trajectories"] = subagents
        _add_subagent_totals(found["final_metrics"], subagents)
    return found


def _subagent_trajectories(path: Path) -> list[dict[str, Any]]:
    """The session's subagents (the Task tool's), each from its own transcript beside the
    session's (`<session>/subagents/<agent id>.jsonl`, wiring/composition.py), as an
    embedded trajectory named by its agent id. One that cannot be read is left out: it
    must not cost the export of the whole session."""
    folder = path.with_suffix("") / "subagents"
    embedded = []
    for sub_path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        try:
            sub = trajectory(transcript_records(sub_path.read_bytes(), sub_path), sub_path)
        except (AtifError, OSError):
            continue
        sub["trajectory_id"] = sub_path.stem
        embedded.append(sub)
    return embedded


def _add_subagent_totals(final: dict[str, Any], subagents: list[dict[str, Any]]) -> None:
    """The session's totals count its subagents' requests too (what the run used and
    cost, as a Harbor context reports it); `extra` keeps the main conversation's own."""
    own = {key: final.get(key) for key in TOTALS if key in final}
    for sub in subagents:
        sub_final = sub.get("final_metrics", {})
        for key in TOTALS:
            if key == "total_cost_usd" and ("total_cost_usd" not in final or key not in sub_final):
                final.pop("total_cost_usd", None)  # unknown once any part of it is
                continue
            final[key] = final.get(key, 0) + sub_final.get(key, 0)
    final["extra"] = {
        **final.get("extra", {}),
        "main_conversation": own,
        "subagents": len(subagents),
    }


def transcript_records(raw: bytes, path: Path) -> list[dict[str, Any]]:
    """The transcript's records, one JSON object a line (a cut or foreign line is
    skipped, as the loader does); an error when none is an agentcli record."""
    text = raw.decode("utf-8", errors="replace")
    found: list[dict[str, Any]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            found.append(value)
    known = (records.SESSION, *records.MESSAGE_TYPES)
    if not any(record["type"] in known for record in found):
        raise AtifError(f"{path}: not an agentcli session transcript (JSON lines)")
    return found


def trajectory(found: list[dict[str, Any]], path: Path) -> dict[str, Any]:
    session = next((r for r in found if r["type"] == records.SESSION), {})
    default_model = session.get("model") if isinstance(session.get("model"), str) else None
    builder = _Steps(default_model)
    for record in _conversation(found):
        builder.add(record)
    if not builder.steps:
        raise AtifError(f"{path}: the session holds no messages to export")
    agent: dict[str, Any] = {"name": AGENT_NAME, "version": __version__}
    if default_model:
        agent["model_name"] = default_model
    result: dict[str, Any] = {"schema_version": SCHEMA_VERSION}
    session_id = session.get("sessionId")
    result["session_id"] = session_id if isinstance(session_id, str) else path.stem
    result["agent"] = agent
    result["steps"] = builder.steps
    result["final_metrics"] = builder.final_metrics()
    return result


def _conversation(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The message records as the conversation went: without kept copies and rewound
    prompts."""
    kept: list[dict[str, Any]] = []
    for record in found:
        kind = record["type"]
        if kind == records.REWIND:
            prompt_id = record.get("promptId")
            for index, earlier in enumerate(kept):
                if _meta(earlier).get("promptId") == prompt_id:
                    del kept[index:]
                    break
        elif kind in records.MESSAGE_TYPES:
            message = record.get("message")
            if not isinstance(message, dict) or _meta(record).get("kept"):
                continue
            kept.append(record)
    return kept


def _meta(record: dict[str, Any]) -> dict[str, Any]:
    meta = record.get("meta")
    return meta if isinstance(meta, dict) else {}


class _Steps:
    def __init__(self, default_model: str | None) -> None:
        self.default_model = default_model
        self.steps: list[dict[str, Any]] = []
        self.last_agent: dict[str, Any] | None = None
        self.totals = Usage()
        self.cost: float | None = 0.0
        self.priced = False

    def add(self, record: dict[str, Any]) -> None:
        content = record["message"].get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            return
        blocks = [b for b in blocks if isinstance(b, dict)]
        if record["type"] == records.ASSISTANT:
            self.agent_step(record, blocks)
        else:
            self.user_record(record, blocks)

    def new_step(self, source: str, record: dict[str, Any], message: str) -> dict[str, Any]:
        step: dict[str, Any] = {"step_id": len(self.steps) + 1}
        stamp = record.get("timestamp")
        if isinstance(stamp, str) and _is_iso(stamp):
            step["timestamp"] = stamp
        step["source"] = source
        step["message"] = message
        self.steps.append(step)
        return step

    def agent_step(self, record: dict[str, Any], blocks: list[dict[str, Any]]) -> None:
        meta = _meta(record)
        texts = [b["text"] for b in blocks if b.get("type") == "text" and _is_str(b.get("text"))]
        thinking = [
            b["thinking"]
            for b in blocks
            if b.get("type") == "thinking" and _is_str(b.get("thinking")) and b["thinking"]
        ]
        step = self.new_step("agent", record, "\n\n".join(texts))
        model = meta.get("model") if _is_str(meta.get("model")) else self.default_model
        if model:
            step["model_name"] = model
        if thinking:
            step["reasoning_content"] = "\n\n".join(thinking)
        calls = [_tool_call(b) for b in blocks if b.get("type") in ("tool_use", "server_tool_use")]
        calls = [c for c in calls if c is not None]
        if calls:
            step["tool_calls"] = calls
        # Server tools (web search...) answer inside the same message.
        results = [_result(b) for b in blocks if _is_server_result(b)]
        if results:
            step["observation"] = {"results": results}
        metrics = self.metrics(meta, model or "")
        if metrics is not None:
            step["metrics"] = metrics
            step["llm_call_count"] = 1
        self.last_agent = step

    def metrics(self, meta: dict[str, Any], model: str) -> dict[str, Any] | None:
        raw = meta.get("usage")
        if not isinstance(raw, dict):
            return None
        try:
            used = Usage.from_api(raw)
        except (TypeError, ValueError):
            return None
        self.totals = self.totals + used
        metrics: dict[str, Any] = {
            "prompt_tokens": used.context_tokens,
            "completion_tokens": used.output_tokens,
            "cached_tokens": used.cache_read_input_tokens,
        }
        cost = cost_usd(model, used)
        self.priced = True
        self.cost = add_cost(self.cost, cost)
        if cost is not None:
            metrics["cost_usd"] = cost
        if used.cache_creation_input_tokens:
            metrics["extra"] = {"cache_creation_input_tokens": used.cache_creation_input_tokens}
        return metrics

    def user_record(self, record: dict[str, Any], blocks: list[dict[str, Any]]) -> None:
        meta = _meta(record)
        text = "\n\n".join(
            b["text"] for b in blocks if b.get("type") == "text" and _is_str(b.get("text"))
        )
        if meta.get("compactSummary"):
            self.new_step("system", record, text)
            self.last_agent = None
            return
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if results and self.last_agent is not None:
            self.observe(self.last_agent, results, text)
            return
        if results:  # results no agent step asked for (a file edited by hand): kept
            self.observe(self.new_step("system", record, ""), results, text)
            self.last_agent = None
            return
        images = sum(1 for b in blocks if b.get("type") == "image")
        shown = text + ("\n" if text and images else "") + "[image]" * images
        self.new_step("user", record, shown)
        self.last_agent = None

    def observe(self, step: dict[str, Any], results: list[dict[str, Any]], text: str) -> None:
        """The tool results (and any text sent with them) as the agent step's observation."""
        ids = {call["tool_call_id"] for call in step.get("tool_calls", [])}
        observation = step.setdefault("observation", {"results": []})
        for block in results:
            entry = _result(block)
            if entry.get("source_call_id") not in ids:
                entry.pop("source_call_id", None)  # a result for no call of this step
            observation["results"].append(entry)
        if text:
            observation["results"].append({"content": text})

    def final_metrics(self) -> dict[str, Any]:
        used = self.totals
        final: dict[str, Any] = {
            "total_prompt_tokens": used.context_tokens,
            "total_completion_tokens": used.output_tokens,
            "total_cached_tokens": used.cache_read_input_tokens,
        }
        if self.priced and self.cost is not None:
            final["total_cost_usd"] = self.cost
        final["total_steps"] = len(self.steps)
        if used.cache_creation_input_tokens:
            final["extra"] = {"total_cache_creation_input_tokens": used.cache_creation_input_tokens}
        return final


def _tool_call(block: dict[str, Any]) -> dict[str, Any] | None:
    call_id, name = block.get("id"), block.get("name")
    if not (_is_str(call_id) and _is_str(name)):
        return None
    arguments = block.get("input")
    return {
        "tool_call_id": call_id,
        "function_name": name,
        "arguments": arguments if isinstance(arguments, dict) else {"input": arguments},
    }


def _is_server_result(block: dict[str, Any]) -> bool:
    kind = block.get("type")
    return isinstance(kind, str) and kind.endswith("_tool_result") and kind != "tool_result"


def _result(block: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    call_id = block.get("tool_use_id")
    if _is_str(call_id):
        entry["source_call_id"] = call_id
    entry["content"] = _result_text(block.get("content"))
    if block.get("is_error") is True:
        entry["extra"] = {"is_error": True}
    return entry


def _result_text(content: object) -> str:
    """A tool result's content as text (an image is named, not embedded)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else json.dumps(content, ensure_ascii=False)
    parts: list[str] = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "text" and _is_str(part.get("text")):
            parts.append(part["text"])
        elif isinstance(part, dict) and part.get("type") == "image":
            parts.append("[image]")
        else:
            parts.append(json.dumps(part, ensure_ascii=False))
    return "\n".join(parts)


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def _is_iso(stamp: str) -> bool:
    try:
        datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True
