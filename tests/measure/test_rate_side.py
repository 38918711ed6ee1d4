"""A fixed-rate run as the results document keeps it: the load generator's recorded output
(tests/data/loadgen/, recorded against a real 3-broker cluster; see tests/measure/test_rate_output.py)
becomes a ReadRun of workload `rate`, which the entry's summary and the judged metrics read."""

from pathlib import Path

from kcliff.judge.at_rate import held_rate
from kcliff.measure import rate_output
from kcliff.measure.at_rate import RateRun
from kcliff.measure.rate_side import (
    DEFAULT_RATE,
    MAX_RUN_S,
    MIN_RUN_S,
    PEAK_SHARE,
    RATE_RECORDS,
    SELF_TEST_RATE_RECORDS,
    rate_of,
    run_seconds,
    share_of_peak,
    to_read_run,
)
from kcliff.results.metrics import RATE_E2E_P99, RATE_P99, Workload
from kcliff.results.model import Entry, ReadRun, StopKind
from kcliff.scenario.rate import Rate, RateUnit
from kcliff.scenario.suites import Scenario

DATA = Path(__file__).parents[1] / "data" / "loadgen"


def recorded(name: str) -> RateRun:
    out = rate_output.parse((DATA / name).read_text().splitlines())
    return RateRun(out.summary, out.progress, 7.5, 0)


def test_a_held_rate_keeps_produce_and_end_to_end_latency_from_the_due_time():
    run = to_read_run(recorded("linger5-fetchwait500-100rps.log"), 100.0)
    assert run.workload is Workload.RATE and run.complete and run.rate_held
    assert run.rate_target_per_s == 100.0 and run.rate_achieved_per_s == 100.0 and run.records == 400
    # fetch.max.wait.ms=500 at 100 records/s: every record waits for its fetch
    assert run.rate_e2e_p50_ms is not None and 200 < run.rate_e2e_p50_ms < 600
    assert run.rate_p99_ms is not None and run.rate_p99_ms < run.rate_e2e_p99_ms
    assert run.rate_histogram_us and run.rate_e2e_histogram_us


def test_a_rate_not_held_is_a_complete_run_that_says_so():
    run = to_read_run(recorded("overload-50000rps.log"), 50000.0)
    assert run.complete and run.rate_held is False
    assert run.rate_achieved_per_s is not None and run.rate_achieved_per_s < 0.95 * 50000


def test_a_run_without_a_summary_is_a_failed_run_with_its_reason():
    run = to_read_run(RateRun(None, [], 31.0, 1, "load generator could not reach the cluster or the topic (exit 1)",
                              StopKind.FAILED), 100.0)
    assert not run.complete and run.stop_kind is StopKind.FAILED and "could not reach" in (run.stop_reason or "")


def test_the_entry_summarises_and_judges_latency_at_rate_per_run():
    runs = [to_read_run(recorded(name), 100.0) for name in ("linger5-100rps.log", "linger5-fetchwait500-100rps.log")]
    entry = Entry(id="head", workloads=["produce", "rate"], read_runs=runs)
    assert {RATE_P99, RATE_E2E_P99} <= set(entry.metrics())
    assert entry.values(RATE_E2E_P99) == [r.rate_e2e_p99_ms for r in runs]
    assert entry.summary is not None and entry.summary["rate_e2e_p99_ms"].max == max(entry.values(RATE_E2E_P99))
    assert ReadRun.model_validate_json(runs[0].model_dump_json()) == runs[0]  # a results file round trip


def test_the_rate_is_the_scenarios_else_the_runs_else_the_default():
    own, given = Rate(2000, RateUnit.RECORDS_PER_S), Rate(3, RateUnit.MB_PER_S)
    assert rate_of(Scenario("s", "", rate=own), given) == own
    assert rate_of(Scenario("s", ""), given) == given
    assert rate_of(Scenario("s", ""), None) == DEFAULT_RATE


