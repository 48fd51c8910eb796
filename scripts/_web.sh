# shellcheck shell=bash
# Sourced by scripts/run.sh and scripts/test.sh: ensure_web_build
# Builds the web client (web/) into facedown/web_dist/ when its sources or lock changed since
# the last build; installs its packages with `npm ci` from web/package-lock.json when needed.

web_sources_hash() {
    (
        cd web &&
            find . -path ./node_modules -prune -o -type f -print | LC_ALL=C sort |
            xargs -d '\n' sha256sum | sha256sum | cut -d' ' -f1
    )
}

ensure_web_deps() {
    local want have=""
    want="$(sha256sum web/package-lock.json | cut -d' ' -f1)"
    [[ -f web/node_modules/.lock-hash ]] && have="$(cat web/node_modules/.lock-hash)"
    if [[ "$want" != "$have" ]]; then
        echo "==> npm ci (web/)" >&2
        (cd web && npm ci --no-audit --no-fund)
        printf '%s\n' "$want" > web/node_modules/.lock-hash
    fi
}

ensure_web_build() {
    local stamp=facedown/web_dist/.source-hash want have=""
    if ! command -v npm >/dev/null 2>&1; then
        if [[ -f facedown/web_dist/index.html ]]; then
            echo "warning: npm is missing; serving the web client built before" >&2
            return 0
        fi
        echo "error: npm (Node 20) is needed to build the web client in web/" >&2
        return 1
    fi
    want="$(web_sources_hash)"
    [[ -f $stamp ]] && have="$(cat "$stamp")"
    if [[ "$want" != "$have" || ! -f facedown/web_dist/index.html ]]; then
        ensure_web_deps
        echo "==> building the web client" >&2
        (cd web && npm run build)
        printf '%s\n' "$want" > "$stamp"
    fi
}
