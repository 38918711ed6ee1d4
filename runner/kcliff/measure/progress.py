"""Progress while a suite runs: scenario i/n, run j/k, elapsed, live MB/s. A live line on a
terminal; one line per run in CI logs. What is under way (the phase, the run, the round and the time
left) is kept, so the heartbeat (measure/heartbeat.py) can say it whenever nothing else has."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

from kcliff.measure.perf_output import PerfLine
from kcliff.measure.time_left import RoundClock, duration
from kcliff.results.metrics import THROUGHPUT
from kcliff.results.model import Entry


class Progress:
    def __init__(self, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.tty = self.stream.isatty()
        self.began = time.monotonic()
        self.prefix = ""
        self.label = ""
        self.who = ""  # the scenario of the run under way
        self.doing: str | None = None  # what is under way, for the heartbeat
        self.until: float | None = None  # when a phase of known length ends (priming)
        self.clock: RoundClock | None = None  # the rounds of the group being measured
        self.last_line = self.began  # when the reader last saw something new
        self._lock = threading.Lock()  # the heartbeat's thread writes too

    def _write(self, text: str, live: bool = False) -> None:
        if self.quiet:
            return
        with self._lock:
            if self.tty:
                self.stream.write("\r\033[K" + text + ("" if live else "\n"))
            elif not live:
                self.stream.write(text + "\n")
            else:
                return  # a live line shows nothing off a terminal: the reader saw nothing new
            self.stream.flush()
            self.last_line = time.monotonic()

    def silent_for(self) -> float:
        """Seconds since the reader last saw a line (or, on a terminal, the live line change)."""
        return time.monotonic() - self.last_line

    def phase(self, text: str, seconds: float | None = None) -> None:
        """Say that `text` is under way (for about `seconds`, when known) and keep it for the heartbeat."""
        self.doing, self.until = text, (time.monotonic() + seconds if seconds is not None else None)
        self.note(text)

    def rounds(self, clock: RoundClock | None) -> None:
        """The group of rounds now measured (None: its rounds are over)."""
        self.clock = clock
        if clock is None:
            self.doing = None

    def beat(self) -> None:
        """What is under way and how long is left, in one line: the heartbeat's."""
        now = time.monotonic()
        parts = [self.doing or "working"]
        if self.clock is not None:
            parts.append(self.clock.describe(now))
        elif self.until is not None and self.until > now:
            parts.append(f"about {duration(self.until - now)} left")
        self._write(f"[{self.elapsed()}] under way: {', '.join(parts)}", live=False)

    def elapsed(self) -> str:
        s = int(time.monotonic() - self.began)
        return f"{s // 60:02d}:{s % 60:02d}"

    def note(self, text: str) -> None:
        self._write(f"[{self.elapsed()}] {text}")

    def warn(self, text: str) -> None:
        """Printed even with --quiet: it changes what the results mean."""
        with self._lock:
            self.stream.write(("\r\033[K" if self.tty else "") + f"[{self.elapsed()}] warning: {text}\n")
            self.stream.flush()
            self.last_line = time.monotonic()

    def scenario(self, index: int, total: int, scenario_id: str) -> None:
        self.prefix = f"[{index}/{total}] {scenario_id}"

    def run_started(self, label: str, scenario_id: str | None = None, workload: str = "produce") -> None:
        """A tool run begins: `label` says which (warmup, round 2/3), `workload` what it measures."""
        self.label = label
        self.who = who = scenario_id or self.prefix
        what = label if label.startswith(workload) else f"{workload} {label}"  # read labels name their workload
        self.doing, self.until = f"{who}, {what}", None
        self._write(f"[{self.elapsed()}] {who}: {label}", live=True)

    def live(self, line: PerfLine, seconds: float) -> None:
        self._write(f"[{self.elapsed()}] {self.who}: {self.label} {seconds:5.1f}s "
                    f"{line.mb_per_sec:7.2f} MB/s live", live=True)

    def scenario_done(self, entry: Entry, reference_mb: float | None) -> None:
        stat = (entry.summary or {}).get(THROUGHPUT.key)
        mb = stat.median if stat else None
        ratio = f" ({mb / reference_mb:.2f}x reference)" if mb and reference_mb else ""
        figure = f"{mb:.2f} MB/s{ratio}" if mb is not None else first_figure(entry)
        reason = f" - {entry.status_reason}" if entry.status_reason else ""
        self._write(f"[{self.elapsed()}] {self.prefix}: {entry.status}, {figure} in {entry.wall_s or 0:.0f}s{reason}")


def first_figure(entry: Entry) -> str:
    """The first figure of an entry measured without the producer flat out (through a fault alone),
    e.g. 'unavailable 10.54 s'."""
    for metric in entry.metrics():
        stat = (entry.summary or {}).get(metric.key)
        if stat is not None:
            return f"{metric.name} {stat.median:.2f} {metric.unit}"
    return "no figures"
