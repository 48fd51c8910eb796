"""Many server processes as one: their messages through Redis, and who owns each table.

- ``cluster``: the processes talking through Redis pub/sub (:class:`~.cluster.Node`).
- ``ownership``: which process owns each table: alone, or by a lease in the shared database.

Used by ``play`` (leases of tables), ``edge`` (the relays) and ``api`` (readiness).  Imports no
other server package.
"""
