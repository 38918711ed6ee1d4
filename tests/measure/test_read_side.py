"""The read side without a cluster: the consumer and end-to-end tools' output as recorded from real
runs (tests/data/read-side/), the argv kcliff gives them, and read runs flowing into the summary,
the metrics a check judges, the benchmark export and the run table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kcliff.kafka import release as kafka_release
from kcliff.measure import read_output, read_side
from kcliff.report import export, table
from kcliff.results.metrics import CONSUMED, E2E_P99, THROUGHPUT
from kcliff.results.model import Entry, ReadRun, ResultsDoc, Run, StopKind

DATA = Path(__file__).resolve().parents[1] / "data" / "read-side"


def lines(name: str) -> list[str]:
    return (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)


def test_consumer_rate_is_taken_between_its_first_and_last_report():
    got = read_output.consumed(lines("consumer-perf-default.txt"))
    assert got is not None
    reports = [p for p in map(read_output.parse_progress, lines("consumer-perf-default.txt")) if p]
    assert got.records == reports[-1].total_records and got.mb == reports[-1].total_mb
    span = (reports[-1].at - reports[0].at).total_seconds()
    assert abs(got.mb_per_sec - (reports[-1].total_mb - reports[0].total_mb) / span) < 1e-9
    assert read_output.consumed(lines("consumer-perf-default.txt")[:2]) is None  # header and one report: too short
    fetching = sum(p.fetch_ms for p in reports[1:]) / 1000  # the tool's fetch.time.ms, rebalances left out
    assert got.fetch_mb_per_sec is not None and fetching <= span + 0.01
    assert abs(got.fetch_mb_per_sec - (reports[-1].total_mb - reports[0].total_mb) / fetching) < 1e-9


def test_latency_figures_are_read_from_the_tools_last_lines():
    got = read_output.latency(lines("end-to-end-default.txt"))
    assert got is not None and got.p50_ms <= got.p99_ms <= got.p999_ms and got.avg_ms > 0
    assert read_output.latency(lines("end-to-end-default.txt")[:-1]) is None  # no percentiles: no figures


class FakeCluster:
    tool_bootstrap = "127.0.0.1:1,127.0.0.1:2"
    release = kafka_release.of("4.2.0")  # the tools the recorded output came from

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = ()) -> list[str]:
        return ["java", main_class, *args]


def test_consumer_argv_gives_kafkas_defaults_where_the_tool_has_its_own_and_each_value_one_element():
    argv = read_side.consumer_argv(FakeCluster(), "t", 1000, {"max.poll.records": 1, "check.crcs": True}, 30)
    # the tool's own 2 MiB receive buffer and 1 MiB fetch would hide a consumer's settings
    assert argv[argv.index("--socket-buffer-size") + 1] == "65536"
    assert argv[argv.index("--fetch-size") + 1] == "1048576"
    assert argv[argv.index("--command-property") + 1:] == ["max.poll.records=1", "check.crcs=true"]
    set_ = read_side.consumer_argv(FakeCluster(), "t", 1000, {"receive.buffer.bytes": 1}, 30)
    assert set_[set_.index("--socket-buffer-size") + 1] == "1" and "--command-property" not in set_


def reading_entry(sid: str, consumed: list[float], e2e: list[float]) -> Entry:
    runs = [Run(records=1000, mb_per_sec=20.0, p99_ms=100.0) for _ in consumed]
    reads = [ReadRun(workload="consume", records=1000, consumed_mb_per_sec=c) for c in consumed]
    reads += [ReadRun(workload="end-to-end", records=200, e2e_p99_ms=e) for e in e2e]
    return Entry(id=sid, runs=runs, read_runs=reads, workloads=["produce", "consume", "end-to-end"])


def test_read_runs_are_summarised_and_judged_beside_the_producers():
    entry = reading_entry("reference", [40.0, 50.0, 45.0], [30.0, 35.0, 33.0])
    assert entry.median(CONSUMED) == 45.0 and entry.median(E2E_P99) == 33.0 and entry.median(THROUGHPUT) == 20.0
    assert entry.values(CONSUMED) == [40.0, 50.0, 45.0]
    assert [m.name for m in entry.metrics()] == ["throughput", "p99", "consumed", "e2e_p99"]
    assert [m.name for m in Entry(id="x").metrics()] == ["throughput", "p99"]  # a version 1 entry


def test_export_and_table_carry_the_read_side(tmp_path):
    env = {"kafka_version": "4.2.0", "runner_class": "test-2c", "started": "2026-11-23T20:00:00Z"}
    doc = ResultsDoc(run_id="r", environment=env, scenarios=[
        reading_entry("reference", [40.0, 50.0, 45.0], [30.0, 35.0, 33.0]),
        reading_entry("poll-1", [4.0, 5.0, 4.5], [31.0, 30.0, 32.0])])
    source = tmp_path / "results.json"
    source.write_text(doc.model_dump_json(by_alias=True))
    export.export(source, tmp_path / "bench")
    bigger = {e["name"]: e for e in json.loads((tmp_path / "bench" / "throughput.json").read_text())}
    smaller = {e["name"] for e in json.loads((tmp_path / "bench" / "p99.json").read_text())}
    assert bigger["poll-1 consumed"]["value"] == 4.5 and "0.10x reference" in bigger["poll-1 consumed"]["extra"]
    assert {"reference e2e_p99", "poll-1 e2e_p99", "poll-1 p99"} <= smaller
    rendered = table.render(doc)
    assert "consumed MB/s" in rendered and "4.50 (0.10x)" in rendered


class ReplayCluster(FakeCluster):
    """Runs a process that prints recorded consumer output and exits with `code`, in place of the tool."""

    def __init__(self, recorded: list[str], code: int) -> None:
        self.script = f"import sys; sys.stdout.write({''.join(recorded)!r}); sys.exit({code})"

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = ()) -> list[str]:
        return [sys.executable, "-c", self.script]


def test_a_read_done_before_its_second_report_has_no_rate_and_is_no_failure(tmp_path):
    short = lines("consumer-perf-default.txt")[:2]  # the header and the group join's report
    run = read_side.consume_run(ReplayCluster(short, 0), "t", 6000, {}, 30, tmp_path / "c.log")
    assert not run.complete and run.stop_kind is None and run.consumed_mb_per_sec is None
    assert "too few to give a rate" in (run.stop_reason or "")
    failed = read_side.consume_run(ReplayCluster(short, 1), "t", 6000, {}, 30, tmp_path / "d.log")
    assert failed.stop_kind is StopKind.FAILED
    whole = read_side.consume_run(ReplayCluster(lines("consumer-perf-default.txt"), 0), "t", 6000, {}, 30,
                                  tmp_path / "e.log")
    assert whole.complete and whole.consumed_mb_per_sec and whole.consumed_mb_per_sec > 0
