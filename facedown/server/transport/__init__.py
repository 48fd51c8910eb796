"""How messages travel to and from clients, independent of any table.

- ``protocol``: the WebSocket protocol's typed, versioned JSON messages (its public surface:
  the message models, ``parse_client_message``, ``encode`` and the schemas).
- ``wsprotocol``: the WebSocket protocol under uvicorn, with a short path for game frames.
- ``hub``: fan-out: how a table's messages reach the connections that watch it.

Used by ``play`` (a table publishes through its hub), ``edge`` and ``api``; imports only
``base``.
"""
