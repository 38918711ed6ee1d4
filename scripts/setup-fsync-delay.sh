#!/usr/bin/env bash
# The storage emulation's shim for --fsync-delay-ms (runner/kcliff/data/fsync-delay.c): a small
# shared library the local backend preloads into the broker JVMs. kcliff builds it itself on first
# use (runner/kcliff/backends/storage.py: one C compiler call, cached per machine under the source's
# hash), so an installed kcliff needs no script; this builds it ahead, so make setup reports a
# missing compiler before a run needs one. Idempotent: instant when already built.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -c '
import sys
from kcliff.backends import storage
from kcliff.errors import ClusterError
try:
    storage.find_library()
except ClusterError as exc:
    print(f"setup-fsync-delay: {exc}", file=sys.stderr)
    sys.exit(2)
'
