#!/usr/bin/env bash
# Usage: run-at-profile.sh PROFILE [kcliff run ARGS...]
# `kcliff run` at a rig profile, as the nightly and campaign workflows measure (docs/profiles.md).
# PROFILE empty or cpu-bound: the compose cluster, uncapped, where CPU binds (what the workflows always
# measured). A preset such as aws-m5.xlarge-gp3: the local backend, whose brokers sit behind capped
# links and a capped disk; the links need root (network namespaces, tc), so kcliff runs under sudo when
# this user is not root, and what it wrote in the working directory and in kcliff's cache is given back
# to the user afterwards (the artifact upload and the next steps read it). PROFILE reaches kcliff as one
# argument, never as shell text; kcliff refuses a name that is no profile.
set -euo pipefail
profile=${1-}
[ "$#" -eq 0 ] || shift
kcliff=${KCLIFF:-.venv/bin/kcliff}
if [ -z "$profile" ] || [ "$profile" = cpu-bound ]; then
  exec "$kcliff" run --backend compose --profile cpu-bound "$@"
fi
as_root=()
[ "$(id -u)" = 0 ] || as_root=(sudo -E env "PATH=$PATH")  # sudo's secure_path would lose setup-java's java
status=0
"${as_root[@]}" "$kcliff" run --backend local --profile "$profile" "$@" || status=$?
if [ "${#as_root[@]}" -gt 0 ]; then
  sudo chown -R "$(id -u):$(id -g)" . "${KCLIFF_CACHE:-$HOME/.cache/kcliff}" || true
fi
exit "$status"
