"""From command-line options to a ready QueryEngine, for the TUI and headless alike.

Both front ends build the engine the same way, so a flag means the same
thing in both. The provider is built separately (`make_provider`) because
importing the SDK is the slowest part of starting: headless overlaps it with
the rest of the set-up, the TUI does it after its first frame.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.config.paths import project_dir
from agentcli.engine.context import Environment, system_prompt
from agentcli.engine.memory import load_memory
from agentcli.engine.query_engine import DEFAULT_MODEL, EngineConfig, QueryEngine
from agentcli.permissions.gate import PermissionGate
from agentcli.permissions.policy import PermissionPolicy
from agentcli.providers.base import Provider
from agentcli.providers.tuning import ApiTuning
from agentcli.session.attach import attach_session
from agentcli.session.loader import LoadedSession
from agentcli.tools.base import Workspace
from agentcli.tools.registry import builtin_tools


@dataclass
class Options:
    """What the person asked for, whichever front end they use."""

    cwd: Path
    model: str | None = None
    permission_mode: str | None = None
    allowed_tools: list[str] | None = None
    disallowed_tools: list[str] | None = None
    add_dirs: list[str] | None = None
    max_turns: int | None = None
    continue_session: bool = False  # --continue: the latest session of this folder
    resume: str | None = None  # --resume [ID]: "" means "let the person pick"
    sandbox: bool = False  # --sandbox: Bash commands run under bubblewrap
    # Whether the project's own settings files apply in full; None: as remembered
    # (config/trust.py). -p passes True: running it in a folder is trusting it.
    trusted: bool | None = None

    @classmethod
    def from_args(cls, args: Any, cwd: Path | None = None) -> Options:
        return cls(
            cwd=(cwd or Path.cwd()).resolve(),
            model=args.model,
            permission_mode=args.permission_mode,
            allowed_tools=args.allowed_tools,
            disallowed_tools=args.disallowed_tools,
            add_dirs=args.add_dirs,
            max_turns=getattr(args, "max_turns", None),
            continue_session=bool(getattr(args, "continue_session", False)),
            resume=getattr(args, "resume", None),
            sandbox=bool(getattr(args, "sandbox", False)),
        )


def resolve_model(options: Options) -> str:
    return options.model or os.environ.get("AGENTCLI_MODEL") or DEFAULT_MODEL


def make_provider(tuning: ApiTuning | None = None) -> Provider:
    """The Anthropic provider. Raises ModelError (with how to fix it) without a key.

    `tuning`: retries and timeouts, by default read from the environment; a front end
    reads it first (`ApiTuning.from_env()`) to show its `problems`.
    """
    from agentcli.providers.anthropic import AnthropicProvider

    tuning = tuning or ApiTuning.from_env()
    return AnthropicProvider(retry=tuning.retry, timeouts=tuning.timeouts)


def build_engine(
    options: Options,
    provider: Provider | None,
    resumed: LoadedSession | None = None,
    *,
    carry_totals: bool = False,
) -> QueryEngine:
    """`resumed`: a session from `agentcli.session.attach.resolve_resumed()` to continue;
    the engine starts with its last request's usage (the context size). `carry_totals`:
    start from the tokens and cost the session has used so far (the TUI shows the
    session's cost; headless reports each run's)."""
    from agentcli.permissions import session_setup

    settings = session_setup.load_for_options(options)  # settings files + flags, merged
    workspace = Workspace(
        root=options.cwd,
        extra_dirs=[path for path, _source in settings.additional_dirs],
        env=settings.env_values(),
        # Full outputs cut from tool results live with the project's other agentcli files.
        scratch_dir=project_dir(options.cwd) / "tool-output",
        sandbox=session_setup.sandbox_of(settings),
    )
    mode = session_setup.mode_of(settings)
    policy = PermissionPolicy(
        workspace=workspace,
        mode=mode,
        allow=settings.rules("allow"),
        ask=settings.rules("ask"),
        deny=settings.rules("deny"),
        locked_reason=session_setup.locked_reason(settings),  # deny rules that could not be read
    )
    env = Environment.detect(workspace.root, git=True)
    engine = QueryEngine(
        provider=provider,
        tools=builtin_tools(),
        gate=PermissionGate(policy),
        workspace=workspace,
        config=EngineConfig(
            model=session_setup.model_of(settings, resolve_model(options)),
            max_turns=options.max_turns,
        ),
        system=system_prompt(
            env,
            mode,
            load_memory(workspace.root),
            workspace.sandbox.model_note() if workspace.sandbox else None,
        ),
        session_id=resumed.session_id if resumed else None,
        messages=resumed.messages if resumed else None,
        totals=resumed.totals if resumed and carry_totals else None,
        last_request_usage=resumed.last_usage if resumed else None,
    )
    attach_session(engine, resumed=resumed)
    session_setup.attach(engine, settings)  # hooks, "always" answers, engine.settings
    return engine
