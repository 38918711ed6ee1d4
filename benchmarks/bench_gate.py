"""The gate's false-alarm and detection rates on a real cluster, and the time one check takes.

One local cluster measures blocks of --rounds interleaved rounds, each exactly as `kcliff check`
measures base and head (a fresh topic, shared as their topics are the same, a warm-up per side,
every run of a round the same count for about --run-seconds, the sides' order in each round as
kcliff check draws it: rotations of a random order, rounds shuffled):
phase 1 (--ab blocks): A, B and A' in each round;  phase 2: A and A' in each round.
A and A' are the reference config, B is the reference with the producer capped at 80%
of A's rate in the block before (the perf tool's --throughput). Each block of --rounds consecutive rounds
is one check's pair phase, judged with kcliff.verdict as `kcliff check` judges it:
  A/A (A vs A'): a regression verdict is a false alarm (blocks of both phases);
  A/B (A vs B):  a regression verdict detects a 20% drop (blocks of phase 1).
Blocks share no runs, so the checks of one kind are as independent as checks run one after
another on one cluster. The old unpaired statistic is judged on the same runs, for comparison.
The throttle cannot hold B at 80% of A while the cluster drifts (a cap is absolute, drift is not),
so the detection rate is also judged on the A/A checks with each head run's MB/s times 0.8: an
exact 20% drop on top of this rig's real run-to-run noise.
Targets: at most 1 false alarm in 50 A/A checks; at least 19 detections in 20 A/B checks.
--full-check also times one whole `kcliff check` (cluster, priming, self-test, pair) end to end.
--rule sequential (default: both) judges the same checks with kcliff.sequential as if each had been
measured round by round and stopped once certain: its verdicts beside the fixed rule's, the rounds
each check needed, and a whole check's time estimated from them (docs/gate.md, "Stopping early").

    .venv/bin/python benchmarks/bench_gate.py [--aa 50] [--ab 20] [--rounds 18] [--run-seconds 4]
                                              [--save stream.json [--resume] [--minutes 60]]
                                              [--from stream.json] [--full-check]
                                              [--rule fixed|sequential|both]
At 18 rounds the full set is about 2,200 runs (3 h here): --save with --minutes measures part of it,
and --resume continues the same file in a later session, on a fresh cluster.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench_check_time import whole_check
from kcliff.backends.admin import Admin
from kcliff.backends.local import start_local_cluster
from kcliff.host import procs
from kcliff.judge import sequential, stats, stopping, verdict
from kcliff.judge.family import Family
from kcliff.measure import environment
from kcliff.measure.document import new_document
from kcliff.measure.options import Options
from kcliff.measure.plan import GATE_ROUNDS, GATE_RUN_S
from kcliff.measure.progress import Progress
from kcliff.measure.suite import SuiteRunner
from kcliff.results import metrics, model
from kcliff.scenario.suites import REFERENCE_ID, load_suites

ROOT = Path(__file__).resolve().parents[1]
# How blocks are laid out. Streams saved without it (before November 2026) gave each side its own
# topic and run length, and put A' between A and B in every phase-1 round; the second layout
# alternated A B, B A, which let a slowdown recurring every few runs side with one side.
LAYOUT = "shared-topic, equal-count rounds, random balanced order"
ORDERS = {LAYOUT: "random order", "shared-topic, equal-count rounds, phase 1 A B A'": "A B A', A' B A",
          None: "A' always mid-round"}


def measure_stream(aa: int, ab: int, rounds: int, records: int, run_s: float, save: Path | None,
                   previous: dict | None = None, minutes: float | None = None) -> dict:
    """Per round and side: MB/s, p99 and the run's seconds; written to `save` after every block.
    Continues `previous` (a saved stream) up to `aa` blocks; starts no block after `minutes`."""
    reference = load_suites([])[0]
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        cluster = start_local_cluster(Path(tmp) / "cluster", "4.2.0")
        try:
            opts = Options(records, None, 3, 24 * 3600.0, early_stop=False, run_s=run_s)
            doc = new_document(cluster, opts, ["bench-gate"], "4.2.0")
            runner = SuiteRunner(cluster, Admin(cluster.admin_bootstrap), opts, doc, Path(tmp) / "results.json",
                                 Path(tmp) / "perf", Progress(quiet=True))
            runner.prime()
            if previous:
                stream = previous
                last = stream["phase2"] if stream["phase2"].get("a") else stream["phase1"]
                rate = statistics.median(r["records_per_sec"] for r in last["a"][-rounds:])
            else:
                unthrottled = runner.measure_group([reference], 3)[0]
                rate = statistics.median(r.records_per_sec or 0.0 for r in unthrottled.runs)
                runner.doc.scenarios.clear()
                stream = {"rounds": rounds, "run_s": run_s, "records": records, "unthrottled_records_per_sec": rate,
                          "throttle_records_per_sec": [], "block_seconds": [], "phase1": {}, "phase2": {}}
            twin = dataclasses.replace(reference, id="a2")
            stream.setdefault("layout", LAYOUT)
            # which code measured which blocks: a stream spans sessions, and the code may change between them
            stream.setdefault("sessions", [{"from_block": 0, "revision": "not recorded"}]
                              if stream["block_seconds"] else [])
            stream["sessions"].append({"from_block": len(stream["block_seconds"]),
                                       "revision": environment.git_revision(),
                                       "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
            phase1, phase2 = Blocks(stream["phase1"]), Blocks(stream["phase2"])
            for i in range(len(stream["block_seconds"]), aa):
                if minutes is not None and time.monotonic() - began > minutes * 60:
                    break
                if i < ab:
                    # the cluster kept speeding up for many minutes (8 -> 17 MB/s here), so a cap set once
                    # became a 60% drop: B's cap follows A's rate in the block before
                    cap = int(0.8 * rate)
                    capped = dataclasses.replace(reference, id="b", throughput_limit=cap)
                    stream["throttle_records_per_sec"].append(cap)
                    phase, sides = phase1, [reference, capped, twin]
                else:
                    phase, sides = phase2, [reference, twin]
                stream["block_seconds"].append(phase.add(runner, sides, rounds))
                rate = statistics.median(r["records_per_sec"] for r in phase.runs["a"][-rounds:])
                if save:
                    save.write_text(json.dumps(stream) + "\n")
        finally:
            cluster.down()
    return stream


class Blocks:
    """Runs per side, one block of rounds after another. Each block is one measure_interleaved call,
    as a check's pair phase is: fresh topics (deleted after, so the disk does not fill over hundreds
    of runs) and a warm-up per side."""

    def __init__(self, runs: dict[str, list[dict]]) -> None:
        self.runs = runs  # the stream's own dict: blocks added here are saved with it

    def add(self, runner: SuiteRunner, sides: list, rounds: int) -> float:
        began = time.monotonic()
        entries = runner.measure_interleaved(sides, rounds)
        for entry in entries:
            key = "a" if entry.id == REFERENCE_ID else entry.id
            if entry.status is not model.Status.OK:
                raise SystemExit(f"{entry.id}: {entry.status}: {entry.status_reason}")
            self.runs.setdefault(key, []).extend(_figures(r) for r in entry.runs)
        runner.doc.scenarios.clear()  # keep the results document small over a long benchmark
        return time.monotonic() - began


def _figures(run: model.Run) -> dict:
    return {"mb_per_sec": run.mb_per_sec, "records_per_sec": run.records_per_sec, "p99_ms": run.p99_ms,
            "elapsed_s": run.elapsed_s, "position": run.position}


def blocks(side: list[dict], rounds: int) -> list[list[dict]]:
    return [side[i:i + rounds] for i in range(0, len(side) - rounds + 1, rounds)]


# The streams hold the producer's figures only, and their checks are a producer's (a throttle, or none):
# judged as kcliff check judges a producer change, throughput and p99 each at alpha / 2 (judge/family.py).
FAMILY = Family.of([metrics.ChangeKind.PRODUCER], [metrics.Workload.PRODUCE])


def judge(base: list[dict], head: list[dict], paired: bool) -> str:
    sides = [{m.name: [r[m.key] for r in runs] for m in FAMILY.judged} for runs in (base, head)]
    return verdict.compare_scenario("head", sides[0], sides[1], None, FAMILY if paired else None, paired=paired,
                                    n_boot=1000).verdict.value


def check_pairs(p1: dict, p2: dict, rounds: int) -> dict[str, list[tuple[list[dict], list[dict]]]]:
    """The base and head runs of the A/A checks of each phase, of the throttled A/B checks, and of
    the A/A checks with every head run's MB/s times 0.8 (an exact 20% drop on this rig's real noise;
    of both phases and of phase 2 alone, laid out as a check) and times 0.95 (a real 5% change, not
    worth failing)."""
    pairs1 = list(zip(blocks(p1["a"], rounds), blocks(p1["a2"], rounds)))
    pairs2 = list(zip(blocks(p2["a"], rounds), blocks(p2["a2"], rounds)))
    drop20_2 = [(a, _scaled(b, 0.8)) for a, b in pairs2]
    return {"aa1": pairs1, "aa2": pairs2, "ab": _ab_pairs(p1, rounds),
            "drop20": [(a, _scaled(b, 0.8)) for a, b in pairs1] + drop20_2, "drop20_2": drop20_2,
            "drop5": [(a, _scaled(b, 0.95)) for a, b in pairs1 + pairs2]}


def checks(p1: dict, p2: dict, rounds: int, paired: bool) -> dict[str, list[str]]:
    """The verdicts of check_pairs' checks."""
    return {key: [judge(a, b, paired) for a, b in pairs] for key, pairs in check_pairs(p1, p2, rounds).items()}


