"""Bots: players that see only their seat's view and knowledge, never the full state.

``make_bot(level, seed)`` gives a player of one seat for one match; levels are ``LEVELS``.
"""

from .base import Bot, RandomBot, Reactive, SeatInfo, reads_events, seat_info
from .driver import next_action, play_match, play_round
from .feed import EventFeed
from .heuristic import HeuristicBot
from .learned import LearnedBot
from .profiles import Profile
from .registry import LEVELS, UnknownLevel, make_bot
from .search import ExpertBot

__all__ = [
    "LEVELS",
    "Bot",
    "EventFeed",
    "ExpertBot",
    "HeuristicBot",
    "LearnedBot",
    "Profile",
    "RandomBot",
    "Reactive",
    "SeatInfo",
    "UnknownLevel",
    "make_bot",
    "next_action",
    "play_match",
    "play_round",
    "reads_events",
    "seat_info",
]
