"""A line at least every HEARTBEAT_S seconds while a command measures: what is under way and how long
is left. Off a terminal the live line prints nothing, and a canaries run once went 4 min 31 s without a
line: a reader (or a CI job's idle timeout) cannot tell that from a hang."""

from __future__ import annotations

import threading
from types import TracebackType

from kcliff.measure.progress import Progress

HEARTBEAT_S = 10.0  # below the 15 s a reader waits at most, with a tick's slack


class Heartbeat:
    """While the block runs, a daemon thread has `progress` say what is under way whenever it has been
    silent for `interval` seconds; leaving the block stops and joins it, so nothing prints after."""

    def __init__(self, progress: Progress, interval: float = HEARTBEAT_S) -> None:
        self.progress = progress
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="kcliff-heartbeat", daemon=True)

    def _beat(self) -> None:
        tick = min(1.0, self.interval / 4)
        while not self._stop.wait(tick):
            if self.progress.silent_for() >= self.interval:
                self.progress.beat()

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()
