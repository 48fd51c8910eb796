"""Alembic's entry point for the store's migrations.

:func:`facedown.store.migrate.upgrade` hands over an open connection in
``config.attributes["connection"]``; the ``alembic`` command line passes only a URL, and then an
async engine is made here for the run.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from facedown.store.models import Base

config = context.config
target_metadata = Base.metadata


def run_on(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite cannot ALTER most things
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_on_url(url: str) -> None:
    engine = create_async_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(run_on)
    finally:
        await engine.dispose()


def run_offline(url: str) -> None:
    context.configure(url=url, target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    run_on(connection)
elif context.is_offline_mode():
    run_offline(config.get_main_option("sqlalchemy.url", ""))
else:
    asyncio.run(run_on_url(config.get_main_option("sqlalchemy.url", "")))
