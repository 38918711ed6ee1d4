"""Is the self-test of a default `kcliff check` decisive? Default checks of examples/config-repo with a
benign head, each on a fresh cluster, and each canary's ratio to the reference against its bound.

The head changes `linger.ms` 5 -> 10 (kind `producer`: the default canaries) or, kind `consumer`,
also `max.poll.records` 500 -> 400, so the read canary is measured too. Since a check measures latency
at rate, 5 -> 10 is a real cost there (every record waits up to 5 ms more): such checks may end
`regression`. What this measures is the self-test, which runs before the pair and is the same either
way. Each check holds the machine's measuring lock (/tmp/kcliff-measure.lock) for itself alone, so
other measurements can interleave.
Every check is appended to --save as one JSON line as soon as it ends (a rerun adds to the file);
the summary is printed from all the lines of the file.

    .venv/bin/python benchmarks/bench_self_test.py --checks 5 --save benchmarks/data/self-test-local-2c.jsonl \
        [--kinds producer,consumer] [--summary-only] [-- extra kcliff check args, e.g. --backend compose]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "config-repo"
LOCK = "/tmp/kcliff-measure.lock"
EDITS = {  # file in the repo -> (old line, new line)
    "producer": {"producers/app-producer.properties": ("linger.ms=5", "linger.ms=10")},
    "consumer": {"producers/app-producer.properties": ("linger.ms=5", "linger.ms=10"),
                 "consumers/app-consumer.properties": ("max.poll.records=500", "max.poll.records=400")},
}


def one_check(kind: str, extra: list[str]) -> dict[str, object]:
    """One default `kcliff check` of the benign head of `kind`, timed; its canaries' verdicts."""
    with tempfile.TemporaryDirectory() as tmp:
        base, head, results, verdict = (Path(tmp) / n for n in ("base", "head", "results.json", "v.json"))
        shutil.copytree(EXAMPLE, base)
        shutil.copytree(EXAMPLE, head)
        for name, (old, new) in EDITS[kind].items():
            path = head / name
            text = path.read_text()
            assert old in text, f"{path} holds no {old!r}"
            path.write_text(text.replace(old, new))
        argv = [sys.executable, "-m", "kcliff.cli", "check", "--base", str(base), "--head", str(head),
                "--workdir", str(Path(tmp) / "w"), "--results", str(results), "--json", str(verdict), "--quiet",
                *extra]
        with open(LOCK, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the check ends: one check at a time holds it
            began = time.time()
            done = subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            took = time.time() - began
        if not results.exists():
            return {"kind": kind, "exit_code": done.returncode, "error": done.stderr[-1500:]}
        doc = json.loads(results.read_text())
        outcome = json.loads(verdict.read_text()) if verdict.exists() else {}
    env = doc["environment"]
    return {
        "kind": kind, "exit_code": done.returncode, "verdict": outcome.get("verdict"),
        "started": env["started"], "seconds": round(took, 1),
        "backend": env["backend"], "caps": env.get("caps"), "storage": env.get("storage"),
        "load": (env.get("load") or {}).get("warning"),
        "reference_runs": len(next(e for e in doc["scenarios"] if e["id"] == "reference")["runs"]),
        "pair_rounds": len(next((e for e in doc["scenarios"] if e["id"] == "base"), {"runs": []})["runs"]),
        "canaries": [{k: c[k] for k in ("id", "metric", "max_ratio", "ratio", "shows_cliff", "reason")}
                     for c in outcome.get("canaries", [])],
    }


def summary(lines: list[dict[str, object]]) -> str:
    out = []
    groups: dict[tuple[str, float, str], list[dict[str, object]]] = {}
    for line in lines:
        caps = line.get("caps") or {}
        delay = float(caps.get("fsync_delay_ms", 0.0)) if isinstance(caps, dict) else 0.0
        groups.setdefault((str(line.get("backend", "?")), delay, str(line["kind"])), []).append(line)
    for (backend, delay, kind), checks in sorted(groups.items()):
        good = [c for c in checks if "error" not in c]
        verdicts: dict[str, int] = {}
        for c in good:
            verdicts[str(c["verdict"])] = verdicts.get(str(c["verdict"]), 0) + 1
        seconds = [float(c["seconds"]) for c in good]  # type: ignore[arg-type]
        out.append(f"{backend}, fsync delay {delay:g} ms, {kind} head: {len(checks)} checks "
                   f"({len(checks) - len(good)} failed to run); verdicts {verdicts}")
        if seconds:
            rounds = [int(c["pair_rounds"]) for c in good]  # type: ignore[call-overload]
            selftest = [int(c["reference_runs"]) for c in good]  # type: ignore[call-overload]
            busy = sum(1 for c in good if c.get("load"))
            out.append(f"  whole check: median {statistics.median(seconds):.0f} s, {min(seconds):.0f}-{max(seconds):.0f} s; "
                       f"self-test rounds {min(selftest)}-{max(selftest)}; pair rounds {min(rounds)}-{max(rounds)}; "
                       f"began on a busy machine: {busy}")
        per: dict[str, list[dict[str, object]]] = {}
        for c in good:
            for canary in c["canaries"]:  # type: ignore[attr-defined]
                per.setdefault(canary["id"], []).append(canary)
        for cid, found in sorted(per.items()):
            ratios = sorted(float(f["ratio"]) for f in found if f["ratio"] is not None)
            unseen = sum(1 for f in found if not f["shows_cliff"])
            bound = found[0]["max_ratio"]
            span = f"{ratios[0]:.2f}-{ratios[-1]:.2f}x (median {statistics.median(ratios):.2f}x)" if ratios else "-"
            margin = f", worst at {ratios[-1] / float(bound):.0%} of the bound" if ratios else ""  # type: ignore[arg-type]
            out.append(f"  {cid:<17} {span} against {bound} in {len(found)} checks; did not show: {unseen}{margin}")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checks", type=int, default=5, help="checks of each kind")
    parser.add_argument("--kinds", default="producer", help="producer, consumer or both (comma-separated), alternating")
    parser.add_argument("--save", type=Path, required=True, help="JSON lines, one per check (appended)")
    parser.add_argument("--summary-only", action="store_true")
    args, extra = parser.parse_known_args()
    extra = [a for a in extra if a != "--"]
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    if not args.summary_only:
        for i in range(args.checks):
            for kind in kinds:
                line = one_check(kind, extra)
                with open(args.save, "a") as out:
                    out.write(json.dumps(line) + "\n")
                ratios = ", ".join(f"{c['id']} {c['ratio']:.2f}x" for c in line.get("canaries", [])  # type: ignore[attr-defined]
                                   if c["ratio"] is not None)
                print(f"check {i + 1}/{args.checks} {kind}: exit {line['exit_code']} {line.get('verdict')} "
                      f"{line.get('seconds')} s; {ratios or line.get('error', '')}", flush=True)
    lines = [json.loads(t) for t in args.save.read_text().splitlines() if t.strip()] if args.save.exists() else []
    print(summary(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
