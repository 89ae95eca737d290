#!/usr/bin/env bash
# Dev mode out of the box: starts `./mvnw test-compile quarkus:dev` on dlq-service as a newcomer would (the wrapper brings the
# Maven 3.9 that dev mode needs), renames one of its health checks in the source, and checks that the next request
# is served by the changed code without a restart. Restores the file. Run by .ci/run after the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${DEV_PORT:-18093}
management_port=${DEV_MANAGEMENT_PORT:-18094} # health is on the management interface
file=dlq-service/src/main/java/io/streamtables/dlq/S3Readiness.java
log=$(mktemp /tmp/dev-mode.XXXXXX.log)
cp "$file" "$log.java"
cleanup() {
  cp "$log.java" "$file" && rm -f "$log.java"
  [ -n "${pid:-}" ] && kill -- "-$pid" 2>/dev/null || true
}
trap cleanup EXIT

# a request to the application's port is what makes dev mode look for changes (the management port does not)
checks() {
  curl -s -o /dev/null "http://127.0.0.1:$port/" || true
  curl -s "http://127.0.0.1:$management_port/q/health/ready" || true
}
await() { # a pattern the readiness answer must show, within a time; gives up as soon as dev mode has exited
  for _ in $(seq 1 "$2"); do
    checks | grep -q "$1" && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "dev-mode: ./mvnw quarkus:dev exited before '$1' was served" >&2
      tail -n 40 "$log" >&2
      return 1
    fi
    sleep 1
  done
  echo "dev-mode: no '$1' in /q/health/ready after $2 s; last answer: $(checks)" >&2
  tail -n 40 "$log" >&2
  return 1
}

started=$(date +%s)
# test-compile first, as README says: the test-jar of common's fixtures is found in the reactor only once compiled
setsid ./mvnw -B -pl dlq-service -am test-compile quarkus:dev -Dquarkus.http.port="$port" \
  -Dquarkus.management.port="$management_port" -Ddebug=false \
  -Dquarkus.analytics.disabled=true >"$log" 2>&1 &
pid=$!
await '"name": "s3"' 300
echo "dev-mode: dlq-service served by quarkus:dev in $(( $(date +%s) - started )) s"

sed -i 's/Probe.of("s3",/Probe.of("s3-edited",/' "$file"
edited=$(date +%s)
await '"name": "s3-edited"' 120
grep -q "Restarting quarkus due to changes\|Live reload" "$log" || { echo "dev-mode: no live reload in the log" >&2; exit 1; }
kill -0 "$pid" # the same process: reloaded, not restarted
echo "dev-mode: the edited health check served $(( $(date +%s) - edited )) s after the edit, same process ($pid)"
rm -f "$log"
