"""How long a whole `kcliff check` takes at its defaults, and what it says, from a fresh cluster each,
for kinds of head on the example config repo (KINDS), taken in turn so a slow stretch of the machine
falls on every kind: A/A checks (the repo against itself, --measure-unchanged), A/A checks of a
change of each kind that costs nothing measurable (a broker's and a topic's largest message size, the
producer's delivery timeout, the consumer's commit interval: every metric that kind can move is
judged, so any regression is a false alarm), and real regressions no cliff rule knows (batch.size
65536 -> 8192 flat out; linger.ms 5 -> 100 at rate; a consumer's fetch.min.bytes 1 MiB with a 500 ms
fetch.max.wait.ms, end to end at rate); and on the consumer-services corpus, a consumer that commits as its service
does (issue #44): its A/A kind and the issue's head, a commit per record. Each check's wall time is split into its
phases from the results file (cluster start and priming, the self-test, the pair rounds), and every
metric's decision (outcome, ratio, rounds) and every canary's ratio is kept.

    .venv/bin/python benchmarks/bench_check_time.py [--checks 5] [--kinds A/A,linger] [--save times.json]
        [--lock /tmp/kcliff-measure.lock] [--until HH:MM] [extra kcliff check args]

Prints one line per check, then per kind the verdicts, the median and range of the wall time and
the rounds, the false alarms per metric of the A/A kinds and each canary's ratio range.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from datetime import time as TimeOfDay
from pathlib import Path
from typing import Any, Iterator

from kcliff.host import procs
from kcliff.results.metrics import METRICS
from kcliff.results.model import Entry

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "config-repo"
PRODUCER = Path("producers") / "app-producer.properties"
BROKER = Path("brokers") / "server.properties"
TOPICS = Path("topics") / "topics.yaml"
CONSUMER = Path("consumers") / "app-consumer.properties"
SERVICES = ROOT / "tests" / "data" / "real-repos" / "consumer-services"
LEDGER = Path("consumers") / "ledger-consumer.properties"
# kind -> (file, old text, new text) of the head; None: the repo against itself
KINDS: dict[str, tuple[Path, str, str] | None] = {
    "A/A": None,
    # a measured broker setting that costs nothing here (kcliff does not measure retention: such a head
    # passes without a cluster); the records are 1 KiB, the batches 64 KiB
    "A/A broker": (BROKER, "compression.type=producer", "compression.type=producer\nmessage.max.bytes=2097152"),
    # the measured topic's largest message (kcliff does not measure retention: such a head passes unmeasured)
    "A/A topic": (TOPICS, "retention.ms: 604800000", "retention.ms: 604800000\n    max.message.bytes: 2097152"),
    # (a failure-only setting since 2026-11-30: measured through a broker kill alone)
    "A/A producer": (PRODUCER, "delivery.timeout.ms=120000", "delivery.timeout.ms=180000"),
    "A/A consumer": (CONSUMER, "auto.commit.interval.ms=5000", "auto.commit.interval.ms=10000"),
    # failure-only changes that move no outage by anything measurable, so the check runs through a broker
    # kill alone (docs/failover.md): a heartbeat 5% more often, read-only, so the sides restart differently
    # (the head on a cluster of its own); a producer that would block 90 s for metadata, not 60, where
    # metadata is never missing that long
    "A/A failover broker": (BROKER, "compression.type=producer",
                            "compression.type=producer\nbroker.heartbeat.interval.ms=1900"),
    "A/A failover producer": (PRODUCER, "delivery.timeout.ms=120000", "delivery.timeout.ms=120000\nmax.block.ms=90000"),
    "regression": (PRODUCER, "batch.size=65536", "batch.size=8192"),
    "linger": (PRODUCER, "linger.ms=5", "linger.ms=100"),
    # the consumer head: every record of a quiet topic waits up to 500 ms for its fetch
    "slow fetch": (CONSUMER, "max.poll.records=500", "max.poll.records=500\nfetch.min.bytes=1048576\nfetch.max.wait.ms=500"),
    # a consumer service that commits after each poll, works 0.2 ms a record and runs three members (issue #44):
    # a fetch wait 1 ms shorter, where fetch.min.bytes=1 never waits; and the head, a commit per record
    "A/A consumer commits": (LEDGER, "fetch.max.wait.ms=500", "fetch.max.wait.ms=499"),
    "commit each record": (LEDGER, "max.poll.records=500", "max.poll.records=1"),
}
REPO_OF = {"A/A consumer commits": SERVICES, "commit each record": SERVICES}  # else EXAMPLE


@dataclass(frozen=True)
class CheckTime:
    kind: str
    seconds: float
    exit_code: int
    verdict: str
    pair_rounds: int
    self_test_rounds: int
    before_self_test_s: float  # cluster start and priming
    self_test_s: float
    pair_s: float
    after_s: float = 0.0  # the cluster's stop and the verdict (not recorded before November 24)
    # metric -> {"outcome", "ratio", "n_pairs"}; canary id -> ratio (not recorded before November 25)
    decisions: dict[str, dict[str, Any]] = field(default_factory=dict)
    canaries: dict[str, float | None] = field(default_factory=dict)
    revision: str | None = None  # the commit that measured it, and when (not recorded before November 25)
    started: str | None = None
    # metric -> [base's values, head's values], round by round: what stopping.replay needs to ask what
    # another plan or resolution would have said of the same rounds (not recorded before November 28)
    rounds: dict[str, list[list[float | None]]] = field(default_factory=dict)
    # self-test entry id -> its runs' figures of its own metric (the reference's throughput): how far one
    # run is from the next within a check, which the self-test's early stop relies on (from November 29)
    self_test_runs: dict[str, list[float | None]] = field(default_factory=dict)


def _stamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def whole_check(kind: str, extra: list[str]) -> CheckTime:
    """One `kcliff check` of `kind` on a fresh cluster in a temporary directory, timed end to end."""
    with tempfile.TemporaryDirectory() as tmp:
        base, head, results = Path(tmp) / "base", Path(tmp) / "head", Path(tmp) / "results.json"
        shutil.copytree(REPO_OF.get(kind, EXAMPLE), base)
        shutil.copytree(REPO_OF.get(kind, EXAMPLE), head)
        edit = KINDS[kind]
        if edit is not None:
            changed, old, new = edit
            text = (head / changed).read_text()
            assert old in text, (changed, old)
            (head / changed).write_text(text.replace(old, new))
        argv = [sys.executable, "-m", "kcliff.cli", "check", "--base", str(base), "--head", str(head),
                "--workdir", str(Path(tmp) / "w"), "--results", str(results), "--json", str(Path(tmp) / "v.json"),
                "--quiet", *(["--measure-unchanged"] if edit is None else []), *extra]
        began = time.time()
        started = datetime.now().astimezone().isoformat(timespec="seconds")
        done = subprocess.run(argv, check=False, stdout=subprocess.DEVNULL)
        took = time.time() - began
        said = json.loads((Path(tmp) / "v.json").read_text()) if done.returncode in (0, 1, 3) else {}
        # a head that changes nothing measured passes without a cluster: no figure of a check at all
        verdict = said.get("verdict", "-") if said.get("measured", True) else "not measured"
        doc = json.loads(results.read_text()) if results.exists() else {"scenarios": []}
    entries = {e["id"]: e for e in doc["scenarios"]}
    reference, pair = entries.get("reference"), entries.get("base")
    self_test = (_stamp(reference["ended"]) - _stamp(reference["started"])) if reference else 0.0
    pair_s = (_stamp(pair["ended"]) - _stamp(pair["started"])) if pair else 0.0
    before = (_stamp(reference["started"]) - began) if reference else 0.0
    after = (began + took - _stamp(pair["ended"])) if pair else 0.0
    return CheckTime(kind, round(took, 1), done.returncode, verdict, pair_rounds(pair) if pair else 0,
                     len(reference["runs"]) if reference else 0, round(before, 1), round(self_test, 1),
                     round(pair_s, 1), round(after, 1), _decisions(said), _canaries(said), revision(), started,
                     _rounds(doc), _self_test_runs(doc))


def pair_rounds(entry: dict[str, Any]) -> int:
    """The rounds a side measured: its most runs of any workload (a consumer-only check's flat-out
    runs stop once its topic holds what its reads read, so they undercount)."""
    workloads = {r["workload"] for r in entry.get("read_runs", [])}
    return max([len(entry["runs"]), *(sum(r["workload"] == w for r in entry["read_runs"]) for w in workloads)])


def revision() -> str | None:
    """The commit that measures: each benchmark record says which code it measured."""
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          check=False)
    return done.stdout.strip() or None


@contextlib.contextmanager
def measuring_lock(lock: Path | None) -> Iterator[None]:
    if lock is None:
        yield
        return
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _decisions(said: dict[str, Any]) -> dict[str, dict[str, Any]]:
    # the interval, p and spreads too (from November 25): a latency metric's resolution is read from them
    kept = ("outcome", "ratio", "n_pairs", "low", "high", "p_value", "alpha", "cv_base", "cv_head")
    return {d["metric"]: {k: d.get(k) for k in kept} for sv in said.get("scenarios", []) for d in sv["decisions"]}


def _self_test_runs(doc: dict[str, Any]) -> dict[str, list[float | None]]:
    entries = [Entry.model_validate(e) for e in doc.get("scenarios", []) if e["id"] not in ("base", "head")]
    return {e.id: e.values(METRICS[e.cliff.metric if e.cliff else "throughput"]) for e in entries}


def _rounds(doc: dict[str, Any]) -> dict[str, list[list[float | None]]]:
    """Every metric both sides measured, round by round (a stopped run's figure included, as the judge sees it)."""
    entries = {e["id"]: e for e in doc.get("scenarios", [])}
    if "base" not in entries or "head" not in entries:
        return {}
    base, head = (Entry.model_validate(entries[side]) for side in ("base", "head"))
    return {m.name: [base.values(m), head.values(m)] for m in base.metrics() if m in head.metrics()}


def _canaries(said: dict[str, Any]) -> dict[str, float | None]:
    return {c["id"]: c.get("ratio") for c in said.get("canaries", [])}


def _spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.0f}, {min(values):.0f}-{max(values):.0f}"


