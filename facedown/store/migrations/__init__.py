"""Alembic migrations of the store's schema, run by :func:`facedown.store.migrate.upgrade`.

A new revision is a new file in ``versions/``, written by hand from ``script.py.mako`` with the
next number; ``tests/store/test_sql.py`` checks that the migrations build exactly the models of
:mod:`facedown.store.models`, on SQLite and PostgreSQL.
"""
