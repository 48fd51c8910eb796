"""Hypothesis profiles, chosen by the HYPOTHESIS_PROFILE environment variable.

- ``dev`` (the default): Hypothesis's own defaults (100 examples).
- ``ci``: the same sizes, derandomized, so a CI run is repeatable.
- ``thorough``: ten times the examples, for a long local hunt.

Tests that size themselves relative to the profile (``tests/engine/test_properties.py``) read
``settings.default.max_examples``.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("dev")
settings.register_profile("ci", derandomize=True)
settings.register_profile("thorough", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
