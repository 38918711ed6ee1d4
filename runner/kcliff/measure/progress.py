"""Progress while a suite runs: scenario i/n, run j/k, elapsed, live MB/s. A live line on a
terminal; one line per run in CI logs."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from kcliff.measure.perf_output import PerfLine
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

    def _write(self, text: str, live: bool = False) -> None:
        if self.quiet:
            return
        if self.tty:
            self.stream.write("\r\033[K" + text + ("" if live else "\n"))
        elif not live:
            self.stream.write(text + "\n")
        self.stream.flush()

    def elapsed(self) -> str:
        s = int(time.monotonic() - self.began)
        return f"{s // 60:02d}:{s % 60:02d}"

    def note(self, text: str) -> None:
        self._write(f"[{self.elapsed()}] {text}")

    def warn(self, text: str) -> None:
        """Printed even with --quiet: it changes what the results mean."""
        self.stream.write(("\r\033[K" if self.tty else "") + f"[{self.elapsed()}] warning: {text}\n")
        self.stream.flush()

    def scenario(self, index: int, total: int, scenario_id: str) -> None:
        self.prefix = f"[{index}/{total}] {scenario_id}"

    def run_started(self, label: str) -> None:
        self.label = label
        self._write(f"[{self.elapsed()}] {self.prefix}: {label}", live=True)

    def live(self, line: PerfLine, seconds: float) -> None:
        self._write(f"[{self.elapsed()}] {self.prefix}: {self.label} {seconds:5.1f}s "
                    f"{line.mb_per_sec:7.2f} MB/s live", live=True)

    def scenario_done(self, entry: Entry, reference_mb: float | None) -> None:
        stat = (entry.summary or {}).get(THROUGHPUT.key)
        mb = stat.median if stat else None
        ratio = f" ({mb / reference_mb:.2f}x reference)" if mb and reference_mb else ""
        figure = f"{mb:.2f} MB/s{ratio}" if mb is not None else "no figures"
        reason = f" - {entry.status_reason}" if entry.status_reason else ""
        self._write(f"[{self.elapsed()}] {self.prefix}: {entry.status}, {figure} in {entry.wall_s or 0:.0f}s{reason}")
