"""The HTTP API, one module per feature, each adding its routes to the app.

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
