"""The quick-start scripts skip work already done: the test command's venv serves the run command
(one venv holds both locks), and npm runs only when the web client's lock or sources changed.

The scripts' functions (scripts/_venv.sh, scripts/_web.sh) run in a copy of their folder layout;
``python`` and ``npm`` there are stand-ins that write down each call (pip and npm themselves
would install real packages from the registries).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A venv's python that answers ``-c ''`` and writes down every other call.
PYTHON = """#!/bin/sh
[ "$1" = "-c" ] && exit 0
echo "python $*" >> "$CALLS"
"""
# npm: ``ci`` makes node_modules, ``run build`` makes the built client.
NPM = """#!/bin/sh
echo "npm $*" >> "$CALLS"
case "$*" in
  ci*) mkdir -p node_modules ;;
  "run build") mkdir -p ../facedown/web_dist && echo built > ../facedown/web_dist/index.html ;;
esac
"""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    for name in ("_venv.sh", "_web.sh", "_debs.sh"):
        shutil.copy(ROOT / "scripts" / name, root / "scripts" / name)
    (root / "requirements").mkdir()
    (root / "requirements" / "run.txt").write_text("fastapi==1 --hash=sha256:aa\n")
    (root / "requirements" / "dev.txt").write_text(
        "fastapi==1 --hash=sha256:aa\npytest==1 --hash=sha256:bb\n"
    )
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    venv = root / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").write_text(PYTHON)
    (venv / "python").chmod(0o755)
    (root / "web" / "src").mkdir(parents=True)
    (root / "web" / "package-lock.json").write_text('{"lockfileVersion": 3}\n')
    (root / "web" / "src" / "main.ts").write_text("export {};\n")
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "npm").write_text(NPM)
    (tools / "npm").chmod(0o755)
    return root


def calls(checkout: Path, script: str) -> list[str]:
    """Run ``script`` (bash, with the helpers sourced) in the checkout: the calls it made."""
    log = checkout.parent / "calls.txt"
    log.write_text("")
    env = {
        **os.environ,
        "CALLS": str(log),
        "PATH": f"{checkout.parent / 'tools'}:{os.environ['PATH']}",
        "POLICY_RC": str(checkout.parent / "policy-rc.d"),
    }
    source = "source scripts/_venv.sh; source scripts/_web.sh; source scripts/_debs.sh; "
    source += "set -euo pipefail; "
    bash = shutil.which("bash")
    assert bash is not None
    subprocess.run(
        [bash, "-c", source + script], cwd=checkout, env=env, check=True, capture_output=True
    )
    return log.read_text().splitlines()


def test_the_run_command_after_the_test_command_installs_nothing(checkout: Path) -> None:
    test_sh = calls(checkout, "ensure_venv requirements/dev.txt")
    assert [c.split()[:4] for c in test_sh] == [
        ["python", "-m", "pip", "install"],
        ["python", "-m", "pip", "install"],
    ]
    assert "-r requirements/dev.txt" in test_sh[0]
    # run.sh, then test.sh again, then run.sh: nothing to install, the locks never swap.
    for lock in ("run", "dev", "run"):
        assert calls(checkout, f"ensure_venv requirements/{lock}.txt") == [], lock
    # A changed lock is installed once.
    with (checkout / "requirements" / "dev.txt").open("a") as f:
        f.write("mypy==1 --hash=sha256:cc\n")
    assert len(calls(checkout, "ensure_venv requirements/dev.txt")) == 2
    assert calls(checkout, "ensure_venv requirements/run.txt") == []


def test_a_run_alone_installs_the_runtime_lock_once(checkout: Path) -> None:
    first = calls(checkout, "ensure_venv requirements/run.txt")
    assert "-r requirements/run.txt" in first[0]
    assert calls(checkout, "ensure_venv requirements/run.txt") == []


def test_npm_runs_only_when_the_web_client_changed(checkout: Path) -> None:
    assert calls(checkout, "ensure_web_build") == ["npm ci --no-audit --no-fund", "npm run build"]
    assert calls(checkout, "ensure_web_build") == []
    assert calls(checkout, "ensure_web_deps") == []
    # A source changed: built again, the packages left as they are.
    (checkout / "web" / "src" / "main.ts").write_text("export const x = 1;\n")
    assert calls(checkout, "ensure_web_build") == ["npm run build"]
    # The lock changed: the packages are installed again.
    (checkout / "web" / "package-lock.json").write_text('{"lockfileVersion": 3, "x": 1}\n')
    assert calls(checkout, "ensure_web_build") == ["npm ci --no-audit --no-fund", "npm run build"]


# Debian's tools: nothing is installed but what INSTALLED lists; apt-get writes down its calls.
DPKG_QUERY = """#!/bin/sh
for pkg in $INSTALLED; do [ "$pkg" = "$3" ] && printf 'install ok installed' && exit 0; done
exit 1
"""
APT_GET = """#!/bin/sh
echo "apt-get $*" >> "$CALLS"
"""
ID = """#!/bin/sh
echo 0
"""


def test_debian_packages_per_tier_without_recommendations(
    checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = checkout.parent / "tools"
    for name, text in (("dpkg-query", DPKG_QUERY), ("apt-get", APT_GET), ("id", ID)):
        (tools / name).write_text(text)
        (tools / name).chmod(0o755)
    monkeypatch.setenv("INSTALLED", "fonts-liberation nginx-light")
    # The quick tier installs nothing; the browser tier only the browser, without recommends.
    assert calls(checkout, "ensure_debs unit") == []
    assert calls(checkout, "ensure_debs unit server") == []
    browser = calls(checkout, "ensure_debs browser")
    assert browser[0] == "apt-get update -qq"
    assert browser[1].split() == [
        "apt-get",
        "install",
        "-y",
        "-qq",
        "--no-install-recommends",
        "chromium",
    ]
    # The whole suite: every missing package, once, still without recommends.
    everything = calls(checkout, "ensure_debs all")[1].split()
    assert everything[:5] == ["apt-get", "install", "-y", "-qq", "--no-install-recommends"]
    assert sorted(everything[5:]) == sorted(
        ["chromium", "podman", "runc", "netavark", "aardvark-dns", "iptables", "mmdebstrap"]
    )
    assert not (checkout.parent / "policy-rc.d").exists()  # the install's own, removed after


def test_every_test_file_has_one_tier_and_the_quick_one_plays_no_server() -> None:
    from .conftest import _CLUSTER, _SERVER, TIERS, tier_of

    files = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py"))
    # A file named by its path that moved would fall back silently to its folder's tier.
    assert not (_CLUSTER | _SERVER) - set(files), "tests/conftest.py names a file not there"
    tiers = {path: tier_of(path) for path in files}
    assert set(tiers.values()) == set(TIERS)
    assert tiers["tests/engine/test_properties.py"] == "unit"
    assert tiers["tests/batch/test_policies.py"] == "sim"
    assert tiers["tests/server/play/test_catch_up.py"] == "server"
    assert tiers["tests/server/cluster/test_cluster.py"] == "cluster"
    assert tiers["tests/web/test_browser.py"] == "browser"
    assert tiers["tests/test_image.py"] == "image"
    quick = [path for path, tier in tiers.items() if tier == "unit"]
    assert not [path for path in quick if path.startswith(("tests/server/", "tests/web/"))]
