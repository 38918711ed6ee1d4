#!/usr/bin/env bash
# Idempotent: headless Chromium, the chromedriver built from the same Debian source (so the two
# versions always match), and a font, for the report's browser test (pytest -m browser).
# The Python side (selenium) comes with `pip install -e .[test]`. Fast when already installed.
set -euo pipefail

need=()
command -v chromium >/dev/null || need+=(chromium)
command -v chromedriver >/dev/null || need+=(chromium-driver)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
[ ${#need[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup-browser: installing ${need[*]} from Debian" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
