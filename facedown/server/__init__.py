"""The game server: the HTTP API, the WebSocket for play, and the tables behind them.

Grouped by feature, in layers (each package may import only the ones below it; the table of
allowed arrows is in tests/test_packages.py):

- ``base``: the vocabulary every part shares (user text, limits, error codes, clock, addresses).
- ``cluster``: processes of one cluster (Redis pub/sub) and who owns which table (leases).
- ``transport``: how messages travel: the protocol's messages, the WebSocket frames, fan-out.
- ``modes``: what each kind of table changes (live, turn-based, ranked), ratings, matchmaking.
- ``accounts``: accounts, sessions, guest tokens, passwords, e-mail, a player's history.
- ``play``: the tables: the table actor, lobby, seating, presence, timers, bots, ranked queues.
- ``edge``: where the network meets play: settings, the shared state, the WebSocket endpoint,
  the cluster's relays, the guards in front of the routes, uvicorn's settings.
- ``api``: the HTTP routes by feature (accounts, games, ranked, replays, scoreboards,
  pass-and-play, mail links, the operator's endpoints).

``app`` (:func:`app.create_app`) sits above them all and wires them together; no package
imports it.  The command line (``facedown serve``) builds the app with ``app.create_app`` and
``edge.settings.ServerSettings``, and runs it under uvicorn with ``edge.serving``.
"""
