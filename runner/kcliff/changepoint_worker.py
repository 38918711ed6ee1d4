"""Runs inside the isolated change-point virtualenv (see scripts/setup-changepoint.sh), never in kcliff's.

Reads {"pvalue", "permutations", "seed", "series": {key: [float, ...]}} on stdin and writes
{"change_points": {key: [index, ...]}, "c_extension": bool} on stdout. Standard library and
signal_processing_algorithms only: kcliff is not installed in that environment.
"""

import json
import sys

import numpy as np
from signal_processing_algorithms.energy_statistics import cext_calculator
from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive


def main() -> int:
    request = json.load(sys.stdin)
    found = {}
    for key, values in request["series"].items():
        # The permutation test shuffles with numpy's global generator: seed it per series so a
        # report built twice from the same history shows the same change points.
        np.random.seed(request["seed"])
        found[key] = sorted(int(i) for i in e_divisive(values, pvalue=request["pvalue"],
                                                       permutations=request["permutations"]))
    json.dump({"change_points": found, "c_extension": bool(cext_calculator.C_EXTENSION_LOADED)}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