def false_alarms(times: list[CheckTime]) -> None:
    """Per A/A kind and metric: regressions (false alarms) among the checks that judged it, and its ratios."""
    aa = [t for t in times if t.kind.startswith("A/A")]
    for kind in sorted({t.kind for t in aa}):
        mine = [t for t in aa if t.kind == kind]
        alarms = sum(t.verdict in ("regression", "cliff") for t in mine)
        print(f"{kind}: {alarms} false alarm(s) in {len(mine)} checks")
        for metric in sorted({m for t in mine for m in t.decisions}):
            judged = [t.decisions[metric] for t in mine if t.decisions.get(metric, {}).get("outcome") != "not judged"
                      and metric in t.decisions]
            ratios = [d["ratio"] for d in judged if d["ratio"] is not None]
            if judged:
                spread = f"median {statistics.median(ratios):.2f}, {min(ratios):.2f}-{max(ratios):.2f}" if ratios else "-"
                # the closest call: the smallest p of its regression test as a multiple of the alpha it was held to
                calls = [d["p_value"] / d["alpha"] for d in judged if d.get("p_value") is not None and d.get("alpha")]
                closest = f", closest p {min(calls):.2g}x its alpha" if calls else ""
                print(f"  {metric}: judged in {len(judged)}, regression {sum(d['outcome'] == 'regression' for d in judged)}"
                      f", ratio {spread}{closest}")


