#!/usr/bin/env bash
# The services' container images, built and run on this machine without a Docker daemon or a reachable container
# registry (docs/OPERATING.md "Container images"); needs root, amd64 and Debian's package mirror. Steps, each skipped when done:
#   1. podman, runc, catatonit (podman's pause image for `kube play`), debootstrap and Debian's docker-registry
#      (apt-get);
#   2. a registry on 127.0.0.1:5000 (deploy/podman/registry.yml), its storage in .peers/images/registry;
#   3. the base image, streamtables/debian-jre17:bookworm: a Debian root filesystem with openjdk-17-jre-headless
#      (debootstrap, once), imported into podman and pushed to that registry (a few seconds);
#   4. each service's JVM image (control plane, four stages, all-in-one) built by Jib on that base and pushed; the
#      all-in-one image started on its own (live, its console served, its data written as user 185);
#   5. (test) the deployment files run from those images: DeploymentFilesIT with -Dstages.images (compose's settings
#      with the commit stage scaled to two and the Kubernetes files' settings, each service's container started by
#      Testcontainers through podman's Docker-compatible API; the Kubernetes manifests themselves played by
#      `podman kube play`; each time records delivered exactly once, read back from the table), and
#      ServiceContainerIT (one image started by Testcontainers on its own).
# Usage: scripts/containers.sh [images|test|stop]   (images then test when no argument; stop: the registry).
# CI (.ci/run) splits it so that the images come from the build that runs the tests, not from a second one:
#   scripts/containers.sh prepare              steps 1-3;
#   scripts/test.sh $(scripts/containers.sh jib-options)   the build, each service's image built and pushed as it
#                                              is packaged (Jib adds no time measurable here to a package);
#   scripts/containers.sh built                the images pulled, the all-in-one started, and step 5 on the
#                                              packages that build left (no second Quarkus build).
# podman reads deploy/podman/containers.conf: this machine's cgroups v1 in hybrid mode and refused rlimits need runc,
# cgroupfs and no default ulimits.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
REGISTRY=127.0.0.1:5000
BASE=$REGISTRY/streamtables/debian-jre17:bookworm
STORE=$ROOT/.peers/images
export CONTAINERS_CONF=$ROOT/deploy/podman/containers.conf
export CONTAINERS_REGISTRIES_CONF=$ROOT/deploy/podman/registries.conf
MODULES=control-plane,ingest-service,convert-service,commit-service,dlq-service,deploy/all-in-one
step() { echo "== $*"; }
# each step's time, printed when it ends ("== <step>: N s")
timed() { local t=$SECONDS; "$@"; echo "== $1: $((SECONDS - t)) s"; }

# Jib's options: build and push each service's image on the base, to the local registry
# (and DeploymentFilesIT left to step 5: on the jars too it would only repeat it)
JIB_OPTIONS="-Dquarkus.container-image.build=true -Dquarkus.container-image.push=true
  -Dquarkus.container-image.registry=$REGISTRY -Dquarkus.container-image.insecure=true -Dquarkus.jib.base-jvm-image=$BASE
  -Dit.deployment-files.on-images=true"

case "${1:-all}" in
  images|test|all|prepare|built) ;;
  jib-options) echo $JIB_OPTIONS; exit 0 ;;
  stop) if [ -f "$STORE/registry.pid" ] && kill "$(cat "$STORE/registry.pid")" 2>/dev/null; then echo "registry stopped"; fi
        rm -f "$STORE/registry.pid"; exit 0 ;;
  *) echo "usage: $0 [images|test|stop|prepare|jib-options|built]"; exit 2 ;;
esac

