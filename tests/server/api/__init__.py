"""The HTTP routes (``server/api``): requests refused and accepted, operations, replays,
scoreboards, the OpenAPI examples."""
