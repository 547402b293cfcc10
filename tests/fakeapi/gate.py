"""Block a server thread mid-response without polling.

A hung stream must end for one of three reasons: the test releases it, the client
goes away (an aborted request), or the server stops. `select` on the client socket
plus a private wake-up socket covers all three in one blocking call: a disconnect
and a server stop (which shuts the connection down) both make the client socket
readable, and `release()` writes to the wake-up socket.
"""

from __future__ import annotations

import select
import socket
import threading
from typing import Literal

WaitResult = Literal["released", "disconnected"]


class Gate:
    def __init__(self) -> None:
        self.reached = threading.Event()
        self._lock = threading.Lock()
        self._released = False
        self._waking: set[socket.socket] = set()

    def release(self) -> None:
        """Let every current and future waiter continue."""
        with self._lock:
            self._released = True
            for sock in self._waking:
                try:
                    sock.send(b"x")
                except OSError:
                    pass

    def wait(self, conn: socket.socket) -> WaitResult:
        """Block until released, or until `conn` becomes readable (EOF or shutdown)."""
        with self._lock:
            if self._released:
                self.reached.set()
                return "released"
            wake_r, wake_w = socket.socketpair()
            self._waking.add(wake_w)
        try:
            self.reached.set()
            readable, _, _ = select.select([conn, wake_r], [], [])
            return "released" if wake_r in readable and conn not in readable else "disconnected"
        finally:
            with self._lock:
                self._waking.discard(wake_w)
            wake_r.close()
            wake_w.close()
