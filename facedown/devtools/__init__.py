"""Tools for the project's own files: generated documentation and golden playthroughs.

- ``docs``: the documentation generated from the code (``facedown docs``).
- ``wire``: the web client's TypeScript types (``web/src/lib/wire.ts``), from the JSON Schema.
- ``playthrough``: golden playthroughs, one round with every seat's view at every step.

Used by the command line and the tests; nothing at run time imports it.
"""
