#!/usr/bin/env bash
# Stops the Docker engine that scripts/setup-docker.sh started (its pid file says so), and nothing
# else: an engine that was already running before kcliff's setup is left alone. While containers
# are running (someone's stack is in use) it refuses, unless --force.
set -euo pipefail
state=${KCLIFF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kcliff}/docker
pidfile=$state/dockerd.pid
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

if [ ! -s "$pidfile" ]; then
  echo "stop-docker: no dockerd started by kcliff (no $pidfile)"
  exit 0
fi
pid=$(cat "$pidfile")
if ! [ -e "/proc/$pid" ] || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != dockerd ]; then
  echo "stop-docker: dockerd $pid is not running any more"
  rm -f "$pidfile"
  exit 0
fi
running=$(docker ps --quiet 2>/dev/null | wc -l)
if [ "$running" -gt 0 ] && [ "${1:-}" != --force ]; then
  echo "stop-docker: $running container(s) still running; not stopping dockerd $pid (use --force)" >&2
  exit 1
fi
$sudo kill -TERM "$pid"
for _ in $(seq 1 60); do
  [ -e "/proc/$pid" ] || break
  sleep 0.5
done
if [ -e "/proc/$pid" ]; then
  echo "stop-docker: dockerd $pid did not stop within 30 s" >&2
  exit 1
fi
rm -f "$pidfile"
echo "stop-docker: stopped dockerd $pid"
