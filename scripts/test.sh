#!/usr/bin/env bash
# Sets up .venv and runs every check: registry-host check, ruff, mypy, the web client's checks
# and unit tests (vitest) and build (svelte-check, then vite), then pytest (browser tests included).
# Extra arguments are passed to pytest, e.g. ./scripts/test.sh -k engine
#
# --tier NAME (repeatable) runs only the tests of those tiers (pytest markers, given by each
# test's folder in tests/conftest.py): unit, sim, server, browser, cluster, image.  It skips mypy
# and the web client's checks (the browser tier still builds the client), and installs only
# the Debian packages those tiers need.  ./scripts/test.sh --tier unit is the quick one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/_venv.sh
source scripts/_venv.sh
# shellcheck source=scripts/_web.sh
source scripts/_web.sh
# shellcheck source=scripts/_debs.sh
source scripts/_debs.sh

tiers=()
while [[ ${1:-} == --tier ]]; do
    [[ $# -ge 2 ]] || { echo "error: --tier needs a name: unit, sim, server, browser, cluster, image" >&2; exit 2; }
    case "$2" in
        unit | sim | server | browser | cluster | image) tiers+=("$2") ;;
        *) echo "error: no tier $2: unit, sim, server, browser, cluster, image" >&2; exit 2 ;;
    esac
    shift 2
done
full=0
[[ ${#tiers[@]} -gt 0 ]] || { full=1; tiers=(all); }

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
if [[ $full -eq 1 ]]; then
    echo "==> mypy"
    mypy
fi
ensure_debs "${tiers[@]}"

if [[ $full -eq 1 ]]; then
    echo "==> web client: packages (npm ci when the lock changed), vitest, build (its type check first)"
    ensure_web_deps
    (cd web && npm test)
    ensure_web_build
elif [[ " ${tiers[*]} " == *" browser "* ]]; then
    echo "==> web client: build (when its sources changed)"
    ensure_web_build
fi

echo "==> the batch's numba kernels (compiled once into their cache, for every pytest worker)"
python -m facedown.batch.compile
markers=()
if [[ $full -eq 0 ]]; then
    expr="${tiers[0]}"
    for tier in "${tiers[@]:1}"; do expr="$expr or $tier"; done
    markers=(-m "$expr")
fi
echo "==> pytest ${markers[*]}"
# --dist loadgroup: the tests marked xdist_group (the image test: one build) share a worker.
exec pytest -n auto --dist loadgroup "${markers[@]}" "$@"
