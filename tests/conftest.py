"""Hypothesis profiles, chosen by the HYPOTHESIS_PROFILE environment variable.

- ``dev`` (the default): Hypothesis's own defaults (100 examples).
- ``ci``: the same sizes, derandomized, so a CI run is repeatable.
- ``thorough``: ten times the examples, for a long local hunt.

Tests that size themselves relative to the profile (``tests/engine/test_properties.py``) read
``settings.default.max_examples``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("dev")
settings.register_profile("ci", derandomize=True)
settings.register_profile("thorough", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


# The test tiers (scripts/test.sh --tier NAME runs one): each test's tier follows from where it
# lives, so a new test file needs no marker of its own unless it belongs to another tier.
TIERS = ("unit", "sim", "server", "browser", "cluster", "image")
# Files that need several processes on PostgreSQL and Redis (they skip when those are down),
# named one by one: tests/server/'s folders follow the server's packages, not the tiers (the
# PostgreSQL matches are play's; tests/server/cluster/test_ownership.py, leases in one
# process, is of the server tier, and test_failover.py there marks itself).
_CLUSTER = {
    "tests/server/cluster/test_cluster.py",
    "tests/server/cluster/test_cluster_inprocess.py",
    "tests/server/cluster/test_cluster_node.py",
    "tests/server/cluster/test_cluster_rebalance.py",
    "tests/server/cluster/test_ranked_lease.py",
    "tests/server/cluster/test_relay_unknown_owner.py",
    "tests/server/play/test_postgres.py",
    "tests/store/test_leases.py",
}
# Many games played: the batch simulator's kernels against the engine, the environments, the
# bots' strength ladder (seconds each; the quick tier leaves them out).
_SIM = ("tests/batch/", "tests/rl/", "tests/bots/test_ladder.py", "tests/bots/test_strength.py")
# Outside tests/server/ but a real server (or nginx) all the same.
_SERVER = {"tests/test_deploy_files.py", "tests/test_soak.py"}


def tier_of(path: str) -> str:
    """The tier of the test file at ``path`` (relative to the repository, with slashes)."""
    if path == "tests/test_image.py":
        return "image"
    if path.startswith("tests/web/"):
        return "browser"
    if path in _CLUSTER:
        return "cluster"
    if path.startswith("tests/server/") or path in _SERVER:
        return "server"
    if path.startswith(_SIM):
        return "sim"
    return "unit"


def pytest_configure(config: pytest.Config) -> None:
    for tier in TIERS:
        config.addinivalue_line("markers", f"{tier}: a test of the {tier} tier (tests/conftest.py)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(str(config.rootpath))
    for item in items:
        if any(item.get_closest_marker(tier) for tier in TIERS):
            continue
        path = Path(str(item.path)).relative_to(root).as_posix()
        item.add_marker(getattr(pytest.mark, tier_of(path)))
