"""`agentcli` with no -p: run the app, then restore the terminal and say how to resume."""

from __future__ import annotations

from typing import Any


def main(args: Any) -> int:
    import gc

    # Nearly everything created before the first frame lives as long as the app:
    # collecting it is wasted start-up time. The app re-enables collection (and
    # freezes these objects out of later full collections) once it has drawn.
    gc.disable()
    from agentcli.ui.app import AgentApp

    app = AgentApp(args, first_prompt=args.prompt)
    app.run()
    engine = app.engine
    if engine is not None and engine.messages:
        print(f"Resume this session with: agentcli --resume {engine.session_id}")
    return app.return_code or 0
