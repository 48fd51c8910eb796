"""Bots: players that see only their seat's view and knowledge, never the full state."""

from .base import Bot, RandomBot, SeatInfo, seat_info

__all__ = ["Bot", "RandomBot", "SeatInfo", "seat_info"]
