"""Rulesets shared by the tables of equal rules.

A ruleset is immutable, so the tables whose records hold equal rules share one, read and
checked once, and the engine's work on it is done once too (its fingerprint, its deck, at each
match's start otherwise).  Bounded: many custom rulesets empty it.
"""

from __future__ import annotations

import json
from typing import Any

from ...engine import Ruleset

_RULESETS: dict[str, Ruleset] = {}
RULESETS_KEPT = 256


def ruleset_of(data: dict[str, Any]) -> Ruleset:
    """``Ruleset.from_json(data)``, shared by the tables of equal rules."""
    try:
        key = json.dumps(data, sort_keys=True)
    except (TypeError, ValueError):  # nothing a record holds: read, not kept
        return Ruleset.from_json(data)
    rules = _RULESETS.get(key)
    if rules is None:
        rules = Ruleset.from_json(data)  # RulesetError: nothing kept
        if len(_RULESETS) >= RULESETS_KEPT:
            _RULESETS.clear()
        _RULESETS[key] = rules
    return rules