def canary_ranges(times: list[CheckTime]) -> None:
    for canary in sorted({c for t in times for c in t.canaries}):
        ratios = [r for t in times if (r := t.canaries.get(canary)) is not None]
        if ratios:
            print(f"canary {canary}: ratio {min(ratios):.2f}-{max(ratios):.2f} over {len(ratios)} checks")


def report(times: list[CheckTime]) -> None:
    false_alarms(times)
    canary_ranges(times)
    for kind in KINDS:
        mine = [t for t in times if t.kind == kind]
        if not mine:
            continue
        verdicts = ", ".join(f"{v} {sum(t.verdict == v for t in mine)}" for v in sorted({t.verdict for t in mine}))
        print(f"{kind}: {len(mine)} checks ({verdicts}); wall s {_spread([t.seconds for t in mine])}; "
              f"pair rounds {_spread([t.pair_rounds for t in mine])}; self-test rounds "
              f"{_spread([t.self_test_rounds for t in mine])}; before the self-test s "
              f"{_spread([t.before_self_test_s for t in mine])}; self-test s {_spread([t.self_test_s for t in mine])}; "
              f"pair s {_spread([t.pair_s for t in mine])}; after s {_spread([t.after_s for t in mine])}")


def _time_of_day(text: str) -> TimeOfDay:
    try:
        return datetime.strptime(text, "%H:%M").time()
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a local time as HH:MM, got {text!r}") from None


def next_time(at: TimeOfDay, now: datetime) -> datetime:
    """The next time the clock shows `at` after `now`: today's, or tomorrow's once today's has passed."""
    today = datetime.combine(now.date(), at)
    return today if today > now else today + timedelta(days=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=5, help="checks of each kind")
    parser.add_argument("--kinds", default="A/A,regression", help=f"comma-separated, of: {', '.join(KINDS)}")
    parser.add_argument("--save", type=Path, help="append each check's figures to this JSON file as it ends "
                        "(a campaign resumes from it: --checks more of each kind)")
    parser.add_argument("--lock", type=Path, help="hold this file's lock (flock) during each check, so other "
                        "measurements on a shared machine wait between checks, not during one")
    parser.add_argument("--until", type=_time_of_day, help="start no check after this local time (HH:MM: its next "
                        "coming, so 00:30 given at 23:00 is tomorrow's)")
    args, extra = parser.parse_known_args()
    extra = extra[1:] if extra[:1] == ["--"] else extra  # `-- ARGS` for kcliff check, as the usage shows
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    if unknown := [k for k in kinds if k not in KINDS]:
        parser.error(f"--kinds: unknown {', '.join(unknown)}; valid: {', '.join(KINDS)}")
    deadline = next_time(args.until, datetime.now()) if args.until else None
    procs.install_handlers()
    times = [CheckTime(**t) for t in json.loads(args.save.read_text())] if args.save and args.save.exists() else []
    try:
        for _ in range(args.checks):
            for kind in kinds:
                if deadline is not None and datetime.now() >= deadline:
                    print(f"{deadline:%H:%M} reached: no more checks", file=sys.stderr)
                    report(times)
                    return 0
                with measuring_lock(args.lock):
                    t = whole_check(kind, extra)
                times.append(t)
                print(" ".join(f"{k}={v}" for k, v in asdict(t).items()), flush=True)
                if args.save:
                    args.save.write_text(json.dumps([asdict(x) for x in times], indent=1) + "\n")
    except KeyboardInterrupt:
        print("interrupted; the checks finished so far:", file=sys.stderr)
    report(times)
    return 0


if __name__ == "__main__":
    sys.exit(main())
