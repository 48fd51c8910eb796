#!/usr/bin/env bash
# Sets up .venv and runs every check: registry-host check, ruff, mypy, the web client's checks
# and unit tests (svelte-check, vitest) and build, then pytest (browser tests included).
# Extra arguments are passed to pytest, e.g. ./scripts/test.sh -k engine
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/_venv.sh
source scripts/_venv.sh
# shellcheck source=scripts/_web.sh
source scripts/_web.sh

ensure_venv requirements/dev.txt
export PATH="$PWD/.venv/bin:$PATH"

echo "==> checking tracked files for package registry host names"
# Host names are assembled from pieces so this script does not match itself.
hosts=()
for part in "pypi" "files.pythonhosted" "registry.npmjs" "deb.debian" "security.debian"; do
    hosts+=(-e "$part.org")
done
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    found="$(git ls-files -z | xargs -0 -r grep -n -I -F "${hosts[@]}" -- || true)"
    if [[ -n "$found" ]]; then
        printf '%s\n' "$found" >&2
        echo "error: tracked files above name a package registry host" >&2
        exit 1
    fi
else
    echo "    (not a git work tree; skipped)"
fi

echo "==> ruff check"
ruff check .
echo "==> ruff format --check"
ruff format --check .
echo "==> mypy"
mypy
# The browser tests drive Debian's Chromium (never a downloaded browser build); the deployment
# test puts the server behind Debian's nginx. Both from Debian's packages, installed once.
# The image test (tests/test_image.py) builds the Dockerfile and runs it and compose.yaml with
# Debian's podman on base images made by mmdebstrap (scripts/image.sh): runc (crun 1.8 refuses
# this machine's hybrid cgroups), netavark, aardvark-dns and iptables (compose's network and
# its names); without their recommendations (rootless podman's helpers, buildah).
debs=()
[[ -x /usr/bin/chromium ]] || debs+=(chromium)
[[ -x /usr/sbin/nginx ]] || debs+=(nginx-light)
containers=()
for pkg in podman runc netavark aardvark-dns iptables mmdebstrap; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || containers+=("$pkg")
done
if [[ ${#debs[@]} -gt 0 || ${#containers[@]} -gt 0 ]] && [[ $(id -u) -eq 0 ]]; then
    echo "==> installing Debian's ${debs[*]} ${containers[*]} for the browser, deployment and image tests"
    apt-get update -qq
    # No service is started by the install (policy-rc.d 101): the tests start their own nginx.
    policy=/usr/sbin/policy-rc.d
    made_policy=0
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made_policy=1
    fi
    if [[ ${#debs[@]} -gt 0 ]]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${debs[@]}" >/dev/null
    fi
    if [[ ${#containers[@]} -gt 0 ]]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${containers[@]}" >/dev/null
    fi
    if [[ $made_policy -eq 1 ]]; then rm -f "$policy"; fi
fi

echo "==> web client: packages (npm ci when the lock changed), svelte-check, vitest, build"
ensure_web_deps
(cd web && npm run check && npm test)
ensure_web_build

echo "==> the batch's numba kernels (compiled once into their cache, for every pytest worker)"
python -m facedown.batch.compile
echo "==> pytest"
# --dist loadgroup: the tests marked xdist_group (the image test: one build) share a worker.
exec pytest -n auto --dist loadgroup "$@"
