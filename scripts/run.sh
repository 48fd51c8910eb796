#!/usr/bin/env bash
# Sets up .venv with the runtime lock, builds the web client when web/ changed, and starts
# the server (`facedown serve`: http://127.0.0.1:8000/). Arguments go to `facedown serve`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/_venv.sh
source scripts/_venv.sh
# shellcheck source=scripts/_web.sh
source scripts/_web.sh

ensure_venv requirements/run.txt
ensure_web_build
exec .venv/bin/facedown serve "$@"
