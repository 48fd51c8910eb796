"""Matches as records: a table's log, replays, and the scoreboards of paper games.

- ``matches``: a table's matches as its action log records them (seeded, dealt, read back).
- ``replay``: a finished match again, step by step, face up or through one seat's eyes.
- ``replay_text``: a replay printed in the terminal (``facedown replay``).
- ``paperboard``: a scoreboard for paper games: players, scoring and rounds.
- ``scoresheet``: ``facedown scoreboard``: one evening's paper game in the terminal.
- ``scorecase``: scoreboard cases worked by hand, checked against the engine.

Built on the engine alone (and each other); used by the server, the command line and tests.
"""
