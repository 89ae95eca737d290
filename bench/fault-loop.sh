#!/usr/bin/env bash
# The fault tests of deploy/distributed (ZombieIT and CrashIT by default) N times in a row on a fresh clone of this
# checkout's HEAD, each run on fresh peers as CI has them (kinesis-local, S3Proxy and Kafka of its own, on ports of
# their own, so a checkout's running peers are left alone): a test that fails one run in ten fails CI as often.
# One line per run; the logs stay in the folder printed first. Not part of CI: a ZombieIT + CrashIT pair takes
# 15-60 minutes, by machine and CrashIT's records.
# Usage: bench/fault-loop.sh [N] [tests] [CrashIT's records]   e.g. bench/fault-loop.sh 10 'ZombieIT,CrashIT' 100000
# (default 200 000, CrashIT's own; the build runs 100 000: deploy/distributed's pom)
set -uo pipefail
runs=${1:-10}
tests=${2:-ZombieIT,CrashIT}
records=${3:-200000}
export KINESIS_PORT=${KINESIS_PORT:-4668} S3_PORT=${S3_PORT:-4670} KAFKA_PORT=${KAFKA_PORT:-9192}
export KINESIS_ENDPOINT=http://127.0.0.1:$KINESIS_PORT S3_ENDPOINT=http://127.0.0.1:$S3_PORT \
  KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:$KAFKA_PORT
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/fault-loop.XXXXXX)
echo "fault-loop: $runs runs of $tests ($records CrashIT records) at $(git -C "$src" rev-parse --short HEAD), logs in $dir"
git clone -q "$src" "$dir/repo" && cd "$dir/repo" || exit 1
trap 'scripts/peers.sh stop >>"$dir/peers.log" 2>&1' EXIT
./mvnw -B -q install -DskipTests >"$dir/build.log" 2>&1 || { tail -30 "$dir/build.log"; exit 1; }
failed=0
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  scripts/peers.sh start >>"$dir/peers.log" 2>&1 || { tail -20 "$dir/peers.log"; exit 1; }
  ./mvnw -B -o verify -pl deploy/distributed -Dit.test="$tests" -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.crash.records="$records" \
    >"$dir/run-$i.log" 2>&1
  status=$?
  scripts/peers.sh stop >>"$dir/peers.log" 2>&1
  [ "$status" -eq 0 ] || failed=$((failed + 1))
  results=$(grep -E 'Tests run: .* in io\.' "$dir/run-$i.log" | sed -E 's/.*Tests run: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+).* in io\.streamtables\.e2e\.(.*)/\4 \1 run, \2 failed, \3 errors/' | paste -sd ';' -)
  echo "run $i: exit $status in $(( $(date +%s) - start )) s: $results"
done
echo "fault-loop: $failed of $runs runs failed"
exit $((failed > 0))
