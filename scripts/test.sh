#!/usr/bin/env bash
# Sets up .venv and runs every check: registry-host check, ruff, mypy, pytest.
# Extra arguments are passed to pytest, e.g. ./scripts/test.sh -k engine
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/_venv.sh
source scripts/_venv.sh

ensure_venv requirements/dev.txt
export PATH="$PWD/.venv/bin:$PATH"

echo "==> checking tracked files for package registry host names"
# Host names are assembled from pieces so this script does not match itself.
hosts=()
for part in "pypi" "files.pythonhosted" "registry.npmjs"; do
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
echo "==> pytest"
exec pytest -n auto "$@"
