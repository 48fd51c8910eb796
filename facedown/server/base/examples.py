"""Example request bodies: the OpenAPI description shows one for every POST (and PUT) with a body.

Each example is a body the server accepts as it stands (tests/server/api/test_api_examples.py posts
every one of them to a real app), so a client author can start from it.
"""

from __future__ import annotations

from typing import Any

from fastapi import Body
from fastapi.openapi.models import Example

Examples = dict[str, Example]  # by key: one example's summary and request body


def _examples(**bodies: tuple[str, object]) -> Examples:
    """Each keyword's (summary, body) as an OpenAPI example."""
    return {key: Example(summary=summary, value=value) for key, (summary, value) in bodies.items()}


CREATE_TABLE = _examples(
    live_with_bots=(
        "A Live table of 4: you, two bots and a seat kept open for a friend",
        {"preset": "cabo", "seats": 4, "name": "Ana", "bots": ["medium", "hard", None]},
    ),
    turn_based=(
        "A turn-based Kivo table of 3 with 8 hours for each move",
        {"preset": "kivo", "seats": 3, "name": "Ana", "mode": "turn_based", "move_deadline": 28800},
    ),
    live_with_options=(
        "A Live Boyo table of 2 with a ruleset change and longer turns",
        {"preset": "boyo", "seats": 2, "name": "Ana", "options": {"rounds": 3}, "turn_seconds": 90},
    ),
)
JOIN_TABLE = _examples(join=("Take the first open seat as Bo", {"name": "Bo"}))
CREATE_PASS_PLAY = _examples(
    three_players=(
        "Three players around one device",
        {"preset": "cabo", "names": ["Ana", "Bo", "Cy"]},
    ),
)
SIGN_UP = _examples(
    sign_up=("A new account", {"name": "ana_k", "password": "correct horse battery"})
)
SIGN_IN = _examples(
    sign_in=("Sign in", {"name": "ana_k", "password": "correct horse battery"}),
)
CHANGE_PASSWORD = _examples(
    change=(
        "A new password",
        {"current_password": "correct horse battery", "new_password": "staple of the month"},
    ),
)
SET_EMAIL = _examples(
    address=(
        "Turn e-mails in English to this address",
        {"email": "ana@example.org", "language": "en"},
    ),
)
JOIN_QUEUE = _examples(
    join=("Wait for a ranked Cabo match of 2", {"preset": "cabo", "players": 2}),
)
CREATE_BOARD = _examples(
    kivo=(
        "A scoreboard for a paper game of Kivo, 3 rounds",
        {"names": ["Ana", "Bo", "Cy"], "preset": "kivo", "rounds": 3},
    ),
    placement=(
        "Cabo scored by placement points over 5 rounds",
        {"names": ["Ana", "Bo", "Cy"], "placement": {"points": [5, 3, 1], "rounds": 5}},
    ),
)
ADD_ROUND = _examples(
    round=(
        "A round on revision 0: Bo called and was lowest",
        {"base": 0, "hand_totals": [12, 4, 20], "caller": 1},
    ),
)


def body(examples: Examples) -> Any:
    """The request body with ``examples`` in the OpenAPI description."""
    return Body(openapi_examples=examples)
