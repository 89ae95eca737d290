#!/usr/bin/env bash
# Runs every test: starts the real peers (kinesis-local, S3Proxy, Kafka), runs `mvn -B verify` (unit tests, then the
# end-to-end tests of the packaged all-in-one and of the distributed services), and stops the peers it started.
# PostgreSQL at 127.0.0.1:5432 is used when it answers (POSTGRES_URL overrides the JDBC URL).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/peers.sh start
trap 'scripts/peers.sh stop' EXIT
mvn -B verify "$@"
