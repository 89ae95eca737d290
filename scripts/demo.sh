#!/usr/bin/env bash
# The demo on a fresh machine: builds the all-in-one, starts kinesis-local and S3Proxy, creates a stream and a
# channel (examples/channels.json), sends sample events, shows what landed in the Iceberg table and the DLQ, and
# prints the status console's address (interactive: the demo runs until Enter). It says what it waits for as it waits.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2000}
echo "== building (the first run downloads dependencies: minutes; each module is named as it is built)"
mkdir -p target
./mvnw -B -ntp install -DskipTests >target/demo-build.log 2>&1 &
BUILD=$!
# the module being built, as Maven names it, while the build runs
tail -n +1 -f target/demo-build.log --pid=$BUILD | grep --line-buffered -E '^\[INFO\] Building .*\[[0-9]+/[0-9]+\]$' \
  | sed -u 's/^\[INFO\] Building /  building /' || true
wait $BUILD || { tail -40 target/demo-build.log; echo "build failed: target/demo-build.log" >&2; exit 1; }
scripts/peers.sh start
APP_PID=
cleanup() { [ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null; scripts/peers.sh stop; }
trap cleanup EXIT

WORK=$PWD/target/demo
rm -rf "$WORK" && mkdir -p "$WORK"
CP="deploy/all-in-one/target/quarkus-app/lib/main/*"
# Demo.java with the service's libraries, without SLF4J's warnings about them (it logs nothing itself)
demo() { java -cp "$CP" scripts/Demo.java "$@" 2> >(grep -v -e '^SLF4J' -e '^org.slf4j.spi' >&2); }
demo setup

# Only signed requests reach the API (docs/OPERATING.md "Authentication"): a key pair for this run, which the service reads
# from its environment (not its command line, which any user of the machine can list)
export STREAMTABLES_ACCESS_KEY_ID=demo
STREAMTABLES_SECRET_ACCESS_KEY=$(head -c 30 /dev/urandom | base64 | tr -d '/+=')
export STREAMTABLES_SECRET_ACCESS_KEY

echo "== starting the all-in-one (log: $WORK/all-in-one.log)"
(cd "$WORK" && exec java \
  -Ddelivery.auth.principals.service.access-key-id='${STREAMTABLES_ACCESS_KEY_ID}' \
  -Ddelivery.auth.principals.service.secret-access-key='${STREAMTABLES_SECRET_ACCESS_KEY}' \
  -Ddelivery.auth.principals.service.account-id=000000000000 \
  -Dquarkus.http.port=8080 \
  -Dquarkus.management.port=9080 \
  -Ddelivery.channels-file=../../examples/channels.json \
  -Ddelivery.schemas-dir=../../examples/schemas \
  -Ddelivery.min-data-freshness-seconds=1 \
  -Ddelivery.kinesis.endpoint-override=http://127.0.0.1:4568 -Ddelivery.kms.describe-keys=false \
  -Ddelivery.kinesis.aws.credentials.type=static \
  -Ddelivery.kinesis.aws.credentials.static-provider.access-key-id=test \
  -Ddelivery.kinesis.aws.credentials.static-provider.secret-access-key=test \
  -Dquarkus.s3.endpoint-override=http://127.0.0.1:4570 \
  -Dquarkus.s3.path-style-access=true \
  -Dquarkus.s3.aws.region=us-east-1 \
  -Dquarkus.s3.aws.credentials.type=static \
  -Dquarkus.s3.aws.credentials.static-provider.access-key-id=test \
  -Dquarkus.s3.aws.credentials.static-provider.secret-access-key=test \
  -Ddelivery.catalog.uri=jdbc:sqlite:catalog.db \
  -Ddelivery.catalog.warehouse=s3://demo-warehouse/warehouse \
  -Ddelivery.catalog.s3.endpoint=http://127.0.0.1:4570 \
  -Ddelivery.catalog.s3.path-style-access=true \
  -Ddelivery.catalog.s3.access-key-id=test \
  -Ddelivery.catalog.s3.secret-access-key=test \
  -Ddelivery.catalog.client.region=us-east-1 \
  -jar ../../deploy/all-in-one/target/quarkus-app/quarkus-run.jar >"$WORK/all-in-one.log" 2>&1) &
APP_PID=$!
for i in $(seq 1 120); do
  curl -sf http://127.0.0.1:9080/q/health/ready >/dev/null && { echo "  ready after $((i / 2)) s"; break; }
  kill -0 "$APP_PID" 2>/dev/null || { cat "$WORK/all-in-one.log"; exit 1; }
  [ $((i % 4)) -eq 0 ] && echo "  waiting for /q/health/ready ($((i / 2)) s)"
  [ "$i" -eq 120 ] && { tail -20 "$WORK/all-in-one.log"; echo "not ready after 60 s" >&2; exit 1; }
  sleep 0.5
done

demo await-active http://127.0.0.1:8080
demo produce "$N"
echo "== waiting for the rows (the channel commits every 5 s; one event in 100 has no event_time: dead-lettered)"
demo await-delivered "$WORK/catalog.db" $((N - N / 100))
grep -E "Committed|Stored" "$WORK/all-in-one.log" | sed 's/^/  /' | tail -6 || true
demo show "$WORK/catalog.db"
echo "== the service: API http://127.0.0.1:8080, metrics http://127.0.0.1:9080/q/metrics"
echo "== the status console: http://127.0.0.1:9080/console"
if [ -t 0 ]; then
  read -r -p "press Enter to stop the demo " _
fi
