#!/usr/bin/env bash
# Sets up .venv with the runtime lock and starts Facedown.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/_venv.sh
source scripts/_venv.sh

ensure_venv requirements/run.txt
exec .venv/bin/facedown play "$@"
