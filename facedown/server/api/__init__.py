"""The HTTP API, one module per feature: each has an ``APIRouter`` (``router``) whose handlers
are plain module-level functions, with typed request and response models; the app includes them.

- ``deps``: what handlers take by ``Depends`` (the shared state, the client address), and
  ``refused``, the body of every refusal.
- ``tables``: /api/tables (create, look up, join, a seat), /api/session/rotate, presets, modes.
- ``account_routes``: /api/account (sign-up, sign-in, sessions, settings) and ``signed_in``.
- ``games``: an account's games, the ones waiting for its move marked.
- ``ranked_routes``: /api/ranked: queues and ratings.
- ``replays``: finished matches step by step, and links to share them.
- ``scoreboards``: boards for paper games, scored by the engine.
- ``passplay``: pass-and-play tables.
- ``mail_routes``: the two links of the e-mails (confirm, unsubscribe).
- ``ops``: liveness, readiness and the Prometheus metrics.

Only the app (``server/app.py``) imports these; they may import every other package.
"""
