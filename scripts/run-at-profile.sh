#!/usr/bin/env bash
# Usage: run-at-profile.sh PROFILE [kcliff run ARGS...]
# `kcliff run` at a rig profile, as the nightly and campaign workflows measure (docs/profiles.md).
# PROFILE empty or cpu-bound: the compose cluster, uncapped, where CPU binds (what the workflows always
# measured). A preset such as aws-m5.xlarge-gp3: the local backend, whose brokers sit behind capped
# links and a capped disk; the links need root, so kcliff runs as root (scripts/as-root.sh: under sudo
# when this user is not root, the working directory and kcliff's cache given back afterwards). PROFILE
# reaches kcliff as one argument, never as shell text; kcliff refuses a name that is no profile.
set -euo pipefail
profile=${1-}
[ "$#" -eq 0 ] || shift
kcliff=${KCLIFF:-.venv/bin/kcliff}
if [ -z "$profile" ] || [ "$profile" = cpu-bound ]; then
  exec "$kcliff" run --backend compose --profile cpu-bound "$@"
fi
exec "$(dirname "$0")/as-root.sh" . "${KCLIFF_CACHE:-$HOME/.cache/kcliff}" -- \
  "$kcliff" run --backend local --profile "$profile" "$@"