def test_a_check_without_a_rate_measures_both_sides_at_a_share_of_the_bases_warm_up_peak():
    base = Entry.model_validate({"id": "base", "warmup": {"records": 15000, "mb_per_sec": 12.34}})
    assert share_of_peak(base, PEAK_SHARE) == Rate(1.2, RateUnit.MB_PER_S)
    assert share_of_peak(Entry(id="base"), PEAK_SHARE) is None  # no warm-up figure: no share to take
    repo_rate = Rate(2000, RateUnit.RECORDS_PER_S)
    given = Scenario("head", "", rate=repo_rate)
    assert rate_of(given, None, Rate(1.2, RateUnit.MB_PER_S)) == repo_rate  # the repo's own rate comes first
    assert rate_of(Scenario("head", ""), None, Rate(1.2, RateUnit.MB_PER_S)) == Rate(1.2, RateUnit.MB_PER_S)


def test_held_rate_is_what_most_of_an_entrys_rate_runs_did():
    def entry(*held):
        return Entry.model_validate({"id": "head", "read_runs": [
            {"records": 7000, "workload": "rate", "rate_held": h} for h in held]})
    assert held_rate(entry(True, True, False)) is True
    assert held_rate(entry(True, False)) is False  # half is not most
    assert held_rate(Entry(id="head")) is None and held_rate(None) is None


def test_a_run_at_rate_measures_a_fixed_count_of_records_whatever_the_rate_within_its_bounds():
    at_1_mb = DEFAULT_RATE.records_per_s(1024)
    assert run_seconds(at_1_mb) * at_1_mb == RATE_RECORDS  # 4.9 s: p99 is the 50th-slowest record
    assert run_seconds(RATE_RECORDS / 4) == 4.0
    assert run_seconds(10 * RATE_RECORDS) == MIN_RUN_S  # a fast rate: a stall must not be the whole run
    assert run_seconds(100) == MAX_RUN_S  # a slow service's rate: cut, fewer records


def test_a_self_test_run_at_rate_measures_fewer_records_so_a_slow_reference_does_not_cost_a_minute():
    reference_share = Rate(0.2, RateUnit.MB_PER_S).records_per_s(1024)  # a tenth of a cold warm-up's 2 MB/s
    assert run_seconds(reference_share) == MAX_RUN_S  # 5,000 records would take 24 s: cut at 15
    assert run_seconds(reference_share, SELF_TEST_RATE_RECORDS) < 3  # 500: its median is what is judged
    assert run_seconds(10 * SELF_TEST_RATE_RECORDS, SELF_TEST_RATE_RECORDS) == MIN_RUN_S


def test_the_read_round_measures_at_rate_the_records_its_options_ask_for(monkeypatch, tmp_path):
    from types import SimpleNamespace

    from kcliff.measure import rate_side
    from kcliff.measure.options import Options
    from kcliff.measure.read_round import ReadRound

    asked: list[int] = []
    monkeypatch.setattr(rate_side, "rate_run", lambda *a, **k: asked.append(a[7]) or ReadRun(workload=Workload.RATE, records=0))
    rig = SimpleNamespace(progress=SimpleNamespace(run_started=lambda *a: None), log_path=lambda *a: tmp_path / "x")
    site = SimpleNamespace(cluster=None)
    sc = Scenario(id="reference", description="the reference")
    for opts in (Options(), Options(rate_records=SELF_TEST_RATE_RECORDS)):
        ReadRound(rig, opts)._read(site, sc, "t", Workload.RATE, Entry(id="reference"), 1000, "rate 1/3", 1e12)
    assert asked == [RATE_RECORDS, SELF_TEST_RATE_RECORDS]


