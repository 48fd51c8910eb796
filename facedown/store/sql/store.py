"""The SQL store, whole: :class:`SqlStore` is made of the store's concerns on SQL, and
:func:`open_store` opens one on a migrated database.
"""

from __future__ import annotations

from ..database import make_engine
from ..migrate import upgrade_engine
from .accounts import AccountsSql
from .core import BeforeCommit
from .leases import LeasesSql
from .logs import LogsSql
from .mail import MailSql
from .ranked import RankedSql
from .scoreboards import ScoreboardsSql
from .tables import TablesSql


class SqlStore(TablesSql, LogsSql, LeasesSql, AccountsSql, ScoreboardsSql, MailSql, RankedSql):
    """The Store on an async SQLAlchemy engine; made by :func:`open_store`.

    Each base holds one concern (its module says how it is written); they share the engine,
    the writer and the sessions of :class:`~facedown.store.sql.core.SqlBase`.
    """


async def open_store(url: str, *, before_commit: BeforeCommit | None = None) -> SqlStore:
    """Open the database at ``url``, migrated to the newest schema first.

    ``url`` is ``sqlite:///path/to/facedown.db`` (the folder is created) or
    ``postgresql://user:password@host:port/database``; the async drivers are filled in.
    Raise StoreError when the database cannot be reached or migrated.  ``before_commit`` is
    for tests only (see :data:`~facedown.store.sql.core.BeforeCommit`).
    """
    engine = make_engine(url)
    try:
        await upgrade_engine(engine)
    except BaseException:
        await engine.dispose()
        raise
    return SqlStore(engine, before_commit=before_commit)
