"""Reproduce the pairwise acks=all study on this rig: pairwise + canaries + the confirmation, emulated disk.

Runs `kcliff run --suite pairwise --suite canaries --confirm` with a per-fsync delay on the brokers'
data (the study's containers paid far more per fsync than this machine's disk) and the make run
round trip, then prints the factor ranking and the tiers by the top setting beside the study's
figures (../shared/reference/study-figures.md), the confirmation, and the time it all took.
`--from FILE` prints the same from a committed results file without measuring.

    .venv/bin/python benchmarks/bench_study.py [--fsync-delay-ms 20] [--client-rtt-ms 20]
        [--records 100000] [--repeats 3] [--confirm-rounds 18]
        [--out benchmarks/data/study-repro-local-2c.json]
    .venv/bin/python benchmarks/bench_study.py --from benchmarks/data/study-repro-local-2c.json
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from kcliff.pairwise import confirm, design, factors, study
from kcliff.results import model

KCLIFF = [sys.executable, "-m", "kcliff.cli"]

# The study's figures (study-figures.md): its stated order of factors and each one's best and worst
# level averages; its tiers by flush. Its averages are its own reported figures, not recomputable.
STUDY_RANKING = [
    ("log.flush.interval.messages", "10000", 59.5, "1", 1.2),
    ("max.in.flight.requests.per.connection", "5", 45.5, "1", 6.1),
    ("batch.size", "262144", 37.0, "16384", 0.7),
    ("linger.ms", "20", 43.8, "0", 11.5),
]
STUDY_TIERS = [("10000", 59.5, 339.0), ("1000", 26.5, 1776.0), ("1", 1.2, 48421.0)]


def measure(out: Path, args: argparse.Namespace) -> float:
    """One kcliff run of the whole reproduction; its wall time in seconds."""
    argv = [*KCLIFF, "run", "--suite", "pairwise", "--suite", "canaries", "--confirm", "--confirm-rounds",
            str(args.confirm_rounds),
            "--fsync-delay-ms", f"{args.fsync_delay_ms:g}", "--client-rtt-ms", f"{args.client_rtt_ms:g}",
            "--records", str(args.records), "--repeats", str(args.repeats), "--out", str(out), "--no-baselines"]
    with tempfile.TemporaryDirectory(prefix="kcliff-study-") as work:
        began = time.monotonic()
        subprocess.run([*argv, "--workdir", work], check=False)
        return time.monotonic() - began


def study_ranking() -> pd.DataFrame:
    rows = [{"study rank": i, "setting": name, "study range x": best / worst, "study best": f"{b} ({best} MB/s)",
             "study worst": f"{w} ({worst} MB/s)"}
            for i, (name, b, best, w, worst) in enumerate(STUDY_RANKING, start=1)]
    return pd.DataFrame(rows)


def ranking_beside(fa: factors.FactorAnalysis) -> pd.DataFrame:
    mine = fa.ranking[["model rank", "setting", "model range x", "model best", "study rank", "study range x",
                       "p99 range x"]].rename(columns={"study rank": "averages rank", "study range x": "averages range x"})
    return mine.merge(study_ranking(), on="setting", how="left")


TIER_COLUMNS = ["level", "scenarios", "cliffs", "min MB/s", "average MB/s", "max MB/s", "min p99 ms", "max p99 ms"]
FLUSH = "broker log.flush.interval.messages"


def flush_tiers_beside(doc: model.ResultsDoc) -> pd.DataFrame:
    """This rig's design rows grouped by flush, as the study grouped its scenarios, beside the study's tiers."""
    tiers = study.tiers(design.build(doc), FLUSH)[TIER_COLUMNS]
    theirs = pd.DataFrame(STUDY_TIERS, columns=["level", "study average MB/s", "study p99 ms"])
    return tiers.merge(theirs, on="level", how="left")


def report(doc: model.ResultsDoc, took_s: float | None) -> None:
    fa = factors.analyse(doc)
    env = doc.environment
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    print(f"run {doc.run_id}: {fa.rows} design rows ({fa.censored} stopped as cliffs), emulated fsync "
          f"{env['storage'].get('emulated_fsync_ms', 0):g} ms, client round trip "
          f"{env.get('caps', {}).get('client_rtt_ms', 0)} ms, {doc.parameters['repeats']} x "
          f"{doc.parameters['records']} records")
    print("\nranking (model on this rig | the study's stated order):")
    print(ranking_beside(fa).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print(f"\ntiers by {fa.tier_factor}, this rig's top setting:")
    print(fa.tiers[TIER_COLUMNS].to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print("\ntiers by flush, as the study grouped (this rig | the study):")
    print(flush_tiers_beside(doc).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    record = doc.confirmation
    print("\nconfirmation:")
    if record is None:
        print(f"  none: {doc.parameters.get('confirm_skipped', 'the run did not confirm')}")
    checked_all = confirm.check(doc)
    for checked in checked_all:
        print(f"  {confirm.sentence(checked, record.fastest_row if record else '')}")
    fastest = float(fa.measured.iloc[0]["MB/s"]) if not fa.measured.empty else 0.0  # prediction.best_measured's
    for checked in checked_all:
        if checked.mb_per_sec is not None and fastest:
            print(f"  {checked.config.id} vs every measured design row's first measurement: "
                  f"{checked.mb_per_sec / fastest:.2f}x the fastest ({fastest:.3g} MB/s)")
    if took_s is not None:
        print(f"\nwall time: {took_s / 60:.1f} min")
    else:
        print(f"\nrun from {env.get('started')} to {env.get('ended')}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, help="print from this results file; measure nothing")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/data/study-repro-local-2c.json"))
    parser.add_argument("--fsync-delay-ms", type=float, default=20.0)
    parser.add_argument("--client-rtt-ms", type=float, default=20.0)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--confirm-rounds", type=int, default=18, help="the PR gate's rounds, for its error rates")
    args = parser.parse_args()
    took = None
    source = args.source
    if source is None:
        took = measure(args.out, args)
        source = args.out
    report(model.load(source), took)
    return 0


if __name__ == "__main__":
    sys.exit(main())
