#!/usr/bin/env bash
# Hunts flaky unit tests: runs the unit tests of every module (or of the modules given) again and again while busy
# threads load the machine's cores, keeps each run's surefire reports, and counts every test that failed at least
# once. A test that passes on an idle machine and fails here waits on time or on another thread; fix it, then run
# this again.
# Usage: scripts/flaky-hunt.sh [--runs N] [--burners N] [--modules a,b] [--fork-timeout S] [--out DIR] [-- extra Maven
#   arguments]
#   --runs 20 (default), --burners 2 (busy threads, one per core of the machines here), --out target/flaky-hunt,
#   --fork-timeout 1200: a module's test JVM still running after S seconds is killed, and the class it was running
#   counts as hung (a test that hangs, as one did for 12 minutes, would otherwise stall the hunt; the module's classes
#   after it do not run in that run)
# The peers the tests use must answer (scripts/peers.sh start); PostgreSQL on 127.0.0.1:5432 when it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=20
burners=2
modules=""
fork_timeout=1200
out=target/flaky-hunt
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --burners) burners=$2; shift 2 ;;
    --modules) modules=$2; shift 2 ;;
    --fork-timeout) fork_timeout=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
# what the unit tests call besides the peers (ApiShapesTest runs the JavaScript SDK, AlertRulesTest promtool), as
# scripts/test.sh installs it: without, a fresh clone's every run fails the same way
scripts/clients/install.sh >"$out/install.log" 2>&1
scripts/tools.sh >>"$out/install.log" 2>&1

burning=()
stop_burners() { [ ${#burning[@]} -gt 0 ] && kill "${burning[@]}" 2>/dev/null || true; }
trap stop_burners EXIT
for _ in $(seq 1 "$burners"); do
  (while :; do :; done) &
  burning+=($!)
done

# the reactor resolves the modules from each other's target/ (nothing is installed); --modules adds the modules they
# need, whose tests run too
for run in $(seq 1 "$runs"); do
  started=$(date +%s)
  status=passed
  # a JVM killed for hanging writes no report: none of an earlier run's may stand in for it
  find . -path ./"$out" -prune -o -type d -path '*/target/surefire-reports' -print0 | xargs -0 -r rm -rf
  ./mvnw -B test ${modules:+-pl "$modules" -am} -Dmaven.test.failure.ignore=true \
    -Dsurefire.timeout="$fork_timeout" "$@" >"$out/run-$run.log" 2>&1 || status="failed (Maven exit $?)"
  mkdir -p "$out/run-$run"
  find . -path ./"$out" -prune -o -path '*/target/surefire-reports/*.txt' -print0 \
    | xargs -0 -r cp --parents -t "$out/run-$run" 2>/dev/null || true
  failed=$( (grep -hE '^Tests run:.*(Failures: [1-9]|Errors: [1-9])' -r "$out/run-$run" 2>/dev/null || true) | wc -l)
  [ "$failed" -gt 0 ] && status="$failed classes with failures"
  # the class each killed JVM was running: the last one its module started before surefire's timeout message
  awk '/Running io\.streamtables\./ {class = $NF} /There was a timeout in the fork/ {print class " <<< HUNG!"}' \
    "$out/run-$run.log" >"$out/run-$run/hung.txt"
  if [ -s "$out/run-$run/hung.txt" ]; then
    status="$status; a test JVM hung past $fork_timeout s in $(sed 's/ <<< HUNG!//' "$out/run-$run/hung.txt" | paste -sd,)"
  fi
  echo "run $run: $status in $(( $(date +%s) - started )) s" | tee -a "$out/summary.txt"
done
echo "tests that failed or hung at least once, and how often:" | tee -a "$out/summary.txt"
{ grep -rhE '<<< (FAILURE|ERROR|HUNG)!' "$out"/run-*/ 2>/dev/null || true; } | sed -E 's/ -- Time elapsed.*//' | sort \
  | uniq -c | sort -rn | tee -a "$out/summary.txt"
