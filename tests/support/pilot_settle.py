"""A finer step for Pilot's wait for the app to settle, so app tests do not mostly sleep.

After every key it sends, and in every `pilot.pause()`, Textual's Pilot waits until the
process looks idle (`textual._wait.wait_for_idle`): it sleeps one step, 20 ms, and goes on
once the CPU used in that step is under 5% of it. So each key a test types costs at least
40 ms of sleep, and a test that types a few prompts spends most of its time asleep; on
CI's two cores that sleep is wall time nobody uses.

The step here is 2 ms with the same 5% threshold, so the wait still ends only when the
app has gone quiet: what the tests see is the same settled app, sooner. Textual is pinned
exactly (pyproject.toml); if an upgrade renames these, this fails at import rather than
silently restoring the slow step.
"""

from __future__ import annotations

import textual._wait as textual_wait

SETTLE_STEP_S = 0.002


def use_fine_settle_step() -> None:
    for name in ("SLEEP_GRANULARITY", "SLEEP_IDLE"):
        if not isinstance(getattr(textual_wait, name, None), float):
            raise RuntimeError(f"textual._wait.{name} is gone: see tests/support/pilot_settle.py")
    idle_share = textual_wait.SLEEP_IDLE / textual_wait.SLEEP_GRANULARITY
    textual_wait.SLEEP_GRANULARITY = SETTLE_STEP_S
    textual_wait.SLEEP_IDLE = SETTLE_STEP_S * idle_share
