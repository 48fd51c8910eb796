"""The tables: where a match is played, one command at a time.

- ``table``: the actor that owns a match's engine state (:class:`~.table.Table`); its parts:
  ``seatcommands`` (the seats' commands that are not moves), ``moves`` (a move's checks),
  ``tablelog`` (its writes, its log's entries, rebuilding it from the log), ``fanout`` (what
  each audience is sent), ``deadlines`` (a turn-based table's misses and turn notices).
- ``context``: what every table of a process shares (:class:`~.context.TableContext`,
  :class:`~.context.TableConfig`).
- ``lobby``: the tables this process serves: found by code, made, brought back after a
  restart; its parts: ``creation`` (making a table), ``expiry``, ``claims`` (serving a table
  under its lease, handing one over) and ``locks`` (one lock per table id).
- ``seating``: who sits where, and who is host.
- ``presence``: who plays each seat now: a player on a connection, or a bot.
- ``scheduler``: a table's one timer: deadlines, grace periods, bot moves.
- ``defaults``: the move played for a player whose timer ran out.
- ``thinking``: where a bot chooses its move (a thread, or a process pool).
- ``ranked``: the ranked queues: matchmaking into tables of the lobby, rating their results
  (``rating``: a finished match rated from its stored log, once).

Its public surface is ``table``, ``context``, ``lobby`` and ``ranked``; used by ``edge`` and
``api``.  Imports ``base``, ``cluster``, ``transport``, ``modes`` and ``accounts``.
"""
