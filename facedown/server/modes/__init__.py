"""The kinds of table and what each changes: pure rules, no tables, no I/O of their own.

- ``modes``: a table's mode (live, turn-based, pass-and-play, ranked) and what it turns on.
- ``turnbased``: the move deadlines of turn-based tables, and when a seat is forfeited.
- ``ranked_mode``: what makes a table ranked: its mode, rules, host and forfeits.
- ``ratings``: OpenSkill ratings of ranked play, and the places of a finished match.
- ``matchmaking``: who plays whom in a ranked queue (pure functions of the queue).

Used by ``accounts`` (history), ``play`` (tables, lobby, ranked queues), ``edge`` (settings)
and ``api``; imports only ``base``.
"""
