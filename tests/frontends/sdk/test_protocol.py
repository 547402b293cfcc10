"""The stream-json protocol's handling of what a client should not send, and of its end.

Bad input is said on stderr and changes nothing else: a line that is not JSON
is skipped, an unknown control request gets an error response, and the
session goes on. When stdin ends in the middle of a turn, the turn still
finishes (its result is written) and the process exits 0.
"""

from __future__ import annotations

import json

from tests.fakeapi import hang, reply, text
from tests.frontends.sdk.raw import control, response_to, run, start, user


def test_a_line_that_is_not_json_is_reported_and_skipped(fake_api, project):
    fake_api.enqueue(reply(text("Still here.")))

    lines, err, status = run(
        fake_api,
        project,
        [control("init", subtype="initialize", hooks=None), "{not json", "[1, 2]", user("hello")],
    )

    assert status == 0, err
    assert response_to(lines, "init")["subtype"] == "success"
    assert "a line of stdin is not JSON" in err and "{not json" in err
    assert "a line of stdin is not a JSON object" in err
    [result] = [line for line in lines if line["type"] == "result"]
    assert result["result"] == "Still here." and not result["is_error"]
    assert len(fake_api.requests) == 1


def test_an_unknown_control_request_gets_an_error_response(fake_api, project):
    fake_api.enqueue(reply(text("Fine.")))

    lines, err, status = run(
        fake_api,
        project,
        [
            control("init", subtype="initialize"),
            control("odd", subtype="make_coffee"),
            control("mode", subtype="set_permission_mode", mode="yolo"),
            control("rewind", subtype="rewind_files", user_message_id="x"),
            control("again", subtype="initialize"),
            user("go on"),
        ],
    )

    assert status == 0, err
    odd = response_to(lines, "odd")
    assert odd["subtype"] == "error" and "make_coffee" in odd["error"]
    mode = response_to(lines, "mode")
    assert mode["subtype"] == "error" and "yolo" in mode["error"]
    assert response_to(lines, "rewind") == {
        "subtype": "error",
        "request_id": "rewind",
        "error": "no user message 'x' in this session",
    }
    assert response_to(lines, "again")["subtype"] == "error"
    init = [line for line in lines if line.get("subtype") == "init"]
    assert init[0]["permissionMode"] == "default"  # the bad mode changed nothing
    assert [line["result"] for line in lines if line["type"] == "result"] == ["Fine."]


def test_stdin_closed_mid_turn_finishes_the_turn_and_exits_cleanly(fake_api, project):
    stuck = hang(reply(text("Finished anyway.")), after_events=3)
    fake_api.enqueue(stuck)
    process = start(fake_api, project)
    assert process.stdin is not None
    process.stdin.write(json.dumps(user("take your time")) + "\n")
    process.stdin.flush()
    assert stuck.reached.wait(30)

    process.stdin.close()  # mid-turn: the model is still answering
    stuck.release()
    assert process.stdout is not None and process.stderr is not None
    out, err = process.stdout.read(), process.stderr.read()  # both end when it exits
    process.wait(60)

    assert process.returncode == 0, err
    results = [
        json.loads(line) for line in out.splitlines() if '"type":"result"' in line.replace(" ", "")
    ]
    assert [r["result"] for r in results] == ["Finished anyway."] and not results[0]["is_error"]
