"""A Harbor environment that runs each command in a folder on this machine (Python 3.12+).

Harbor's real environments are containers (Docker, Daytona...); none runs here. This
subclass of Harbor's own `BaseEnvironment` gives an agent what a container would:
`exec` runs the command with bash in the task's folder (or the `cwd` asked for),
with the environment variables the agent passes on top of a small base (PATH, HOME),
and uploads and downloads copy files. It isolates nothing: it is for tests only.
Imported only by tests/integrations/harbor_run.py, in the Harbor venv.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.models.task.config import EnvironmentConfig
from harbor.models.trial.paths import TrialPaths


class FolderEnvironment(BaseEnvironment):
    def __init__(self, workdir: Path, trial_dir: Path, *, path: str, home: Path) -> None:
        self.workdir = workdir
        self.base_env = {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8"}
        paths = TrialPaths(trial_dir)
        paths.mkdir()
        super().__init__(
            environment_dir=workdir,
            environment_name="folder",
            session_id="folder__test__env",
            trial_paths=paths,
            task_env_config=EnvironmentConfig(),
        )

    @staticmethod
    def type() -> str:
        return "agentcli-test-folder"

    def _validate_definition(self) -> None:
        return None

    async def start(self, force_build: bool) -> None:
        return None

    async def stop(self, delete: bool) -> None:
        return None

    async def prepare_logs_for_host(self) -> None:
        return None

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source_path, target_path)

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        shutil.copytree(source_dir, target_dir, dirs_exist_ok=True)

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        shutil.copy(source_path, target_path)

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        shutil.copytree(source_dir, target_dir, dirs_exist_ok=True)

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> ExecResult:
        process = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            command,
            cwd=cwd or self.workdir,
            env={**self.base_env, **(env or {})},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(), timeout_sec)
        except TimeoutError:
            process.kill()
            await process.wait()
            return ExecResult(stdout="", stderr="timed out", return_code=124)
        return ExecResult(
            stdout=out.decode(errors="replace"),
            stderr=err.decode(errors="replace"),
            return_code=process.returncode if process.returncode is not None else -1,
        )


__all__ = ["FolderEnvironment"]
