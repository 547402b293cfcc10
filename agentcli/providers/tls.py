"""The TLS context of the model's HTTPS client, made on another core while agentcli starts.

Building it means loading the certificate bundle: about 25 ms, done by OpenSSL
with the GIL released. Made when the provider is built, as httpx would do by
itself, those 25 ms sit on the way to the first request. `prepare()` makes it
in a thread instead, on the other core: `-p`, ACP and stream-json call it as
soon as the command line is parsed, the app right after its first frame
(while the engine is built); `context()` picks it up (or makes it, if nobody
prepared it).

The context is the one httpx makes for `verify=True`: the bundle named by
`SSL_CERT_FILE` or the folder `SSL_CERT_DIR` when set, else certifi's. Those
variables are read again when the context is taken, so a settings file's `env`
that sets them (applied after start-up) still counts.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl

_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR")

_lock = threading.Lock()
_pending: _Making | None = None


class _Making:
    """One context being made in a thread, for the variables it was started with."""

    def __init__(self) -> None:
        self.variables = _current_variables()
        self.done = threading.Event()
        self.context: ssl.SSLContext | None = None
        self.error: BaseException | None = None
        threading.Thread(target=self._make, name="agentcli-tls", daemon=True).start()

    def _make(self) -> None:
        try:
            self.context = make_context(dict(self.variables))
        except BaseException as error:  # handed to whoever takes the context
            self.error = error
        finally:
            self.done.set()

    def take(self) -> ssl.SSLContext:
        self.done.wait()
        if self.error is not None:
            raise self.error
        assert self.context is not None
        return self.context


def prepare() -> None:
    """Start making the context in a thread (once; later calls do nothing)."""
    global _pending
    with _lock:
        if _pending is None:
            _pending = _Making()


def context() -> ssl.SSLContext:
    """The context to verify the API's certificate with: the prepared one if the
    variables it was made for are still those of the environment, else a new one.
    Raises what loading the bundle raised (a missing SSL_CERT_FILE: OSError)."""
    with _lock:
        pending = _pending
    if pending is not None and pending.variables == _current_variables():
        return pending.take()
    return make_context(dict(_current_variables()))


def make_context(variables: dict[str, str]) -> ssl.SSLContext:
    """httpx's context for `verify=True` (httpx/_config.py), from these variables."""
    import ssl

    if variables.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=variables["SSL_CERT_FILE"])
    if variables.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=variables["SSL_CERT_DIR"])
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


def _current_variables() -> tuple[tuple[str, str], ...]:
    return tuple((name, os.environ.get(name, "")) for name in _VARIABLES)


def forget() -> None:
    """Drop the prepared context (tests)."""
    global _pending
    with _lock:
        _pending = None
