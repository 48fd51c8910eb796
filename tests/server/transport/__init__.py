"""How messages travel (``server/transport``): the message decoder and the WebSocket protocol."""
