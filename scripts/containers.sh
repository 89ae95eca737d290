#!/usr/bin/env bash
# The services' container images, built and run on this machine: no Docker daemon, no registry on the internet
# (README "Container images"). Steps, each skipped when already done:
#   1. podman, runc, debootstrap and Debian's docker-registry (apt-get);
#   2. a registry on 127.0.0.1:5000 (deploy/podman/registry.yml), its storage in .peers/images/registry;
#   3. the base image, streamtables/debian-jre17:bookworm: a Debian root filesystem with openjdk-17-jre-headless
#      (debootstrap, once), imported into podman and pushed to that registry (a few seconds);
#   4. each service's JVM image (control plane, four stages, all-in-one) built by Jib on that base and pushed; the
#      all-in-one image started on its own (live, its console served, its data written as user 185);
#   5. (test) the deployment files run from those images by podman: DeploymentFilesIT with -Dstages.images (compose's
#      settings with the commit stage scaled to two, the Kubernetes files' settings, and the Kubernetes manifests
#      themselves played by `podman kube play`; each time records delivered exactly once, read back from the table).
# Usage: scripts/containers.sh [images|test]   (both when no argument). podman reads deploy/podman/containers.conf:
# this machine's cgroups v1 in hybrid mode and refused rlimits need runc, cgroupfs and no default ulimits.
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

packages() {
  local missing=()
  for tool in podman:podman runc:runc debootstrap:debootstrap docker-registry:docker-registry; do
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
  step "starting a registry on $REGISTRY (log: .peers/images/registry.log)"
  mkdir -p "$STORE/registry"
  REGISTRY_STORAGE_FILESYSTEM_ROOTDIRECTORY=$STORE/registry \
    nohup docker-registry serve deploy/podman/registry.yml >"$STORE/registry.log" 2>&1 &
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
  ./mvnw -B -q install -DskipTests -pl "$MODULES" -am \
    -Dquarkus.container-image.build=true -Dquarkus.container-image.push=true \
    -Dquarkus.container-image.registry="$REGISTRY" -Dquarkus.container-image.insecure=true \
    -Dquarkus.jib.base-jvm-image="$BASE"
  for module in ${MODULES//,/ }; do
    image=$REGISTRY/streamtables/${module#deploy/}:jvm
    podman pull -q "$image" >/dev/null
    echo "$image: $(podman image inspect "$image" --format '{{.Size}} bytes, entry point {{.Config.Entrypoint}}')"
  done
}

# The all-in-one image on its own: it starts as user 185, writes its SQLite data in its working directory, answers
# liveness and serves the console (no peers: readiness is printed, not required).
all_in_one() {
  step "starting the all-in-one image"
  local image=$REGISTRY/streamtables/all-in-one:jvm management=http://127.0.0.1:19000
  podman run -d --rm --name st-all-in-one --network=host -e QUARKUS_HTTP_PORT=18080 -e QUARKUS_MANAGEMENT_PORT=19000 \
    -e DELIVERY_AUTH_PRINCIPALS_SERVICE_ACCESS_KEY_ID=AKIDCONTAINERSCHECK \
    -e DELIVERY_AUTH_PRINCIPALS_SERVICE_SECRET_ACCESS_KEY=containers-check-secret \
    -e DELIVERY_AUTH_PRINCIPALS_SERVICE_ACCOUNT_ID=111111111111 "$image" >/dev/null
  trap 'podman rm -f st-all-in-one >/dev/null 2>&1 || true' RETURN
  for _ in $(seq 1 120); do curl -sf "$management/q/health/live" >/dev/null && break; sleep 1; done
  curl -sf "$management/q/health/live" >/dev/null || { podman logs --tail 30 st-all-in-one; exit 1; }
  podman logs st-all-in-one 2>&1 | grep -m1 "started in"
  echo "user $(podman exec st-all-in-one id -u), data: $(podman exec st-all-in-one ls data | tr '\n' ' ')"
  echo "console: $(curl -s -o /dev/null -w '%{http_code}' "$management/console")," \
    "readiness: $(curl -s "$management/q/health/ready" | tr -d '\n' | cut -c1-200)"
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$management/console")" = 200 ]
  podman stop -t 20 st-all-in-one >/dev/null
}

containers_test() {
  step "running the deployment files from the images (peers: scripts/peers.sh)"
  scripts/peers.sh start
  trap 'scripts/peers.sh stop' EXIT
  ./mvnw -B verify -pl deploy/distributed -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test=DeploymentFilesIT -Dstages.images="$REGISTRY/streamtables"
}

packages
mkdir -p "$STORE"
registry
case "${1:-all}" in
  images) base; images; all_in_one ;;
  test) containers_test ;;
  all) base; images; all_in_one; containers_test ;;
  *) echo "usage: $0 [images|test]"; exit 2 ;;
esac
