#!/usr/bin/env bash
# Runs every test: installs the AWS clients of the client matrix, starts the real peers (kinesis-local, S3Proxy, Kafka, Iceberg's REST catalog server), runs `./mvnw -B verify` (unit tests, then the
# end-to-end tests of the packaged all-in-one and of the distributed services), and stops the peers it started.
# PostgreSQL at 127.0.0.1:5432 is used when it answers (POSTGRES_URL overrides the JDBC URL).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/clients/install.sh   # the client matrix's clients (ClientMatrixIT): boto3, the AWS CLI, the JavaScript SDK
scripts/tools.sh             # Prometheus, promtool, Chromium (AlertRulesTest, OperatorViewsIT)
scripts/peers.sh start
# On a failure, the peers' last log lines before they stop: a peer that stops answering shows in the tests only as timeouts
peer_logs() {
  local status=$?
  if [ "$status" -ne 0 ]; then
    for log in .peers/kinesis.log .peers/s3proxy.log .peers/s3proxy-gc.log .peers/kafka.log .peers/rest.log; do
      [ -f "$log" ] && { echo "--- last lines of $log"; tail -n 15 "$log"; }
    done
  fi
  scripts/peers.sh stop
}
trap peer_logs EXIT
./mvnw -B verify "$@"
