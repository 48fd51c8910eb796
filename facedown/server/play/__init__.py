"""The tables: where a match is played, one command at a time.

- ``table``: the actor that owns a match's engine state (:class:`~.table.Table`).
- ``context``: what every table of a process shares (:class:`~.context.TableContext`,
  :class:`~.context.TableConfig`).
- ``lobby``: creating tables, finding them by code, bringing them back after a restart.
- ``seating``: who sits where, and who is host.
- ``presence``: who plays each seat now: a player on a connection, or a bot.
- ``scheduler``: a table's one timer: deadlines, grace periods, bot moves.
- ``defaults``: the move played for a player whose timer ran out.
- ``thinking``: where a bot chooses its move (a thread, or a process pool).
- ``ranked``: the ranked queues: matchmaking into tables of the lobby, rating their results.

Its public surface is ``table``, ``context``, ``lobby`` and ``ranked``; used by ``edge`` and
``api``.  Imports ``base``, ``cluster``, ``transport``, ``modes`` and ``accounts``.
"""
