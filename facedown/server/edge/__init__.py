"""Where the network meets play: settings, the shared state, and the WebSocket endpoint.

- ``settings``: :class:`~.settings.ServerSettings`: where data lives, the database, the limits.
- ``state``: :class:`~.state.ServerState`, what the HTTP routes and the WebSocket share.
- ``sockets``: the WebSocket: one reading loop per connection, one handler per message.
- ``connection``: one WebSocket client: its send queue, rate limit and identity.
- ``relay``: in a cluster, clients of this process playing at another process's table (the
  WebSocket's handlers are handed in by the app, so it does not import ``sockets``).
- ``guards``: what stands between the open network and the routes.
- ``serving``: uvicorn's settings and the bounds of serving on the open network.
- ``apidocs``: the plain ``/docs`` page of the HTTP API.

Used by ``api`` (``state``) and by the app; imports every package below it but ``api``.
"""