def _ab_pairs(p1: dict, rounds: int) -> list[tuple[list[dict], list[dict]]]:
    return list(zip(blocks(p1["a"], rounds), blocks(p1["b"], rounds)))


def _scaled(runs: list[dict], factor: float) -> list[dict]:
    return [{**run, "mb_per_sec": run["mb_per_sec"] and run["mb_per_sec"] * factor} for run in runs]


def drops(p1: dict, rounds: int) -> list[float]:
    """Each A/B check's measured B/A ratio (geometric mean over its rounds)."""
    return [stats.paired_ratio(stats.log_ratios([x["mb_per_sec"] for x in a], [x["mb_per_sec"] for x in b]))[0]
            for a, b in _ab_pairs(p1, rounds)]


def report(stream: dict, rounds: int) -> None:
    """The rates, judging checks of `rounds` consecutive rounds (the measured blocks, or joined ones)."""
    p1, p2 = {"a": [], "a2": [], "b": [], **stream["phase1"]}, {"a": [], "a2": [], **stream["phase2"]}
    caps = stream["throttle_records_per_sec"]
    capped = f"B capped at 80% of A's rate in the block before ({min(caps)}-{max(caps)} records/s)" if caps else "no A/B blocks"
    print(f"unthrottled reference {stream['unthrottled_records_per_sec']:.0f} records/s at the start; {capped}; "
          f"{stream['rounds']} rounds a check, runs stretched to ~{stream['run_s']:g}s; "
          f"measured in {sum(stream['block_seconds']) / 60:.0f} min")
    ratios = drops(p1, rounds)
    print("A/B checks' measured B/A ratios: " + (" ".join(f"{x:.2f}" for x in ratios) or "none measured"))
    phase1_order = ORDERS.get(stream.get("layout"), stream.get("layout"))
    for paired in (True, False):
        found = checks(p1, p2, rounds, paired)
        name = "paired t on per-round log ratios (kcliff check)" if paired else "unpaired Mann-Whitney (old)"
        print(f"\n{name}:")
        for label, key in (("A/A, all", None), ("A/A, phase 2 (two sides, as a check)", "aa2"),
                           (f"A/A, phase 1 ({phase1_order})", "aa1")):
            counts = Counter(found[key] if key else found["aa1"] + found["aa2"])
            print(f"  {label}: {counts['regression'] + counts['cliff']}/{sum(counts.values())} false alarms   "
                  f"verdicts {dict(counts)}   (target <= 1 in 50)")
        # the first block's cap comes from the calibration before any block, on a cluster still warming
        for label, verdicts in (("A/B throttled, all", found["ab"]),
                                ("A/B throttled, capped from the block before", found["ab"][1:]),
                                ("A/A runs, head x 0.8 (an exact 20% drop)", found["drop20"]),
                                ("A/A runs, head x 0.8, phase 2", found["drop20_2"])):
            if not verdicts:
                continue
            counts = Counter(verdicts)
            print(f"  {label}: {counts['regression'] + counts['cliff']}/{len(verdicts)} detections   "
                  f"verdicts {dict(counts)}   (target >= 19 of 20)")
        counts = Counter(found["drop5"])
        print(f"  A/A runs, head x 0.95 (a real 5% change): {counts['regression']}/{len(found['drop5'])} failed   "
              f"verdicts {dict(counts)}")
    aa_logs = stats.log_ratios([r["mb_per_sec"] for r in p1["a"] + p2["a"]], [r["mb_per_sec"] for r in p1["a2"] + p2["a2"]])
    ab_logs = stats.log_ratios([r["mb_per_sec"] for r in p1["a"]], [r["mb_per_sec"] for r in p1["b"]])
    a_mb = [r["mb_per_sec"] for r in p1["a"] + p2["a"] if r["mb_per_sec"]]
    ab_median = f"{math.exp(statistics.median(ab_logs)):.2f}" if ab_logs else "-"
    print(f"\nnoise: A's runs scatter {stats.cv(a_mb):.0%} (CV over the whole stream); the A/A per-round ratio "
          f"{statistics.stdev(aa_logs):.1%} (sd of log ratios); B/A median {ab_median}")
    for label, phase in (("phase 1", p1), ("phase 2", p2)):
        print(f"  A/A checks, {label}: " + excess(phase, rounds))
    per_run = statistics.median(r["elapsed_s"] for phase in (p1, p2) for side in phase.values() for r in side)
    two_sided = stream["block_seconds"][len(stream["block_seconds"]) - len(blocks(p2["a"], stream["rounds"])):]
    print(f"time: a run took {per_run:.1f}s (median, perf tool start included); a check's pair phase "
          f"(2 warm-ups, {stream['rounds']} rounds x 2 sides) {statistics.median(two_sided or [math.nan]):.0f}s (median)")


