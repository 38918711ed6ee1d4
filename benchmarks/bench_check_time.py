"""How long a whole `kcliff check` takes at its defaults, and what it says, from a fresh cluster each:
A/A checks (the example config repo against itself, --measure-unchanged) and checks of a real
regression no cliff rule knows (batch.size 65536 -> 8192 in the example's producer), alternately,
so a slow stretch of the machine falls on both kinds. Each check's wall time is split into its
phases from the results file (cluster start and priming, the self-test, the pair rounds).

    .venv/bin/python benchmarks/bench_check_time.py [--checks 5] [--save times.json] [extra kcliff check args]

Prints one line per check, then per kind the median and range of the wall time and the rounds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from kcliff.host import procs

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "config-repo"
PRODUCER = Path("producers") / "app-producer.properties"
KINDS = {"A/A": None, "regression": ("batch.size=65536", "batch.size=8192")}


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


def _stamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def whole_check(kind: str, extra: list[str]) -> CheckTime:
    """One `kcliff check` of `kind` on a fresh cluster in a temporary directory, timed end to end."""
    with tempfile.TemporaryDirectory() as tmp:
        base, head, results = Path(tmp) / "base", Path(tmp) / "head", Path(tmp) / "results.json"
        shutil.copytree(EXAMPLE, base)
        shutil.copytree(EXAMPLE, head)
        edit = KINDS[kind]
        if edit is not None:
            producer = head / PRODUCER
            producer.write_text(producer.read_text().replace(*edit))
        argv = [sys.executable, "-m", "kcliff.cli", "check", "--base", str(base), "--head", str(head),
                "--workdir", str(Path(tmp) / "w"), "--results", str(results), "--json", str(Path(tmp) / "v.json"),
                "--quiet", *(["--measure-unchanged"] if edit is None else []), *extra]
        began = time.time()
        done = subprocess.run(argv, check=False, stdout=subprocess.DEVNULL)
        took = time.time() - began
        verdict = json.loads((Path(tmp) / "v.json").read_text())["verdict"] if done.returncode in (0, 1, 3) else "-"
        doc = json.loads(results.read_text()) if results.exists() else {"scenarios": []}
    entries = {e["id"]: e for e in doc["scenarios"]}
    reference, pair = entries.get("reference"), entries.get("base")
    self_test = (_stamp(reference["ended"]) - _stamp(reference["started"])) if reference else 0.0
    pair_s = (_stamp(pair["ended"]) - _stamp(pair["started"])) if pair else 0.0
    before = (_stamp(reference["started"]) - began) if reference else 0.0
    after = (began + took - _stamp(pair["ended"])) if pair else 0.0
    return CheckTime(kind, round(took, 1), done.returncode, verdict, len(pair["runs"]) if pair else 0,
                     len(reference["runs"]) if reference else 0, round(before, 1), round(self_test, 1),
                     round(pair_s, 1), round(after, 1))


def _spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.0f}, {min(values):.0f}-{max(values):.0f}"


def report(times: list[CheckTime]) -> None:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=5, help="checks of each kind")
    parser.add_argument("--save", type=Path, help="append each check's figures to this JSON file as it ends")
    args, extra = parser.parse_known_args()
    procs.install_handlers()
    times = [CheckTime(**t) for t in json.loads(args.save.read_text())] if args.save and args.save.exists() else []
    try:
        for _ in range(args.checks):
            for kind in KINDS:
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
