"""What every part of the server shares: the vocabulary, with no server package beneath it.

- ``text``: text from users (names, codes, ids), normalised and bounded.
- ``limits``: what requests are checked against, taken from the engine and the bots.
- ``errors``: every error code the server sends, and :class:`~.errors.TableError`.
- ``clock``: the time a table runs on (the wall clock, or one a test moves).
- ``addresses``: limits per client address, and which address a request counts against.
- ``metrics``: the Prometheus metrics of one process.
- ``examples``: example request bodies for the OpenAPI description.
- ``logs``: the server's log format (plain or JSON lines).
- ``testhooks``, ``crashhook``: hooks for tests (stacked deals, a crash inside a window).

Any server package may import any of these modules; they import no other server package.
"""
