#!/usr/bin/env bash
# Usage: as-root.sh [--if-possible] GIVE_BACK... -- COMMAND [ARGS...]
# COMMAND as root, as capped links and disks need (network namespaces, tc, /proc of the brokers): itself
# where this user is root, else under sudo -E env PATH=$PATH (sudo's secure_path would lose setup-java's
# java). What it wrote in each GIVE_BACK path (the working directory, kcliff's cache) is handed back to
# this user afterwards, so the next steps and the artifact upload can read it (kcliff writes results
# 0600). Exits with COMMAND's code. --if-possible: where sudo would ask for a password (a self-hosted
# runner without passwordless sudo), COMMAND runs as this user, and kcliff says what needs root, if
# anything does.
set -euo pipefail
optional=0
[ "${1-}" != --if-possible ] || { optional=1; shift; }
give_back=()
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do give_back+=("$1"); shift; done
[ "$#" -gt 1 ] || { echo "usage: $0 [--if-possible] GIVE_BACK... -- COMMAND [ARGS...]" >&2; exit 2; }
shift
if [ "$(id -u)" = 0 ] || { [ "$optional" = 1 ] && ! sudo -n true 2>/dev/null; }; then
  exec "$@"
fi
status=0
sudo -E env "PATH=$PATH" "$@" || status=$?
if [ "${#give_back[@]}" -gt 0 ]; then
  sudo chown -R "$(id -u):$(id -g)" "${give_back[@]}" 2>/dev/null || true
fi
exit "$status"
