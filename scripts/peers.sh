#!/usr/bin/env bash
# Installs (pinned) and starts the real peers the tests and the demo talk to, as processes:
#   kinesis-local 0.6.2 (npm)  — the Kinesis API on http://127.0.0.1:${KINESIS_PORT:-4568}
#   S3Proxy 4.1.0 (Maven)      — the S3 API (in-memory "transient" backend) on http://127.0.0.1:${S3_PORT:-4570}
#   Kafka 4.3.1 (Maven)        — a single-node KRaft broker on 127.0.0.1:${KAFKA_PORT:-9092} (controller on +1),
#                                the bus of the distributed mode
#   Iceberg REST catalog 1.11.0 — Apache Iceberg's own RESTCatalogServer (iceberg-open-api's test fixtures, the
#                                newest published) on http://127.0.0.1:${REST_CATALOG_PORT:-8181}, its tables in a
#                                fresh SQLite file and its warehouse s3://rest-warehouse/ on S3Proxy (the tests
#                                create the bucket)
# Usage: scripts/peers.sh start|stop|status [kinesis|s3proxy|kafka|rest ...] (default: all of them).
# A peer whose port already answers (e.g. started by another checkout) is left alone and not stopped here.
# PIDs, logs and installs live in .peers/.
set -euo pipefail
cd "$(dirname "$0")/.."
PEERS=$PWD/.peers
KINESIS_PORT=${KINESIS_PORT:-4568}
S3_PORT=${S3_PORT:-4570}
KAFKA_PORT=${KAFKA_PORT:-9092}
KAFKA_VERSION=4.3.1
KAFKA_HOME=$PEERS/kafka-$KAFKA_VERSION
REST_CATALOG_PORT=${REST_CATALOG_PORT:-8181}
REST_VERSION=1.11.0
REST_HOME=$PEERS/iceberg-rest-$REST_VERSION
ALL="kinesis s3proxy kafka rest"
mkdir -p "$PEERS"

port_of() {
  case $1 in kinesis) echo "$KINESIS_PORT" ;; s3proxy) echo "$S3_PORT" ;; kafka) echo "$KAFKA_PORT" ;;
    rest) echo "$REST_CATALOG_PORT" ;; esac
}

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

running() { [ -f "$PEERS/$1.pid" ] && kill -0 "$(cat "$PEERS/$1.pid")" 2>/dev/null; }

# The port of a broker started here may differ from this call's KAFKA_PORT
[ -f "$PEERS/kafka.port" ] && running kafka && KAFKA_PORT=$(cat "$PEERS/kafka.port")

install() {
  case $1 in
    kinesis)
      if [ ! -f "$PEERS/node_modules/kinesis-local/main.js" ]; then
        echo "installing kinesis-local 0.6.2"
        npm install --no-save --no-audit --no-fund --prefix "$PEERS" kinesis-local@0.6.2 >"$PEERS/npm.log" 2>&1
      fi ;;
    s3proxy)
      if [ ! -f "$PEERS/s3proxy-4.1.0-jar-with-dependencies.jar" ]; then
        echo "installing S3Proxy 4.1.0"
        ./mvnw -B -q dependency:copy -Dartifact=org.gaul:s3proxy:4.1.0:jar:jar-with-dependencies \
          -DoutputDirectory="$PEERS" >"$PEERS/mvn.log" 2>&1
      fi ;;
    kafka)
      if [ ! -f "$KAFKA_HOME/libs/kafka_2.13-$KAFKA_VERSION.jar" ]; then
        echo "installing Kafka $KAFKA_VERSION"
        mkdir -p "$KAFKA_HOME"
        # Kafka pins slf4j 1.7: the slf4j-1 binding of log4j2 (with the slf4j2 one logging is silently off)
        cat >"$KAFKA_HOME/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.peers</groupId>
  <artifactId>kafka-broker</artifactId>
  <version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>2.24.3</version></dependency>
  </dependencies>
</project>
POM
        ./mvnw -B -q -f "$KAFKA_HOME/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
          -DoutputDirectory="$KAFKA_HOME/libs" >"$PEERS/kafka-mvn.log" 2>&1
      fi ;;
    rest)
      if [ ! -f "$REST_HOME/libs/iceberg-open-api-$REST_VERSION-test-fixtures.jar" ]; then
        echo "installing the Iceberg REST catalog server $REST_VERSION"
        mkdir -p "$REST_HOME"
        cp scripts/iceberg-rest-pom.xml "$REST_HOME/pom.xml"
        ./mvnw -B -q -f "$REST_HOME/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
          -DoutputDirectory="$REST_HOME/libs" >"$PEERS/rest-mvn.log" 2>&1
      fi ;;
  esac
}

start_kinesis() {
  KINESIS_MOCK_CERT_PATH="$PEERS/node_modules/kinesis-local/server.json" \
  KINESIS_MOCK_PLAIN_PORT=$KINESIS_PORT KINESIS_MOCK_TLS_PORT=$((KINESIS_PORT + 1)) SHARD_LIMIT=100 \
  CREATE_STREAM_DURATION=0ms DELETE_STREAM_DURATION=0ms SPLIT_SHARD_DURATION=0ms \
  MERGE_SHARDS_DURATION=0ms UPDATE_SHARD_COUNT_DURATION=0ms LOG_LEVEL=WARN \
    nohup node "$PEERS/node_modules/kinesis-local/main.js" >"$PEERS/kinesis.log" 2>&1 &
  echo $! >"$PEERS/kinesis.pid"
}