# What this script starts goes when it ends, however it ends: the containers, the pods and secret of the Kubernetes
# test (left by a killed test JVM), podman's API service, the peers it started (not those that already answered).
peers_started=()
podman_service=
cleanup() {
  if [ -n "$podman_service" ]; then kill "$podman_service" 2>/dev/null || true; fi
  # the all-in-one's and the tests' containers (named st-...; a killed test JVM leaves its own)
  podman ps -aq --filter name='^st-' | xargs -r podman rm -f >/dev/null 2>&1 || true
  podman pod rm -f control-plane-pod-0 ingest-service-pod-0 convert-service-pod-0 commit-service-pod-0 \
    dlq-service-pod-0 >/dev/null 2>&1 || true
  podman secret rm streamtables-credentials >/dev/null 2>&1 || true
  if [ ${#peers_started[@]} -gt 0 ]; then scripts/peers.sh stop "${peers_started[@]}"; fi
}
trap cleanup EXIT

packages() {
  local missing=()
  for tool in podman:podman runc:runc catatonit:catatonit debootstrap:debootstrap docker-registry:docker-registry; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    step "installing ${missing[*]} (Debian)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
  fi
}

registry() {
  curl -sf "http://$REGISTRY/v2/" >/dev/null && return
  step "starting a registry on $REGISTRY (log: .peers/images/registry.log; scripts/containers.sh stop ends it)"
  mkdir -p "$STORE/registry"
  REGISTRY_STORAGE_FILESYSTEM_ROOTDIRECTORY=$STORE/registry \
    nohup docker-registry serve deploy/podman/registry.yml >"$STORE/registry.log" 2>&1 &
  echo $! >"$STORE/registry.pid"
  for _ in $(seq 1 50); do curl -sf "http://$REGISTRY/v2/" >/dev/null && return; sleep 0.2; done
  echo "the registry did not start:"; cat "$STORE/registry.log"; exit 1
}

base() {
  local rootfs=$STORE/jre-rootfs
  if [ ! -x "$rootfs/usr/lib/jvm/java-17-openjdk-amd64/bin/java" ]; then
    step "debootstrap: Debian bookworm with openjdk-17-jre-headless in $rootfs (about a minute)"
    rm -rf "$rootfs"
    debootstrap --variant=minbase --include=openjdk-17-jre-headless bookworm "$rootfs" http://deb.debian.org/debian \
      >"$STORE/debootstrap.log" 2>&1 || { tail -20 "$STORE/debootstrap.log"; exit 1; }
    # what a runtime image does not need: downloaded packages, package lists, documentation
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/{doc,man,locale}/*
  fi
  step "importing the root filesystem as $BASE and pushing it"
  # PATH in the image: runtimes that do not add a default one (podman kube play) find java by it
  tar -C "$rootfs" -c . | podman import --change 'ENV JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' - "$BASE" >/dev/null
  podman push -q "$BASE" >/dev/null
}

images() {
  step "building the services' images with Jib on $BASE"
  # shellcheck disable=SC2086 # one option a word
  ./mvnw -B -q install -DskipTests -pl "$MODULES" -am $JIB_OPTIONS
  pulled
}

# each image pulled from the registry into podman's store (seconds each: the base's layer is there already)
pulled() {
  for module in ${MODULES//,/ }; do
    image=$REGISTRY/streamtables/${module#deploy/}:jvm
    podman pull -q "$image" >/dev/null
    echo "$image: $(podman image inspect "$image" --format '{{.Size}} bytes, entry point {{.Config.Entrypoint}}')"
  done
}

# The all-in-one image on its own: it starts as user 185, writes its SQLite data in its working directory, answers
# liveness and serves the console (no peers: readiness is printed, not required). On the host's network its
# loopback is the host's, so the management port's default address (127.0.0.1) is reached from here as it is.
all_in_one() {
  step "starting the all-in-one image"
  local image=$REGISTRY/streamtables/all-in-one:jvm management=http://127.0.0.1:19000
  podman run -d --rm --replace --name st-all-in-one --network=host \
    -e QUARKUS_HTTP_PORT=18080 -e QUARKUS_MANAGEMENT_PORT=19000 \
    -e DELIVERY_AUTH_PRINCIPALS_SERVICE_ACCESS_KEY_ID=AKIDCONTAINERSCHECK \
    -e DELIVERY_AUTH_PRINCIPALS_SERVICE_SECRET_ACCESS_KEY=containers-check-secret \
    -e DELIVERY_AUTH_PRINCIPALS_SERVICE_ACCOUNT_ID=111111111111 "$image" >/dev/null
  for _ in $(seq 1 120); do curl -sf "$management/q/health/live" >/dev/null && break; sleep 1; done
  curl -sf "$management/q/health/live" >/dev/null || { podman logs --tail 30 st-all-in-one; exit 1; }
  podman logs st-all-in-one 2>&1 | grep "started in" | head -1 || true
  echo "user $(podman exec st-all-in-one id -u), data: $(podman exec st-all-in-one ls data | tr '\n' ' ')"
  local console
  console=$(curl -s -o /dev/null -w '%{http_code}' "$management/console")
  echo "console: $console, readiness: $(curl -s "$management/q/health/ready" | tr -d '\n' | cut -c1-200)"
  [ "$console" = 200 ] || { echo "the console did not answer 200"; exit 1; }
  podman stop -t 20 st-all-in-one >/dev/null
}

containers_test() {
  step "running the deployment files from the images (peers: scripts/peers.sh, PostgreSQL on 127.0.0.1:5432)"
  if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
  fi
  # the peers that do not answer yet are started here, and stopped at the end
  local peer
  for peer in kinesis:${KINESIS_PORT:-4568} s3proxy:${S3_PORT:-4570} kafka:${KAFKA_PORT:-9092} rest:${REST_CATALOG_PORT:-8181}; do
    (exec 3<>"/dev/tcp/127.0.0.1/${peer#*:}") 2>/dev/null || peers_started+=("${peer%%:*}")
  done
  scripts/peers.sh start
  # podman's Docker-compatible API for Testcontainers (no Ryuk: podman cannot pull its image here, and the tests
  # remove their containers themselves); it reads the same CONTAINERS_CONF and registries.conf
  local socket=/run/podman/podman.sock
  mkdir -p /run/podman
  podman system service --time=0 "unix://$socket" >"$STORE/podman-service.log" 2>&1 &
  podman_service=$!
  for _ in $(seq 1 50); do [ -S "$socket" ] && break; sleep 0.2; done
  [ -S "$socket" ] || { echo "podman's API did not start:"; cat "$STORE/podman-service.log"; exit 1; }
  export DOCKER_HOST=unix://$socket TESTCONTAINERS_RYUK_DISABLED=true
  local reports=deploy/distributed/target/failsafe-reports
  rm -f "$reports"/TEST-io.streamtables.e2e.{DeploymentFilesIT,ServiceContainerIT}.xml
  if [ "${1:-}" = built ]; then
    # the modules it needs from the reactor, as the build left them: compiled, and each service packaged (no second
    # Quarkus build); no other test runs
    ./mvnw -B verify -pl deploy/distributed -am -Dquarkus.build.skip=true -Dtest=none \
      -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
      -Dit.test='DeploymentFilesIT,ServiceContainerIT' -Dstages.images="$REGISTRY/streamtables"
  else
    ./mvnw -B verify -pl deploy/distributed -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
      -Dit.test='DeploymentFilesIT,ServiceContainerIT' -Dstages.images="$REGISTRY/streamtables"
  fi
  # a test that skipped (no PostgreSQL, no images) proves nothing here
  ran "$reports/TEST-io.streamtables.e2e.DeploymentFilesIT.xml" 3
  ran "$reports/TEST-io.streamtables.e2e.ServiceContainerIT.xml" 1
}

# ran <failsafe report> <tests>: that many tests ran, none skipped
ran() {
  grep -q "tests=\"$2\"[^>]*skipped=\"0\"\|skipped=\"0\"[^>]*tests=\"$2\"" "$1" \
    || { echo "$(basename "$1") did not run its $2 tests:"; grep -m1 '<testsuite' "$1"; exit 1; }
}

timed packages
mkdir -p "$STORE"
registry
case "${1:-all}" in
  images) timed base; timed images; timed all_in_one ;;
  test) timed containers_test ;;
  all) timed base; timed images; timed all_in_one; timed containers_test ;;
  prepare) timed base ;;
  built) timed pulled; timed all_in_one; timed containers_test built ;;
esac
