"""The stall detector in measure.perf_run, on a stand-in process that prints one real interim line
(recorded from kafka-producer-perf-test) and then nothing, as the tool does when no record is
acknowledged any more. Against a real cluster the same path ends a run on a full disk
(test_startup_failures)."""

import sys
import time
from pathlib import Path

from kcliff.backends.base import Cluster
from kcliff.measure import producer as measure
from kcliff.measure.options import Options
from kcliff.measure.rounds import sizes_the_round
from kcliff.results.model import CliffSpec, Entry, Run, StopKind

LINE = "49856 records sent, 9967.2 records/sec (9.73 MB/sec), 1464.6 ms avg latency, 2012.0 ms max latency."


class SilentAfterOneLine(Cluster):
    backend = "stand-in"
    admin_bootstrap = tool_bootstrap = "127.0.0.1:1"

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = ()) -> list[str]:
        return [sys.executable, "-c", f"import time; print({LINE!r}, flush=True); time.sleep(120)"]

    def down(self) -> None:
        pass


def test_silence_ends_the_run_as_stalled_with_what_it_printed(tmp_path: Path):
    began = time.monotonic()
    run = measure.perf_run(SilentAfterOneLine(), "t", 100_000, {}, time.monotonic() + 60, tmp_path / "p.log",
                           stall_s=1.0)
    assert time.monotonic() - began < 15
    assert not run.complete and run.stop_kind is StopKind.FAULT and run.stop_reason.startswith(measure.STALLED)
    assert "no record acknowledged for 1s" in run.stop_reason
    assert run.records == 49856 and run.interim_mb_per_sec == [9.73]


def test_a_steady_printer_is_not_a_stall(tmp_path: Path):
    class Steady(SilentAfterOneLine):
        def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = ()) -> list[str]:
            return [sys.executable, "-c",
                    f"import time\nfor _ in range(4):\n    print({LINE!r}, flush=True)\n    time.sleep(0.5)"]

    # a line every 0.5 s against a 1.5 s stall limit (was 1 s against 2.5 s): a wider margin, half the wait
    run = measure.perf_run(Steady(), "t", 100_000, {}, time.monotonic() + 60, tmp_path / "p.log", stall_s=1.5)
    assert run.stop_reason is None or not run.stop_reason.startswith(measure.STALLED)


def test_runs_are_stretched_from_the_latest_rate():
    opts = Options(records=20_000, run_s=8.0)
    warm = _entry(_rate(10_000.0))
    assert opts.records_for(warm) == 80_000
    assert opts.records_for(_entry(_rate(10_000.0), _rate(30_000.0))) == 240_000
    assert opts.records_for(_entry(_rate(10_000.0), _rate(1_000.0))) == 20_000  # never below --records
    assert opts.records_for(_entry(_rate(10_000.0), _rate(1e9))) == 400_000    # at most 20x
    assert Options(records=20_000).records_for(warm) == 20_000  # run_s unset: --records as given


def test_every_side_of_a_round_runs_the_same_count_from_their_mean_rate():
    # per side, a side that happened to run fast got a longer next run, and run length moves MB/s
    opts = Options(records=20_000, run_s=4.0)
    base = _entry(None, _rate(30_000.0))
    head = _entry(_rate(20_000.0))
    assert opts.records_for(base, head) == opts.records_for(head, base) == 100_000
    assert opts.records_for(base, _entry(None)) == 120_000  # a side with no rate yet does not count


def test_a_latency_canarys_flat_out_speed_does_not_stretch_the_references_runs():
    # linger-500 flat out at about 8x the reference stretched the self-test's reference runs to 11-14 s
    reference = _entry(_rate(6_000.0))
    latency = Entry(id="linger-500", warmup=_rate(48_000.0), cliff=CliffSpec(stands_for="s", metric="p50_at_rate"))
    throughput = Entry(id="flush-1", warmup=_rate(600.0), cliff=CliffSpec(stands_for="s", metric="throughput"))
    assert not sizes_the_round(latency) and sizes_the_round(throughput) and sizes_the_round(reference)
    sizing = [e for e in (reference, latency, throughput) if sizes_the_round(e)]
    assert Options(records=20_000, run_s=4.0).records_for(*sizing) == 20_000  # (6,000 + 600) / 2 x 4 s


def _rate(records_per_sec: float) -> Run:
    return Run(records=1000, records_per_sec=records_per_sec)


def _entry(warmup: Run | None, *runs: Run) -> Entry:
    return Entry(id="x", warmup=warmup, runs=list(runs))
