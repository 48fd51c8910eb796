"""The store on SQLAlchemy 2 (async): SQLite in a file by default, PostgreSQL by URL.

One module per concern, each a subclass of :class:`~.core.SqlBase` (the engine, the writer, the
sessions and the store's clock), composed into :class:`~.store.SqlStore`:

- :mod:`.tables`: tables' records and seats, the lists of tables, guests' token floors;
- :mod:`.logs`: the append of log entries (the hot path) and the read of a log;
- :mod:`.leases`: leases, the fence of a leased write, the cluster's id;
- :mod:`.accounts`: users, the player ids they hold, their sessions;
- :mod:`.scoreboards`: paper games' scoreboards;
- :mod:`.mail`: what turn e-mails need;
- :mod:`.ranked`: ranked queues, matches and ratings.

The modules import one another in that order only (``core`` <- ``leases`` <- ``tables`` <-
``logs``, ``ranked``), never back.  Outside the store, use :mod:`facedown.store`.
"""

from .core import BeforeCommit
from .store import SqlStore, open_store

__all__ = ["BeforeCommit", "SqlStore", "open_store"]
