"""Facedown: rules engine, bots, game server and client for face-down memory card games."""

__version__ = "0.1.0"
