"""Telemetry for this process: started once, when the first engine is built, and
flushed before the process exits.

`observer_for(user_env)` is what the composition root calls: None when
telemetry is off (then nothing of OpenTelemetry has been imported), else the
process's one recorder. The providers are started on the first call and shut
down at exit (`atexit`: every way agentcli ends on its own, a signal
included, goes through it, shutdown.py says how). Shutting down exports what
is still buffered, bounded by `FLUSH_SECONDS` so that an unreachable
collector delays the exit by at most that; OpenTelemetry's own complaints (a
refused connection, a retry) go to the `agentcli.telemetry` logger, never to
the terminal the app draws on.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from agentcli.telemetry.switch import flag, is_on, telemetry_variables

if TYPE_CHECKING:
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.trace import TracerProvider

    from agentcli.engine.observer import EngineObserver
    from agentcli.telemetry.exporters import Providers

FLUSH_SECONDS = 5.0
SERVICE_NAME = "agentcli"

_lock = threading.Lock()
_started: tuple[EngineObserver | None, list[str]] | None = None


def observer_for(user_env: Mapping[str, str]) -> EngineObserver | None:
    """The process's telemetry recorder, started on first use; None when it is off.
    `user_env`: the `env` of the user-level settings files (switch.py)."""
    variables = telemetry_variables(user_env)
    if not is_on(variables):
        return None
    global _started
    with _lock:
        if _started is None:
            _started = _start(variables)
        return _started[0]


def problems() -> list[str]:
    """What the telemetry configuration got wrong (an unknown exporter...), in words."""
    return list(_started[1]) if _started is not None else []


def _start(variables: Mapping[str, str]) -> tuple[EngineObserver | None, list[str]]:
    _quiet_opentelemetry()
    _export_settings_variables(variables)
    try:
        from opentelemetry.sdk.resources import Resource

        from agentcli import __version__
        from agentcli.telemetry.exporters import build_providers
        from agentcli.telemetry.recorder import TelemetryRecorder

        resource = Resource.create(
            {
                "service.name": variables.get("OTEL_SERVICE_NAME") or SERVICE_NAME,
                "service.version": __version__,
            }
        )
        providers = build_providers(variables, resource)
    except Exception as exc:
        logging.getLogger("agentcli.telemetry").exception("telemetry could not start")
        return None, [f"telemetry could not start: {exc}"]
    if not providers.exporting:
        return None, providers.problems
    atexit.register(_shut_down, providers)
    recorder = TelemetryRecorder(
        providers.meters.get_meter(SERVICE_NAME, __version__) if providers.meters else None,
        providers.loggers.get_logger(SERVICE_NAME, __version__) if providers.loggers else None,
        providers.tracers.get_tracer(SERVICE_NAME, __version__) if providers.tracers else None,
        include_prompts=flag(variables, "AGENTCLI_OTEL_LOG_USER_PROMPTS", "OTEL_LOG_USER_PROMPTS"),
        include_session_id=flag(
            variables,
            "AGENTCLI_METRICS_INCLUDE_SESSION_ID",
            "OTEL_METRICS_INCLUDE_SESSION_ID",
            default=True,
        ),
    )
    return recorder, providers.problems


def _export_settings_variables(variables: Mapping[str, str]) -> None:
    """The SDK's exporters read their endpoint, headers and certificates from the
    environment: give them the `OTEL_*` values the user settings set (the process's
    own win, telemetry_variables put them on top)."""
    for name, value in variables.items():
        if name.startswith("OTEL_") and name not in os.environ:
            os.environ[name] = value


def _quiet_opentelemetry() -> None:
    """OpenTelemetry logs an unreachable collector at WARNING, and the recorder its own
    failures; with no handler, Python would print them over the app's screen or into
    `-p`'s output. Neither is the person's business mid-session: both are kept quiet
    (a configuration problem is told once, by `problems()`)."""
    for name in ("opentelemetry", "agentcli.telemetry"):
        quiet = logging.getLogger(name)
        quiet.propagate = False
        quiet.addHandler(logging.NullHandler())


def _shut_down(providers: Providers) -> None:
    """Export what is buffered and stop, within FLUSH_SECONDS in all. The signals
    flush side by side: each may wait on its own exporter's retries."""
    deadline = time.monotonic() + FLUSH_SECONDS
    workers = [
        threading.Thread(target=_flush, args=(provider,), daemon=True)
        for provider in (providers.tracers, providers.loggers, providers.meters)
        if provider is not None
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))


def _flush(provider: MeterProvider | LoggerProvider | TracerProvider) -> None:
    try:
        provider.force_flush(int(FLUSH_SECONDS * 1000))
        provider.shutdown()
    except Exception:
        logging.getLogger("agentcli.telemetry").exception("telemetry flush failed")
