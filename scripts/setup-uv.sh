#!/usr/bin/env bash
# Prints the path of a pinned uv (Astral's Python package installer), installing it once from PyPI
# into ~/.cache/kcliff/uv with the given Python. Idempotent: instant when already installed.
set -euo pipefail
python=${1:-python3}
version=0.13.9
dir=${KCLIFF_CACHE:-$HOME/.cache/kcliff}/uv-$version
if [ ! -x "$dir/bin/uv" ]; then
  rm -rf "$dir.tmp"
  "$python" -m venv "$dir.tmp" >&2
  "$dir.tmp/bin/pip" install --quiet --disable-pip-version-check "uv==$version" >&2
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
fi
echo "$dir/bin/uv"
