"""Runs inside the isolated change-point virtualenv (see scripts/setup-changepoint.sh), never in kcliff's.

Reads {"pvalue", "permutations", "seed", "series": {key: [float, ...]}} on stdin and writes
{"change_points": {key: [index, ...]}, "c_extension": bool} on stdout. Standard library and
signal_processing_algorithms only: kcliff is not installed in that environment. Series are spread
over the machine's cores; each is seeded the same way, so the answer does not depend on the spread.
"""

import json
import multiprocessing
import os
import sys

import numpy as np
from signal_processing_algorithms.energy_statistics import cext_calculator
from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive


def _detect(job: tuple[list[float], float, int, int]) -> list[int]:
    values, pvalue, permutations, seed = job
    # The permutation test shuffles with numpy's global generator: seed it per series so a report
    # built twice from the same history shows the same change points.
    np.random.seed(seed)
    return sorted(int(i) for i in e_divisive(values, pvalue=pvalue, permutations=permutations))


def main() -> int:
    request = json.load(sys.stdin)
    keys = list(request["series"])
    jobs = [(request["series"][k], request["pvalue"], request["permutations"], request["seed"]) for k in keys]
    workers = min(len(jobs), os.cpu_count() or 1)
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            found = pool.map(_detect, jobs, chunksize=1)
    else:
        found = [_detect(job) for job in jobs]
    json.dump({"change_points": dict(zip(keys, found)), "c_extension": bool(cext_calculator.C_EXTENSION_LOADED)},
              sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
