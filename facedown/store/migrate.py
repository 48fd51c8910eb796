"""Schema migrations: bring a database to the newest revision (Alembic, shipped in the package)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from .database import (
    MIGRATION_IDLE_IN_TRANSACTION_SECONDS,
    database_errors,
    database_url,
    make_engine,
)

MIGRATIONS = Path(__file__).parent / "migrations"
# Taken for the length of an upgrade on PostgreSQL, so server processes that start together
# migrate one after the other.  Any constant works; this one is "fdown" in ASCII.
_ADVISORY_LOCK = 0x66646F776E


def alembic_config(url: str) -> Config:
    """An Alembic configuration for the shipped migrations, without an ini file."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # ConfigParser interpolates '%', which URL-escaped passwords contain.
    full = database_url(url).render_as_string(hide_password=False)
    config.set_main_option("sqlalchemy.url", full.replace("%", "%%"))
    return config


def _upgrade_on(connection: Connection, url: str) -> None:
    if connection.dialect.name == "postgresql":
        # The engine's sessions are ended after 2 s idle in a transaction; Alembic's own pauses
        # between this transaction's statements can be longer (for this transaction only).
        idle = str(int(MIGRATION_IDLE_IN_TRANSACTION_SECONDS * 1000))
        connection.execute(
            text("SELECT set_config('idle_in_transaction_session_timeout', :ms, true)"),
            {"ms": idle},
        )
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_LOCK})
    config = alembic_config(url)
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


async def upgrade_engine(engine: AsyncEngine) -> None:
    """Migrate the database behind ``engine`` to the newest revision, in one transaction."""
    url = engine.url.render_as_string(hide_password=False)
    with database_errors(engine.url):
        async with engine.begin() as connection:
            await connection.run_sync(_upgrade_on, url)


async def upgrade(url: str) -> None:
    """Migrate the database at ``url`` to the newest revision (``facedown db upgrade``)."""
    engine = make_engine(url)
    try:
        await upgrade_engine(engine)
    finally:
        with database_errors(engine.url):
            await engine.dispose()
