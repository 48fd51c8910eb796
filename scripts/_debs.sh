# shellcheck shell=bash
# Sourced by scripts/test.sh: ensure_debs TIER...
# Installs (as root, with apt-get) the Debian packages that the named test tiers need and that
# are missing, each without its recommendations: only what the tests use.
#   browser  chromium (Debian's build, driven by Playwright) and fonts-liberation (the fonts
#            the layout checks and screenshots are measured with)
#   server   nginx-light (the reverse proxy test and the deployment files' test)
#   image    podman runc netavark aardvark-dns iptables mmdebstrap (tests/test_image.py: the
#            Dockerfile and compose.yaml run by podman on base images made by mmdebstrap;
#            runc because crun 1.8 refuses this machine's hybrid cgroups)
#   unit, sim, cluster: nothing
# "all" names every tier.  Not root: nothing is installed, and the tests that need a missing
# program fail saying what to install.

debs_for_tiers() {
    local tier
    for tier in "$@"; do
        case "$tier" in
            all) debs_for_tiers browser server image ;;
            browser) printf '%s\n' chromium fonts-liberation ;;
            server) printf '%s\n' nginx-light ;;
            image) printf '%s\n' podman runc netavark aardvark-dns iptables mmdebstrap ;;
        esac
    done
}

ensure_debs() {
    local pkg missing=()
    while read -r pkg; do
        [[ -n $pkg ]] || continue
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing+=("$pkg")
    done < <(debs_for_tiers "$@" | sort -u)
    [[ ${#missing[@]} -gt 0 ]] || return 0
    if [[ $(id -u) -ne 0 ]]; then
        echo "warning: not root, so not installing Debian's ${missing[*]}" >&2
        return 0
    fi
    echo "==> installing Debian's ${missing[*]} (no recommended packages)" >&2
    apt-get update -qq
    # No service is started by the install (policy-rc.d 101): the tests start their own nginx.
    local policy=${POLICY_RC:-/usr/sbin/policy-rc.d} made_policy=0  # POLICY_RC: for its test
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made_policy=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    if [[ $made_policy -eq 1 ]]; then rm -f "$policy"; fi
}
