"""`stream_model()`: one model request's events, stopped at once by the abort signal.

The loop (loop.py) and the compactor's summary request (compaction.py) both
call the model through it, so both stop the same way on Esc and both turn a
provider that raises into a `ModelError` instead of a crash.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from agentcli.core.abort import AbortSignal
from agentcli.providers.base import ModelError, ModelRequest, Provider, ProviderEvent


async def stream_model(
    provider: Provider, request: ModelRequest, abort: AbortSignal
) -> AsyncGenerator[ProviderEvent | ModelError, None]:
    """The provider's events, ending at once (without an error) when abort fires.

    The provider runs in its own task feeding a queue, and the abort signal
    drops a sentinel into the same queue: waiting costs one `queue.get()` per
    event, and an abort wakes us even while the network is silent.
    """
    queue: asyncio.Queue[ProviderEvent | ModelError | None] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for event in provider.stream(request, abort):
                queue.put_nowait(event)
        except ModelError as error:
            queue.put_nowait(error)
        except Exception as exc:  # a provider bug still ends the turn cleanly
            queue.put_nowait(ModelError(f"{type(exc).__name__}: {exc}"))
        finally:
            queue.put_nowait(None)  # the end

    task = asyncio.create_task(pump(), name="model-stream")
    remove = abort.on_abort(lambda: queue.put_nowait(None))
    try:
        while True:
            item = await queue.get()
            if item is None:
                return
            yield item
    finally:
        remove()
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
