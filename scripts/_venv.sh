# shellcheck shell=bash
# Sourced by scripts/test.sh and scripts/run.sh: ensure_venv LOCKFILE
# Creates .venv (if missing or broken), installs LOCKFILE with --require-hashes and
# the project in editable mode, and skips both when nothing they depend on changed.

ensure_venv() {
    local lock="$1"
    local py
    py="$(command -v python3.11 || command -v python3)"

    if [[ -d .venv ]] && ! .venv/bin/python -c '' 2>/dev/null; then
        echo "==> .venv is broken; recreating" >&2
        rm -rf .venv
    fi
    if [[ ! -d .venv ]]; then
        echo "==> creating .venv with $py" >&2
        "$py" -m venv .venv
    fi

    local want have="" dev=requirements/dev.txt
    want="$(cat "$lock" pyproject.toml | sha256sum | cut -d' ' -f1) $lock"
    [[ -f .venv/.installed-hash ]] && have="$(cat .venv/.installed-hash)"
    # The dev lock holds the runtime lock (dev.in starts with -r run.in): a venv set up by the
    # test command serves the product as it is, so run.sh after test.sh installs nothing.
    if [[ "$lock" != "$dev" && -f "$dev" ]] &&
        [[ "$have" == "$(cat "$dev" pyproject.toml | sha256sum | cut -d' ' -f1) $dev" ]]; then
        return 0
    fi
    if [[ "$want" != "$have" ]]; then
        echo "==> installing $lock" >&2
        .venv/bin/python -m pip install --quiet --require-hashes -r "$lock"
        .venv/bin/python -m pip install --quiet --no-build-isolation --no-deps -e .
        printf '%s\n' "$want" > .venv/.installed-hash
    fi
}
