#!/usr/bin/env bash
# Runs one Kafka class on the jars in /opt/kafka/libs: usage kafka-run-class.sh CLASS [ARGS...].
# Written for kcliff's stand-in image, whose jars come from Maven Central (the release tarball's bin/
# scripts are not there). It reads the variables the distribution's script reads, with the same
# meaning: KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS, KAFKA_LOG4J_OPTS, KAFKA_JMX_OPTS, KAFKA_OPTS,
# and CLASSPATH: the distribution's script starts from the caller's CLASSPATH and appends each jar of
# libs/ to it, so those entries come first (kcliff's load generator, ahead of the image's Kafka).
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $(basename "$0") CLASS [ARGS...]" >&2
  exit 1
fi
base_dir=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)

# Each *_OPTS variable holds several JVM options, so it is split on whitespace (never globbed).
read -ra heap <<< "${KAFKA_HEAP_OPTS:--Xmx256M}"
read -ra perf <<< "${KAFKA_JVM_PERFORMANCE_OPTS:--server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true}"
read -ra log4j <<< "${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=$base_dir/config/tools-log4j2.yaml}"
read -ra jmx <<< "${KAFKA_JMX_OPTS:-}"
read -ra opts <<< "${KAFKA_OPTS:-}"

exec java "${heap[@]}" "${perf[@]}" "${log4j[@]}" "${jmx[@]}" "${opts[@]}" -cp "${CLASSPATH:+$CLASSPATH:}$base_dir/libs/*" "$@"
