"""The run configuration: built once from `kcliff run`'s command line, or from the results file
`--resume` continues."""

from pathlib import Path

import pytest
from kcliff.cli import build_parser
from kcliff.commands import options
from kcliff.errors import InputError
from kcliff.measure import runconfig
from kcliff.measure.options import PRIME_C1_S, PRIME_S
from kcliff.results.model import ResultsDoc


def parsed(*argv: str) -> runconfig.RunConfig:
    return options.run_config(build_parser().parse_args(["run", *argv]))


def test_the_command_line_becomes_one_frozen_config():
    config = parsed("--suite", "pairwise", "--records", "5000", "--no-early-stop", "--client-rtt-ms", "20")
    assert config.suites == ["pairwise"] and config.options.records == 5000 and not config.options.early_stop
    assert config.cluster.backend == "local" and config.cluster.caps.client_rtt_ms == 20
    with pytest.raises(AttributeError):
        config.quiet = True  # type: ignore[misc]


def test_bootstrap_servers_choose_the_external_backend_and_rule_out_a_round_trip():
    assert parsed("--bootstrap-servers", "h:9092").cluster.backend == "external"
    with pytest.raises(InputError, match="--client-rtt-ms is for the local and compose backends"):
        parsed("--bootstrap-servers", "h:9092", "--client-rtt-ms", "5")
    with pytest.raises(InputError, match="needs --bootstrap-servers"):
        parsed("--backend", "external")


def test_priming_defaults_to_what_the_backends_brokers_need_and_an_asked_figure_wins():
    # the local brokers run at C1 (kafka/dist.BROKER_JVM_OPTIONS); compose's and an existing cluster's do not
    assert parsed().options.prime_s == PRIME_C1_S < PRIME_S
    assert parsed("--backend", "compose").options.prime_s == PRIME_S
    assert parsed("--bootstrap-servers", "h:9092").options.prime_s == PRIME_S
    assert parsed("--prime", "0").options.prime_s == 0 and parsed("--backend", "compose", "--prime", "7").options.prime_s == 7


def test_resume_takes_the_interrupted_runs_suites_and_parameters(tmp_path: Path):
    config = parsed("--resume", str(tmp_path / "r.json"), "--records", "999")
    previous = ResultsDoc(run_id="r", environment={"kafka_version": "3.9.1"}, parameters={
        "records": 20000, "warmup_records": 1000, "repeats": 2, "budget_s": 100.0, "suites": ["canaries"],
        "early_stop": False, "cliff_threshold": 0.4, "prime_s": 0, "only": "flush-1", "shard": [1, 2]})
    again = runconfig.resumed(config, previous)
    assert again.options.records == 20000 and again.options.repeats == 2 and not again.options.early_stop
    assert again.only == "flush-1" and again.shard == (1, 2) and again.cluster.kafka_version == "3.9.1"
    assert again.out == tmp_path / "r.json" and config.options.records == 999  # the first left as it was
