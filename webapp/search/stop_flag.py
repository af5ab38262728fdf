"""``SharedStopFlag``: a search's stop flag shared by this node and one engine worker process, which neither side
can ever wait on.

A ``multiprocessing.Event`` will not do: its ``set`` waits until every process sleeping in its ``wait`` has woken,
and a worker killed during that sleep (the pace wait before an engine's move) never wakes, so the next ``set``
(a cancel, a close) would wait for ever, and under the node's event loop every connection with it. This flag is one
byte of shared memory without a lock: setting, clearing and reading it are single writes and reads, and a wait on
it looks at it every ``POLL_SECONDS``.
"""

from __future__ import annotations

from multiprocessing.context import BaseContext

from webapp.clock import Clock

POLL_SECONDS = 0.01
"""Seconds between two looks at the flag while waiting on it (the pace wait's precision)."""


class SharedStopFlag:
    """A stop flag for one worker process; pass it to the process when starting it (shared memory is inherited,
    not sent through a pipe). It has the ``threading.Event`` methods a search uses (``is_set``, ``wait``, timed on
    ``clock``) and those the node uses (``set``, ``clear``)."""

    def __init__(self, context: BaseContext, clock: Clock) -> None:
        self._byte = context.RawValue("b", 0)
        self._clock = clock

    def set(self) -> None:
        """Raise the flag (returns at once)."""
        self._byte.value = 1

    def clear(self) -> None:
        """Lower the flag (returns at once)."""
        self._byte.value = 0

    def is_set(self) -> bool:
        """Whether the flag is raised."""
        return bool(self._byte.value)

    def wait(self, timeout: float | None = None) -> bool:
        """Return once the flag is raised (True) or ``timeout`` seconds have passed (None: no limit)."""
        deadline = None if timeout is None else self._clock.monotonic() + timeout
        while not self.is_set():
            left = POLL_SECONDS if deadline is None else min(POLL_SECONDS, deadline - self._clock.monotonic())
            if left <= 0:
                return False
            self._clock.sleep(left)
        return True
