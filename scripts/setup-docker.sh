#!/usr/bin/env bash
# Idempotent Docker setup for kcliff's compose backend; each step is skipped when already done, so a
# second run takes a few seconds:
#   1. Debian's docker.io (engine + containerd + runc) and debootstrap, when missing;
#   2. dockerd, when no engine answers; one started here is recorded in $state/dockerd.pid so that
#      scripts/stop-docker.sh (and the compose tests' teardown) stop it again, and only it;
#   3. compose v2, which Debian does not package: built from the Go module proxy once (in the
#      background, overlapping the other steps), cached in $state, installed as
#      ~/.docker/cli-plugins/docker-compose;
#   4. the stand-in image kcliff/kafka-standin:$KAFKA_VERSION (compose/image/), because no container
#      registry is reachable here; rebuilt only when its inputs change.
# Never pulls an image. KCLIFF_SKIP_STANDIN=1 skips step 4 (a runner that can pull apache/kafka).
set -euo pipefail
cd "$(dirname "$0")/.."

compose_version=v2.40.3
kafka_version=${KCLIFF_KAFKA_VERSION:-4.2.0}
state=${KCLIFF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kcliff}/docker
plugin=$HOME/.docker/cli-plugins/docker-compose
mkdir -p "$state"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
t0=$(date +%s%N)
say() { printf 'setup-docker: %s\n' "$*"; }
step_t0=$t0
took() {  # how long the step that just did some work took
  local now; now=$(date +%s%N)
  say "  $1 took $(( (now - step_t0) / 1000000 )) ms"
  step_t0=$now
}

# 3. compose v2: an installed v2.20 or newer is kept, else the pinned version is built. The build
# (the longest step, CPU-bound) starts first, in the background, and overlaps steps 1, 2 and 4.
built=$state/docker-compose-$compose_version
build_compose() {  # runs in its own shell (see below), so its globals and trap are its own
  src=$(mktemp -d "$state/compose-src.XXXXXX")
  trap 'chmod -R u+w "$src" 2>/dev/null; rm -rf "$src"' EXIT
  # `go install module/cmd@version` refuses modules whose go.mod has exclude directives (compose's
  # does), so download the module and build inside a writable copy of it.
  dir=$(cd "$src" && GOFLAGS=-mod=mod go mod download -json "github.com/docker/compose/v2@$compose_version" \
        | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] || { echo "go mod download gave no module directory"; return 1; }
  cp -r "$dir/." "$src/compose" && chmod -R u+w "$src/compose"
  (cd "$src/compose" && CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$compose_version" \
      -o "$built.tmp" ./cmd)
  mv "$built.tmp" "$built"
}
compose_ok() {
  local have
  have=$(docker compose version --short 2>/dev/null || "$plugin" version --short 2>/dev/null || true)
  printf '%s\n' "${have#v}" | grep -Eq '^2\.([2-9][0-9]|[1-9][0-9]{2,})\.'
}
builder=""
if ! compose_ok && [ ! -x "$built" ]; then
  command -v go >/dev/null || { echo "setup-docker: Go is needed to build compose $compose_version" >&2; exit 2; }
  say "building compose $compose_version from the Go module proxy in the background (log: $state/compose-build.log) ..."
  # Its own process group, so a failure below can end the whole build (go spawns compilers).
  export -f build_compose
  export state compose_version built
  setsid bash -c build_compose > "$state/compose-build.log" 2>&1 &
  builder=$!
  trap '[ -n "$builder" ] && kill -- "-$builder" 2>/dev/null; true' EXIT
fi

# 1. packages (only what is missing: a runner with Docker already installed keeps its own)
missing=()
command -v dockerd >/dev/null || docker info >/dev/null 2>&1 || missing+=(docker.io)
[ "${KCLIFF_SKIP_STANDIN:-0}" = 1 ] || command -v debootstrap >/dev/null || missing+=(debootstrap)
# musl-gcc builds the emulated disk's shim for apache/kafka's Alpine brokers (runner/kcliff/backends/storage.py)
command -v musl-gcc >/dev/null || missing+=(musl-tools)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]} from Debian ..."
  $sudo apt-get update -qq
  # Without an init system the package cannot start its service; dockerd is started below.
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  took "package install"
fi
step_t0=$(date +%s%N)

# 2. the engine
if ! docker info >/dev/null 2>&1; then
  say "starting dockerd (log: $state/dockerd.log) ..."
  # setsid: the engine outlives this script. Its pid file (dockerd's own --pidfile) marks it as
  # started by kcliff.
  $sudo setsid dockerd --pidfile "$state/dockerd.pid" >"$state/dockerd.log" 2>&1 < /dev/null &
  starter=$!
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$starter" 2>/dev/null || { tail -20 "$state/dockerd.log" >&2; exit 1; }
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { echo "setup-docker: dockerd did not answer within 60 s" >&2; tail -20 "$state/dockerd.log" >&2; exit 1; }
  took "engine start"
fi
step_t0=$(date +%s%N)

# 4. the stand-in image
if [ "${KCLIFF_SKIP_STANDIN:-0}" != 1 ]; then
  [ -x .venv/bin/kcliff ] || { echo "setup-docker: run scripts/setup.sh first (needs .venv and Kafka's jars)" >&2; exit 2; }
  libs=$(.venv/bin/python -c 'import sys; from kcliff.kafka import dist; print(dist.ensure(sys.argv[1]))' "$kafka_version")
  compose/image/build-standin.sh "$libs" "$kafka_version"
  took "stand-in image"
fi

# 3 (end). compose v2 installed as the docker CLI plugin
if [ -n "$builder" ]; then
  wait "$builder" || { echo "setup-docker: building compose $compose_version failed:" >&2; tail -20 "$state/compose-build.log" >&2; exit 1; }
  builder=""
  took "compose v2 build (overlapping the steps above; waited)"
fi
if ! compose_ok; then
  mkdir -p "$(dirname "$plugin")"
  install -m 0755 "$built" "$plugin"
  docker compose version >/dev/null
fi

say "ready: $(docker version -f 'engine {{.Server.Version}}' 2>/dev/null), compose $(docker compose version --short) ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
