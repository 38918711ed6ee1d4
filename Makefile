# Two commands on a fresh machine: `make run` and `make test`. Each sets itself up first;
# setup is idempotent and fast when already done. KCLIFF_INSTALL=wheel make setup[-analysis]
# installs kcliff as a built wheel instead of editable (scripts/setup.sh).
# This machine image sets PYTHONDONTWRITEBYTECODE=1, and uv installs without bytecode: every kcliff process
# then compiled numpy, scipy and pandas anew (9 s of CPU on loaded cores, per `kcliff check`, per test that
# runs the CLI, per act job's step). Under make, Python caches what it compiles, as it does by default.
export PYTHONDONTWRITEBYTECODE :=
# the reference and the canaries, and what a failure costs: the failover canaries (docs/failover.md)
SUITE ?= canaries failover
# a producer-broker round trip, so the in-flight=1 canary can show (README: Canaries)
RTT_MS ?= 50
# every fsync of the brokers' data held to at least this many ms, so the flush-1 canary shows its
# cliff on a disk that syncs in about a millisecond (docs/canaries.md: Storage). Unset: kcliff's own
# default (storage.DEFAULT_FSYNC_DELAY_MS, the one every check measures with); 0: the disk's own
FSYNC_MS ?=
ARGS ?=
PYTEST_ARGS ?=

.PHONY: setup setup-analysis docker-setup run typecheck test unit workflows clean

setup:
	@scripts/setup.sh
	@scripts/setup-loadgen.sh
	@scripts/setup-changepoint.sh
	@scripts/setup-toxiproxy.sh
	@scripts/setup-fsync-delay.sh

# The Python side and the change-point environment, no Kafka: jobs that only analyse results.
setup-analysis:
	@KCLIFF_SETUP_KAFKA=0 scripts/setup.sh
	@scripts/setup-changepoint.sh

run: setup
	.venv/bin/kcliff run $(foreach s,$(SUITE),--suite $(s)) --client-rtt-ms $(RTT_MS) $(if $(FSYNC_MS),--fsync-delay-ms $(FSYNC_MS)) $(ARGS)

# Docker engine, compose v2 and the stand-in Kafka image for the compose tests (docs/compose.md).
docker-setup: setup
	@scripts/setup-docker.sh

# mypy --strict on runner/kcliff ([tool.mypy] in pyproject.toml): 7-11 s cold on the 2-core
# machine, half a second with .mypy_cache warm. test and unit run it before pytest.
typecheck: setup
	.venv/bin/python -m mypy

# Tests that start no cluster, browser or runner share the two cores (pytest-xdist: 240 -> 128 s here);
# the rest measure, so they run one at a time on a quiet machine. Exit 5: PYTEST_ARGS selected none.
NO_CLUSTER = not kafka and not docker and not browser and not workflows and not jars
# make test also shares the cores among the tests that run Kafka's jars without a cluster, the
# browser tests and the workflow runs that start no Kafka and no Docker (the step action's): they
# measure nothing, so only the measuring tests wait their turn.
MEASURES = kafka or docker

# Under make test the compose tests must run: a missing Docker fails them instead of skipping.
test: export KCLIFF_REQUIRE_DOCKER = 1
test: setup typecheck docker-setup
	@scripts/setup-browser.sh
	@scripts/setup-actionlint.sh
	@scripts/setup-sarif-schema.sh
	@scripts/setup-act.sh
	.venv/bin/python -m pytest -n 2 -m "not ($(MEASURES))" $(PYTEST_ARGS) || [ $$? = 5 ]
	.venv/bin/python -m pytest -m "$(MEASURES)" $(PYTEST_ARGS) || [ $$? = 5 ]

# The tests that need no Kafka, Docker, browser or local Actions runner: a fast edit-test loop.
# actionlint is a static check of the workflows (tests/workflows/test_workflows.py), so it belongs here too, as
# does the published SARIF schema lint's output is validated against (tests/lint/test_lint_formats.py).
unit: setup typecheck
	@scripts/setup-actionlint.sh
	@scripts/setup-sarif-schema.sh
	.venv/bin/python -m pytest -n 2 -m "$(NO_CLUSTER)" $(PYTEST_ARGS)

# The repository's workflows run under nektos/act, as make test runs them (docs/workflows.md).
workflows: setup docker-setup
	@scripts/setup-act.sh
	.venv/bin/python -m pytest -m workflows $(PYTEST_ARGS)

clean:
	rm -rf .kcliff build
