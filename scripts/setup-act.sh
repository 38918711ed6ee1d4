#!/usr/bin/env bash
# nektos/act, the local GitHub Actions runner the workflow tests run the workflows under
# (tests/workflows/): built from the Go module proxy into .venv/bin, because GitHub release
# downloads are not reachable from every machine. Idempotent: instant when already built.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v0.2.89
bin=.venv/bin/act
stamp=.venv/.act-version
if [ ! -x "$bin" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$version" ]; then
  command -v go >/dev/null || { echo "setup-act: Go is needed to build act $version" >&2; exit 2; }
  echo "setup-act: building act $version from the Go module proxy ..."
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  GOBIN="$tmp" go install "github.com/nektos/act@$version"
  mv "$tmp/act" "$bin"
  echo "$version" > "$stamp"
fi
