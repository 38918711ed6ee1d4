#!/usr/bin/env bash
# Idempotent: MongoDB's signal-processing-algorithms (E-Divisive means) in a virtualenv of its own,
# .venv/changepoint. Its pins (numpy<2, Python 3.11 only, gevent, setuptools<71, structlog) would
# otherwise bind all of kcliff; kcliff.judge.changepoint is the one module that talks to it, over a pipe.
# It ships as a source package with an optional C extension: with a C compiler the detection is
# about 30x faster, so a missing compiler is reported. Fast when already installed.
set -euo pipefail
cd "$(dirname "$0")/.."

want=$(.venv/bin/python -c 'from kcliff.judge.changepoint import ENGINE; print(ENGINE)')  # the pin lives there
dir=.venv/changepoint
[ "$(cat "$dir/.installed" 2>/dev/null)" = "$want" ] && exit 0

python=${CHANGEPOINT_PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
      python=$candidate; break
    fi
  done
fi
[ -n "$python" ] || { echo "setup-changepoint: $want needs Python 3.11 exactly (set CHANGEPOINT_PYTHON)" >&2; exit 2; }
command -v cc >/dev/null || echo "setup-changepoint: no C compiler: E-Divisive falls back to slow pure numpy" >&2

echo "setup-changepoint: installing $want into $dir" >&2
uv=$(scripts/setup-uv.sh "$python")
rm -rf "$dir"
"$uv" venv --quiet --python "$python" "$dir"
VIRTUAL_ENV="$dir" "$uv" pip install --quiet "$want"
"$dir/bin/python" -c 'from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive'
echo "$want" > "$dir/.installed"
