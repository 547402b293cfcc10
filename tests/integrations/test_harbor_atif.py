"""`agentcli export --format atif` output, validated by Harbor's own `Trajectory` model.

tests/session/test_atif_export.py checks what each step holds, on 3.11; here the
same transcripts' exports go through Harbor's pydantic model (ATIF-v1.8, extra
fields forbidden, agent-only fields, call references), in Harbor's venv.
"""

from __future__ import annotations

import json

import pytest

from agentcli.session.atif import export_file
from tests.integrations.harbor_venv import harbor_run, needs_harbor
from tests.session.test_atif_export import (
    engine_transcript,
    rewound_and_compacted,
    server_tools_and_images,
)


@pytest.fixture(autouse=True)
def _harbor() -> None:
    needs_harbor()


async def test_every_kind_of_transcript_exports_to_a_trajectory_harbor_accepts(tmp_path):
    engine_run, _cost = await engine_transcript(tmp_path / "engine")
    transcripts = [
        engine_run,
        rewound_and_compacted(tmp_path / "rewound.jsonl"),
        server_tools_and_images(tmp_path / "server-tools.jsonl"),
    ]
    exported = []
    for transcript in transcripts:
        out = tmp_path / f"{transcript.stem}.atif.json"
        out.write_text(json.dumps(export_file(transcript)))
        exported.append(str(out))

    verdicts = harbor_run(["validate", *exported])

    assert verdicts == {name: "valid" for name in exported}


def test_harbor_refuses_what_atif_forbids(tmp_path):
    """The validation can fail: a field ATIF does not have, a user step with metrics."""
    transcript = rewound_and_compacted(tmp_path / "s.jsonl")
    good = export_file(transcript)
    extra = {**good, "agentcli": True}
    user_metrics = json.loads(json.dumps(good))
    user_metrics["steps"][0]["metrics"] = {"prompt_tokens": 1}
    paths = []
    for name, data in (("extra", extra), ("user-metrics", user_metrics)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        paths.append(str(path))

    verdicts = harbor_run(["validate", *paths])

    assert all(verdict.startswith("ValidationError") for verdict in verdicts.values()), verdicts
