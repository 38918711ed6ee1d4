#!/usr/bin/env bash
# toxiproxy-server (Shopify's TCP proxy for simulating network conditions) for --client-rtt-ms: built
# from the Go module proxy into .venv/bin, because GitHub release downloads are not reachable from
# every runner. The kernel's netem would be the lighter way, but it is missing from the VMs this
# runs on (tc: "Specified qdisc kind is unknown"). Built static (CGO_ENABLED=0): the compose backend
# runs it in a container of the Kafka image, and apache/kafka is Alpine, without glibc's loader.
# Idempotent: instant when already built.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v2.5.0
build="$version static"  # a stamp without "static" is an older, glibc-linked build
bin=.venv/bin/toxiproxy-server
stamp=.venv/.toxiproxy-version  # built from the module proxy, the binary reports its version as "git"
# built once per machine: every workflow job under the local runner sets up a fresh checkout
cached=${KCLIFF_CACHE:-$HOME/.cache/kcliff}/toxiproxy-$version-static/toxiproxy-server
if [ ! -x "$bin" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$build" ]; then
  if [ ! -x "$cached" ]; then
    command -v go >/dev/null || { echo "setup-toxiproxy: Go is needed to build toxiproxy $version" >&2; exit 2; }
    echo "setup-toxiproxy: building a static toxiproxy-server $version from the Go module proxy ..."
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    CGO_ENABLED=0 GOBIN="$tmp" go install "github.com/Shopify/toxiproxy/v2/cmd/server@$version"
    mkdir -p "$(dirname "$cached")"
    mv "$tmp/server" "$cached.tmp" && mv "$cached.tmp" "$cached"
  fi
  mkdir -p "$(dirname "$bin")"
  cp "$cached" "$bin"
  echo "$build" > "$stamp"
fi