# What a whole kcliff check costs besides its pair rounds (cluster start, priming, self-test, the
# cluster's stop): 93 s in the median of 10 whole checks at the defaults (bench_check_time.py,
# check-time-fast-start-local-2c.json; docs/gate.md, "Stopping early").
FIXED_S = 93
KINDS = (("A/A (false alarms)", "aa"), ("A/A, head x 0.8 (detections)", "drop20"),
         ("A/A, head x 0.95 (a real 5% change)", "drop5"), ("A/B throttled", "ab"))


def judge_sequential(base: list[dict], head: list[dict], plan: sequential.Plan) -> tuple[str, int]:
    """The verdict a check measuring these rounds one by one would reach with the sequential rule,
    and the rounds it needed (stopping.replay: throughput decides when to stop; p99, which has no
    pass to prove early, is judged on the rounds measured by then, as kcliff check judges it)."""
    sv, stop = stopping.replay({m.name: ([r[m.key] for r in base], [r[m.key] for r in head]) for m in FAMILY.judged},
                               FAMILY, plan)
    return sv.verdict.value, stop


def report_sequential(stream: dict, rounds: int) -> None:
    """The sequential rule (kcliff.sequential) on the same checks, beside the fixed rule: false
    alarms, detections, the rounds each check needed, and where the two rules' verdicts differ."""
    p1, p2 = {"a": [], "a2": [], "b": [], **stream["phase1"]}, {"a": [], "a2": [], **stream["phase2"]}
    plan = sequential.Plan.for_rounds(rounds, FAMILY.size)
    pairs = check_pairs(p1, p2, rounds)
    pairs["aa"] = pairs["aa1"] + pairs["aa2"]
    print(f"\nsequential rule (kcliff.sequential): looks after rounds {plan.looks()[0]}-{plan.max_rounds}, "
          f"Lan-DeMets O'Brien-Fleming spending; round {plan.max_rounds} is the fixed rule's")
    table: Counter = Counter()
    needed_by: dict[str, list[int]] = {}
    for label, key in KINDS:
        if not pairs[key]:
            continue
        judged = [(judge_sequential(a, b, plan), judge(a, b, True)) for a, b in pairs[key]]
        counts = Counter(v for (v, _), _ in judged)
        needed = [n for (_, n), _ in judged]
        needed_by[key] = needed
        table.update((fixed, v) for (v, _), fixed in judged)
        what = "false alarms" if key == "aa" else "failed" if key == "drop5" else "detections"
        print(f"  {label}: {counts['regression']}/{len(judged)} {what}   verdicts {dict(counts)}   rounds needed "
              f"median {statistics.median(needed):g}, {min(needed)}-{max(needed)}   "
              + " ".join(f"{n}:{c}" for n, c in sorted(Counter(needed).items())))
    print("  agreement with the fixed rule's verdicts on the same checks (rows: fixed; columns: sequential):")
    names = ("pass", "regression", "inconclusive")
    print("    " + " " * 14 + "".join(f"{n:>14}" for n in names))
    for fixed in names:
        print(f"    {fixed:<14}" + "".join(f"{table[fixed, v]:>14}" for v in names))
    decided = [(f, v) for (f, v), c in table.items() for _ in range(c) if f != "inconclusive"]
    print(f"  where the fixed rule decided: {sum(f == v for f, v in decided)}/{len(decided)} agree")
    # a round's share of a two-sided block (phase 2, laid out as a check), else of a three-sided one
    two_sided = stream["block_seconds"][len(stream["block_seconds"]) - len(blocks(p2["a"], stream["rounds"])):]
    block = (statistics.median(two_sided) if two_sided else statistics.median(stream["block_seconds"]) * 2 / 3) \
        / stream["rounds"]
    overhead = FIXED_S
    print(f"  ESTIMATES of a whole check: {overhead:.0f} s of cluster, priming and self-test (docs/gate.md) plus "
          f"{block:.1f} s a round (this stream's two-sided blocks pro rata); all {rounds} rounds "
          f"{overhead + block * rounds:.0f} s")
    for label, key in KINDS[:2]:
        if needed_by.get(key):
            needed = needed_by[key]
            print(f"    {label}: median {overhead + block * statistics.median(needed):.0f} s, "
                  f"{overhead + block * min(needed):.0f}-{overhead + block * max(needed):.0f} s")