start_s3proxy() {
  cat >"$PEERS/s3proxy.conf" <<CONF
s3proxy.endpoint=http://127.0.0.1:$S3_PORT
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=test
s3proxy.credential=test
s3proxy.ignore-unknown-headers=true
jclouds.provider=transient
CONF
  # The transient store keeps every object on the heap, and a long test's table grows faster than its commits:
  # each commit writes a metadata.json listing every snapshot so far (CrashIT: 44 MB live after 193 commits, and
  # rising by 10 MB a minute). With 2 GB, S3Proxy stopped answering (read timeouts) late in CrashIT on a slow
  # machine. So: room, a collector without G1's humongous regions (a metadata.json passes 1 MB), and an exit
  # rather than a hang if the heap runs out anyway (its GC log is in .peers/).
  nohup java -Xmx8g -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError \
    -Xlog:gc:file="$PEERS/s3proxy-gc.log":uptime,time:filecount=2,filesize=10m \
    -jar "$PEERS/s3proxy-4.1.0-jar-with-dependencies.jar" --properties "$PEERS/s3proxy.conf" \
    >"$PEERS/s3proxy.log" 2>&1 &
  echo $! >"$PEERS/s3proxy.pid"
}

# A fresh single-node KRaft broker each start (its data is test data). Chunks of records can be large:
# message.max.bytes matches the producers' max.request.size (docs/OPERATING.md "Distributed mode").
start_kafka() {
  local data=$PEERS/kafka-data-$KAFKA_PORT conf=$PEERS/kafka-$KAFKA_PORT.properties
  rm -rf "$data"
  cat >"$conf" <<CONF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$((KAFKA_PORT + 1))
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$((KAFKA_PORT + 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$data
num.partitions=4
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
default.replication.factor=1
min.insync.replicas=1
group.initial.rebalance.delay.ms=0
message.max.bytes=16777216
replica.fetch.max.bytes=16777216
CONF
  java -cp "$KAFKA_HOME/libs/*" kafka.tools.StorageTool format -t "$(java -cp "$KAFKA_HOME/libs/*" \
    kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)" -c "$conf" >"$PEERS/kafka-format.log" 2>&1
  nohup java -Xmx512m -Dlog4j2.level=WARN -cp "$KAFKA_HOME/libs/*" kafka.Kafka "$conf" >"$PEERS/kafka.log" 2>&1 &
  echo $! >"$PEERS/kafka.pid"
  echo "$KAFKA_PORT" >"$PEERS/kafka.port"
}

# The catalog's own properties come from CATALOG_* variables (Iceberg's RCKUtils: '__' is '-', '_' is '.'). A
# file-backed SQLite database: an in-memory one is one database per pooled connection. Warnings only: at INFO it
# logs every property, keys included, and every 404 with a stack trace.
start_rest() {
  rm -f "$PEERS/rest-catalog.db"
  CATALOG_REST_PORT=$REST_CATALOG_PORT CATALOG_URI="jdbc:sqlite:$PEERS/rest-catalog.db" \
  CATALOG_WAREHOUSE=s3://rest-warehouse/warehouse CATALOG_IO__IMPL=org.apache.iceberg.aws.s3.S3FileIO \
  CATALOG_HTTP__CLIENT_TYPE=urlconnection CATALOG_S3_ENDPOINT="http://127.0.0.1:$S3_PORT" \
  CATALOG_S3_PATH__STYLE__ACCESS=true CATALOG_S3_ACCESS__KEY__ID=test CATALOG_S3_SECRET__ACCESS__KEY=test \
  CATALOG_CLIENT_REGION=us-east-1 \
    nohup java -Xmx256m -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    -Dorg.slf4j.simpleLogger.log.org.apache.iceberg.rest.RESTCatalogServlet=off \
    -cp "$REST_HOME/libs/*" org.apache.iceberg.rest.RESTCatalogServer >"$PEERS/rest.log" 2>&1 &
  echo $! >"$PEERS/rest.pid"
}

wait_up() { # name port
  for _ in $(seq 1 120); do
    if answers "$2"; then echo "$1 is up on 127.0.0.1:$2"; return 0; fi
    if ! running "$1"; then break; fi
    sleep 0.5
  done
  echo "$1 did not start on port $2; see $PEERS/$1.log" >&2
  return 1
}

start() {
  local started=()
  for p in "$@"; do
    if running "$p"; then continue; fi
    if answers "$(port_of "$p")"; then
      echo "$p: 127.0.0.1:$(port_of "$p") already answers (another checkout's peer?); leaving it alone"
      continue
    fi
    install "$p"
    "start_$p"
    started+=("$p")
  done
  for p in "${started[@]}"; do wait_up "$p" "$(port_of "$p")"; done
}

stop() {
  for p in "$@"; do
    if [ -f "$PEERS/$p.pid" ]; then
      pid=$(cat "$PEERS/$p.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -9 "$pid" 2>/dev/null || true   # kinesis-local may ignore SIGTERM
      rm -f "$PEERS/$p.pid" "$PEERS/$p.port"
    fi
  done
}

command=${1:-start}
shift || true
peers=${*:-$ALL}
for p in $peers; do
  case $p in kinesis|s3proxy|kafka|rest) ;; *) echo "unknown peer $p (kinesis, s3proxy, kafka, rest)" >&2; exit 2 ;; esac
done
case $command in
  start) start $peers ;;
  stop) stop $peers ;;
  status) for p in $peers; do
            if running "$p"; then echo "$p running (pid $(cat "$PEERS/$p.pid"), port $(port_of "$p"))"
            elif answers "$(port_of "$p")"; then echo "$p answers on port $(port_of "$p") (not started here)"
            else echo "$p stopped"; fi
          done ;;
  *) echo "usage: $0 start|stop|status [kinesis|s3proxy|kafka|rest ...]" >&2; exit 2 ;;
esac
