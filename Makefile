# Two commands on a fresh machine: `make run` and `make test`. Each sets itself up first;
# setup is idempotent and fast when already done.
SUITE ?= canaries
ARGS ?=
PYTEST_ARGS ?=

.PHONY: setup run test clean

setup:
	@scripts/setup.sh
	@scripts/setup-changepoint.sh

run: setup
	.venv/bin/kcliff run --suite $(SUITE) $(ARGS)

test: setup
	@scripts/setup-browser.sh
	.venv/bin/python -m pytest $(PYTEST_ARGS)

clean:
	rm -rf .kcliff build
