#!/usr/bin/env python3
"""A Facedown bot speaking the JSON-lines protocol: it plays a uniformly random legal action.

Standalone (standard library only).  Try it in a tournament:

    facedown sim --preset cabo --players 2 --bots "cmd:python examples/bots/random_bot.py,random"

One JSON object arrives per line on stdin; every message with an ``id`` wants exactly one JSON
object back on stdout, on one line, echoing the ``id``.  See docs/bots.md.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any


def reply(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # the driver waits for the line: never leave it in a buffer


def main() -> int:
    rng = random.Random()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            # A new game: forget everything and seed from the message, so a tournament replays.
            rng = random.Random(message["seed"])
            # "react": false (the default) means we are never offered out-of-turn taps.
            reply({"id": message["id"], "name": "example random bot", "react": False})
        elif kind == "decide":
            # "optional" decisions (taps out of turn) may be passed with {"action": null}.
            action = None if message["optional"] else rng.choice(message["legal"])
            reply({"id": message["id"], "action": action})
        elif kind == "over":
            pass  # the final view of a game: nothing to learn for a random player
        elif kind == "bye":
            break
        # Unknown message types are ignored: later protocol versions may add some.
    return 0


if __name__ == "__main__":
    sys.exit(main())
