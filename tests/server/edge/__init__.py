"""Where the network meets play (``server/edge``): bad input over the WebSocket, limits per
address, slow clients, forwarded headers, nginx in front."""
