#!/usr/bin/env bash
# Idempotent setup: a virtualenv with kcliff and its dependencies, then Kafka's jars from Maven
# Central. Each step is skipped when its inputs have not changed, so a second run takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
# KCLIFF_SETUP_KAFKA=0: the Python side only (jobs that analyse results and start no Kafka)
kafka=${KCLIFF_SETUP_KAFKA:-1}
# KCLIFF_INSTALL=wheel: kcliff as a user gets it, the wheel built from this checkout's sdist installed
# non-editable, without the test tools (workflows running kcliff as a tool); editable: development
install=${KCLIFF_INSTALL:-editable}
case "$install" in
  editable|wheel) ;;
  *) echo "setup: KCLIFF_INSTALL must be editable or wheel, got '$install'" >&2; exit 2 ;;
esac
tools=("$python")
[ "$kafka" = 0 ] || tools+=(java mvn)
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { echo "setup: '$tool' not found; kcliff needs Python 3.11+, Java 17+ and Maven" >&2; exit 2; }
done
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || { echo "setup: Python 3.11+ is required ($("$python" --version))" >&2; exit 2; }

# uv installs from its cache in seconds where pip takes half a minute: every CI job and every
# workflow job under the local runner starts from a fresh checkout, so this runs often.
uv=$(scripts/setup-uv.sh "$python")
if [ ! -x .venv/bin/python ]; then
  "$uv" venv --quiet --allow-existing --python "$python" .venv
fi
stamp=.venv/.kcliff-installed
want=$(cat pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$install" = wheel ]; then
  # built every time (about 2 s): the wheel holds every source file, not just pyproject.toml
  dist=$(mktemp -d)
  trap 'rm -rf "$dist"' EXIT
  "$uv" build --quiet --out-dir "$dist" .  # the sdist, then the wheel built from it, as pip would
  VIRTUAL_ENV=.venv "$uv" pip install --quiet --reinstall-package kcliff "$dist"/kcliff-*.whl
  echo wheel > "$stamp"  # never the editable stamp: the next editable setup reinstalls
elif [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  VIRTUAL_ENV=.venv "$uv" pip install --quiet -e '.[test]'
  echo "$want" > "$stamp"
fi

[ "$kafka" = 0 ] || .venv/bin/kcliff kafka fetch
