"""agentcli as a Harbor installed agent: `harbor run --agent agentcli.integrations.harbor:AgentcliAgent`.

Harbor (https://harborframework.com, `pip install 'agentcli[harbor]'`, Python
3.12+) runs an agent on each task of a benchmark (Terminal-Bench 2.x...) in a
container (Docker, Daytona, Modal, E2B...). Harbor's agent factory imports this
module and builds the agent; agentcli itself never imports it (docs/harbor.md).

- `install`: nothing when `agentcli` is already on the environment's PATH (an
  image that ships it, or no network); else `uv tool install`, or pip, of
  `agentcli` (`version=` pins it; `install_spec=` names another source, such
  as a wheel or a git URL).
- `run`: `agentcli -p` headless in the environment's working directory (the
  task's own, whatever its image sets), the instruction on stdin, edits and
  commands allowed (`permission_mode`, bypassPermissions by default, as Harbor's
  Claude Code adapter), with the model Harbor was given (`-m provider/model`:
  `anthropic/...` is Anthropic's API, any other provider an OpenAI-compatible
  one, configured in the run's own settings file), its key and base URL from
  the host's environment (ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL,
  OPENAI_API_KEY / OPENAI_BASE_URL, `<PROVIDER>_API_KEY` / `<PROVIDER>_BASE_URL`),
  and the knobs of Claude Code's adapter that agentcli has (`max_turns`,
  `reasoning_effort`, `allowed_tools`, `disallowed_tools`, `disable_web_search`).
- After the run (also a failed one): the session is exported with
  `agentcli export --format atif` into `trajectory.json` in the logs folder, and
  the context's token counts and cost come from its totals.

agentcli keeps its files (settings, the transcript) under AGENTCLI_HOME, set to
a folder in the agent's logs folder, so every trial starts clean and the
transcript comes back with the logs.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Annotated, Any, Literal

from harbor.agents.capabilities import AgentCapabilities
from harbor.agents.installed.base import BaseInstalledAgent, with_prompt_template
from harbor.agents.options import Cli, InstalledAgentOptions
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from pydantic import Field, model_validator

PATH_EXPORT = 'export PATH="$HOME/.local/bin:$PATH"'
TRAJECTORY = "trajectory.json"
OUTPUT = "agentcli.json"  # the -p run's result (--output-format json)
ANTHROPIC = "anthropic"
OPENAI_URL = "https://api.openai.com/v1"
_PROVIDER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class AgentcliOptions(InstalledAgentOptions):  # type: ignore[misc]  # Harbor: untyped here
    """The agent's kwargs (`--ak name=value`), each an agentcli flag."""

    max_turns: Annotated[int | None, Cli("--max-turns", fallback="AGENTCLI_MAX_TURNS")] = Field(
        default=None, description="Maximum agent turns."
    )
    reasoning_effort: Annotated[
        Literal["low", "medium", "high", "xhigh", "max"] | None,
        Cli("--effort", fallback="AGENTCLI_EFFORT"),
    ] = Field(default=None, description="How hard the model thinks.")
    allowed_tools: Annotated[str | None, Cli("--allowedTools")] = Field(
        default=None, description='Comma-separated tools or rules to allow, e.g. "Bash(git:*)".'
    )
    disallowed_tools: Annotated[str | None, Cli("--disallowedTools")] = Field(
        default=None, description="Comma-separated tools or rules to deny."
    )
    permission_mode: Annotated[
        Literal["acceptEdits", "bypassPermissions", "dontAsk", "default"] | None,
        Cli("--permission-mode"),
    ] = Field(default="bypassPermissions", description="agentcli's permission mode.")
    install_spec: str | None = Field(
        default=None,
        description="What uv/pip installs when agentcli is not on PATH (default: agentcli).",
    )

    @model_validator(mode="after")
    def _disallow_web_tools(self) -> AgentcliOptions:
        if self.disable_web_search:
            tools = [self.disallowed_tools] if self.disallowed_tools else []
            self.disallowed_tools = ",".join([*tools, "WebSearch", "WebFetch"])
        return self


