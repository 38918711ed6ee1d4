#!/bin/bash
# The real-cluster linger test's check (tests/commands/test_check_real.py, LINGER) three times on one
# cluster, printing every decision (metric, outcome, ratio, p, interval) and the canaries' ratios:
# the margin that test asserts. Data: benchmarks/data/linger-check-margin-local-2c.txt.
set -u
cd "$(dirname "$0")/.."
W=$(mktemp -d /tmp/kcliff-lm-XXXX)
cp -r examples/config-repo $W/base; cp -r examples/config-repo $W/head
sed -i 's/linger.ms=5/linger.ms=100/' $W/head/producers/app-producer.properties
trap '.venv/bin/kcliff cluster down --workdir "$W/w" >/dev/null 2>&1' EXIT  # also on Ctrl-C and failure
.venv/bin/kcliff cluster up --workdir $W/w >/dev/null 2>&1
for i in 1 2 3; do
  s=$(date +%s)
  .venv/bin/kcliff check --base $W/base --head $W/head --records 20000 --repeats 2 --prime 5 --canaries batching-off --rounds 5 --run-seconds 3 --format github --json $W/v$i.json --workdir $W/w --quiet >/dev/null 2>&1
  echo "exit $? in $(( $(date +%s) - s )) s"
  python3 -c "
import json; d=json.load(open('$W/v$i.json'))
print(d['verdict'], [(x['metric'], x['outcome'], round(x['ratio'],2), x.get('p_value'), x.get('low'), x.get('high'), x.get('alpha')) for x in d['scenarios'][0]['decisions']])
print([(c['id'], round(c['ratio'],3)) for c in d['canaries']])"
done