def excess(phase: dict, rounds: int) -> str:
    """How far the A/A checks' means scatter from check to check, against what their own rounds
    predict (the standard error the t-test uses): equal when the rounds are the only noise."""
    means, errors = [], []
    for a, a2 in zip(blocks(phase["a"], rounds), blocks(phase["a2"], rounds)):
        logs = stats.log_ratios([r["mb_per_sec"] for r in a], [r["mb_per_sec"] for r in a2])
        means.append(statistics.mean(logs))
        errors.append(statistics.stdev(logs) / math.sqrt(len(logs)))
    if len(means) < 3:
        return "too few to tell"
    rms = math.sqrt(statistics.mean(e * e for e in errors))
    return (f"their means scatter sd {statistics.stdev(means):.3f} from check to check, their rounds predict "
            f"{rms:.3f} ({statistics.stdev(means) / rms:.2f}x; {len(means)} checks); A'/A "
            f"{math.exp(min(means)):.2f}-{math.exp(max(means)):.2f}")


def full_check(run_s: float, rounds: int) -> None:
    """One whole `kcliff check`, A/A on the example config repo, timed end to end (bench_check_time times many)."""
    t = whole_check("A/A", ["--run-seconds", str(run_s), "--rounds", str(rounds)])
    print(f"one whole kcliff check (A/A, example repo): {t.seconds:.0f}s, exit {t.exit_code}, verdict {t.verdict}, "
          f"{t.pair_rounds} rounds")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aa", type=int, default=50)
    parser.add_argument("--ab", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=GATE_ROUNDS, help="as kcliff check --rounds")
    parser.add_argument("--records", type=int, default=30000, help="as kcliff check --records")
    parser.add_argument("--run-seconds", type=float, default=GATE_RUN_S, help="as kcliff check --run-seconds")
    parser.add_argument("--save", type=Path, help="write the measured stream here")
    parser.add_argument("--from", dest="source", type=Path, help="judge a saved stream instead of measuring")
    parser.add_argument("--resume", action="store_true", help="continue the --save stream up to --aa blocks (on a "
                        "fresh cluster: a session at a time)")
    parser.add_argument("--minutes", type=float, help="start no new block after this many minutes")
    parser.add_argument("--full-check", action="store_true")
    parser.add_argument("--rule", choices=("fixed", "sequential", "both"), default="both",
                        help="judge the checks with the fixed rule, the sequential one (kcliff.sequential), or both")
    parser.add_argument("--judge-rounds", type=int, help="judge checks of this many consecutive rounds (a multiple "
                        "of the measured --rounds: what more rounds a check would buy, from the same runs)")
    args = parser.parse_args()
    if args.aa < args.ab:
        parser.error("--aa must be at least --ab (phase 1's A/A checks count)")
    procs.install_handlers()
    if args.source:
        stream = json.loads(args.source.read_text())
    else:
        previous = json.loads(args.save.read_text()) if args.resume and args.save and args.save.exists() else None
        if previous and (previous["rounds"], previous["run_s"], previous["records"]) != (args.rounds, args.run_seconds, args.records):
            parser.error(f"{args.save} was measured with --rounds {previous['rounds']} --run-seconds {previous['run_s']} "
                         f"--records {previous['records']}: resume with the same")
        if previous and previous.get("layout") != LAYOUT:
            parser.error(f"{args.save} was measured with another block layout ({previous.get('layout', 'the first')}): "
                         f"start a new stream")
        try:
            stream = measure_stream(args.aa, args.ab, args.rounds, args.records, args.run_seconds, args.save,
                                    previous, args.minutes)
        except KeyboardInterrupt:
            print(f"interrupted; {args.save or 'nothing'} holds the blocks measured before", file=sys.stderr)
            return 130
    if args.judge_rounds:
        print(f"judged as checks of {args.judge_rounds} rounds (blocks of {stream['rounds']} measured rounds joined)")
    if args.rule in ("fixed", "both"):
        report(stream, args.judge_rounds or stream["rounds"])
    if args.rule in ("sequential", "both"):
        report_sequential(stream, args.judge_rounds or stream["rounds"])
    if args.full_check:
        full_check(stream["run_s"], stream["rounds"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
