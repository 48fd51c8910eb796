"""The tables (``server/play``): creating and playing them, timers, bots thinking, catch-up and
reconnection, what each seat and spectator is sent, and their durability (crashes, restarts,
backups, recovery)."""