def test_both_sides_of_a_pair_read_as_many_records_in_a_round_and_canaries_their_own(monkeypatch, tmp_path):
    # a benign check where links were capped: base's topic held 15,001 records in round 1, head's 23,001
    # (its warm-up ran longer), and each read from the start of its topic, so the round compared reads of
    # two sizes (0.76x); both now read what the emptier topic holds after its run
    from types import SimpleNamespace

    from kcliff.measure import read_side
    from kcliff.measure.options import Options
    from kcliff.measure.read_round import READ_MIN_RECORDS, ReadRound
    from kcliff.results.model import CliffSpec, Run

    def holding(sid: str, records: int, cliff: CliffSpec | None = None) -> Entry:
        return Entry(id=sid, warmup=Run(records=records, complete=True), cliff=cliff)

    read: list[int] = []
    monkeypatch.setattr(read_side, "consume_run", lambda cluster, topic, count, *a: read.append(count) or
                        ReadRun(workload=Workload.CONSUME, records=count))
    rig = SimpleNamespace(progress=SimpleNamespace(run_started=lambda *a: None), log_path=lambda *a: tmp_path / "x",
                          doc=SimpleNamespace(reference=lambda: None))
    site, sc = SimpleNamespace(cluster=None), Scenario(id="base", description="base")
    reads = ReadRound(rig, Options())
    base, head = holding("base", 15_001), holding("head", 23_001)
    reads.pair_round([base, head], [10_000, 10_000], first=True, bytes_capped=False)
    for entry in (base, head):
        entry.runs.append(Run(records=10_000, complete=True))
        reads._read(site, sc, "t", Workload.CONSUME, entry, 10_000, "consume 1/4", 1e12)
    assert read == [25_001, 25_001]
    # once both topics hold a read's worth, each reads that; sides of two record sizes, a canary and a
    # side alone read their own topic, as before
    reads.pair_round([holding("base", 10**6), holding("head", 2 * 10**6)], [10_000, 10_000], first=False,
                     bytes_capped=False)
    assert reads.round_reads == READ_MIN_RECORDS
    fetch = CliffSpec(stands_for="one fetch per record", metric="consumed", max_ratio=0.5)
    for entries, counts in (([base, head], [10_000, 5_000]), ([holding("reference", 9), holding("c", 9, fetch)],
                                                              [10_000, 10_000]), ([base], [10_000])):
        reads.pair_round(entries, counts, first=False, bytes_capped=False)
        assert reads.round_reads is None, entries


def test_where_bytes_bind_a_pairs_first_read_side_runs_are_warm_ups_and_later_ones_are_judged(tmp_path):
    # a benign check at the caps: round 1's consumer reads read 0.44x (35.5 against 15.7 MB/s) and in
    # another its p50 at rate 1.31x, rounds 2-4 0.99-1.01x; so round 1's read side of a pair is kept as
    # warm-ups, where bytes bind only
    from types import SimpleNamespace

    from kcliff.measure.options import Options
    from kcliff.measure.read_round import ReadRound
    from kcliff.results.model import CliffSpec, Run

    def side(sid: str, cliff: CliffSpec | None = None) -> Entry:
        return Entry(id=sid, runs=[Run(records=10_000, complete=True)], cliff=cliff)

    rig = SimpleNamespace(save=lambda: None)
    sc = Scenario(id="base", description="base", workloads=[Workload.PRODUCE, Workload.CONSUME, Workload.RATE])
    reads = ReadRound(rig, Options())
    reads._read = lambda site, sc, topic, workload, *a: ReadRun(workload=workload, records=10, complete=True)
    fetch = CliffSpec(stands_for="one fetch per record", metric="consumed", max_ratio=0.5)
    for first, capped, warm in ((True, True, True), (False, True, False), (True, False, False)):
        base, head, canary = side("base"), side("head"), side("c", fetch)
        reads.pair_round([base, head, canary], [10_000] * 3, first=first, bytes_capped=capped)
        for entry in (base, head, canary):
            reads.after(None, sc, "t", entry, 10_000, "round 1/4", 0, 1e12)
        for entry in (base, head):
            read = [Workload.RATE, Workload.CONSUME]  # at rate right after the producer's run (read_order)
            assert ([r.workload for r in entry.read_warmups], [r.workload for r in entry.read_runs]) == (
                (read, []) if warm else ([], read)), (first, capped)
        assert not canary.read_warmups and len(canary.read_runs) == 2  # a canary's one round is judged
