#!/usr/bin/env bash
# Regenerates the hashed lock files from requirements/*.in (run after editing an .in file).
# The locks record no index or registry address: they are portable and checked by test.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tools=/tmp/facedown-piptools
if [[ ! -x $tools/bin/pip-compile ]]; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install --quiet pip-tools==7.6.2
fi
for name in run dev; do
    "$tools/bin/pip-compile" --quiet --allow-unsafe --generate-hashes --strip-extras \
        --no-emit-index-url --no-emit-trusted-host --no-emit-find-links \
        --output-file="requirements/$name.txt" "requirements/$name.in"
done
