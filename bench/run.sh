#!/usr/bin/env bash
# The benchmark of docs/BENCHMARKS.md, in one command, from the repository root or anywhere:
#   bench/run.sh                 builds the modules, the packaged all-in-one and services, then runs every scenario
#   bench/run.sh --no-build ...  builds only the modules' jars and the harness, and uses deploy/all-in-one/target/quarkus-app
# Nothing is installed into ~/.m2 (it is shared): the harness runs on the reactor's jars in each module's target/.
# Harness options (after the optional --no-build): --quick, --only=floor,convert,hostile,versions,commit,dlq,pipeline,scale,profile,e2e,dist,abuse
#   (or --only=explore --seconds=N [--distributed]: the explorer's new seeds, see above; or --only=channels: 1 000 idle channels on one all-in-one, then a tenth of them active, --channels=N[,N...]
#   --channels-seconds=30 --channels-active-freshness=10 --channels-active-rate=2 (records/s per active channel)
#   --channels-modes=all-in-one,distributed (the services over Kafka and PostgreSQL);
#   or --only=soak: the soak, not in the default run, maintenance off and on side by side; --soak-seconds=900 --soak-rate=400),
#   --n=ROWS, --limit=GETRECORDS_LIMIT (pipeline, default 10000), --out=DIR (default bench/results), --app=QUARKUS_APP_DIR, --kinesis=ENDPOINT, --keep
set -euo pipefail
cd "$(dirname "$0")/.."
# --only=explore [--seconds=N] [--out=DIR] [--distributed]: the explorer (deploy/all-in-one ExplorerIT) on new seeds
# for N s (600), against the packaged all-in-one (or, with --distributed, deploy/distributed DistributedExplorerIT:
# the services as separate processes on a broker of each run's own and PostgreSQL) and the peers of scripts/peers.sh;
# each failing seed, with its shortest failing steps, in DIR (bench/results/explore). Replay one: README "More".
if [[ " $* " == *" --only=explore "* ]]; then
  seconds=600
  out=bench/results/explore
  module=deploy/all-in-one
  test=ExplorerIT
  for arg in "$@"; do
    case $arg in
      --seconds=*) seconds=${arg#*=} ;;
      --out=*) out=${arg#*=} ;;
      --distributed) module=deploy/distributed; test=DistributedExplorerIT ;;
    esac
  done
  mkdir -p "$out"
  scripts/peers.sh start kinesis s3proxy kafka # kafka: its jars for the runs' own brokers
  exec ./mvnw -B verify -pl "$module" -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test="$test" -Dfailsafe.failIfNoSpecifiedTests=false -Dexplore.seconds="$seconds" \
    -Dexplore.out="$(cd "$out" && pwd)"
fi
if [ "${1:-}" = "--no-build" ]; then
  shift
  ./mvnw -B -q -Pbench -pl bench -am package -DskipTests
else
  ./mvnw -B -q -Pbench -pl deploy/all-in-one,control-plane,ingest-service,bench -am package -DskipTests
fi
# kinesis-local and S3Proxy, pinned as scripts/peers.sh installs them (the harness starts its own on free ports)
mkdir -p .peers
if [ ! -f .peers/node_modules/kinesis-local/main.js ] && command -v npm >/dev/null; then
  npm install --no-save --no-audit --no-fund --prefix .peers kinesis-local@0.6.2 >.peers/npm.log 2>&1 || true
fi
if [ ! -f .peers/s3proxy-4.1.0-jar-with-dependencies.jar ]; then
  ./mvnw -B -q dependency:copy -Dartifact=org.gaul:s3proxy:4.1.0:jar:jar-with-dependencies -DoutputDirectory=.peers \
    >.peers/mvn.log 2>&1 || true
fi
exec nice -n 10 java -Xmx1g -Djava.awt.headless=true \
  -cp "bench/target/classes:$(cat bench/target/classpath.txt)" io.streamtables.bench.Bench "$@"
