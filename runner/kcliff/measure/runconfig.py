"""What `kcliff run` was asked to do, built once from its command line (commands/options.py) or, for
`--resume`, from the interrupted run's results file, and not changed after."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from kcliff.backends.open import ClusterConfig
from kcliff.measure.options import Options
from kcliff.measure.plan import GATE_ROUNDS
from kcliff.results.model import ResultsDoc
from kcliff.scenario.rate import parse_rate


@dataclass(frozen=True)
class RunConfig:
    """`kcliff run`: the scenarios, how they are measured, where the results go."""

    suites: list[str]
    only: str | None
    shard: tuple[int, int] | None
    options: Options
    out: Path | None
    resume: Path | None
    quiet: bool
    baselines: Path | None
    no_baselines: bool
    cluster: ClusterConfig
    confirm: bool = False  # measure the factor model's predictions after the suite (pairwise/confirm.py)
    p99_bound_ms: float | None = None  # the bounded prediction's p99 bound (default: the reference's p99)
    confirm_rounds: int = GATE_ROUNDS


def resumed(config: RunConfig, previous: ResultsDoc) -> RunConfig:
    """The interrupted run's own suites and parameters in place of the command line's; its results
    file is written on."""
    params = previous.parameters
    opts = Options(params["records"], params["warmup_records"], params["repeats"], params["budget_s"],
                   params["early_stop"], params["cliff_threshold"], params.get("prime_s", config.options.prime_s),
                   rate=parse_rate(params["rate"]) if params.get("rate") else None)
    cluster = dataclasses.replace(config.cluster, kafka_version=previous.environment["kafka_version"])
    shard = params.get("shard")
    return dataclasses.replace(config, suites=params["suites"], only=params.get("only"),
                               shard=(shard[0], shard[1]) if shard else None, options=opts, out=config.resume,
                               cluster=cluster, confirm=bool(params.get("confirm")),
                               p99_bound_ms=params.get("p99_bound_ms"),
                               confirm_rounds=params.get("confirm_rounds", GATE_ROUNDS))
