"""The Tool base: what every tool declares, and what it gets to run with.

A tool is a small object with a name, a description the model reads, a
pydantic input model (tools/inputs.py) whose `model_json_schema()` is the schema the
model sees, flags for read-only / concurrency-safety, and an async `run()`.

The engine (orchestration) does lookup, validation, permission and error
handling around `run()`, so a tool's `run()` only has to do its job: return a
`ToolResult`, or raise `ToolError` with a message meant for the model.

This module does not import pydantic: the engine, the permission layer and the
registry use these types on every start, and a run that calls no tool (`-p hi`)
validates nothing. The input models' base is in tools/inputs.py, loaded with the
first tool module (tools/lazy.py).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from agentcli.tools.errors import ToolError as ToolError  # where every tool imports it from

if TYPE_CHECKING:
    from agentcli.core.abort import AbortSignal
    from agentcli.core.messages import ResultPart
    from agentcli.sandbox import Sandbox
    from agentcli.tools.background.tasks import BackgroundTasks
    from agentcli.tools.display import LiveOutput, ToolDisplay
    from agentcli.tools.inputs import ToolInput
    from agentcli.tools.model_access import ModelAccess

# The most characters one tool result may put in the context: the engine's
# budget (engine/budget.py) cuts a longer one to its head and tail. A tool that
# can stop at a line boundary (Read) stays under it, so nothing is cut mid-way.
RESULT_BUDGET_CHARS = 40_000


@dataclass(slots=True)
class ToolResult:
    """What a tool returns.

    `content` goes to the model: a string, or a list of content blocks (text,
    image). `display` is for the UI only (a diff's hunks, an exit code...), never
    sent to the model.
    """

    content: str | list[ResultPart]
    is_error: bool = False
    display: ToolDisplay | None = None  # tools/display.py


@dataclass(frozen=True, slots=True)
class FileSnapshot:
    """What Read saw of a file, so Edit/Write can refuse a stale file."""

    mtime_ns: int
    size: int


class EditorFiles(Protocol):
    """An editor's copy of the project's text files (ACP's `fs/read_text_file` and
    `fs/write_text_file`). With one on the Workspace, Read, Edit and Write take a text
    file's content from it and give the new content to it, so the model sees unsaved
    buffers and the editor shows each change. Everything else stays where it was: the
    permission checks, the checks of what a path is, the read records. Blocking: the
    tools call it from their worker threads. Raises ToolError with what went wrong."""

    def read_text(self, path: Path) -> str: ...

    def write_text(self, path: Path, text: str) -> None: ...


@dataclass(frozen=True, slots=True)
class ShellCommand:
    """A Bash call for a `Terminals` to run: `env` holds only what differs from
    agentcli's own environment."""

    argv: list[str]
    cwd: Path
    env: dict[str, str]
    timeout_s: float
    tool_use_id: str


@dataclass(frozen=True, slots=True)
class ShellExit:
    """How a command run by a `Terminals` ended: its whole output, and `returncode`
    (negative: killed by that signal; None: it did not exit by itself)."""

    output: str
    outcome: Literal["exited", "timed_out", "interrupted"]
    returncode: int | None


class Terminals(Protocol):
    """Where Bash runs its commands instead of its own process, when set (an editor's
    terminals over ACP, which the person watches there). Never used with a sandbox."""

    async def run(self, command: ShellCommand, abort: AbortSignal) -> ShellExit: ...


@dataclass(slots=True)
class Workspace:
    """Per-session state the tools share.

    `root` is the project folder. `shell_cwd` is where the next Bash call starts
    (a `cd` persists while it stays inside the project). `read_files` records
    what Read saw, keyed by resolved absolute path. `sandbox`, when set, is
    where every Bash command runs (agentcli/sandbox). `editor` and `terminals`,
    when set, are where the file tools and Bash do their I/O (an ACP client's).
    `background` holds the session's background commands (`background_tasks()`).
    """

    root: Path
    shell_cwd: Path | None = None
    extra_dirs: list[Path] = field(default_factory=list)
    read_files: dict[str, FileSnapshot] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    scratch_dir: Path | None = None
    sandbox: Sandbox | None = None
    editor: EditorFiles | None = None
    terminals: Terminals | None = None
    background: BackgroundTasks | None = None

    def __post_init__(self) -> None:
        self.root = self.root.resolve()
        if self.shell_cwd is None:
            self.shell_cwd = self.root

    def resolve(self, path: str) -> Path:
        """An absolute path for `path`; a relative one is taken from the project root."""
        candidate = Path(path).expanduser()
        if not candidate.is_absolute():
            candidate = self.root / candidate
        return Path(_normalise(candidate))

    def is_inside(self, path: Path) -> bool:
        """True when `path` (symlinks resolved) lies in the project or an added folder."""
        real = path.resolve()
        return any(real.is_relative_to(d.resolve()) for d in [self.root, *self.extra_dirs])

    def display_path(self, path: Path) -> str:
        """A short path for headers and messages: relative to the root when inside it."""
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    def scratch(self) -> Path:
        """A private folder (0700) for files a tool writes for later (full outputs);
        created on demand."""
        if self.scratch_dir is None:
            import tempfile

            self.scratch_dir = Path(tempfile.mkdtemp(prefix="agentcli-"))  # 0700
        from agentcli.config.private_files import make_private_dir

        return make_private_dir(self.scratch_dir)

    def background_tasks(self) -> BackgroundTasks:
        """The session's background commands (tools/background/), their output files in
        the scratch folder; made on first use."""
        if self.background is None:
            from agentcli.tools.background.tasks import BackgroundTasks

            self.background = BackgroundTasks(self.scratch)
        return self.background


def _normalise(path: Path) -> str:
    import os

    return os.path.normpath(str(path))


class SearchFilter(Protocol):
    """Which found files a search may show: those Read could read without asking.

    The engine builds one per call from the permission rules
    (agentcli/permissions/search_filter.py); a search tool asks it about
    every path it is about to show. Paths are absolute strings: `written` as
    the search reached it, `real` with symlinks resolved.
    """

    def hider(self, target: str, real_target: str) -> Callable[[str, str], bool] | None:
        """The test for paths found at or below the search target `target` (resolved:
        `real_target`): given one as written and as resolved, True hides it and its
        content. Built once per search, called for every path: it must be quick.
        None when nothing there can be hidden."""
        ...

    def rg_excludes(self, cwd: str, target: str, real_target: str) -> list[str]:
        """`--glob` exclusions for rg run in `cwd` on `target`, so rg never opens what
        is hidden. Only rules that translate exactly: `hider` has the final word."""
        ...

    def note(self, target: str, real_target: str) -> str | None:
        """What the result says about what the rules keep out of a search of `target`.

        It depends on the rules and the place only, never on what the hidden
        files hold (a count of hidden matches would tell that, bit by bit).
        """
        ...


class WebReach(Protocol):
    """May a web tool connect where a URL's host led? (permissions/web_rules.py)

    The permission question judges the host a URL names; which addresses a DNS
    name stands for is known only when the connection is made, and a followed
    redirect may reach another spelling of the host (`www.`). A web tool asks
    this before every connection and connects only to the addresses it asked
    about. Hosts are canonical names (tools/web/hosts.py), addresses strings.
    """

    def refusal(
        self, tool_name: str, asked: str, host: str, addresses: Sequence[str]
    ) -> str | None:
        """Why the call, allowed for the host `asked`, may not connect to `host` at
        `addresses`; None when it may."""
        ...


@dataclass(slots=True)
class ToolContext:
    """What one call of a tool runs with.

    `search_filter` and `web_reach` are None only where no permission rules exist
    (a tool's own tests, the benchmarks): the engine always passes them. `model`
    is the way to a small, fast model for tools that need one (WebFetch); None
    without a provider. `emit` puts an event in the
    engine's stream as it happens: a tool that runs an engine of its own (Task) passes
    on that engine's events (typed loosely: tools do not know the engine's events).
    """

    workspace: Workspace
    abort: AbortSignal
    tool_use_id: str = ""
    report: Callable[[LiveOutput], None] = lambda _output: None
    search_filter: SearchFilter | None = None
    web_reach: WebReach | None = None
    model: ModelAccess | None = None
    emit: Callable[[Any], None] | None = None


class InputModelAt:
    """A tool's `input_model` named by where it is ("module:Class"), imported when first
    read: for a tool offered on every start whose schema is written out (Task), so that
    offering it loads no pydantic model; validating its first call loads it."""

    def __init__(self, where: str) -> None:
        self.where = where
        self._model: type[ToolInput] | None = None

    def __get__(self, tool: object, owner: type) -> type[ToolInput]:
        if self._model is None:
            module_name, class_name = self.where.split(":")
            self._model = getattr(import_module(module_name), class_name)
        assert self._model is not None
        return self._model


class Tool(ABC):
    """Subclass, set the class attributes, implement `run()`.

    `read_only` and `concurrency_safe` are the defaults; a tool whose safety
    depends on its input (Bash running `ls`) overrides `is_read_only()`.
    """

    name: str  # a class attribute, or per instance (an MCP server's tool)
    input_model: ClassVar[type[ToolInput]]
    read_only: ClassVar[bool] = False
    concurrency_safe: ClassVar[bool] = False
    # The file in agentcli/tools/prompts/ with the description the model reads.
    prompt_file: ClassVar[str | None] = None
    # The heading of the permission question; "" for `Use <name>`.
    permission_title: ClassVar[str] = ""

    @property
    def description(self) -> str:
        return load_prompt(self.prompt_file or f"{self.name.lower()}.md")

    def is_read_only(self, inp: Any) -> bool:
        return self.read_only

    def is_concurrency_safe(self, inp: Any) -> bool:
        return self.concurrency_safe

    def summary(self, inp: Any, workspace: Workspace) -> str:
        """The short text inside the UI header `Name(summary)`."""
        return ""

    def target_path(self, inp: Any, workspace: Workspace) -> Path | None:
        """The file or folder this call touches, for path-based permission checks."""
        return None

    def files_written(self, inp: Any, workspace: Workspace) -> list[Path]:
        """The files this call may create or change. The engine records what they hold
        before the call runs (checkpoints, for rewinding); a tool that writes files
        declares them here."""
        return []

    def permission_subject(self, inp: Any) -> str | None:
        """The text a rule like `Bash(npm test:*)` is matched against (the command)."""
        return None

    async def permission_preview(self, inp: Any, workspace: Workspace) -> ToolDisplay | None:
        """What the person is shown before allowing the call (Edit: the diff it makes).

        Called only when the person is about to be asked. Raise ToolError when the
        call cannot succeed as it stands, so it fails before the question, not after
        the person said yes.
        """
        return None

    def schema(self) -> dict[str, Any]:
        """The tool definition sent to the model."""
        from agentcli.tools.inputs import input_schema

        return {
            "name": self.name,
            "description": self.description,
            "input_schema": input_schema(self.input_model),
        }

    @abstractmethod
    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult: ...


class FileTool(Tool):
    """A tool whose input names one file in `file_path` (Read, Edit, Write)."""

    def summary(self, inp: Any, workspace: Workspace) -> str:
        return workspace.display_path(workspace.resolve(inp.file_path))

    def target_path(self, inp: Any, workspace: Workspace) -> Path | None:
        return workspace.resolve(inp.file_path)


@cache
def load_prompt(filename: str) -> str:
    """Read a tool description shipped in agentcli/tools/prompts/ (beside this file, as
    tools/stored_schemas.json is: importlib.resources would cost the start its imports)."""
    return (Path(__file__).with_name("prompts") / filename).read_text("utf-8").strip()
