#!/usr/bin/env bash
# The steps of kcliff's step action (action.yml), which the reusable workflow config-check.yml runs
# too, so both annotate, summarise and decide alike. Inputs come in the environment, never in a
# script's text (a config value never passes through a shell):
#   action.sh install   MODE (lint|check); check also KAFKA_VERSION, BACKEND
#   action.sh run       MODE; lint: CONFIG_PATH; check: BASE_DIR, HEAD_DIR, KAFKA_VERSION, BACKEND,
#                       MIN_EFFECT, RECORDS, ROUNDS, REPEATS, CANARIES, PRIME, FAIL_ON_INCONCLUSIVE, AT_RATE, and
#                       optionally COMMENT (a file for the PR comment) and WORK_DIR
#   action.sh verdict   CODE (kcliff check's exit code), FAIL_ON_INCONCLUSIVE
# Writes the step outputs code (both modes), verdict and verdict-json (check) to $GITHUB_OUTPUT.
set -euo pipefail
home=$(cd "$(dirname "$0")/.." && pwd)
kcliff=$home/.venv/bin/kcliff  # where scripts/setup.sh installs kcliff, in the action's own files

fail() {  # an error annotation, exit 2 (bad input)
  echo "::error title=kcliff::$1"
  exit 2
}

mode() {
  case "${MODE:-}" in
    lint|check) ;;
    *) fail "the action's mode must be lint or check" ;;
  esac
}

install() {
  mode
  # lint needs kcliff's Python side only; check also Kafka's jars and, for compose, Docker
  # (apache/kafka is pulled on a runner that can, so no stand-in image is built)
  KCLIFF_INSTALL=wheel KCLIFF_SETUP_KAFKA=0 "$home/scripts/setup.sh"  # the built package, as a user installs it
  [ "$MODE" = check ] || return 0
  "$kcliff" kafka fetch --kafka-version "$KAFKA_VERSION"
  "$kcliff" kafka loadgen  # the fixed-rate load generator, built with Maven here rather than in the check's first round
  # a round trip a repo's kcliff.yaml declares (producers: round_trip_ms) is added by toxiproxy, built from the Go
  # module proxy (GitHub's runners have Go); without Go only such a repo's check stops, naming it
  if command -v go >/dev/null; then
    "$home/scripts/setup-toxiproxy.sh"
  else
    echo "::notice title=kcliff::no Go on this runner, so no toxiproxy: a kcliff.yaml round_trip_ms cannot be measured here"
  fi
  # (the stand-in is built when KCLIFF_KAFKA_IMAGE names it, as the workflows do: its brokers take the
  # emulated disk that makes flush-1 decisive, which apache/kafka's cannot; docs/compose.md)
  local skip=1
  [ "${KCLIFF_KAFKA_IMAGE:-}" != kcliff/kafka-standin ] || skip=0
  if [ "$BACKEND" = compose ]; then KCLIFF_SKIP_STANDIN=${KCLIFF_SKIP_STANDIN:-$skip} "$home/scripts/setup-docker.sh"; fi
}

lint() {
  # annotation paths are relative to the checkout holding the config, as GitHub needs them
  local code=0
  "$kcliff" lint --format github "$CONFIG_PATH" || code=$?
  {
    echo "### kcliff lint"
    echo '```'
    "$kcliff" lint "$CONFIG_PATH" 2>&1 || true
    echo '```'
  } >> "$GITHUB_STEP_SUMMARY"
  echo "code=$code" >> "$GITHUB_OUTPUT"
  return "$code"
}

check() {
  if [ -z "${BASE_DIR:-}" ] || [ -z "${HEAD_DIR:-}" ]; then
    fail "mode check needs the inputs base and head (the two checkouts' config repo directories)"
  fi
  local work=${WORK_DIR:-${RUNNER_TEMP:-/tmp}/kcliff} code=0
  mkdir -p "$work"
  local json=$work/verdict.json
  rm -f "$json"
  local comment=() prime=() canaries=() records=() rate=() rounds=()
  [ -z "${COMMENT:-}" ] || comment=(--comment "$COMMENT")
  [ -z "${PRIME:-}" ] || prime=(--prime "$PRIME")  # empty: kcliff's own default
  [ -z "${RECORDS:-}" ] || records=(--records "$RECORDS")  # empty: kcliff's, which a profile's caps size
  [ -z "${ROUNDS:-}" ] || rounds=(--rounds "$ROUNDS")  # empty: kcliff's, fewer for a change measured through a fault
  [ -z "${CANARIES:-}" ] || canaries=(--canaries "$CANARIES")  # empty: those the check's judged workloads need
  [ "${AT_RATE:-true}" = true ] || rate=(--no-rate)  # false: flat out only
  # as root where it can be: a profile in the repo's kcliff.yaml caps links and disks, which needs root
  local give_back=("$work" "${KCLIFF_CACHE:-$HOME/.cache/kcliff}")
  [ -z "${COMMENT:-}" ] || give_back+=("$COMMENT")
  "$home/scripts/as-root.sh" --if-possible "${give_back[@]}" -- \
  "$kcliff" check --base "$BASE_DIR" --head "$HEAD_DIR" \
    --backend "$BACKEND" --kafka-version "$KAFKA_VERSION" --min-effect "$MIN_EFFECT" \
    "${records[@]}" "${rounds[@]}" --repeats "$REPEATS" "${canaries[@]}" "${prime[@]}" "${rate[@]}" \
    --format github --workdir "$work" --summary "$GITHUB_STEP_SUMMARY" "${comment[@]}" --json "$json" || code=$?
  {
    echo "code=$code"
    if [ -f "$json" ]; then
      echo "verdict=$("$home/.venv/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["verdict"])' "$json")"
      echo "verdict-json=$json"
    fi
  } >> "$GITHUB_OUTPUT"
  verdict "$code"
}

verdict() {  # kcliff check's exit code -> the step's: pass, and inconclusive unless FAIL_ON_INCONCLUSIVE
  case "$1" in
    0) echo "kcliff: pass" ;;
    3) echo "::warning title=kcliff::inconclusive: the canaries did not show their cliffs"
       if [ "$FAIL_ON_INCONCLUSIVE" = true ]; then exit 1; fi ;;
    *) echo "::error title=kcliff::check failed (exit $1): cliff, regression or bad input; see the summary"
       exit 1 ;;
  esac
}

case "${1:-}" in
  install) install ;;
  run) mode; if [ "$MODE" = lint ]; then lint; else check; fi ;;
  verdict) verdict "${CODE:?the exit code of kcliff check}" ;;
  *) echo "usage: $0 install|run|verdict (inputs in the environment)" >&2; exit 2 ;;
esac
