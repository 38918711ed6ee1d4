#!/usr/bin/env bash
# The storage emulation's shim for --fsync-delay-ms (runner/kcliff/data/fsync-delay.c): a small
# shared library the local backend preloads into the broker JVMs, built here from our own source
# with the system's C compiler. Cached per machine under the source's hash, so an edited source is
# rebuilt and an unchanged one costs nothing: runner/kcliff/backends/storage.py looks for it there.
# Idempotent: instant when already built.
set -euo pipefail
cd "$(dirname "$0")/.."
source=runner/kcliff/data/fsync-delay.c
hash=$(sha256sum "$source" | cut -c1-16)
out=${KCLIFF_CACHE:-$HOME/.cache/kcliff}/fsync-delay-$hash/libkcliff-fsync-delay.so
if [ ! -f "$out" ]; then
  cc=${CC:-gcc}
  command -v "$cc" >/dev/null || { echo "setup-fsync-delay: a C compiler ($cc) is needed to build $source" >&2; exit 2; }
  echo "setup-fsync-delay: building $out ..."
  mkdir -p "$(dirname "$out")"
  "$cc" -O2 -fPIC -shared -Wall -Wextra -Werror -o "$out.tmp" "$source" -ldl
  mv "$out.tmp" "$out"
fi
