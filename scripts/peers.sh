#!/usr/bin/env bash
# Installs (pinned) and starts the real peers the tests and the demo talk to, as processes:
#   kinesis-local 0.6.2 (npm)  — the Kinesis API on http://127.0.0.1:${KINESIS_PORT:-4568}
#   S3Proxy 4.1.0 (Maven)      — the S3 API (in-memory "transient" backend) on http://127.0.0.1:${S3_PORT:-4570}
# Usage: scripts/peers.sh start|stop|status. PIDs and logs live in .peers/.
set -euo pipefail
cd "$(dirname "$0")/.."
PEERS=$PWD/.peers
KINESIS_PORT=${KINESIS_PORT:-4568}
S3_PORT=${S3_PORT:-4570}
mkdir -p "$PEERS"

install() {
  if [ ! -f "$PEERS/node_modules/kinesis-local/main.js" ]; then
    echo "installing kinesis-local 0.6.2"
    npm install --no-save --no-audit --no-fund --prefix "$PEERS" kinesis-local@0.6.2 >"$PEERS/npm.log" 2>&1
  fi
  if [ ! -f "$PEERS/s3proxy-4.1.0-jar-with-dependencies.jar" ]; then
    echo "installing S3Proxy 4.1.0"
    mvn -B -q dependency:copy -Dartifact=org.gaul:s3proxy:4.1.0:jar:jar-with-dependencies \
      -DoutputDirectory="$PEERS" >"$PEERS/mvn.log" 2>&1
  fi
}

wait_port() { # name port
  for _ in $(seq 1 120); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then echo "$1 is up on 127.0.0.1:$2"; return 0; fi
    sleep 0.5
  done
  echo "$1 did not start on port $2; see $PEERS/$1.log" >&2
  return 1
}

start() {
  install
  if [ ! -f "$PEERS/kinesis.pid" ] || ! kill -0 "$(cat "$PEERS/kinesis.pid")" 2>/dev/null; then
    KINESIS_MOCK_CERT_PATH="$PEERS/node_modules/kinesis-local/server.json" \
    KINESIS_MOCK_PLAIN_PORT=$KINESIS_PORT KINESIS_MOCK_TLS_PORT=$((KINESIS_PORT + 1)) SHARD_LIMIT=100 \
    CREATE_STREAM_DURATION=0ms DELETE_STREAM_DURATION=0ms SPLIT_SHARD_DURATION=0ms \
    MERGE_SHARDS_DURATION=0ms UPDATE_SHARD_COUNT_DURATION=0ms LOG_LEVEL=WARN \
      nohup node "$PEERS/node_modules/kinesis-local/main.js" >"$PEERS/kinesis.log" 2>&1 &
    echo $! >"$PEERS/kinesis.pid"
  fi
  if [ ! -f "$PEERS/s3proxy.pid" ] || ! kill -0 "$(cat "$PEERS/s3proxy.pid")" 2>/dev/null; then
    cat >"$PEERS/s3proxy.conf" <<CONF
s3proxy.endpoint=http://127.0.0.1:$S3_PORT
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=test
s3proxy.credential=test
s3proxy.ignore-unknown-headers=true
jclouds.provider=transient
CONF
    nohup java -Xmx512m -jar "$PEERS/s3proxy-4.1.0-jar-with-dependencies.jar" --properties "$PEERS/s3proxy.conf" \
      >"$PEERS/s3proxy.log" 2>&1 &
    echo $! >"$PEERS/s3proxy.pid"
  fi
  wait_port kinesis "$KINESIS_PORT"
  wait_port s3proxy "$S3_PORT"
}

stop() {
  for p in kinesis s3proxy; do
    if [ -f "$PEERS/$p.pid" ]; then
      pid=$(cat "$PEERS/$p.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -9 "$pid" 2>/dev/null || true   # kinesis-local may ignore SIGTERM
      rm -f "$PEERS/$p.pid"
    fi
  done
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  status) for p in kinesis s3proxy; do [ -f "$PEERS/$p.pid" ] && kill -0 "$(cat "$PEERS/$p.pid")" 2>/dev/null \
            && echo "$p running" || echo "$p stopped"; done ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
