"""Tournaments and the third-party bot protocol."""
