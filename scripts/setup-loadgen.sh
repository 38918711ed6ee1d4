#!/usr/bin/env bash
# kcliff's fixed-rate load generator (loadgen/, docs/loadgen.md), built with Maven into
# ~/.cache/kcliff/loadgen-<hash of its sources>: once per source tree (an edit rebuilds), nothing to do
# when that tree is built already. KCLIFF_SETUP_KAFKA=0 (no Kafka on this machine) skips it, as setup.sh
# skips Kafka's jars.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${KCLIFF_SETUP_KAFKA:-1}" = 0 ] || .venv/bin/kcliff kafka loadgen