class AgentcliAgent(BaseInstalledAgent):  # type: ignore[misc]  # Harbor: untyped here
    """Harbor's handle on agentcli; see the module's docstring."""

    capabilities = AgentCapabilities(atif=True, base_url=True, reasoning_effort=True)
    options_model = AgentcliOptions
    options: AgentcliOptions

    @staticmethod
    def name() -> str:
        return "agentcli"

    def get_version_command(self) -> str | None:
        return f"{PATH_EXPORT}; agentcli --version"

    def parse_version(self, stdout: str) -> str:
        """`agentcli 0.1.0` -> `0.1.0`."""
        words = stdout.strip().split()
        return words[-1] if words else ""

    async def install(self, environment: BaseEnvironment) -> None:
        found = await environment.exec(command=f"{PATH_EXPORT}; agentcli --version")
        wanted = self._version
        if found.return_code == 0 and (
            wanted is None or self.parse_version(found.stdout or "") == wanted
        ):
            return
        spec = shlex.quote(self.options.install_spec or self._package())
        await self.exec_as_agent(
            environment,
            command=(
                f"set -e; {PATH_EXPORT}; "
                f"if command -v uv >/dev/null 2>&1; then uv tool install --force {spec}; "
                "elif python3 -m pip --version >/dev/null 2>&1; then "
                f"python3 -m pip install --user {spec} || "
                f"python3 -m pip install --user --break-system-packages {spec}; "
                "else curl -LsSf https://astral.sh/uv/install.sh | sh && "
                f"{PATH_EXPORT} && uv tool install --python 3.12 {spec}; fi; "
                "agentcli --version"
            ),
        )

    def _package(self) -> str:
        return f"agentcli=={self._version}" if self._version else "agentcli"

    @with_prompt_template  # type: ignore[untyped-decorator]
    async def run(
        self, instruction: str, environment: BaseEnvironment, context: AgentContext
    ) -> None:
        home = self.environment_logs_dir / "agentcli-home"
        env, settings, model = self._connection()
        env["AGENTCLI_HOME"] = home.as_posix()
        await self.exec_as_agent(
            environment,
            command=f'mkdir -p {shlex.quote(home.as_posix())} && printf "%s" "$AGENTCLI_SETTINGS"'
            f" > {shlex.quote((home / 'settings.json').as_posix())}",
            env={**env, "AGENTCLI_SETTINGS": json.dumps(settings)},
        )
        flags = " ".join(
            [
                "--output-format json",
                *([f"--model {shlex.quote(model)}"] if model else []),
                self.build_cli_flags(),
            ]
        )
        output = self.environment_logs_dir / OUTPUT
        command = (
            f"{PATH_EXPORT}; "
            f'printf "%s" "$AGENTCLI_INSTRUCTION" | agentcli -p {flags} '
            f"> {shlex.quote(output.as_posix())}; status=$?; "
            f"cat {shlex.quote(output.as_posix())}; exit $status"
        )
        result = await environment.exec(
            command=f"set -o pipefail; {command}",
            env={**env, "AGENTCLI_INSTRUCTION": instruction},
        )
        session_id = _session_id(result.stdout)
        if session_id is not None:
            await self._export(environment, env, session_id, context)
        if result.return_code != 0:
            raise self._classify_exec_error(command, result)

    async def _export(
        self,
        environment: BaseEnvironment,
        env: dict[str, str],
        session_id: str,
        context: AgentContext,
    ) -> None:
        """The session as trajectory.json in the logs folder; the context's totals."""
        exported = await environment.exec(
            command=f"{PATH_EXPORT}; agentcli export --format atif {shlex.quote(session_id)}",
            env=env,
        )
        try:
            trajectory = json.loads(exported.stdout or "") if exported.return_code == 0 else None
        except ValueError:
            trajectory = None
        if not isinstance(trajectory, dict):
            self.logger.warning(f"agentcli export gave no trajectory: {exported.stderr}")
            return
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        (self.logs_dir / TRAJECTORY).write_text(
            json.dumps(trajectory, indent=2, ensure_ascii=False), encoding="utf-8"
        )
        fill_context(context, trajectory)

    def populate_context_post_run(self, context: AgentContext) -> None:
        """The totals again from trajectory.json, when run() was cut off before it did."""
        path = self.logs_dir / TRAJECTORY
        if context.n_input_tokens is not None or not path.is_file():
            return
        try:
            trajectory = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            self.logger.warning(f"cannot read {path}: {exc}")
            return
        if isinstance(trajectory, dict):
            fill_context(context, trajectory)

    def _connection(self) -> tuple[dict[str, str], dict[str, Any], str | None]:
        """The environment variables, the settings file and the --model the run needs."""
        settings: dict[str, Any] = {}
        if not self.model_name:
            return self._pass(ANTHROPIC), settings, None
        # Split here, not with Harbor's parser (LiteLLM's), which knows only LiteLLM's
        # providers: `my-vllm/qwen3` is the provider agentcli's settings will name.
        provider, slash, bare = self.model_name.partition("/")
        if not slash or provider == ANTHROPIC:
            bare = bare if slash else self.model_name
            env = self._pass(ANTHROPIC)
            if self.options.base_url:
                env["ANTHROPIC_BASE_URL"] = self.options.base_url
            return env, settings, bare
        if not _PROVIDER.match(provider):
            raise ValueError(f"agentcli cannot name a provider {provider!r}")
        prefix = _variable_prefix(provider)
        env = self._pass(provider)
        base_url = self.options.base_url or env.get(f"{prefix}_BASE_URL")
        if base_url is None and provider == "openai":
            base_url = OPENAI_URL
        if base_url is None:
            raise ValueError(
                f"agentcli needs the address of {provider!r}'s OpenAI-compatible API: "
                f"set {prefix}_BASE_URL (or pass --ak base_url=...)"
            )
        settings["providers"] = {
            provider: {
                "type": "openai-responses" if provider == "openai" else "openai-chat",
                "baseUrl": base_url,
                "apiKeyEnv": f"{prefix}_API_KEY",
            }
        }
        return env, settings, f"{provider}/{bare}"

    def _pass(self, provider: str) -> dict[str, str]:
        """The provider's key and base URL, as the host (or `--ae`) has them."""
        prefix = _variable_prefix(provider)
        env: dict[str, str] = {}
        for name in (f"{prefix}_API_KEY", f"{prefix}_BASE_URL"):
            value = self._get_env(name)
            if value:
                env[name] = value
        return env


def fill_context(context: AgentContext, trajectory: dict[str, Any]) -> None:
    """Harbor's counts from the trajectory's totals (input counts cached tokens too)."""
    final = trajectory.get("final_metrics") or {}
    context.n_input_tokens = final.get("total_prompt_tokens") or 0
    context.n_cache_tokens = final.get("total_cached_tokens") or 0
    context.n_output_tokens = final.get("total_completion_tokens") or 0
    context.cost_usd = final.get("total_cost_usd")


def _session_id(stdout: str | None) -> str | None:
    """The session the -p run's result names (its last JSON line)."""
    for line in reversed((stdout or "").splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("session_id"), str):
            return str(value["session_id"])
    return None


def _variable_prefix(provider: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", provider).upper()


__all__ = ["AgentcliAgent", "AgentcliOptions", "fill_context"]
